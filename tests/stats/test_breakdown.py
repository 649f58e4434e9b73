"""The lift breakdown (method, "Lift by case"), on hand-worked receipts.

Every expected number below is worked out by hand in the comments from the
draw scores, never copied from the code's output.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from factories import JUDGE, case, edited, make_receipt
from receipt_docs import draw_doc, judge_sample_doc, seal_document

from driftproof.receipt import Lost, Receipt, _bounds, parse_receipt
from driftproof.stats import breakdown as bd
from driftproof.stats.breakdown import lift_breakdown

# c1: with .80 .82 .84 (mean .82, sd .02), baseline .50 .52 .54 (mean .52, sd .02): lift +.30,
#     |Δ| .30 > .02+.02 and ≥ .05 → separates upward (helps).
C1 = case("c1", [0.80, 0.82, 0.84], [0.50, 0.52, 0.54])
# c2: with .60 .61 .62 (mean .61, sd .01), baseline .70 .71 .72 (mean .71, sd .01):
# lift −.10 → hurts.
C2 = case("c2", [0.60, 0.61, 0.62], [0.70, 0.71, 0.72])
# c3: with .50 .52 .54 (mean .52), baseline .60 .62 .64 (mean .62): lift −.10, sd .02 each → hurts.
C3 = case("c3", [0.50, 0.52, 0.54], [0.60, 0.62, 0.64])


def mk(cases: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    """A sealed receipt of copies of ``cases`` (tests mutate documents freely)."""
    return make_receipt(copy.deepcopy(cases), **kw)


def read(doc: dict[str, Any]) -> Receipt:
    """Through the real load edge (schema, seal)."""
    return parse_receipt(json.dumps(doc).encode(), "t.json")


def row(b: bd.Breakdown, cid: str) -> bd.CaseLift:
    return next(x for x in b.cases if x.case_id == cid)


def test_carrier_present_helps_and_hurts() -> None:
    b = lift_breakdown(read(mk([C1, C2, C3])))
    assert b.available and b.reasons == ()
    # suite lift = (.30 − .10 − .10) / 3 = .0333…
    assert b.suite_lift == pytest.approx(0.1 / 3, abs=1e-12)
    r1 = row(b, "c1")
    assert (r1.with_skill.mean, r1.baseline.mean) == (pytest.approx(0.82), pytest.approx(0.52))
    assert r1.with_skill.sd == pytest.approx(0.02) and r1.baseline.sd == pytest.approx(0.02)
    assert (r1.with_skill.n, r1.with_skill.drawn, r1.with_skill.lost) == (3, 3, 0)
    assert r1.lift == pytest.approx(0.30)
    # without c1: (−.10 − .10)/2 = −.10 ≤ 0 → c1 carries the lift
    assert r1.lift_without == pytest.approx(-0.10)
    # without c2: (.30 − .10)/2 = +.10 > 0; same without c3
    assert row(b, "c2").lift_without == pytest.approx(0.10)
    assert row(b, "c3").lift_without == pytest.approx(0.10)
    assert b.carriers == ("c1",) and b.carrier_withheld is None
    assert b.helps == ("c1",) and b.hurts == ("c2", "c3")
    assert r1.verdict == "improved" and row(b, "c2").verdict == "regressed"
    assert b.assertions_withheld == ()


def test_carrier_absent() -> None:
    # lifts +.10, +.10, −.05: suite (.10 + .10 − .05)/3 = .05;
    # without c1 or c2: (.10 − .05)/2 = .025 > 0; without c3: .10 > 0 → no carrier.
    a = case("a", [0.70, 0.71, 0.72], [0.60, 0.61, 0.62])
    c = case("c", [0.40, 0.41, 0.42], [0.30, 0.31, 0.32])
    d = case("d", [0.55, 0.56, 0.57], [0.60, 0.61, 0.62])
    b = lift_breakdown(read(mk([a, c, d])))
    assert b.suite_lift == pytest.approx(0.05)
    assert [x.lift_without for x in b.cases] == [
        pytest.approx(0.025),
        pytest.approx(0.025),
        pytest.approx(0.10),
    ]
    assert b.carriers == () and b.carrier_withheld is None
    # d: Δ −.05, sd .01 each: |−.05| > .02 and meets the .05 floor (D-3) → hurts
    assert b.hurts == ("d",) and b.helps == ("a", "c")


def test_two_carriers_when_removal_leaves_exactly_zero() -> None:
    # lifts +.10 (x), −.10 (y), +.10 (z), same scores mirrored so the sums cancel exactly:
    # suite = .10/3 > 0; without x: (−.10 + .10)/2 = 0 ≤ 0 → x carries; likewise z; without y: .10.
    x = case("x", [0.70, 0.71, 0.72], [0.60, 0.61, 0.62])
    y = case("y", [0.60, 0.61, 0.62], [0.70, 0.71, 0.72])
    z = case("z", [0.70, 0.71, 0.72], [0.60, 0.61, 0.62])
    b = lift_breakdown(read(mk([x, y, z])))
    assert row(b, "x").lift_without == pytest.approx(0.0, abs=1e-12)
    assert b.carriers == ("x", "z")


def test_lift_not_positive_has_no_carrier() -> None:
    # lifts −.10 and −.10: suite −.10, not positive → the test is made and no case carries.
    b = lift_breakdown(read(mk([C2, C3])))
    assert b.suite_lift == pytest.approx(-0.10)
    assert b.carriers == () and b.carrier_withheld is None


def test_lost_draws_prevent_carrier_and_protect_labels() -> None:
    # c1 with .80 .82 + one lost: mean .81, spread sd(.80,.82) = .01414, measured 2 of 3, lost 1.
    # A lost with-skill draw at the scale's worst (0.0) gives .80 .82 0 (mean .54, sd .468):
    # the bands would overlap, so the case cannot be called (D-9): no helps label.
    lost = case("c1", [0.80, 0.82, None], [0.50, 0.52, 0.54])
    b = lift_breakdown(read(mk([lost, C2, C3])))
    r1 = row(b, "c1")
    assert r1.with_skill.mean == pytest.approx(0.81)
    assert r1.with_skill.sd == pytest.approx(0.0141421356, abs=1e-9)
    assert (r1.with_skill.n, r1.with_skill.drawn, r1.with_skill.lost) == (2, 3, 1)
    assert r1.with_skill.lost_reasons == ("timeout after 2 retries",)
    assert r1.verdict == "inconclusive" and r1.label is None
    assert "c1" not in b.helps and b.hurts == ("c2", "c3")
    # the lift is still measured: (.81 − .52 − .10 − .10)/3 = .03
    assert b.suite_lift == pytest.approx(0.03)
    # without c1: −.10 ≤ 0, but lost draws prevent a carrier assertion
    assert r1.lift_without == pytest.approx(-0.10)
    assert b.carriers == () and b.carrier_withheld == "lost draws prevent a carrier assertion"


def test_failed_arm_excluded_together_and_visible() -> None:
    failed = case("f", [None, None, None], [0.10, 0.11, 0.12])
    b = lift_breakdown(read(mk([C1, failed, C2])))
    f = row(b, "f")
    assert not f.included and f.lift is None and f.lift_without is None
    assert f.note is not None and "with-skill arm failed" in f.note
    assert f.baseline.mean == pytest.approx(0.11)  # still visible
    assert b.excluded == ("f",)
    # suite over c1, c2 only: (.30 − .10)/2 = .10; without c1: −.10, without c2: .30
    assert b.suite_lift == pytest.approx(0.10)
    assert row(b, "c1").lift_without == pytest.approx(-0.10)
    assert row(b, "c2").lift_without == pytest.approx(0.30)
    # an incomplete receipt carries no helps, hurts or carrier assertion
    assert b.helps == b.hurts == b.carriers == ()
    assert b.assertions_withheld == ("incomplete: a failed arm",)


def test_missing_draw_evidence_makes_suite_and_omitted_lifts_unavailable() -> None:
    # The draw keeps a valid judge sample (0.80): judge samples are not read in place of its score.
    # The loader refuses such a receipt (D-18); built past it, the breakdown still defends itself.
    r = edited(read(mk([C1, C2, C3])), "/cases/0/arms/with_skill/draws/0/score", None)
    b = lift_breakdown(r)
    assert b.available and b.suite_lift is None
    assert b.suite_lift_reason is not None and "missing draw evidence" in b.suite_lift_reason
    assert all(x.lift_without is None for x in b.cases)
    r1 = row(b, "c1")
    assert (
        r1.included
        and r1.note is not None
        and "with-skill draw 1 has neither a score nor a lost" in r1.note
    )
    assert r1.with_skill.mean == pytest.approx(0.83)  # (.82 + .84)/2, measured draws only
    assert b.helps == b.hurts == b.carriers == ()
    assert b.assertions_withheld == ("incomplete: missing draw evidence",)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"level": "DECLARED"}, "below TESTED (DECLARED)"),
        ({"level": "UNVERIFIED", "preset": "quick"}, "below TESTED (UNVERIFIED)"),
        ({"generations_per_arm": 2, "two": True}, "fewer than 3 draws per arm"),
    ],
)
def test_receipts_that_carry_no_assertion(change: dict[str, Any], expected: str) -> None:
    cases = [C1, C2, C3]
    if change.pop("two", False):
        cases = [case("c1", [0.80, 0.84], [0.50, 0.54]), case("c2", [0.60, 0.62], [0.70, 0.72])]
    b = lift_breakdown(read(mk(cases, **change)))
    assert b.available and b.suite_lift is not None
    assert expected in b.assertions_withheld
    assert b.helps == b.hurts == b.carriers == ()
    assert all(x.label is None and x.verdict is None for x in b.cases)


def test_smoke_restamped_tested_and_non_model() -> None:
    # the model and the schema refuse TESTED with a preset: built past them
    smoke = edited(read(mk([C1, C2, C3])), "/run/preset", "quick")
    assert "smoke run (preset quick)" in lift_breakdown(smoke).assertions_withheld
    doc = mk([C1, C2, C3])
    doc["run"]["model"] = None
    b = lift_breakdown(read(seal_document(doc)))
    assert b.assertions_withheld == ("no model is recorded",) and b.carriers == ()
    # a stub run at TESTED is refused by the loader (D-18); built past it:
    stub = edited(read(mk([C1, C2, C3])), "/run/provider", "stub")
    assert lift_breakdown(stub).assertions_withheld == ("the stub provider answered, not a model",)


def test_labels_need_the_same_grader_and_a_rubric_hash() -> None:
    doc = mk([C1, C2, C3])
    doc["cases"][0]["arms"]["baseline"]["draws"][1]["judge_samples"][0]["reported_model"] = (
        "claude-haiku-4-5"
    )
    b = lift_breakdown(read(seal_document(doc)))
    r1 = row(b, "c1")
    assert r1.label is None and r1.verdict is None
    assert r1.label_withheld is not None and "claude-haiku-4-5-20251001" in r1.label_withheld
    assert b.hurts == ("c2", "c3") and b.helps == ()
    assert (
        b.carriers == ()
        and b.carrier_withheld is not None
        and b.carrier_withheld.startswith("case c1:")
    )
    doc = mk([C1, C2, C3])
    doc["cases"][1]["rubric_sha256"] = None
    b = lift_breakdown(read(seal_document(doc)))
    assert row(b, "c2").label_withheld == "no rubric hash is recorded for the case"
    assert b.hurts == ("c3",) and b.helps == ("c1",)


def test_one_case_has_no_carrier_test() -> None:
    b = lift_breakdown(read(mk([C1])))
    assert b.suite_lift == pytest.approx(0.30) and b.helps == ("c1",)
    assert row(b, "c1").lift_without is None
    assert row(b, "c1").lift_without_reason == "removing the only included case leaves no case"
    assert b.carriers == () and b.carrier_withheld is not None


# ------------------------------------------------------------------ unavailable, with reasons


def test_size_limit_names_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    r = read(mk([C1, C2]))
    b = lift_breakdown(r, size_bytes=_bounds.BREAKDOWN_MAX_BYTES + 1)
    assert not b.available and b.cases == () and b.suite_lift is None
    assert (
        str(_bounds.BREAKDOWN_MAX_BYTES) in b.reasons[0] and "BREAKDOWN_MAX_BYTES" in b.reasons[0]
    )
    assert lift_breakdown(r, size_bytes=_bounds.BREAKDOWN_MAX_BYTES).available  # at the limit: fine
    monkeypatch.setattr(_bounds, "BREAKDOWN_MAX_BYTES", 100)  # measured from canonical JSON
    b = lift_breakdown(r)
    assert not b.available and "limit of 100 bytes" in b.reasons[0]


@pytest.mark.parametrize(
    ("pointer", "value", "fragment"),
    [
        ("/cases/0/rubric_sha256", "abc", "invalid hash at /cases/0/rubric_sha256"),
        (
            "/cases/1/arms/with_skill/draws/0/answer_sha256",
            "0" * 64,
            "invalid hash at /cases/1/arms/with_skill/draws/0/answer_sha256: it is not the sha256",
        ),
        (
            "/cases/0/arms/with_skill/draws/2/score",
            1.5,
            "malformed evidence at /cases/0/arms/with_skill/draws/2/score",
        ),
        (
            "/cases/0/arms/with_skill/draws/2/score",
            0.5,
            "not the mean of the draw's valid judge samples",
        ),
        (
            "/cases/0/arms/baseline/draws/0/lost",
            Lost(reason="x"),
            "a lost draw carries a score",
        ),
        ("/cases/0/arms/with_skill/draws/1/index", 0, "draw indices repeat"),
        ("/run/generations_per_arm", 4, "3 draws recorded, 4 generated per arm"),
        ("/cases", [], "unsupported size: the receipt has no case"),
        ("/judge", None, "no judge is recorded"),
    ],
)
def test_cannot_supply_a_breakdown(pointer: str, value: Any, fragment: str) -> None:
    # each edit is made on a valid model past its checks (model_copy), as a buggy writer could
    b = lift_breakdown(edited(read(mk([C1, C2])), pointer, value))
    assert not b.available and b.cases == () and b.helps == b.carriers == ()
    assert any(fragment in reason for reason in b.reasons), b.reasons


def test_aggregates_only_and_too_many_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = mk([C1])
    doc["uncertainty_unavailable"] = "aggregates_only"
    doc["source_figures"] = {"source": "test"}
    assert lift_breakdown(read(seal_document(doc))).reasons == (
        "aggregates only: the source printed figures and no draw score",
    )
    monkeypatch.setattr(bd, "MAX_DRAWS_PER_ARM", 2)
    b = lift_breakdown(read(mk([C1])))
    assert not b.available and "more than 2 draws in one arm" in b.reasons[0]


def test_no_field_and_no_edit() -> None:
    doc = mk([C1, C2, C3])
    r = read(doc)
    before = r.to_json_dict()
    lift_breakdown(r)
    assert r.to_json_dict() == before


def test_judge_samples_kept_apart_from_answers() -> None:
    # One draw judged twice (0.6, 0.8 → draw score 0.7) is one answer: the spread is over draw
    # scores .7, .7, .7 → 0, never over the six judge samples.
    draws = [
        draw_doc(
            i,
            answer=f"a{i}",
            judge_samples=[
                judge_sample_doc(s, reply=str(s), reported_model=JUDGE["model"]) for s in (0.6, 0.8)
            ],
        )
        for i in range(3)
    ]
    c = case("j", [0.5, 0.5, 0.5], [0.5, 0.5, 0.5])
    c["arms"]["with_skill"]["draws"] = draws
    b = lift_breakdown(read(mk([c])))
    j = row(b, "j")
    assert j.with_skill.mean == pytest.approx(0.7) and j.with_skill.sd == pytest.approx(0.0)
    assert j.with_skill.n == 3


def test_lift_without_each_case_is_fsum_of_the_others_and_sums_the_suite_once(monkeypatch):
    # view took 122 s on 10,000 cases: each case's "lift without it" summed every other case.
    # Expected, per case: math.fsum of the other lifts / their count, to the last bit, on lifts
    # chosen so that a running sum and a sum-less-one both round differently.
    import math
    import random

    rng = random.Random(7)
    cases = [
        case(f"c{i}", [round(rng.uniform(0.3, 0.9), 3)] * 2, [round(rng.uniform(0.3, 0.9), 3)] * 2)
        for i in range(300)
    ]
    cases[0] = case("c0", [0.1 + 1e-12, 0.1 + 1e-12], [0.3, 0.3])
    summed: list[int] = []
    real_mean = bd.mean_of
    monkeypatch.setattr(bd, "mean_of", lambda v: summed.append(len(v)) or real_mean(v))
    b = lift_breakdown(read(mk(cases)))
    lifts = {r.case_id: r.lift for r in b.cases}
    for r in b.cases:
        rest = [v for k, v in lifts.items() if k != r.case_id]
        assert r.lift_without == math.fsum(rest) / len(rest)
    assert sum(summed) <= 2 * len(cases)  # the suite's lifts summed once, not once per case


def test_unavailable_reasons_say_how_many_more_were_left_out() -> None:
    # c2..c8: 7 included cases whose with-skill arm records no draw; 5 are named, 2 counted
    empty = [case(f"c{i}", [], [0.50, 0.52, 0.54]) for i in range(2, 9)]
    b = lift_breakdown(read(mk([C1, *empty], generations_per_arm=None)))
    assert b.suite_lift_reason is not None
    assert b.suite_lift_reason.endswith("case c6: the with-skill arm records no draw; and 2 more)")
    assert "case c7" not in b.suite_lift_reason
    # 6 cases with 2 baseline draws of the 3 planned per arm: 5 named, 1 counted (built past
    # the loader, which refuses such counts)
    short = [case(f"c{i}", [0.5, 0.5, 0.5], [0.5, 0.5]) for i in range(1, 7)]
    b = lift_breakdown(
        edited(read(mk(short, generations_per_arm=None)), "/run/generations_per_arm", 3)
    )
    assert not b.available and len(b.reasons) == 5
    assert b.reasons[-1].startswith("contradictory draw counts at /cases/4/arms/baseline/draws")
    assert b.reasons[-1].endswith("; and 1 more")


def test_a_draw_whose_judge_samples_are_all_invalid_is_lost_not_missing_evidence() -> None:
    # D-1: a draw whose judge samples are all invalid is a lost draw, as the bands and the sheet's
    # arms table count it. c1's with-skill draw 1 (.80) keeps one invalid sample and no score:
    # with .82 .84 (mean .83), 2 measured of 3 drawn, 1 lost; lift .83 − .52 = .31; suite lift
    # (.31 − .10 − .10)/3 = .11/3; the lost draw prevents a carrier assertion.
    doc = mk([C1, C2, C3])
    draw = doc["cases"][0]["arms"]["with_skill"]["draws"][0]
    draw["score"] = None
    draw["judge_samples"] = [judge_sample_doc(None, reply="?", invalid_reason="no score")]
    b = lift_breakdown(read(seal_document(doc)))
    r1 = row(b, "c1")
    assert (r1.with_skill.n, r1.with_skill.drawn, r1.with_skill.lost) == (2, 3, 1)
    assert r1.with_skill.mean == pytest.approx(0.83) and r1.lift == pytest.approx(0.31)
    assert r1.included and r1.note is None
    assert b.suite_lift == pytest.approx(0.11 / 3, abs=1e-12) and b.suite_lift_reason is None
    assert b.carrier_withheld == "lost draws prevent a carrier assertion"
