"""A suite's label longer than the 200 characters a receipt holds ends in a mark where it is cut.

Found (round 14): a caveman-format check, named by its pattern, and a suite named by its file's
name were cut to their first 200 characters, saying nothing; each is now its first 199
characters and "…".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import run_main
from run_helpers import SUITE, run_args

from driftproof.receipt import read_receipt
from driftproof.run.suite import load_suite


def test_a_check_named_by_a_long_pattern(tmp_path: Path) -> None:
    case = {"id": "c1", "category": "x", "prompt": "p", "checks": {"must_include": ["a" * 300]}}
    path = tmp_path / "fidelity.json"
    path.write_text(json.dumps({"cases": [case]}), encoding="utf-8")
    (check,) = load_suite(path).cases[0].checks
    # "must_include #1: " is 17 characters, so 182 of the pattern's fit before the mark
    assert check.name == "must_include #1: " + "a" * 182 + "…"


def test_a_suite_named_by_a_long_file_name(
    tmp_path: Path, skill_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = {k: v for k, v in SUITE.items() if k != "name"} | {"cases": SUITE["cases"][:1]}
    path = tmp_path / ("s" * 240 + ".json")  # no name given: the suite is named by the file's
    path.write_text(json.dumps(suite), encoding="utf-8")
    out = tmp_path / "r.json"
    code, _, err = run_main([*run_args(path, skill_file)[:7], "stub", "--out", str(out)], capsys)
    assert code == 0, err
    assert read_receipt(out).suite.name == "s" * 199 + "…"


def test_a_regrade_suite_named_by_a_long_file_name(
    tmp_path: Path, skill_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = {**SUITE, "cases": SUITE["cases"][:1]}
    first, out, rg = tmp_path / "suite.json", tmp_path / "r.json", tmp_path / "rg.json"
    first.write_text(json.dumps(suite), encoding="utf-8")
    argv = [*run_args(first, skill_file)[:7], "stub", "--out", str(out), "--keep-transcripts"]
    assert run_main(argv, capsys)[0] == 0
    revised = tmp_path / ("s" * 240 + ".json")  # no name given: named by the file's
    revised.write_text(json.dumps({k: v for k, v in suite.items() if k != "name"}), "utf-8")
    argv = ["regrade", str(out), "--rubric", str(revised)]
    code, _, err = run_main([*argv, "--out", str(rg)], capsys)
    assert code == 0, err
    assert read_receipt(rg).suite.name == "s" * 199 + "…"
