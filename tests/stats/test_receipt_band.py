"""The receipt-wide band (D-8), worked by hand from the formula, independently of the code."""

from __future__ import annotations

import math
import statistics

import pytest
from stats_helpers import load_vectors

from driftproof.stats import band_of_scores, receipt_band_of
from driftproof.stats.band import Band
from driftproof.wording import MORE_CASES, NOT_ENOUGH_DRAWS

VECTORS = load_vectors()
#: The receipt-wide examples are built from the six main cases C1..C6 (not the edge cases E1, E2).
MAIN = [c for c in VECTORS["cases"] if c["id"].startswith("C")]


def _pairs(receipt: str) -> list[tuple[Band, Band]]:
    out = []
    for c in MAIN:
        side = c["inputs"][receipt]
        planned = side["with_skill_planned_draws"]
        with_ = side["with_skill_draws"] + [None] * (planned - len(side["with_skill_draws"]))
        out.append((band_of_scores(with_), band_of_scores(side["baseline_draws"])))
    return out


def _by_hand(arms: list[list[list[float]]]) -> tuple[float, float]:
    """(comparison band, reduced band) from the D-8 formula: s = stdev of case means,
    w = mean of var_i / n_i, band = sqrt(s_w² + s_b²), reduced = sqrt(Σ max(0, s² − w))."""
    s2, r2 = [], []
    for arm in arms:
        means = [statistics.fmean(x) for x in arm]
        s = statistics.stdev(means)
        w = statistics.fmean([statistics.variance(x) / len(x) for x in arm])
        s2.append(s * s)
        r2.append(max(0.0, s * s - w))
    return math.sqrt(sum(s2)), math.sqrt(sum(r2))


@pytest.mark.skipif(
    not VECTORS["cases"], reason="../shared/cases/verdicts.json is not laid beside this checkout"
)
def test_receipt_a_of_the_worked_examples() -> None:
    """Receipt A (no lost draw): band 0.176929 (verdicts.json), the cases disagree: more cases."""
    rb = receipt_band_of(_pairs("A"))
    assert rb is not None
    ex = VECTORS["receipt_wide"]["A"]
    assert rb.spread_with == pytest.approx(ex["with_spread_sd"], abs=1e-6)
    assert rb.spread_baseline == pytest.approx(ex["without_spread_sd"], abs=1e-6)
    assert rb.draw_part_with == pytest.approx(ex["with_mean_draw_var_of_case_mean"], abs=1e-6)
    assert rb.band == pytest.approx(ex["band_quadrature_sd"], abs=1e-6)
    with_ = [c["inputs"]["A"]["with_skill_draws"] for c in MAIN]
    base = [c["inputs"]["A"]["baseline_draws"] for c in MAIN]
    band, reduced = _by_hand([with_, base])
    assert rb.band == pytest.approx(band)
    assert rb.reduced == pytest.approx(reduced)
    assert rb.underpowered and rb.sentence == MORE_CASES
    assert (
        (rb.cases, rb.widening_with, rb.widening_baseline)
        == (ex["n_cases"], 0.0, 0.0)
        == (6, 0.0, 0.0)
    )


@pytest.mark.skipif(
    not VECTORS["cases"], reason="../shared/cases/verdicts.json is not laid beside this checkout"
)
def test_receipt_b_lost_draw_widens_and_forces_not_enough_draws() -> None:
    """Receipt B: C6 lost one of three with-skill draws (measured .74 .75, mean .745).
    Its mean could move by 1/3 · max(.745 − 0, 1 − .745) = .248333; the with-skill spread
    widens by sqrt(.248333² / (N − 1)) with N = 6 cases, and the sentence is forced (D-8)."""
    rb = receipt_band_of(_pairs("B"))
    assert rb is not None
    move = (1 / 3) * 0.745
    widen = math.sqrt(move * move / (6 - 1))
    means = [statistics.fmean(c["inputs"]["B"]["with_skill_draws"]) for c in MAIN]
    s_with = statistics.stdev(means) + widen
    s_base = statistics.stdev([statistics.fmean(c["inputs"]["B"]["baseline_draws"]) for c in MAIN])
    assert rb.widening_with == pytest.approx(widen)
    assert rb.spread_with - rb.widening_with == pytest.approx(
        VECTORS["receipt_wide"]["B"]["with_spread_sd"], abs=1e-6
    )
    assert rb.widening_baseline == 0.0
    assert rb.band == pytest.approx(math.hypot(s_with, s_base))
    assert rb.underpowered and rb.sentence == NOT_ENOUGH_DRAWS
    assert "lost draws" in rb.reason


