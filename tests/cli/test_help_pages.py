"""What a newcomer reads in the commands' --help: run's options before its long rules and
endings table (they started at line 102 of 201), a description of regrade's --openai-api, and
what each of stale's statuses means and which change gives it."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import click
from click.testing import CliRunner
from factories import run_main

from driftproof.cli import cli
from driftproof.run.endings import table_lines


def _help(command: str) -> list[str]:
    cmd = getattr(importlib.import_module(f"driftproof.cli.{command}"), command)
    r = CliRunner().invoke(cmd, ["--help"], terminal_width=80, prog_name=f"driftproof {command}")
    assert r.exit_code == 0, r.output
    return r.output.splitlines()


def test_run_help_shows_its_options_before_the_rules_and_the_endings_table():
    lines = _help("run")
    options = lines.index("Options:")
    assert options < 15  # usage, the one-line summary, one paragraph on what it does
    assert lines[options + 1].split()[0] == "--skill"
    after = [ln.strip() for ln in lines[options:]]
    heads = ("Budgets:", "The skill reached", "Error classes:", "Exit status:", "Stopping rule:")
    for head in heads:
        assert any(ln.startswith(head) for ln in after), head
    # the table, every line of it, at the end
    table = table_lines()
    assert [ln.strip() for ln in lines[-len(table) :]] == [ln.strip() for ln in table]
    assert "Complete endings, and the class of every other ending, per lane:" in after


def test_regrade_help_describes_openai_api():
    text = "\n".join(_help("regrade"))
    m = re.search(r"--openai-api \[responses\|chat\]\s+(.*?)\n\s+--judge-provider", text, re.S)
    assert m is not None
    said = " ".join(m.group(1).split())
    assert said.startswith("OpenAI judge only: the API shape it calls.")
    assert "usually need chat" in said
    # no fixed default: the original's recorded shape is called unless the option is given
    assert "[default:" not in said and "as the receipt records it" in said


def test_stale_help_says_what_each_status_means_and_which_change_gives_it():
    flat = " ".join(" ".join(_help("stale")).split())
    words = {  # in the order the help gives them, before the exit status
        "still stands:": ("nothing it depends on changed", "patch release"),
        "regrade only:": ("judge model", "prompt template", "rubric", "driftproof regrade"),
        "run again:": ("the model", "the harness", "capture mode", "the skill", "prompt"),
        "unknown:": ("not recorded in the receipt", "not given here", "never read as unchanged"),
    }
    starts = [flat.index(status) for status in words] + [flat.index("Exit 0 when")]
    assert starts == sorted(starts)
    for (status, needles), start, end in zip(words.items(), starts, starts[1:], strict=False):
        for needle in needles:
            assert needle in flat[start:end], (status, needle)


def test_regrade_help_says_a_plain_judge_regrade_also_takes_rubric():
    flat = " ".join(" ".join(_help("regrade")).split())
    judge = flat[flat.index("--judge-provider [") : flat.index("--judge-samples")]
    assert "--rubric" in judge  # the receipt keeps only the rubrics' hashes
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    row = next(ln for ln in readme.splitlines() if ln.startswith("| `driftproof regrade "))
    assert "plain judge regrade, which still takes `--rubric`" in row


def test_every_format_option_is_described():
    for command in ("plan", "stale", "view", "diff"):
        line = next(ln for ln in _help(command) if ln.strip().startswith("--format "))
        assert "Output format." in line, (command, line)


def test_each_json_format_help_says_a_refusal_prints_nothing_on_stdout(tmp_path, capsys):
    # Found: with --format json, a refusal printed nothing on stdout (the error on stderr, exit
    # 2), which no --help said; a program reading the JSON needs to know. Each says so, and does
    missing = str(tmp_path / "missing.json")
    for command, args in (
        ("view", [missing]),
        ("plan", [missing]),
        ("stale", [missing]),
        ("diff", [missing, missing]),
    ):
        flat = " ".join(" ".join(_help(command)).split())
        said = flat[flat.index("--format [") :]
        assert "With json, " in said and "prints nothing on standard output" in said, command
        assert "the error is on standard error, exit status 2" in said, command
        code, out, err = run_main([command, "--format", "json", *args], capsys)
        assert (code, out) == (2, "") and err.startswith("error: "), command
    flat = " ".join(" ".join(_help("diff")).split())
    assert "a comparison with no verdict is printed, exit status 5." in flat


def test_import_and_export_list_each_subcommand_whole():
    from driftproof.cli.export import export
    from driftproof.cli.import_ import import_group

    for group in (import_group, export):
        r = CliRunner().invoke(group, ["--help"], terminal_width=80)
        listed = r.output.split("Commands:")[1].splitlines()[1:]
        assert len(listed) == len(group.commands), r.output  # one line each, none wrapped
        assert not [ln for ln in listed if ln.endswith("...")], r.output


def test_regrade_help_gives_its_exit_statuses_as_the_readme_does():
    flat = " ".join(" ".join(_help("regrade")).split())
    said = flat[flat.index("Exit status:") : flat.index("Options:")]
    for words in ("0 when the new receipt is written", "2 when the regrade is refused", "130 when"):
        assert words in said, words
    assert "4 when an arm of the new receipt has no scored draw" in said
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    row = next(ln for ln in readme.splitlines() if ln.startswith("| `driftproof regrade "))
    assert "exits 4 when an arm of the new receipt has no scored draw" in row


def test_reports_build_help_names_its_site_folder_by_its_option():
    cmd = importlib.import_module("driftproof.cli.reports").reports
    r = CliRunner().invoke(cmd, ["build", "--help"], terminal_width=80)
    assert r.exit_code == 0, r.output
    flat = " ".join(r.output.split())
    assert not re.search(r"\bOUT\b", flat), flat  # no argument or metavar is called OUT
    assert "the --out-dir folder is left as it was" in flat


def _option_help(lines: list[str], option: str, following: str) -> str:
    """The help of ``option`` in ``run --help``, up to the next option ``following``, flattened."""
    text = "\n".join(lines)
    m = re.search(rf"\n\s+{re.escape(option)} .*?(?=\n\s+{re.escape(following)} )", text, re.S)
    assert m is not None, option
    return " ".join(m.group(0).split())


def test_run_help_names_the_key_variables_and_what_a_local_judge_needs():
    # Found: neither the README nor run --help named the variables the API lanes read their key
    # from, that --openai-api sets an openai judge's API shape too (plan_run passes it to both
    # lanes; test_run_plan), or that --base-url leaves the judge on its default base URL.
    lines = _help("run")
    provider = _option_help(lines, "--provider", "--surface")
    assert "ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) for anthropic" in provider
    assert "OPENAI_API_KEY for openai" in provider
    # the stub lane was listed among the choices and described nowhere: a newcomer's stub run
    # reads a lift of +0.400 from scores that are a hash of the request
    assert "stub: fixed answers and scores (a hash of the request), no model;" in provider
    judge = _option_help(lines, "--judge-provider", "--judge-model")
    assert "--judge-provider openai --judge-base-url URL" in judge
    assert "--base-url does not set it" in _option_help(lines, "--judge-base-url", "--openai-api")
    api = _option_help(lines, "--openai-api", "--budget-param")
    assert "of the answering lane and of an openai judge alike" in api


def test_run_help_and_the_readme_table_fit_80_columns() -> None:
    # the endings table printed lines of up to 717 characters (OpenAI Responses' tool calls)
    # in run --help and the README; each entry wraps at 77 (the help indents it 2: 79), its
    # endings continuing under the first one
    assert max(map(len, table_lines())) <= 77
    lines = _help("run")  # click wraps its own text at 80
    assert max(map(len, lines)) <= 80 and max(map(len, lines[-len(table_lines()) :])) <= 79
    # "  tool call with no answer: " is 28 long; with "tool_use, end_turn:tool_use,
    # stop_sequence:tool_use" (51) 79, past 77: the last goes under "tool_use", 28 in
    at = table_lines().index("  tool call with no answer: tool_use, end_turn:tool_use,")
    assert table_lines()[at + 1] == " " * 28 + "stop_sequence:tool_use"
    # a line that is no list continues four in: never at an entry's indent of 2
    at = table_lines().index(
        "  length is the output budget only when the reply reports at least 90% of the"
    )
    assert table_lines()[at + 1].startswith("      budget as output tokens;")


def test_view_and_run_say_what_margin_does_and_the_readme_lists_it() -> None:
    # view --help read "Read quality at this non-inferiority margin": a statistician's term
    # for what the method page calls quality at a margin for a skill that saves tokens
    for command in ("view", "run"):
        text = " ".join(" ".join(_help(command)).split())
        assert "non-inferiority" not in text
        assert "For a skill that saves output tokens:" in text and "--margin M" in text
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert "`driftproof view RECEIPT [--format text\\|markdown\\|json] [--margin M]`" in readme


def test_every_option_of_every_command_says_what_it_does() -> None:
    # run --help listed "--concurrency INTEGER RANGE  [default: 8; 1<=x<=256]" and nothing
    # more: a newcomer could not tell what ran 8 at a time (hidden options are for the tests)
    ctx = click.Context(cli)
    bare: list[str] = []

    def walk(cmd: click.Command, path: str) -> None:
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                assert sub is not None
                walk(sub, f"{path} {name}")
            return
        bare.extend(
            f"{path} {p.opts[0]}"
            for p in cmd.params
            if isinstance(p, click.Option) and not (p.help or p.hidden)
        )

    walk(cli, "driftproof")
    assert bare == []
    assert "--concurrency INTEGER RANGE How many draws are made at once" in " ".join(
        " ".join(_help("run")).split()
    )


def test_each_groups_command_list_gives_each_summary_whole():
    # Found: reports --help and suite --help listed "Validate every receipt (schema, seal,
    # version) and report, then..." (click cuts a summary at 45 characters with "...")
    for group in ("reports", "suite", "import", "export"):
        r = CliRunner().invoke(cli, [group, "--help"], terminal_width=80)
        assert r.exit_code == 0, r.output
        listed = r.output.split("Commands:\n", 1)[1].splitlines()
        assert listed and not [line for line in listed if line.rstrip().endswith("...")], group


def test_import_skill_creator_help_says_a_benchmark_stands_for_its_gradings():
    # Found: it said "Reads benchmark.json and grading.json", but beside a benchmark.json the
    # grading.json files are not read (a broken one imports without a word)
    r = CliRunner().invoke(cli, ["import", "skill-creator", "--help"], terminal_width=80)
    said = " ".join(r.output.split())
    assert "a benchmark.json stands for the grading.json files beside it, which are then" in said
    assert "not read" in said and "Reads benchmark.json and grading.json." not in said


def test_diff_help_and_readme_give_no_verdict_its_own_exit_status():
    # issue: diff exited 2 both for a broken file and for a readable comparison with no verdict
    flat = " ".join(" ".join(_help("diff")).split())
    said = flat[flat.index("Exit status:") : flat.index("Options:")]
    assert "2 bad input" in said and "5 the receipts were read but a side gets no verdict" in said
    # two receipts graded by different judges exit 5 too (tests/test_diff_other_judge.py)
    assert "they were graded by different judges or no case is in both" in said
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    row = next(ln for ln in readme.splitlines() if ln.startswith("| `driftproof diff "))
    assert (
        "2 bad input, 5 the receipts were read but a side gets no verdict, they were graded by "
        "different judges or no case is in both |" in row
    )


def test_view_help_gives_its_exit_statuses_and_they_hold() -> None:
    # issue: view --help had no exit status section
    flat = " ".join(" ".join(_help("view")).split())
    said = flat[flat.index("Exit status:") : flat.index("Options:")]
    assert "0 when the sheet is printed, whatever the reading" in said
    assert "2 when the receipt cannot be read or is invalid, or an option is wrong" in said
    good = sorted((Path(__file__).resolve().parents[2] / "receipts").glob("*.json"))[0]
    runner = CliRunner()  # an unreadable receipt's 2: tests/cli/test_main.py
    assert runner.invoke(cli, ["view", str(good)]).exit_code == 0
    res = runner.invoke(cli, ["view", str(good), "--margin", "2"])
    assert res.exit_code == 2 and res.stdout == ""
