"""What the run command refuses in its arguments before any call: numbers that are not finite,
empty model ids, a skill file that is not UTF-8 or too large, control characters shown.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from driftproof.cli.run import run as run_cmd


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        # nan passed click's bounds (every comparison with it is false): the run went on and
        # ended in a traceback, leaving its journal
        ("--margin", "nan", "'nan' is not a finite number"),
        ("--timeout", "nan", "'nan' is not a finite number"),
        ("--judge-timeout", "inf", "'inf' is not a finite number"),
        ("--batch-poll-interval", "nan", "'nan' is not a finite number"),
        # "" ran and sealed run.model ""; on claude -p every modelUsage key "contains" it
        ("--model", "", "expected a model id, found a blank one"),
        ("--model", "  ", "expected a model id, found a blank one"),
        ("--judge-model", "", "expected a model id, found a blank one"),
        ("--judge-model", "  ", "expected a model id, found a blank one"),
        # a zero-width space (U+200B), a byte-order mark (U+FEFF) and a word joiner (U+2060)
        # show as nothing, and were taken as a name or an instruction: only what str.isspace
        # calls white space was blank
        ("--model", "\u200b", "expected a model id, found a blank one"),
        ("--skill-name", "\ufeff \u2060", "expected the skill's name, found a blank one"),
        ("--control", "\u200b", "expected an instruction, found a blank one"),
        # a line break in --skill-name was kept, and published in the receipt as the skill's
        # name; the line feed is the 4th character
        (
            "--skill-name",
            "cav\neman",
            "expected the skill's name on one line, with no control "
            "character; found U+000A at character 4",
        ),
        (
            "--skill-name",
            "a\tb",
            "expected the skill's name on one line, with no control "
            "character; found U+0009 at character 2",
        ),
    ],
)
def test_a_run_option_refuses_a_bad_value_before_any_call(
    suite_file, skill_file, tmp_path, option, value, words
):
    out = tmp_path / "r.json"
    res = CliRunner().invoke(
        run_cmd,
        [str(suite_file), "--skill", str(skill_file), "--model", "m", "--out", str(out)]
        + ["--provider", "simulated", option, value],
    )
    assert res.exit_code == 2, res.output
    # click quotes an option it checks itself; one the run checks is named as given
    said = {f"Invalid value for {hint}: {words}" for hint in (f"'{option}'", option)}
    assert any(s in res.output for s in said), res.output
    assert list(tmp_path.glob("r.json*")) == []


def test_run_shows_control_and_bidi_characters_instead_of_sending_them(suite_file, tmp_path):
    # the skill's name, the model and the answers reach the terminal: an ESC or a right-to-left
    # override in them was printed raw (a colour, a window title, reversed text); a skill's name
    # holding an ESC is refused (tests/run/test_skill_name.py), a right-to-left override is not
    skill = tmp_path / "SKILL.md"
    skill.write_text('---\nname: "s red \\u202e"\n---\nBe brief.\n', encoding="utf-8")
    model = "m\x1b]0;PWNED\x07"
    args = [str(suite_file), "--skill", str(skill), "--model", model, "--out"]
    res = CliRunner().invoke(
        run_cmd, [*args, str(tmp_path / "r.json"), "--provider", "simulated", "--quick"]
    )
    assert res.exit_code in (0, 4), res.output
    assert "\x1b" not in res.output and "\x07" not in res.output and "\u202e" not in res.output
    assert "s red \\u202e on m\\x1b]0;PWNED\\x07" in res.output.replace("\n", "")


def test_a_skill_that_is_not_utf8_or_too_large_is_refused_naming_it(suite_file, tmp_path):
    # a bad byte was "expected UTF-8 text, …" naming no file; a 2 GB file was read whole
    bad, big = tmp_path / "bad.md", tmp_path / "big.md"
    bad.write_bytes(b"ok\n\xff")
    with big.open("wb") as fh:
        fh.truncate(32 * 1024 * 1024 + 1)  # one byte past the suite's bound, sparse
    for skill, why in (
        (bad, "expected UTF-8 text, found an invalid byte at offset 3"),
        (big, "expected at most 33554432 bytes"),
    ):
        args = [str(suite_file), "--skill", str(skill), "--model", "m", "--provider", "simulated"]
        res = CliRunner().invoke(run_cmd, [*args, "--out", str(tmp_path / "r.json")])
        assert res.exit_code == 2 and f"{skill}: {why}" in " ".join(res.output.split()), res.output
    assert not (tmp_path / "r.json").exists()


def test_an_empty_skill_is_refused_naming_it(suite_file, tmp_path):
    # an empty SKILL.md ran and was measured as 1 skill token, "+1000.000 per 1,000 skill tokens"
    # a byte-order mark alone is an empty file as an editor saves it (Notepad, UTF-8 with BOM)
    for text, found in (
        ("", "an empty file"),
        ("\n  \t\n", "only whitespace"),
        ("\ufeff", "an empty file"),
        ("\ufeff\r\n", "only whitespace"),
    ):
        skill = tmp_path / "SKILL.md"
        skill.write_text(text, encoding="utf-8")
        args = [str(suite_file), "--skill", str(skill), "--model", "m", "--provider", "simulated"]
        res = CliRunner().invoke(run_cmd, [*args, "--out", str(tmp_path / "r.json")])
        why = f"{skill}: expected the skill's instructions, found {found}: no skill to measure"
        assert res.exit_code == 2 and why in " ".join(res.output.split()), res.output
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["stale", "R", "--model", ""],  # "" read as a model today: "run again" instead of unknown
        ["stale", "R", "--judge-model", " "],
        [
            "regrade",
            "R",
            "--rubric",
            "S",
            "--judge-provider",
            "stub",
            "--judge-model",
            " ",
            "--out",
        ],
    ],
)
def test_stale_and_regrade_refuse_an_empty_model_id_as_run_does(suite_file, tmp_path, argv):
    from driftproof.cli import cli

    receipt = Path(__file__).resolve().parents[2] / "receipts" / "caveman-2b10489-caveman.json"
    given = {"R": str(receipt), "S": str(suite_file), "--out": f"--out={tmp_path / 'g.json'}"}
    res = CliRunner().invoke(cli, [given.get(a, a) for a in argv])
    assert res.exit_code == 2, res.output
    assert "expected a model id, found a blank one" in res.output
    assert not (tmp_path / "g.json").exists()


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("  ", "expected the skill's name, found a blank one"),
        ("\u200b", "expected the skill's name, found a blank one"),
        ("a\rb", "expected the skill's name on one line, with no control character; found U+000D"),
    ],
)
def test_import_refuses_a_skill_name_in_the_words_run_does(suite_file, tmp_path, name, words):
    # import said "found an empty one" where run said "found a blank one", and kept a name with
    # a line break that run now refuses
    from driftproof.cli import cli

    runs = {
        "run": [str(suite_file), "--skill", str(tmp_path / "SKILL.md"), "--model", "m"]
        + ["--provider", "simulated", "--out", str(tmp_path / "r.json")],
        # any file: the option is refused before it is read
        "import": ["promptfoo", str(suite_file), "--arm", "with_skill=a"]
        + ["--out-dir", str(tmp_path / "o")],
    }
    (tmp_path / "SKILL.md").write_text("Be brief.\n", encoding="utf-8")
    for command, argv in runs.items():
        res = CliRunner().invoke(cli, [command, *argv, "--skill-name", name])
        assert res.exit_code == 2, res.output
        assert f"Error: Invalid value for --skill-name: {words}" in res.output, command
    assert not (tmp_path / "o").exists() and list(tmp_path.glob("r.json*")) == []