def test_draw_spread_reads_not_enough_draws() -> None:
    """Two cases whose means sit .07 apart in each arm but whose draws spread by .10:
    s = stdev(.60, .67) = .049497, w = mean(.01/3) = .003333 > s², so the reduced band is 0,
    band = sqrt(2)·.049497 = .07 ≥ .05 → UNDERPOWERED, Not enough draws."""
    w1, w2 = band_of_scores([0.50, 0.70, 0.60]), band_of_scores([0.57, 0.77, 0.67])
    b1, b2 = band_of_scores([0.40, 0.60, 0.50]), band_of_scores([0.47, 0.67, 0.57])
    rb = receipt_band_of([(w1, b1), (w2, b2)])
    assert rb is not None
    s = statistics.stdev([0.60, 0.67])
    assert rb.band == pytest.approx(math.sqrt(2) * s)
    assert rb.reduced == 0.0
    assert rb.sentence == NOT_ENOUGH_DRAWS


def test_band_under_the_floor_is_not_underpowered() -> None:
    # means .60/.62 with, .50/.52 baseline: s = .014142 each, band = .02 < .05
    rb = receipt_band_of(
        [
            (band_of_scores([0.60, 0.60]), band_of_scores([0.50, 0.50])),
            (band_of_scores([0.62, 0.62]), band_of_scores([0.52, 0.52])),
        ]
    )
    assert rb is not None
    assert rb.band == pytest.approx(0.02)
    assert not rb.underpowered and rb.sentence is None


def test_one_case_forms_no_band() -> None:
    assert receipt_band_of([(band_of_scores([0.5, 0.6]), band_of_scores([0.4, 0.5]))]) is None
    # a case with no measured draw in an arm is left out, so this is one case too
    assert (
        receipt_band_of(
            [
                (band_of_scores([0.5, 0.6]), band_of_scores([0.4, 0.5])),
                (band_of_scores([None]), band_of_scores([0.4, 0.5])),
            ]
        )
        is None
    )


def test_one_draw_forces_not_enough_draws() -> None:
    """Cases .20 and .80 apart (the cases disagree), but one arm measured a single draw:
    the draw-to-draw part cannot be read, so the sentence is Not enough draws (D-8)."""
    rb = receipt_band_of(
        [
            (band_of_scores([0.20]), band_of_scores([0.20, 0.21])),
            (band_of_scores([0.80, 0.81]), band_of_scores([0.80, 0.81])),
        ]
    )
    assert rb is not None and rb.underpowered
    assert rb.draw_part_with is None and rb.reduced is None
    assert rb.sentence == NOT_ENOUGH_DRAWS


def test_legacy_reads_generation_sd() -> None:
    """Legacy bands: the draw-to-draw part is generation.sd² over the one draw; without it,
    forced."""

    def legacy(samples: list[float], gen_sd: float | None) -> Band:
        b = band_of_scores(samples, source="legacy", generation_sd=gen_sd)
        return Band(b.mean, b.sd, b.n, 1, 0, (), "legacy", gen_sd)

    pairs = [
        (legacy([0.2, 0.2, 0.25], 0.01), legacy([0.2, 0.25, 0.2], 0.01)),
        (legacy([0.8, 0.8, 0.85], 0.01), legacy([0.8, 0.85, 0.8], 0.01)),
    ]
    rb = receipt_band_of(pairs)
    assert rb is not None
    assert rb.draw_part_with == pytest.approx(0.0001)
    assert rb.sentence == MORE_CASES
    pairs[0] = (legacy([0.2, 0.2, 0.25], None), pairs[0][1])
    forced = receipt_band_of(pairs)
    assert forced is not None and forced.sentence == NOT_ENOUGH_DRAWS


def test_the_reason_names_the_mean_scores_sitting_apart_not_the_cases_disagreeing() -> None:
    """The method page's worked example: case a 0.80 in both arms, case b 0.40 (sd .01 over 3).

    s = stdev(.80, .40) = .28284 per arm, band √(2 × .08) = .40; w = .01²/3 = .0000333, reduced
    √(2 × (.08 − .0000333)) = .39992 ≥ .05: "More cases, …". Neither lift moved, so the reason
    names the mean scores sitting apart; "the cases disagree" read as the lift varying.
    """
    a = (band_of_scores([0.80, 0.81, 0.79]), band_of_scores([0.80, 0.79, 0.81]))
    b = (band_of_scores([0.40, 0.41, 0.39]), band_of_scores([0.40, 0.39, 0.41]))
    rb = receipt_band_of([a, b])
    assert rb is not None and rb.sentence == MORE_CASES
    assert rb.band == pytest.approx(0.40, abs=1e-12)
    assert rb.reason == (
        "with the draw-to-draw part taken out the band is still 0.3999: the cases' mean scores "
        "sit apart (how hard each case is, not their lift), and more draws do not change that"
    )
