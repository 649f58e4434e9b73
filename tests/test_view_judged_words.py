"""A newcomer's reading of caveman's judged-fidelity receipts (report 005) in `view` and the site.

Counts are worked out from the committed receipt's JSON, never from the sheet: each prompt's
judged facts (checks whose source type is "judged fact") and its one verbatim word check.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import run_main

from driftproof.cli.plan import plan
from driftproof.pages.case import case_pages_about
from driftproof.pages.fidelity import fidelity_view
from driftproof.pages.sheet import sheet
from driftproof.pages.source import source_report_rows
from driftproof.receipt import read_receipt

RECEIPTS = Path(__file__).parents[1] / "receipts"
JUDGED = RECEIPTS / "caveman-5c7e19a-judged-fidelity-caveman.json"


def _checks(path: Path) -> dict[str, tuple[int, int]]:
    """Each case's (judged facts, other checks) in the receipt's with-skill draw, from its JSON."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for c in doc["cases"]:
        (draw,) = c["arms"]["with_skill"]["draws"]
        kinds = [k["source_type"] for k in draw["checks"]]
        out[c["id"]] = (kinds.count("judged fact"), len(kinds) - kinds.count("judged fact"))
    return out


def test_the_rubric_words_agree_the_facts_come_from_it_but_were_not_checked_here() -> None:
    # "rubrics not recorded (the facts were not checked against them)" then "judged ... against
    # the prompt's rubric": the facts are the source's, from its rubric; the receipt was not
    # given the rubric file to check them against
    f = fidelity_view(read_receipt(JUDGED))
    assert f is not None
    rubrics = {x.label: x.value for x in f.summary}["rubrics"]
    assert rubrics == (
        "not given to this import, so the facts the source took from it were not checked against it"
    )
    assert f.note.startswith("Each fact, one the source's rubric lists for the prompt, was judged")
    assert "against the prompt's rubric" not in f.note


def test_one_name_for_the_arm_and_its_draws_say_they_hold_checks_not_scores() -> None:
    r = read_receipt(JUDGED)
    s = sheet(r)
    f = fidelity_view(r)
    assert f is not None
    facts = sum(n for n, _ in _checks(JUDGED).values())
    assert facts == 21  # 9 prompts of 2 facts, the rebase prompt's 3
    # the arm is "with skill" everywhere on the sheet, as the method names it (not "caveman")
    assert f.arm_rows[2] == ("with skill", f"{facts} / {facts}", "100%", "100%")
    assert [a.arm for a in s.arms][0] == "with skill"
    # 10 cases of one draw each, no score: "0 scored" read as failure
    assert s.arms[0].draws == "10 drawn over 10 cases, holding checks, no score"
    # caveman's output-token receipts record no grader at all: "0 scored" read as failure too
    plain = json.loads((RECEIPTS / "caveman-2b10489-caveman.json").read_text(encoding="utf-8"))
    assert plain["judge"] is None and len(plain["cases"]) == 10
    arms = sheet(read_receipt(RECEIPTS / "caveman-2b10489-caveman.json")).arms
    assert [a.draws for a in arms] == ["10 drawn over 10 cases, not graded"] * 3


def test_case_checks_count_facts_apart_from_the_word_check() -> None:
    # "3/3" on nine cases and "4/4" on p09 added to 31 beside a headline of 21 facts
    rows = {c.case_id: c.checks for c in sheet(read_receipt(JUDGED)).cases}
    expected = {
        case: f"with skill {facts}/{facts} facts and {other}/{other} verbatim check passed"
        for case, (facts, other) in _checks(JUDGED).items()
    }
    assert rows == expected
    assert rows["p09"] == "with skill 3/3 facts and 1/1 verbatim check passed"


def test_the_risk_rating_says_what_it_is_where_it_is_shown() -> None:
    # the rubric file (902028f, evals/prompts/rubrics.json): risk "selects the tolerance band
    # in evals/gate.py: 'high' = zero fidelity loss / zero verbatim miss allowed"
    rows = [x for x in source_report_rows(read_receipt(JUDGED)) if x[0] == "risk"]
    assert len(rows) == 10 and ("risk", "p09", "with skill", "high") == rows[8][:4]
    assert {x[5] for x in rows} == {
        "the rubric's rating of how much fidelity loss the source's gate allows (high: none)"
    }


@pytest.mark.parametrize(
    ("name", "held"),
    [
        # the nebius workspace: one lost draw, no answer text, judge sample, check or refusal;
        # a draw holds why it was lost, not "lost draws"
        ("skill-creator-nebius-skills-iteration-1-12a0aae8", ": why a draw was lost."),
        ("caveman-5c7e19a-judged-fidelity-caveman", ": checks."),
        # the length snapshot keeps each answer and nothing else a case page shows
        ("caveman-2b10489-caveman", ": the answer."),
    ],
)
def test_the_cases_text_promises_only_what_the_receipt_holds(name: str, held: str) -> None:
    said = case_pages_about(read_receipt(RECEIPTS / f"{name}.json"))
    # a row for each draw: side by side on a wide screen only, so the lead says neither
    lead = "Each case has a page of its own: its prompt and each arm's draws, a row for each draw"
    assert said == f"{lead}, with what the receipt holds of each{held}"


def test_plan_refuses_a_receipt_with_no_score_for_that_reason() -> None:
    # it said "(any band it has is its judge's samples of that answer…)" of a receipt with no
    # score and no baseline: the first thing it lacks is a score
    f = RECEIPTS / "caveman-902028f-judged-fidelity-caveman.json"
    res = CliRunner().invoke(plan, [str(f)])
    assert res.exit_code == 2
    assert res.stderr == (
        f"error: {f}: This receipt holds no scored draw, so there is nothing to plan from: plan "
        "sizes a run from the spread of a pilot's scores. Run a pilot with driftproof run, "
        "which draws each arm at least 3 times, and plan from its receipt.\n"
    )


def test_a_lift_against_the_control_is_named_a_lift(capsys: pytest.CaptureFixture[str]) -> None:
    # caveman's output-token receipt led with "output tokens saved against the terse control:
    # median +50%" and then read "against the control: n/a" (view: "vs control n/a"): no score
    # was recorded, so the lift against the control is what is not measured, not the saving
    path = RECEIPTS / "caveman-2b10489-caveman.json"
    assert sheet(read_receipt(path)).control_delta == "n/a (not measured)"
    code, out, _ = run_main(["view", str(path)], capsys)
    assert code == 0 and re.search(r"\n  lift against the control +n/a \(not measured\)\n", out)
    assert "vs control" not in out
    body = (Path(__file__).parents[1] / "templates/pages/_sheet_body.html").read_text("utf-8")
    assert "<dt>lift against the control</dt>" in body


def test_the_cases_list_says_each_prompt_held_judged_facts_not_a_lost_score() -> None:
    # every draw holds its facts and none is lost: "no score (lost or unscored)" was untrue
    lines = {c.case_id: c.line for c in sheet(read_receipt(JUDGED)).cases}
    expected = {
        case: f"with skill {facts}/{facts} facts and {other}/{other} verbatim check passed, "
        "no score; baseline not recorded by the source; no verdict"
        for case, (facts, other) in _checks(JUDGED).items()
    }
    assert lines == expected
