"""Error lines show a file name's control characters escaped, as every untrusted string is.

Probe (round 4): a path holding ``ESC ] 0 ; ... BEL`` and a newline set the terminal's title and
split the one-line error over two lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import run_main


def test_a_control_character_in_a_path_is_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "a\x1b]0;PWNED\x07\nb.json"
    bad.write_text("{", encoding="utf-8")
    code, out, _ = run_main(["validate", str(bad)], capsys)  # validate reports on stdout
    assert code == 2  # not JSON: bad input
    assert "\x1b" not in out and "\x07" not in out
    assert out.count("\n") == 1  # one line
    assert "a\\x1b]0;PWNED\\x07\\x0ab.json" in out
    code, _, err = run_main(
        ["import", "skill-eval-harness", str(bad), "--out-dir", str(tmp_path / "o")], capsys
    )
    assert code == 2
    assert "\x1b" not in err and "\x07" not in err and err.count("\n") == 1
    assert "a\\x1b]0;PWNED\\x07\\x0ab.json" in err


def test_a_usage_error_says_error_as_every_refusal_does_its_controls_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # click's own line read "Error: Got unexpected extra argument (b<ESC>]0;PWNED<BEL>)", the
    # escape as given; the CLI's own refusals read "error: ..." (one word for one thing)
    code, _, err = run_main(["view", "a.json", "b\x1b]0;PWNED\x07"], capsys)
    assert code == 2
    usage, hint, blank, line = err.splitlines()
    assert (usage, blank) == ("Usage: driftproof view [OPTIONS] RECEIPT", "")
    assert line == "error: Got unexpected extra argument (b\\x1b]0;PWNED\\x07)"
    code, _, err = run_main(["view", str(tmp_path / "none.json")], capsys)
    assert (code, err) == (
        2,
        f"error: {tmp_path / 'none.json'}: cannot read: No such file or directory\n",
    )


def test_a_usage_error_holding_a_colour_code_says_error_its_code_escaped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # an SGR sequence (ESC [ 31 m) in the extra argument: click drops it from the line it writes
    # to a file that is no terminal, so its line no longer ended with the message as given and
    # read "Error: Got unexpected extra argument (bred)", the sequence gone, not escaped
    code, _, err = run_main(["view", "a.json", "b\x1b[31mred"], capsys)
    assert code == 2
    assert err.splitlines()[-1] == "error: Got unexpected extra argument (b\\x1b[31mred)"


def test_a_missing_choice_option_lists_its_choices_on_the_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # click lays the choices out as "Choose from:\n\tanthropic,\n\topenai,...": escaped as an
    # untrusted string, the newlines and tabs read "\x0a\x09" on the one error line
    for name in ("SKILL.md", "suite.json"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    args = ["run", str(tmp_path / "suite.json"), "--skill", str(tmp_path / "SKILL.md")]
    args += ["--model", "m"]
    code, _, err = run_main(args, capsys)
    assert code == 2
    assert err.splitlines()[-1] == (
        "error: Missing option '--provider'. Choose from: anthropic, openai, stub, simulated"
    )
