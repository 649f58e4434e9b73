"""Adversarial: the CLI edge turns unreadable or unwritable files and non-UTF-8 input into one
line and exit status 2, never a traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from day_one_helpers import run_args
from factories import case, make_receipt
from factories import run_main as run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))
from run_helpers import SUITE  # noqa: E402


def test_site_out_below_a_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `driftproof reports build --out /proc/site` (any place a folder cannot be made)
    # ended in a FileNotFoundError traceback.
    receipts = tmp_path / "receipts"
    receipts.mkdir()
    (receipts / "r.json").write_text(
        json.dumps(make_receipt([case("c1", [0.9, 0.8, 0.85], [0.2, 0.3, 0.25])])), encoding="utf-8"
    )
    (tmp_path / "reports").mkdir()
    blocker = tmp_path / "a-file"
    blocker.write_text("keep", encoding="utf-8")
    code, _, err = run(
        [
            "reports",
            "build",
            "--receipts",
            str(receipts),
            "--reports",
            str(tmp_path / "reports"),
            "--out",
            str(blocker / "site"),
        ],
        capsys,
    )
    assert code == 2
    assert "Traceback" not in err
    assert err.startswith(f"error: {blocker}: ")  # mkdir of its parent fails: "File exists"
    assert len(err.strip().splitlines()) == 1
    assert blocker.read_text(encoding="utf-8") == "keep"


def test_skill_md_not_utf8_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Found: `driftproof run suite.json --skill SKILL.md` with a Latin-1 SKILL.md ended in a
    # UnicodeDecodeError traceback (cli/run.py reads it with read_text).
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE), encoding="utf-8")
    skill = tmp_path / "SKILL.md"
    skill.write_bytes("caf\u00e9 skill".encode("latin-1"))
    out = tmp_path / "r.json"
    code, _, err = run(
        run_args(suite, skill, out),
        capsys,
    )
    assert code == 2
    assert "Traceback" not in err
    assert "expected UTF-8 text, found an invalid byte at offset 3" in err
    assert not out.exists()


def test_lone_surrogate_in_an_imported_file_is_repaired(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `driftproof import promptfoo` of an export whose text holds "\ud800" (valid JSON,
    # no Unicode text) ended in a UnicodeEncodeError traceback, exit 1. Issue 14: such text is
    # made valid (U+FFFD) and the substitution recorded in text_repairs, the receipt's pointer.
    export = {
        "evalId": "e",
        "results": {
            "version": 3,
            "timestamp": "2025-10-01T20:08:11.168Z",
            "prompts": [],
            "results": [
                {
                    "provider": {"id": "a", "label": "a"},
                    "prompt": {"raw": "Q\ud800", "label": "q"},
                    "vars": {},
                    "response": {"output": "x"},
                    "score": 1,
                    "success": True,
                    "testCase": {"description": "t"},
                },
                {
                    "provider": {"id": "b", "label": "b"},
                    "prompt": {"raw": "Q\ud800", "label": "q"},
                    "vars": {},
                    "response": {"output": "y"},
                    "score": 0,
                    "success": False,
                    "testCase": {"description": "t"},
                },
            ],
        },
    }
    src = tmp_path / "export.json"
    src.write_text(json.dumps(export), encoding="utf-8")  # json.dumps spells it "\\ud800"
    out = tmp_path / "receipts"
    code, _, err = run(
        [
            "import",
            "promptfoo",
            str(src),
            "--arm",
            "with_skill=a",
            "--arm",
            "baseline=b",
            "--skill-name",
            "s",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert "Traceback" not in err
    assert code == 0, err
    from driftproof.receipt import read_receipt

    (written,) = out.glob("*.json")
    r = read_receipt(written)
    assert r.cases[0].prompt == "Q\ufffd"
    assert [(t.pointer, t.replaced) for t in r.text_repairs or []] == [("/cases/0/prompt", 1)]


def test_demo_names_its_folder_with_controls_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: `driftproof demo "$(printf 'd\x1b]0;T\x07')"` printed "Wrote d<ESC>]0;T<BEL>/: …":
    # on a terminal the escape retitled the window (click strips such codes only off one).
    import driftproof.demo

    monkeypatch.setattr(driftproof.demo, "run_demo", lambda folder, force: "")
    folder = tmp_path / "d\x1b]0;T\x07\u202e"
    code, out, err = run(["demo", str(folder)], capsys)
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert out.startswith(f"Wrote {tmp_path}/d\\x1b]0;T\\x07\\u202e/: ")


def test_the_resume_command_quotes_controls_so_a_shell_gives_them_back() -> None:
    # Found: a run stopped by Ctrl-C printed its resume command with shlex's quotes alone, so an
    # --out holding an escape sequence sent it to the terminal raw. Such an argument is quoted
    # $'…', each unsafe character as its UTF-8 bytes (U+202E: e2 80 ae, U+0085: c2 85; a byte of
    # a name that is no UTF-8 as itself); bash reads the line back into the same arguments.
    import os
    import shutil
    import subprocess

    from driftproof.cli.run import resume_command

    args = ("run", "s.json", "--out", "r\x1b]0;T\x07 'q' \\ \u202e\x85\udcff.json")
    line = resume_command(args)
    assert line == (
        "driftproof run s.json --out "
        "$'r\\x1b]0;T\\x07 \\'q\\' \\\\ \\xe2\\x80\\xae\\xc2\\x85\\xff.json'"
    )
    # no control: quoted as shlex quotes it, also where the terminal's escaping changes "::"
    assert resume_command(("--out", "::x ##[y")) == "driftproof --out '::x ##[y'"
    bash = shutil.which("bash")
    if bash is not None:  # the shell the line is for reads it back, in the C locale too
        said = subprocess.run(
            [bash, "-c", f"printf '%s\\0' {line}"],
            capture_output=True,
            check=True,
            env={**os.environ, "LC_ALL": "C"},
        ).stdout
        assert said.split(b"\0")[:-1] == [os.fsencode(a) for a in ("driftproof", *args)]


def test_validate_shows_a_judge_named_with_controls_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `validate` of a simulated receipt regraded by a judge whose provider names a right-
    # to-left override and a line break printed both raw in its "ok" line (view escapes them)
    from receipt_docs import seal_document

    doc = make_receipt([case("c1", [0.9, 0.8, 0.85], [0.2, 0.3, 0.25])], level="UNVERIFIED")
    doc["run"]["provider"] = "simulated"
    doc["judge"]["provider"] = "x\u202eevil\r\nline2"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    code, out, _ = run(["validate", str(path)], capsys)
    assert code == 0
    assert out.count("\n") == 1 and "\u202e" not in out and "\r" not in out
    assert "the x\\u202eevil\\x0d\\x0aline2 judge scored them" in out
