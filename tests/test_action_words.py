"""The Action's job summary in readers' words (beside tests/test_action.py, at its size limit)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from factories import case, make_receipt
from test_action import HIGH, LOW, LOWER, doc, run_action

from driftproof import action
from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt


def test_a_case_no_draw_count_resolves_reads_no_count_and_why_once_under_the_table() -> None:
    # both arms [0.5, 0.6, 0.7] (sd 0.1) in both cases: spreads 0.1 + 0.1 = 0.2 ≥ 0.05, so no
    # draw count resolves either; each row's column repeated "no draw count reaches the floor"
    w = [0.5, 0.6, 0.7]
    r = Receipt.model_validate(make_receipt([case("c1", w, w), case("c2", w, w)]))
    text = action.summary_markdown(r, r, compare_receipts(r, r, a_name="a", b_name="b"))
    # "none" in the draws-needed column read as none needed
    row = "| underpowered | 0.600 ± 0.100 (n=3) | 0.600 ± 0.100 (n=3) | +0.000 | no count |\n"
    assert f"| c1 {row}| c2 {row}\n" in text
    assert text.endswith(
        "\n\nno count: no draw count reaches the floor (the two arms' spreads add up to the floor "
        "or more; more draws do not narrow a spread).\n"
    )
    # once there, once after the bold sentence above the table, which names the cases and
    # starts a sentence of its own (it read "**…floor.** no draw count …")
    assert text.count("no draw count reaches the floor") == 1
    assert (
        "**Not enough draws to conclude at this effect floor.** No draw count reaches the floor "
        "(c1, c2): the two arms' spreads"
    ) in text


@pytest.mark.parametrize(
    ("member", "value", "shown"),
    [
        # a member named with a line break, quoted in the problem's pointer, printed
        # "::error::injected" on a line of its own
        ("x\n::error::injected\n", 1, "/x\\x0a::error::injected\\x0a: expected only the members"),
        # the runner reads "##[error]…" anywhere in a line; the problem quotes the value
        ("schema_version", "##[error]injected", 'found "#\\x23[error]injected"'),
    ],
)
def test_a_problem_never_starts_a_workflow_command_on_stderr(
    tmp_path, monkeypatch, capsys, member, value, shown
) -> None:
    # the runner reads stderr for workflow commands too
    w = [0.5, 0.6, 0.7]
    doc = make_receipt([case("c1", w, w)])
    good, bad = tmp_path / "a.json", tmp_path / "b.json"
    good.write_text(json.dumps(doc), encoding="utf-8")
    bad.write_text(json.dumps({**doc, member: value}), encoding="utf-8")
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        monkeypatch.setenv(name, str(tmp_path / name))
    assert action.main(["--baseline", str(good), "--receipt", str(bad)]) == 2
    err = capsys.readouterr().err
    assert shown in err and "##[" not in err
    assert not [line for line in err.splitlines() if line.lstrip().startswith("::")]


def test_every_input_problem_is_named_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a newcomer's run showed only the fail-on problem; the missing baseline was not named, and
    # a file that cannot be read did not say which input named it
    new = tmp_path / "new.json"
    new.write_text(json.dumps(make_receipt([case("a", [0.6, 0.62, 0.61], [0.5, 0.5, 0.5])])))
    monkeypatch.setenv("DRIFTPROOF_BASELINE", str(tmp_path / "old.json"))
    monkeypatch.setenv("DRIFTPROOF_RECEIPT", str(new))
    monkeypatch.setenv("DRIFTPROOF_FAIL_ON", "regressed,beyond noise")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "s.md"))
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    assert action.main([]) == 2
    summary = (tmp_path / "s.md").read_text()
    assert "fail-on: unknown decision 'beyond noise'" in summary
    line = next(x for x in summary.splitlines() if "old.json" in x)
    assert line.startswith("- input baseline: ") and line.endswith(
        "old.json: cannot read: No such file or directory"
    )


def test_action_yml_names_the_method_section_and_no_decision_number() -> None:
    # adopters read action.yml: its top comment cited decision numbers (code and tests' words)
    # and the specification's section name, which the published method page calls otherwise
    text = (Path(__file__).resolve().parents[1] / "action.yml").read_text(encoding="utf-8")
    assert not re.search(r"\bD-\d", text)
    comment = " ".join(x.lstrip("# ") for x in text.splitlines() if x.startswith("#"))
    assert '(the method page, "When a change is called").' in comment


def test_the_readme_says_what_the_demo_receipts_show_and_how_to_see_a_gate_decide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the demo's receipts are simulated (below TESTED): tried with them, the Action only ever
    # says "No decision; the job passes", which the README's Action section did not say
    from driftproof.demo import run_demo

    root = Path(__file__).resolve().parents[1]
    section = (root / "README.md").read_text(encoding="utf-8").split("### The GitHub Action")[1]
    text = " ".join(section.split("\n## ")[0].split())
    assert 'the Action can only say "No decision; the job passes"' in text
    assert "two TESTED receipts, each from `driftproof run` against a real model's provider" in text
    assert "tests/test_action.py: regressed fails the job, improved passes" in text
    run_demo(tmp_path / "d")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "s.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "o.txt"))
    # the command as the README gives it, run in the demo's folder where the quick start ends
    # (its paths started from the folder above, so it could not read the receipts there)
    command = re.search(r"python -m driftproof\.action ([^`]+)`", text)
    assert command is not None
    monkeypatch.chdir(tmp_path / "d")
    rc = action.main(command.group(1).split())
    assert rc == 0
    assert "**No decision**; the job passes" in (tmp_path / "s.md").read_text(encoding="utf-8")


def test_an_inconclusive_decision_is_annotated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # With skill [0.80, 0.85, 0.90] (0.85 ± 0.05) then [0.50, 0.55, lost] (0.525 ± 0.035): apart
    # on the measured draws, Δ −0.325; the lost draw at the best score, 1.0, gives 0.683 ± 0.275,
    # which overlaps 0.80..0.90: inconclusive (D-9). The job passes, with a warning, not in silence.
    code, out, _ = run_action(tmp_path, monkeypatch, doc(HIGH, LOW), doc([0.50, 0.55, None], LOW))
    assert (code, out["decision"]) == (0, "inconclusive")
    printed = capsys.readouterr().out
    assert (
        "::warning title=Driftproof::1 case inconclusive: a move its lost draws could undo; "
        "see the job summary\n"
    ) in printed


def _regressed_pair(tmp_path: Path) -> tuple[Path, Path]:
    """A baseline and a receipt whose one case regressed (0.85 ± 0.05 to 0.55 ± 0.05)."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(make_receipt([case("c1", [0.8, 0.85, 0.9], [0.5, 0.5, 0.5])])))
    b.write_text(json.dumps(make_receipt([case("c1", [0.5, 0.55, 0.6], [0.5, 0.5, 0.5])])))
    return a, b


