"""Reading one receipt (D-6, D-7, D-8) and its lift (D-14), on receipts built in memory."""

from __future__ import annotations

import pytest
from factories import case, edited, make_receipt
from stats_helpers import legacy_case, model

from driftproof.stats import (
    band_source_of,
    receipt_band,
    receipt_reading,
    suite_lift,
    value_per_1k,
    verdict_refusal,
)
from driftproof.wording import (
    MORE_CASES,
    NO_DRAW_COUNT_REACHES,
    NO_SEPARATION,
    NOT_ENOUGH_DRAWS,
    SMOKE_RUN,
)

# with .60 .62 .61 (mean .61, sd .01) vs baseline .45 .50 .48 (mean .4767, sd .0252): Δ +.1333,
# sum sd .0352 → apart, ≥ .05 → helps.
HELPS = case("helps", [0.60, 0.62, 0.61], [0.45, 0.50, 0.48])
# with .50 .51 .52 vs baseline .60 .61 .62: Δ −.10, sum sd .02 → hurts.
HURTS = case("hurts", [0.50, 0.51, 0.52], [0.60, 0.61, 0.62])
# C5 inside one receipt: with .71 .72 .74 vs baseline .69 .70 .72: Δ .02 overlaps .0306;
# resolution .0555 ≥ .05 → underpowered; 5 draws per arm with the spreads held.
WEAK = case("weak", [0.71, 0.72, 0.74], [0.69, 0.70, 0.72])
# with .50 .60 .70 and baseline the same: sd .10 each, sum .20 ≥ .05
# → no draw count reaches the floor.
WIDE = case("wide", [0.50, 0.60, 0.70], [0.50, 0.60, 0.70])
# C4-like: with .51 .52 .53 vs baseline .50 .51 .52: Δ .01 ≤ .02, resolution .0363 < .05
# → no separation.
NULL1 = case("null1", [0.51, 0.52, 0.53], [0.50, 0.51, 0.52])
# the same shape .30 higher: the two cases' means sit .30 apart in each arm
NULL2 = case("null2", [0.81, 0.82, 0.83], [0.80, 0.81, 0.82])


def read(cases, **kw):
    return receipt_reading(model(make_receipt(cases, **kw)))


def test_passing_when_a_case_helps_and_none_hurts() -> None:
    r = read([HELPS, NULL1])
    assert (r.status, r.helps, r.hurts) == ("passing", ("helps",), ())
    assert [v.verdict for v in r.cases] == ["improved", "no separation"]


def test_regressed_when_any_case_hurts() -> None:
    r = read([HELPS, HURTS])
    assert (r.status, r.helps, r.hurts) == ("regressed", ("helps",), ("hurts",))


def test_underpowered_with_the_draw_count() -> None:
    r = read([WEAK, NULL1])
    assert (r.status, r.sentence, r.draws_needed) == ("UNDERPOWERED", NOT_ENOUGH_DRAWS, 5)
    # the words name the question the count answers, apart from plan's (a next run)
    assert r.reason == (
        "5 draws per arm would have been needed with the spreads held, for the bands as "
        "measured; driftproof plan sizes a next run from the spreads' upper bounds, so its count "
        "differs"
    )


def test_underpowered_with_no_draw_count() -> None:
    r = read([WIDE])
    assert (r.status, r.sentence, r.draws_needed) == ("UNDERPOWERED", NOT_ENOUGH_DRAWS, None)
    assert NO_DRAW_COUNT_REACHES in r.reason


def test_one_case_no_separation_reads_as_before() -> None:
    r = read([NULL1])
    assert (r.status, r.sentence, r.receipt_band) == ("no separation detected", NO_SEPARATION, None)


def test_cases_that_disagree_read_more_cases() -> None:
    """null1 and null2: no case separates or is underpowered; the case means sit .30 apart in
    each arm, so s = stdev(.52, .82) = .2121 per arm and the band .30 ≥ .05 → UNDERPOWERED;
    the draw part (.0001/3) is tiny, so the cases disagree (D-8)."""
    r = read([NULL1, NULL2])
    assert (r.status, r.sentence, r.draws_needed) == ("UNDERPOWERED", MORE_CASES, None)
    assert r.receipt_band is not None
    assert r.receipt_band.band == pytest.approx(0.30)
    assert r.receipt_band == receipt_band(model(make_receipt([NULL1, NULL2])))


def test_lost_draw_inside_one_receipt_is_inconclusive() -> None:
    # with .90 .91 + lost vs baseline .50 .51 .52: the lost draw at 0 gives mean .6033,
    # sd .5225 → overlap
    r = read([case("c", [0.90, 0.91, None], [0.50, 0.51, 0.52])])
    (v,) = r.cases
    assert v.verdict == "inconclusive"
    assert (
        v.lost_detail
        == "baseline: 0 of 3 draws lost; with skill: 1 of 3 draws lost (timeout after 2 retries)"
    )
    assert r.status == "no separation detected"
    assert r.reason == "no case separated under the rule; inconclusive for lost draws: c"


