"""``plan`` from an A/A pilot sizes a gate: diff and the Action compare the with-skill arms of two
runs, so the pilot that sizes them is one whose two arms both carry the skill (``run --aa``).

A team lead's walk-through found the gap: from a pilot whose with-skill spread (.02) was four
times its baseline's (.005), plan said 17 draws per arm, and two receipts at 17 draws left 8 of
10 cases of diff underpowered; nothing said which comparison the count was for.
"""

from __future__ import annotations

import json

from factories import JUDGE, case, make_receipt
from receipt_docs import seal_document

from driftproof.pages.plan import plan_receipt
from driftproof.receipt import parse_receipt
from driftproof.render.plan import plan_json, plan_text

GATE_WORDS = (
    "diff and the Action compare the with-skill arms of two runs, not with skill against "
    "baseline: to size that comparison, plan from an A/A pilot (driftproof run --aa), whose two "
    "arms both carry the skill."
)
AA_WORDS = (
    "This pilot is an A/A calibration: both of its arms ran with the skill, so the count sizes a "
    "comparison of two runs with the skill, as diff and the Action make; a lift here is a change "
    "between the two runs."
)
# 50 draws per arm, 25 at ±.02 and 25 at ±.005 around each mean: spreads .0202 and .00505
WIDE_WITH = case("c1", [0.58, 0.62] * 25, [0.495, 0.505] * 25)
# the A/A pilot of the same skill: both arms at the with-skill spread
AA_CASE = case("c1", [0.58, 0.62] * 25, [0.58, 0.62] * 25)


def _plan(cases: list[dict], aa: bool):
    doc = make_receipt(cases)
    doc["run"]["aa"] = aa
    return plan_receipt(parse_receipt(json.dumps(seal_document(doc)).encode(), "p.json"))


def test_a_plan_with_a_baseline_says_how_to_size_a_gate() -> None:
    text = plan_text(_plan([WIDE_WITH], aa=False))
    assert " ".join(text.split()).count(GATE_WORDS) == 1
    assert AA_WORDS not in text


def test_a_plan_from_an_aa_pilot_says_it_sizes_a_comparison_of_two_runs() -> None:
    p = _plan([AA_CASE], aa=True)
    text = plan_text(p)
    assert AA_WORDS in text and GATE_WORDS not in text
    assert json.loads(plan_json(p))["aa"] is True
    # the count it gives is for the with-skill spread in both arms: more than the pilot with a
    # quiet baseline asks (its bound is the grid's rounding spread .05/√12 = .0144 at 80%: .0159,
    # the sum of bounds .0381 against .0444 for the with-skill bound .0222 twice)
    lift = _plan([WIDE_WITH], aa=False)
    assert lift.draws_per_arm is not None and p.draws_per_arm is not None
    assert p.draws_per_arm > lift.draws_per_arm


def test_a_plan_from_an_aa_pilot_names_its_two_runs_not_a_baseline() -> None:
    # the method: "runs the with-skill arm twice ..., the second run in the baseline arm's place"
    c2 = case("c2", [0.68, 0.72] * 25, [0.68, 0.72] * 25)
    text = " ".join(plan_text(_plan([AA_CASE, c2], aa=True)).split())
    assert "c1: " in text and "(pilot measured 50 first run, 50 second run;" in text
    assert "First run: the spreads of the 2 cases" in text
    assert "Second run: the spreads of the 2 cases" in text
    assert "baseline" not in text.lower()
    plain = " ".join(plan_text(_plan([WIDE_WITH], aa=False)).split())
    assert "(pilot measured 50 with skill, 50 baseline;" in plain


def test_a_plan_from_an_aa_pilot_grows_the_pilot_as_an_aa_run() -> None:
    # the method's worked examples, in both arms of an A/A pilot. Spread .01 over 3 draws on a .01
    # grid: "run a pilot of 6 draws per arm, which would likely cut that count, or 220 draws per
    # arm". Every score .5 over 3 draws on a .05 grid: "grow the pilot to 6 draws per arm". The
    # larger pilot must be an A/A run again, else its plan sizes with skill against baseline; the
    # gate's own run is an ordinary run.
    fine = make_receipt(
        [case("c1", [0.69, 0.70, 0.71], [0.69, 0.70, 0.71])],
        judge={**JUDGE, "scale": {"worst": 0.0, "best": 1.0, "step": 0.01}},
    )
    fine["run"]["aa"] = True
    p = plan_receipt(parse_receipt(json.dumps(seal_document(fine)).encode(), "p.json"))
    text = " ".join(plan_text(p).split())
    assert "give driftproof run --aa --draws 6, then plan from its receipt." in text
    # "give driftproof run --draws 220" alone left a reader to draw the earlier receipt at its
    # old count: the gate compares two runs' with-skill arms, each at it
    assert (
        "To draw each arm 220 times, give driftproof run --draws 220, for both runs the gate "
        "compares (the earlier receipt's and the new one's)."
    ) in text
    text = " ".join(plan_text(_plan([case("c1", [0.5] * 3, [0.5] * 3)], aa=True)).split())
    assert "To draw each arm 6 times, give driftproof run --aa --draws 6." in text


def test_a_plan_from_a_stub_or_smoke_pilot_says_it_sizes_no_real_run() -> None:
    # `run --provider stub --quick` then `plan` gave "give driftproof run --draws 4" with no word
    # that the stub's answers and grades are fixed and the smoke run had one case and 2 draws
    stub = "This pilot ran on the offline stub"
    smoke = "This pilot is a smoke run (--quick"
    real = plan_text(_plan([AA_CASE], aa=False))
    assert stub not in real and smoke not in real
    doc = make_receipt([AA_CASE])
    doc["run"].update(provider="stub", preset="quick")
    doc["verification_level"] = "UNVERIFIED"
    doc["judge"]["provider"] = "stub"
    p = plan_receipt(parse_receipt(json.dumps(seal_document(doc)).encode(), "p.json"))
    text = " ".join(plan_text(p).split())
    assert text.index(stub) < text.index(smoke)  # after the headline and cost, before the cases
    assert (p.stub, p.smoke) == (True, True)


def test_a_pilot_graded_by_the_stub_alone_does_not_say_its_answers_are_the_stubs() -> None:
    # `run --provider anthropic --judge-provider stub` (or stub answers under the simulated
    # judge): a model answered, or another lane graded, so "its answers and grades are fixed
    # stand-ins" was untrue of one of the two
    doc = make_receipt([AA_CASE])
    doc["verification_level"] = "UNVERIFIED"
    doc["judge"]["provider"] = "stub"
    p = plan_receipt(parse_receipt(json.dumps(seal_document(doc)).encode(), "p.json"))
    text = " ".join(plan_text(p).split())
    assert p.stub and "its answers and grades are fixed stand-ins" not in text
    assert "ran on the offline stub for its answers, its grades or both" in text
