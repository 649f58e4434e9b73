"""Adversarial: ``driftproof stale`` with hostile files, binaries and receipt text."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from factories import case, make_receipt
from factories import run_main as run
from receipt_docs import seal_document

from driftproof.render.escape import terminal_safe

SKILL = "# Skill\nline two\n"


def receipt(tmp_path: Path) -> Path:
    doc = make_receipt([case("c1", [0.9, 0.95, 0.92], [0.3, 0.35, 0.32])], skill_text=SKILL)
    doc["run"]["harness"] = {"name": "claude-code", "version": "2.1.97 (Claude Code)"}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    return path


def skill_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("- skill:"))


def test_crlf_skill_md_is_not_a_changed_skill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `driftproof run` hashes SKILL.md as read in text mode (CRLF -> LF, the text the model
    # is sent) while `stale --skill` hashed the raw bytes, so the same CRLF file read "run again:
    # the skill changed".
    r = receipt(tmp_path)
    crlf = tmp_path / "SKILL.md"
    crlf.write_bytes(SKILL.replace("\n", "\r\n").encode("utf-8"))
    code, out, err = run(["stale", str(r), "--skill", str(crlf)], capsys)
    assert ": unchanged (" in skill_line(out), out
    changed = tmp_path / "SKILL2.md"
    changed.write_bytes((SKILL + "one more line\n").encode("utf-8"))
    code, out, err = run(["stale", str(r), "--skill", str(changed)], capsys)
    assert "run again: the skill changed" in skill_line(out)


def test_endless_file_is_refused_not_read_forever(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `stale r.json --skill /dev/zero` never returned (the whole file was read into memory).
    # It is refused at run's bound, in run's words.
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    code, _, err = run(["stale", str(receipt(tmp_path)), "--skill", "/dev/zero"], capsys)
    assert code == 2
    assert "/dev/zero: expected at most 33554432 bytes" in err


@pytest.mark.parametrize(
    ("option", "data", "why"),
    [
        ("--skill", b"ok\n\xff", "expected UTF-8 text, found an invalid byte at offset 3"),
        (
            "--skill",
            b"",
            "expected the skill's instructions, found an empty file: no skill to measure",
        ),
        ("--suite", b"ok\n\xff", "expected UTF-8 text, found an invalid byte at offset 3"),
        (
            "--suite",
            b"",
            "expected UTF-8 JSON (or YAML for .yaml/.yml): Expecting value at line 1 column 1",
        ),
        (
            "--suite",
            b'{"format": "driftproof-suite/1", "cases": []}',
            "/cases: expected a non-empty list of cases",
        ),
    ],
)
def test_files_run_refuses_are_refused_in_its_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, data: bytes, why: str
) -> None:
    # Found: stale hashed any file, so one run refuses read "run again: the suite changed" (exit 1)
    path = tmp_path / "f.json"
    path.write_bytes(data)
    code, out, err = run(["stale", str(receipt(tmp_path)), option, str(path)], capsys)
    assert (code, out) == (2, ""), out
    assert f"{path}: {why}" in " ".join(err.split())


def test_harness_binary_printing_bytes_that_are_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: a harness binary whose --version output is not UTF-8 crashed with UnicodeDecodeError.
    if os.name != "posix":
        pytest.skip("needs a POSIX shell")
    script = tmp_path / "claude"
    script.write_bytes(b"#!/bin/sh\nprintf '\\377\\376 2.1.97 (Claude Code)'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    code, out, err = run(["stale", str(receipt(tmp_path)), "--harness-binary", str(script)], capsys)
    assert "Traceback" not in err
    assert code in (0, 1), err
    line = next(x for x in out.splitlines() if x.startswith("- harness version:"))
    assert line.endswith("today \ufffd\ufffd 2.1.97 (Claude Code) -> still stands: unchanged"), line


def test_escape_sequences_from_the_receipt_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: stale's text printed the receipt's recorded values as they were; an ESC sequence
    # in a harness name (clear screen, OSC 8 hyperlink) went to the terminal.
    doc = make_receipt([case("c1", [0.9, 0.95, 0.92], [0.3, 0.35, 0.32])])
    doc["run"]["harness"] = {"name": "h\x1b[2J\x1b]8;;http://x\x07y\u202e", "version": "1.0\r"}
    path = tmp_path / "esc.json"
    path.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    code, out, err = run(["stale", str(path), "--harness", "claude-code"], capsys)
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out and "\u202e" not in out
    assert "h\\x1b[2J\\x1b]8;;http://x\\x07y\\u202e" in out


def test_terminal_safe_keeps_ordinary_text() -> None:
    assert terminal_safe("café 日本 ± → ok") == "café 日本 ± → ok"
    assert terminal_safe("a\tb\nc\x7f\x9b") == "a\\x09b\\x0ac\\x7f\\x9b"
    assert terminal_safe("\u2066x\u2069\u2028") == "\\u2066x\\u2069\\u2028"


def test_a_harness_binary_printing_endlessly_is_refused_at_the_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: --harness-binary read the binary's output with no limit for up to 30 s (24 GB)
    import driftproof.run.providers.cli as lane

    monkeypatch.setattr(lane, "OUTPUT_MAX_BYTES", 2**20)  # 1 MiB: the test stays small
    script = tmp_path / "bin" / "claude"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\nexec yes 2.1.97\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    code, out, err = run(["stale", str(receipt(tmp_path)), "--harness-binary", "claude"], capsys)
    assert (code, out) == (2, "")
    assert (
        "cannot read the harness version from 'claude': claude printed more than 1,048,576 bytes "
        "(1 MiB), the most one call may print; the rest unread"
    ) in " ".join(err.split())