def test_a_case_below_the_floor_is_named_not_called_unseparated() -> None:
    """C3 inside one receipt: with .83 .84 .83 (mean .83333, sd .00577) vs baseline .80 .81 .80
    (mean .80333, sd .00577): Δ .03 > .01155 → apart, < .05 → below effect floor (D-4); with
    NULL1 beside it no case helps or hurts, so the receipt reads no separation (D-7), and its
    reason names the case that separated below the floor apart (D-4), never "no case separated"."""
    below = case("below", [0.83, 0.84, 0.83], [0.80, 0.81, 0.80])
    r = read([below, NULL1])
    assert [v.verdict for v in r.cases] == ["below effect floor", "no separation"]
    assert (r.status, r.sentence) == ("no separation detected", NO_SEPARATION)
    assert r.reason == "no case separated by the effect floor or more; below effect floor: below"


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"level": "DECLARED"}, "below TESTED"),
        ({"level": "UNVERIFIED"}, "below TESTED"),
        ({"level": "UNVERIFIED", "preset": "quick"}, SMOKE_RUN),
        ({"judge": None}, "no judge"),
    ],
)
def test_no_verdict_names_why(kw, words) -> None:
    r = read([HELPS], **kw)
    assert (r.status, r.helps, r.cases) == ("no verdict", (), ())
    assert words in r.reason


def test_smoke_run_restamped_tested_names_why() -> None:
    # the model and the schema refuse a preset with TESTED: restamped past them, still a smoke run
    r = receipt_reading(
        edited(
            model(make_receipt([HELPS], level="UNVERIFIED", preset="quick")),
            "/verification_level",
            "TESTED",
        )
    )
    assert (r.status, r.helps, r.cases) == ("no verdict", (), ())
    assert SMOKE_RUN in r.reason


def test_smoke_run_sentence() -> None:
    r = read([HELPS], level="UNVERIFIED", preset="quick")
    assert r.sentence == SMOKE_RUN


def test_aggregates_only_gets_no_verdict_and_no_lift() -> None:
    doc = make_receipt(
        [], uncertainty_unavailable="aggregates_only", source_figures={"source": "test"}
    )
    r = model(doc)
    assert "aggregates only" in (verdict_refusal(r) or "")
    assert receipt_reading(r).status == "no verdict"
    assert suite_lift(r) is None


def test_no_scores_gets_no_verdict() -> None:
    # D-17: the with-skill arm's two draws are lost (the factory's reason), the baseline's two
    # measured: 2 of 4 draws lost, all to that reason, and all of them the with-skill arm's (a
    # skill that makes every prompt too long for the model reads so)
    r = model(make_receipt([case("c", [None, None], [0.5, 0.6])]))
    assert verdict_refusal(r) == (
        "not measured: no case has a measured score in both arms; every with skill draw lost "
        "(2 of the 4 draws of both arms) to timeout after 2 retries"
    )
    # each arm lost the draws of one case: no one arm to name
    r = model(make_receipt([case("a", [None], [0.5]), case("b", [0.5], [None])]))
    assert verdict_refusal(r) == (
        "not measured: no case has a measured score in both arms; 2 of 4 draws lost to "
        "timeout after 2 retries"
    )


def test_legacy_bands_come_from_judge_samples() -> None:
    """One draw judged five times: with .80 .80 .85 .80 .80 (mean .81, sd .02236), baseline
    .50 .55 .50 .50 .50 (mean .51, sd .02236): Δ .30 → helps; n counts judge samples."""
    doc = make_receipt(
        [legacy_case("c", [0.8, 0.8, 0.85, 0.8, 0.8], [0.5, 0.55, 0.5, 0.5, 0.5])],
        band_source="legacy",
    )
    r = model(doc)
    reading = receipt_reading(r)
    assert reading.status == "passing"
    (v,) = reading.cases
    assert (v.b.source, v.b.n, v.b.drawn) == ("legacy", 5, 1)
    assert v.b.mean == pytest.approx(0.81)
    assert v.b.sd == pytest.approx((4 * 0.01**2 + 0.04**2) ** 0.5 / 2)


def test_band_source_inferred_when_not_recorded() -> None:
    legacy = model(make_receipt([legacy_case("c", [0.8, 0.85], [0.5, 0.55])], band_source=None))
    generation = model(make_receipt([HELPS], band_source=None))
    assert (band_source_of(legacy), band_source_of(generation)) == ("legacy", "generation")


def test_suite_lift_weighs_cases_equally() -> None:
    # helps: .61 − .47667 = .13333; hurts: .51 − .61 = −.10; mean = .016667
    r = model(make_receipt([HELPS, HURTS]))
    assert suite_lift(r) == pytest.approx((0.61 - (0.45 + 0.50 + 0.48) / 3 + 0.51 - 0.61) / 2)


def test_lift_is_kept_as_context_below_tested() -> None:
    r = model(make_receipt([HURTS], level="DECLARED"))
    assert suite_lift(r) == pytest.approx(-0.10)


def test_value_per_1k() -> None:
    # +0.10 with 400 skill tokens → 0.25 per 1,000; 6,000 tokens → 0.016667 (method's example)
    assert value_per_1k(0.10, 400) == pytest.approx(0.25)
    assert value_per_1k(0.10, 6000) == pytest.approx(0.1 / 6)
    assert value_per_1k(None, 400) is None
    assert value_per_1k(0.1, None) is None
    assert value_per_1k(0.1, 0) is None