def test_without_a_job_summary_file_the_step_says_where_the_comparison_is(
    tmp_path, monkeypatch, capsys
) -> None:
    # in another CI (the README: "run that same command") the lines said "see the job summary"
    # and no summary was written anywhere; the notes then name the command that prints it
    a, b = _regressed_pair(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    assert action.main(["--baseline", str(a), "--receipt", str(b)]) == 1
    err = capsys.readouterr().err
    cmd = f"driftproof diff {a} {b}"  # the files given, not placeholders (a newcomer's issue)
    assert "no job summary was written" in err and cmd in err
    assert f"error: 1 case regressed; see {cmd}\n" in err
    assert "job summary\n" not in err
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "")  # set, but to no file: it is not "not set"
    assert action.main(["--baseline", str(a), "--receipt", str(b)]) == 1
    assert "(GITHUB_STEP_SUMMARY names no file)" in capsys.readouterr().err
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "s.md"))
    assert action.main(["--baseline", str(a), "--receipt", str(b)]) == 1
    assert "no job summary" not in capsys.readouterr().err


def test_the_command_it_names_reads_a_file_starting_with_a_dash_as_a_file(
    tmp_path, monkeypatch, capsys
) -> None:
    # "driftproof diff -a.json b.json" copied would read -a.json as an option
    a, b = _regressed_pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-a.json").write_bytes(a.read_bytes())
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    assert action.main(["--baseline=-a.json", "--receipt", "b.json"]) == 1
    assert "see driftproof diff ./-a.json b.json\n" in capsys.readouterr().err


