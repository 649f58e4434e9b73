"""A path a command prints is untrusted text: ESC and BEL reach the terminal escaped.

``import``, ``export`` and ``reports build`` printed "wrote PATH" / "built PATH" raw, so a folder
named ``o\\x1b]0;x\\x07`` set the terminal's title (badge and regrade were mended first).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import run_main

REPO = Path(__file__).resolve().parents[2]
NEBIUS = REPO / "receipts" / "skill-creator-nebius-skills-iteration-1-12a0aae8.json"
HOSTILE = "o\x1b]0;x\x07"
SHOWN = "o\\x1b]0;x\\x07"


def _said(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code, said, err = run_main(argv, capsys)
    assert code == 0, err
    assert "\x1b" not in said and "\x07" not in said
    return said


def test_import_export_and_reports_build_print_paths_escaped(
    tmp_path: Path, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / HOSTILE
    out.mkdir()
    said = _said(["export", "summary-json", str(NEBIUS), "--out", str(out / "s.json")], capsys)
    assert said.startswith(f"wrote {tmp_path}/{SHOWN}/s.json\nGive {tmp_path}/{SHOWN}/s.json to ")
    assert said.endswith(
        f"summary-json '{tmp_path}/{SHOWN}/s.json' reads it back as a DECLARED receipt.\n"
    )
    src = shared / "data/interop/skill-creator/nebius-skills-workspace"
    said = _said(["import", "skill-creator", str(src), "--out-dir", str(out / "r")], capsys)
    assert said.startswith(f"wrote {tmp_path}/{SHOWN}/r/")
    # a newcomer's issue: import said where the receipt went, not how to read it
    # the path to copy as a shell reads it back: each unsafe character as its byte, in $'…'
    assert f"\nnext: driftproof view $'{tmp_path}/o\\x1b]0;x\\x07/r/" in said
    assert said.endswith(".json' to read it\n")
    receipts = tmp_path / "receipts"
    receipts.mkdir()
    (tmp_path / "none").mkdir()
    (receipts / NEBIUS.name).write_bytes(NEBIUS.read_bytes())
    site = out / "site"
    argv = ["reports", "build", "--receipts", str(receipts), "--reports", str(tmp_path / "none")]
    said = _said([*argv, "--out", str(site)], capsys)
    assert said.startswith(f"built the site in the folder {tmp_path}/{SHOWN}/site: ")
    assert said.endswith(f"; open {tmp_path}/{SHOWN}/site/index.html to read it\n")


def test_import_names_its_receipt_as_a_shell_and_a_ci_log_read_it(
    tmp_path: Path,
    shared: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Found: "--out-dir -r" gave "next: driftproof view -r/….json", an option when copied; and
    # once quoted for a shell, the next: line gave "##[" and "::" after a space raw, which a
    # GitHub Actions runner reads in a logged line as a workflow command: shown as the wrote
    # line shows them ("#\x23[", ":\x3a")
    monkeypatch.chdir(tmp_path)
    src = shared / "data/interop/skill-creator/nebius-skills-workspace"
    for folder, shown in (
        ("-r", "./-r/"),
        ("my r", "'my r/"),
        ("##[error]x", "'#\\x23[error]x/"),
        ("::error::y", ":\\x3aerror::y/"),
    ):
        said = _said(["import", "skill-creator", str(src), "--out-dir", folder], capsys)
        assert "##[" not in said and " ::" not in said
        assert said.startswith(f"wrote {folder}/") == (folder[0] not in "#:")
        assert f"\nnext: driftproof view {shown}" in said
