"""Each report's "Reproduce it" commands run as printed, from the repository's root.

A newcomer ran report 001's command and got "4 file(s) already exist and were not replaced": it
wrote into ``receipts/``, where the published receipts already are. Expected: every command
exits 0 and writes receipts of the names and figures the report publishes (the
receipts the report's front matter lists).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from site_fixtures import REPO

from driftproof.cli import main


def _commands(report: Path) -> list[list[str]]:
    """The commands of the report's first code block that holds one."""
    blocks = report.read_text(encoding="utf-8").split("```")[1::2]
    block = next(b for b in blocks if "\ndriftproof " in b).replace("\\\n", " ")
    return [shlex.split(line) for line in block.splitlines() if line.startswith("driftproof ")]


# 002 to 004 wrote into receipts/ as printed and were refused there (a newcomer's finding)
@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "reports").glob("0*.md")))
def test_a_reports_reproduce_commands_run_as_printed(shared, tmp_path, monkeypatch, name) -> None:
    report = REPO / "reports" / name
    commands = _commands(report)
    assert commands, "the report prints no command"
    (tmp_path / "receipts").symlink_to(REPO / "receipts")  # as from the repository's root
    monkeypatch.chdir(tmp_path)  # the output folder it names is made here, not in the checkout
    for argv in commands:
        argv = [a.replace("../shared", str(shared)) for a in argv[1:]]
        try:
            main(argv)  # returns on success; exits 2 on a refusal
        except SystemExit as exc:
            pytest.fail(f"{argv} exited {exc.code}")
    front = report.read_text(encoding="utf-8").split("---")[1].split("\nsections:")[0]
    published = {f"{n}.json" for n in re.findall(r"^  - ([\w.-]+)$", front, re.M)}
    written = {p.name for p in (tmp_path / "reproduced").glob("*.json")}
    assert published and published <= written
    for f in published:
        a = json.loads((REPO / "receipts" / f).read_text(encoding="utf-8"))
        b = json.loads((tmp_path / "reproduced" / f).read_text(encoding="utf-8"))
        assert a["cases"] == b["cases"], f