def test_outside_github_the_annotations_are_plain_lines_on_stderr(
    tmp_path, monkeypatch, capsys
) -> None:
    # Run elsewhere (no GITHUB_ACTIONS=true, which GitHub sets for every step), the lines read
    # "::error title=Driftproof::…", a workflow command nothing there reads; they read as the
    # error or warning they are, on stderr, and stdout holds no workflow command
    a, b = _regressed_pair(tmp_path)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "s.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    argv = ["--baseline", str(a), "--receipt", str(b), "--fail-on", "regressed"]
    assert action.main(argv) == 1
    out, err = capsys.readouterr()
    assert "::" not in out and "error: 1 case regressed; see the job summary\n" in err
    assert action.main([*argv[:4], "--fail-on", "improved"]) == 0  # passes: a warning
    assert "warning: 1 case regressed; see the job summary\n" in capsys.readouterr().err
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # on GitHub: unchanged
    assert action.main(argv) == 1
    out, err = capsys.readouterr()
    assert "::error title=Driftproof::1 case regressed; see the job summary\n" in out
    assert "error:" not in err


def test_a_negative_lift_in_the_job_summary_has_the_minus_sign_people_read() -> None:
    # with .50 .50 .50 vs baseline .60 .60 .60 in each receipt: lift .50 − .60 = −0.100. The
    # job summary is read by people (U+2212, as every other figure in it); the workflow output
    # stays "-0.100" for programs.
    r = Receipt.model_validate(make_receipt([case("c1", [0.5] * 3, [0.6] * 3)]))
    c = compare_receipts(r, r, a_name="a", b_name="b")
    assert "| lift (with skill − baseline) | \u22120.100 | \u22120.100 |" in (
        action.summary_markdown(r, r, c)
    )
    assert action.action_outputs(r, r, c)["lift"] == "-0.100"


def test_the_command_lines_help_says_what_each_option_is(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # README: "To gate in another CI, run that same command"; its --help read only
    # "--baseline BASELINE  default $DRIFTPROOF_BASELINE", never which receipt is which
    monkeypatch.setenv("COLUMNS", "200")  # argparse would break "not-measured" at its hyphen
    with pytest.raises(SystemExit):
        action.main(["--help"])
    flat = " ".join(capsys.readouterr().out.split())
    assert "--baseline BASELINE the earlier receipt (default $DRIFTPROOF_BASELINE)" in flat
    assert "--receipt RECEIPT the new receipt (default $DRIFTPROOF_RECEIPT)" in flat
    assert "(default $DRIFTPROOF_FAIL_ON; blank: regressed,not-measured)" in flat
    assert "--aa AA an A/A calibration receipt, cited beside the verdicts" in flat


def test_a_reading_below_tested_says_how_to_get_a_tested_receipt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # diff and badge said it after a reading below TESTED; the job summary said only why there
    # was no decision. Worded as tests/test_newcomer_words.py expects of diff: a run reads
    # TESTED only when it finished, was not --quick, and its answers and grades were not offline.
    how = (
        "A driftproof run that finishes, without --quick, answered and judged by real models (not "
        "the simulated provider or the stub), gives a TESTED receipt."
    )
    code, out, summary = run_action(
        tmp_path, monkeypatch, doc(HIGH, LOW), doc(HIGH, LOW, level="DECLARED")
    )
    assert (code, out["decision"]) == (0, "none")
    why = "- new.json: verification level DECLARED is below TESTED\n"
    assert f"decides nothing:\n\n{why}\n{how}\n\n| | earlier | later |\n" in summary
    (tmp_path / "tested").mkdir()  # a summary file of its own: the step appends to the file
    _, out, summary = run_action(tmp_path / "tested", monkeypatch, doc(HIGH, LOW), doc(LOW, LOWER))
    assert out["decision"] == "regressed" and "TESTED receipt" not in summary
