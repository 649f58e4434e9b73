"""driftproof stale: each recorded field differing from today, one at a time."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from day_one_helpers import SUITE as SUITE_DOC
from day_one_helpers import run_args, write_files
from factories import case, make_receipt, run_main
from receipt_docs import seal_document

from driftproof.cli import cli
from driftproof.pages.stale import Today, harness_change, stale_report
from driftproof.receipt import parse_receipt
from driftproof.render.stale import stale_text

SKILL = "a" * 64
SUITE = "b" * 64
TEMPLATE = "0" * 64  # conftest's judge template hash
RUBRIC = "1" * 64  # conftest's case rubric hash


def _receipt(**run):
    doc = make_receipt([case("c1", [0.7, 0.72, 0.71], [0.5, 0.52, 0.51])])
    doc["run"].update(
        {
            "surface": "cli",
            "harness": {"name": "claude-code", "version": "2.1.272 (Claude Code)"},
            "capture": "text",
            **run,
        }
    )
    doc["skill"]["sha256"] = SKILL
    doc["suite"]["sha256"] = SUITE
    doc["arms"]["control"] = {
        "label": "__terse__",
        "instruction": "Answer concisely.",
        "system_prompt_sha256": None,
    }
    for c in doc["cases"]:
        c["arms"]["control"] = c["arms"]["baseline"]
    return parse_receipt(json.dumps(seal_document(doc)).encode())


CURRENT = Today(
    model="claude-sonnet-4-5",
    harness_name="claude-code",
    harness_version="2.1.272 (Claude Code)",
    capture="text",
    skill_sha256=SKILL,
    suite_sha256=SUITE,
    judge_model="claude-haiku-4-5-20251001",
    judge_service="https://api.anthropic.com",  # factories' judge service
    judge_template_sha256=TEMPLATE,
)


def statuses(r, today):
    rep = stale_report(r, today)
    return {a.arm: a.status for a in rep.arms}, rep


def test_everything_current_still_stands():
    s, rep = statuses(_receipt(), CURRENT)
    assert s == {
        "with_skill": "still stands",
        "baseline": "still stands",
        "control": "still stands",
    }
    assert not any(f.advisory for f in rep.findings)


def test_skill_change_leaves_baseline_and_control_standing():
    s, _ = statuses(_receipt(), replace(CURRENT, skill_sha256="c" * 64))
    assert s == {"with_skill": "run again", "baseline": "still stands", "control": "still stands"}


def test_skill_change_text_gives_each_arm_its_own_line():
    # the note that the baseline holds no skill text sits on the baseline's own line (and the
    # control's), never inside the with-skill arm's reasons
    text = stale_text(stale_report(_receipt(), replace(CURRENT, skill_sha256="c" * 64)))
    assert text == (
        "with skill: run again (skill: the skill changed)\n"
        "baseline: still stands (skill: the skill changed, but this arm holds no skill text)\n"
        "control: still stands (skill: the skill changed, but this arm holds no skill text)\n"
        "\n"
        # a value alike today and recorded is printed once (the two full hashes buried the word)
        "- model: unchanged (claude-sonnet-4-5): the receipt still stands on this\n"
        "- harness: unchanged (claude-code): the receipt still stands on this\n"
        "- harness version: unchanged (2.1.272 (Claude Code)): the receipt still stands on this\n"
        "- capture mode: unchanged (text): the receipt still stands on this\n"
        f"- skill: recorded {'a' * 64}, today {'c' * 64} -> run again: the skill changed\n"
        "- judge: unchanged (claude-haiku-4-5-20251001): the receipt still stands on this\n"
        "- judge service: unchanged (https://api.anthropic.com): the receipt still stands on this\n"
        f"- judge prompt template: unchanged ({'0' * 64}): the receipt still stands on this\n"
        f"- suite: unchanged ({'b' * 64}): the receipt still stands on this"
    )


def test_skill_change_runs_an_aa_receipts_baseline_again():
    # an A/A calibration's baseline arm is a second run of the with-skill arm, so it holds the
    # skill text: a skill change runs both arms again (it read "still stands ... but this arm
    # holds no skill text"). An A/A run takes no control: the receipt's is marked unrecorded.
    r = _receipt(aa=True)
    control = r.arms.control.model_copy(update={"recorded": False})
    r = r.model_copy(update={"arms": r.arms.model_copy(update={"control": control})})
    text = stale_text(stale_report(r, replace(CURRENT, skill_sha256="c" * 64)))
    assert text.split("\n")[:3] == [
        "first run: run again (skill: the skill changed)",  # its two runs, as view names them
        "second run: run again (skill: the skill changed)",
        "",
    ]


def test_an_arm_the_receipt_did_not_record_is_not_judged_stale():
    # a one-arm import: baseline and control are recorded: false, so only the with-skill arm has
    # a result that can stand or fall; the model change still runs it again
    r = _receipt()
    r = r.model_copy(
        update={
            "arms": r.arms.model_copy(
                update={
                    a: getattr(r.arms, a).model_copy(update={"recorded": False})
                    for a in ("baseline", "control")
                }
            )
        }
    )
    s, _ = statuses(r, replace(CURRENT, model="gpt-5.5"))
    assert s == {"with_skill": "run again"}


def test_model_change_runs_every_arm_again():
    s, _ = statuses(_receipt(), replace(CURRENT, model="gpt-5.5"))
    assert set(s.values()) == {"run again"}


@pytest.mark.parametrize(
    "today_version,expected",
    [
        ("2.1.280 (Claude Code)", "still stands"),  # patch: advisory only
        ("2.2.0 (Claude Code)", "run again"),  # minor
        ("3.0.0 (Claude Code)", "run again"),  # major
    ],
)
def test_harness_versions(today_version, expected):
    s, rep = statuses(_receipt(), replace(CURRENT, harness_version=today_version))
    assert s["baseline"] == expected and s["with_skill"] == expected
    assert (sum(f.advisory for f in rep.findings) == 1) == (expected == "still stands")


def test_harness_name_change_runs_again():
    s, _ = statuses(_receipt(), replace(CURRENT, harness_name="codex"))
    assert s["with_skill"] == "run again"


def test_capture_mode_change_runs_again():
    s, _ = statuses(_receipt(), replace(CURRENT, capture="files"))
    assert set(s.values()) == {"run again"}


def test_judge_change_is_regrade_only():
    s, _ = statuses(_receipt(), replace(CURRENT, judge_model="gpt-5.5-mini"))
    assert set(s.values()) == {"regrade only"}


def test_judge_template_change_is_regrade_only():
    s, _ = statuses(_receipt(), replace(CURRENT, judge_template_sha256="d" * 64))
    assert set(s.values()) == {"regrade only"}


def test_suite_change_without_case_detail_runs_again():
    s, _ = statuses(_receipt(), replace(CURRENT, suite_sha256="e" * 64))
    assert set(s.values()) == {"run again"}


def test_rubric_change_only_is_regrade():
    s, _ = statuses(
        _receipt(), replace(CURRENT, suite_sha256="e" * 64, rubric_sha256={"c1": "f" * 64})
    )
    assert set(s.values()) == {"regrade only"}


def test_prompt_change_runs_again():
    s, _ = statuses(
        _receipt(),
        replace(
            CURRENT,
            suite_sha256="e" * 64,
            prompt_sha256={"c1": "f" * 64},
            rubric_sha256={"c1": RUBRIC},
        ),
    )
    # the receipt recorded no prompt hash for c1: unknown, never current
    assert set(s.values()) == {"unknown"}


@pytest.mark.parametrize(
    ("lang", "edit", "verdict", "line"),
    [
        # the same cases re-saved as compact JSON: new bytes, the same prompts and rubrics
        (None, {}, "still stands", "- case a prompt: unchanged ("),
        (None, {"rubric": "Score 1 for a correct answer."}, "regrade only", "- case a rubric: "),
        (None, {"prompt": "Question A, again?"}, "run again", "- case a prompt: "),
        # run in Portuguese: its prompts are the translations; an English prompt edit moves none
        ("pt", {"prompt": "Question A, again?"}, "still stands", "- case a prompt: unchanged ("),
        ("pt", {"translations": {"pt": "Pergunta A, outra vez?"}}, "run again", "- case a prompt"),
    ],
)
def test_cli_suite_tells_a_changed_rubric_from_a_changed_prompt(
    tmp_path, capsys, lang, edit, verdict, line
):
    # stale --suite passed only the suite file's hash: any edit, a rubric's or a re-save's,
    # said "run again: ... no per-case hashes were given to tell prompts from rubrics"
    suite, skill = write_files(tmp_path)
    out = tmp_path / "r.json"
    kept = ["--keep-transcripts", *(["--lang", lang] if lang else [])]  # regrade needs answers
    assert run_main(run_args(suite, skill, out, *kept), capsys)[0] == 0
    doc = json.loads(json.dumps(SUITE_DOC))
    doc["cases"][0].update(edit)
    today = tmp_path / "today.json"
    today.write_text(json.dumps(doc, separators=(",", ":")))
    argv = ["stale", str(out), "--suite", str(today), "--skill", str(skill), "--model", "m"]
    code, text, _ = run_main([*argv, "--judge-model", "stub-judge"], capsys)
    first = text.splitlines()[:2]
    assert [x.split(" (")[0] for x in first] == [f"with skill: {verdict}", f"baseline: {verdict}"]
    assert code == (0 if verdict == "still stands" else 1)
    said = next(x for x in text.splitlines() if x.startswith(line))
    assert said.endswith(
        {
            "still stands": "): the receipt still stands on this",
            "regrade only": "-> regrade only: the case's rubric changed: regrade the saved answers",
            "run again": "-> run again: the case's prompt changed",
        }[verdict]
    )
    assert "- case b prompt: " in text and "- suite:" not in text


@pytest.mark.parametrize(
    ("edit", "part"),
    [
        (lambda d: d["cases"][0].update(threshold=0.9), "a case's threshold"),
        (
            lambda d: d["cases"][0].update(
                checks=[{"name": "n", "kind": "must_include", "pattern": "zzz"}]
            ),
            "its checks (the receipt keeps their results, not their patterns)",
        ),
        (lambda d: d["cases"][0].update(id="z"), "its cases (today's are not the receipt's)"),
        (
            lambda d: d["cases"].append({**d["cases"][1], "id": "c"}),
            "its cases (today's are not the receipt's)",
        ),
        (lambda d: d.update(truncation="accepted"), "what a cut-off answer is (truncation)"),
        (lambda d: d["cases"][0].pop("rubric"), "a case run cannot grade today"),
    ],
)
def test_cli_suite_moved_beyond_prompts_and_rubrics_runs_again(tmp_path, capsys, edit, part):
    # an adversary: a new threshold, new checks, a new case or truncation read "still stands"
    # (exit 0) once each case's prompt and rubric hashes matched; the receipt cannot confirm those
    # parts unchanged, so the moved suite hash decides, naming them
    suite, skill = write_files(tmp_path)
    out = tmp_path / "r.json"
    assert run_main(run_args(suite, skill, out), capsys)[0] == 0
    doc = json.loads(json.dumps(SUITE_DOC))
    edit(doc)
    today = tmp_path / "today.json"
    today.write_text(json.dumps(doc))
    argv = ["stale", str(out), "--suite", str(today), "--skill", str(skill), "--model", "m"]
    code, text, _ = run_main([*argv, "--judge-model", "stub-judge"], capsys)
    why = f"the suite changed, and the receipt cannot confirm these parts of it unchanged: {part}"
    assert code == 1 and text.splitlines()[:2] == [
        f"with skill: run again (suite: {why})",
        f"baseline: run again (suite: {why})",
    ]
    said = next(x for x in text.splitlines() if x.startswith("- suite: "))
    assert said.endswith(f"-> run again: {why}")


@pytest.mark.parametrize(
    ("extra", "reading"),
    [
        # a quick run holds the first case only: its other cases are not "not the receipt's"
        (["--quick"], "regrade only"),
        # a control given on the command line in the suite's own language: no suite part in it
        (["--control", "Be brief."], "regrade only"),
        # in Portuguese the control's translation came from a table the receipt does not name
        (["--control", "Answer concisely.", "--lang", "pt"], "run again"),
        (["--lang", "pt"], "run again (suite: the suite changed, and the receipt cannot "),
    ],
)
def test_cli_suite_a_rubric_edit_reads_per_case_only_where_the_rest_is_confirmed(
    tmp_path, capsys, extra, reading
):
    suite, skill = write_files(tmp_path)
    out = tmp_path / "r.json"
    assert run_main(run_args(suite, skill, out, "--keep-transcripts", *extra), capsys)[0] == 0
    doc = json.loads(json.dumps(SUITE_DOC))
    doc["cases"][0]["rubric"] = "Score 1 for a correct answer."
    if extra == ["--lang", "pt"]:  # a new case, no Portuguese prompt: it exited 2 in run's words
        doc["cases"].append({"id": "c", "prompt": "C?", "rubric": "1."})
    (today := tmp_path / "today.json").write_text(json.dumps(doc))
    argv = ["stale", str(out), "--suite", str(today), "--skill", str(skill), "--model", "m"]
    _, text, _ = run_main([*argv, "--judge-model", "stub-judge"], capsys)
    assert text.startswith(f"with skill: {reading}"), text


def test_a_receipt_without_case_hashes_is_judged_by_the_suite_hash():
    # stale --suite now gives each case's hashes; a receipt that records none (an import) would
    # have read "unknown" for an unchanged suite
    r = _receipt()
    r = r.model_copy(
        update={"cases": [c.model_copy(update={"rubric_sha256": None}) for c in r.cases]}
    )
    per_case = replace(CURRENT, prompt_sha256={"c1": "f" * 64}, rubric_sha256={"c1": RUBRIC})
    assert set(statuses(r, per_case)[0].values()) == {"still stands"}
    s, rep = statuses(r, replace(per_case, suite_sha256="e" * 64))
    assert set(s.values()) == {"run again"}
    assert [f.note for f in rep.findings if f.field == "suite"] == [
        "the suite changed and no per-case hashes are recorded to tell prompts from rubrics"
    ]


def test_unrecorded_harness_version_is_unknown_never_current():
    s, rep = statuses(_receipt(harness={"name": "claude-code", "version": None}), CURRENT)
    assert set(s.values()) == {"unknown"}
    f = next(f for f in rep.findings if f.field == "harness version")
    assert f.recorded is None and f.note == "not recorded in the receipt"


def test_unsupplied_today_is_unknown():
    s, _ = statuses(_receipt(), replace(CURRENT, model=None))
    assert set(s.values()) == {"unknown"}


def test_an_unrecorded_field_an_arm_depends_on_keeps_it_unknown_past_regrade_only():
    # a judge change read "regrade only" for every arm though the receipt records no model (or
    # no skill hash): the field could itself mean running again, so the arm cannot be decided
    today = replace(CURRENT, judge_model="gpt-5.5-mini")
    lines = stale_text(stale_report(_receipt(model=None), today)).split("\n")
    regrade = "judge: a different judge: the saved answers can be graded again"
    assert lines[0] == f"with skill: unknown (model: not recorded in the receipt; {regrade})"
    r = _receipt()
    r = r.model_copy(update={"skill": r.skill.model_copy(update={"sha256": None})})
    s, _ = statuses(r, today)
    # the skill hash only bears on the arm that holds the skill text
    assert s == {"with_skill": "unknown", "baseline": "regrade only", "control": "regrade only"}
    # running again is decided whatever the unrecorded field would say
    s, _ = statuses(_receipt(model=None), replace(today, capture="files"))
    assert set(s.values()) == {"run again"}


def test_harness_change_kinds():
    assert harness_change("2.1.97 (Claude Code)", "2.1.97") == "same"
    assert harness_change("codex-cli 0.40.1", "codex-cli 0.41.0") == "minor"
    assert harness_change("no version here", "nor here") == "unknown"


def test_cli_exit_and_text(tmp_path):
    r = _receipt()
    p = tmp_path / "r.json"
    p.write_text(json.dumps(r.to_json_dict()))
    skill = tmp_path / "SKILL.md"
    skill.write_text("new skill text")
    res = CliRunner().invoke(
        cli,
        [
            "stale",
            str(p),
            "--model",
            "claude-sonnet-4-5",
            "--harness",
            "claude-code",
            "--harness-version",
            "2.1.272",
            "--capture",
            "text",
            "--skill",
            str(skill),
            "--suite",
            str(Path(__file__).parent.parent / "driftproof" / "demo_files" / "suite.json"),
            "--judge-model",
            "claude-haiku-4-5-20251001",
        ],
    )
    assert res.exit_code == 1
    assert res.output.splitlines()[0].startswith("with skill: run again")
    assert "baseline: " in res.output


def test_a_field_not_supplied_names_the_option_that_supplies_it():
    # "today not supplied" left a newcomer to find the options in --help
    today = replace(CURRENT, model=None, harness_version=None, judge_model=None, suite_sha256=None)
    lines = stale_text(stale_report(_receipt(), today)).split("\n")
    said = {x.split(":")[0]: x for x in lines if x.startswith("- ")}
    assert said["- model"] == (
        "- model: recorded claude-sonnet-4-5, today not supplied (give --model) -> unknown"
    )  # "not supplied for today, so not checked" is said once, in the arms' lines
    assert (
        "today not supplied (give --harness-version or --harness-binary) -> "
        in said["- harness version"]
    )
    assert "today not supplied (give --judge-model) -> " in said["- judge"]
    assert "today not supplied (give --suite) -> " in said["- suite"]


def test_a_judge_the_receipt_names_no_model_of_is_unknown_not_different():
    # an import records a grader it was not told the model of as unrecorded:<tool>/<grader>;
    # stale called today's judge "a different judge" (regrade only) and printed that id
    r = _receipt()
    r = r.model_copy(update={"judge": r.judge.model_copy(update={"model": "unrecorded:pf/grader"})})
    rep = stale_report(r, replace(CURRENT, judge_model="gpt-4.1"))
    (judge,) = [f for f in rep.findings if f.field == "judge"]
    assert (judge.recorded, judge.today, judge.effect, judge.note) == (
        None,
        "gpt-4.1",
        "unknown",
        "not recorded in the receipt",
    )


def test_a_harness_binary_that_is_not_there_is_said_in_words(tmp_path, capsys):
    # it printed the OS error as Python shows it: "[Errno 2] No such file or directory: '…'"
    p = tmp_path / "r.json"
    p.write_text(json.dumps(_receipt().to_json_dict()))
    gone = str(tmp_path / "no-claude")
    code, _, err = run_main(["stale", str(p), "--harness-binary", gone], capsys)
    assert code == 2 and "Errno" not in err
    assert f"cannot read the harness version from '{gone}': No such file or directory" in err


def test_a_field_the_receipt_does_not_record_suggests_no_option():
    # "today not supplied (give --judge-model) -> unknown: the receipt does not record it": no
    # judge model given today could change that; the model, recorded, still names its option
    r = _receipt()
    r = r.model_copy(update={"judge": r.judge.model_copy(update={"model": "unrecorded:pf/grader"})})
    lines = stale_text(stale_report(r, replace(CURRENT, model=None, judge_model=None))).split("\n")
    said = {x.split(":")[0]: x for x in lines if x.startswith("- ")}
    # said once, under the arms, not again as a finding unless a value was given today
    assert lines[3] == "The receipt does not record its judge: nothing given today confirms it."
    assert "- judge" not in said
    assert said["- model"].startswith(
        "- model: recorded claude-sonnet-4-5, today not supplied (give --model) -> "
    )
