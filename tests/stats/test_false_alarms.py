"""The suite-level A/A expectation (issue 37, item 2): per-case chances of a false "regressed",
checked against a closed form, and the Poisson-binomial tail against hand sums."""

from __future__ import annotations

import math

import pytest
from factories import JUDGE, case, make_receipt

from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt
from driftproof.stats.false_alarms import p_at_least, p_regressed, suite_false_alarms

# Two draws per side, equal spreads s, equal true means, no grid. With two draws an arm's sample
# sd is |x1 − x2|/√2 = s·|Z| for a standard normal Z, and the difference of the two means is
# s·Z0, all three independent. Away from the floor (s large next to 0.05), "regressed" is
# Z0 < −(|Z_A| + |Z_B|): by the spherical symmetry of (Z0, Z_A, Z_B), the share of the sphere
# inside the square pyramid x > |y| + |z|. Its cross-section at x = 1 is a square of half-side
# 1/√2, so its solid angle is 4·atan(a²/√(1 + 2a²)) with a = 1/√2, i.e. 4·atan(1/(2√2)), and the
# chance is that over 4π: atan(1/(2√2))/π = 0.108173. (Both sides together, 0.2163: the
# "21.7% at n = 2" null separation rate of the statistics notes, section 6.2.)
CLOSED_FORM = math.atan(1 / (2 * math.sqrt(2))) / math.pi


def test_closed_form_value() -> None:
    assert CLOSED_FORM == pytest.approx(0.108173, abs=1e-6)


def test_p_regressed_against_the_closed_form() -> None:
    # spread 10 on an unbounded scale: |Δ| < 0.05 has chance ~0.004 and then also needs the
    # bands apart, so the floor is immaterial; Monte Carlo sd at 20,000 trials is 0.0022
    p = p_regressed(10.0, 2, 10.0, 2, trials=20_000)
    assert p == pytest.approx(CLOSED_FORM, abs=0.0066)


def test_suite_expectation_is_the_sum_over_cases() -> None:
    # 40 cases at that closed form: 40 × 0.108173 = 4.327 regressed cases from noise alone
    # (independent seeds per case: Monte Carlo sd of the sum √(40·0.108·0.892/2000) = 0.044)
    r = Receipt.model_validate(make_receipt([case("x", [0.5, 0.6], [0.5, 0.6])]))
    rows = compare_receipts(r, r).rows
    from dataclasses import replace

    from driftproof.stats.band import Band

    wide = Band(0.5, 10.0, 2, 2, 0, (), "generation")
    many = [replace(rows[0], a=wide, b=wide) for _ in range(40)]
    fa = suite_false_alarms(many, (None, None), (None, None))
    assert fa.expected == pytest.approx(40 * CLOSED_FORM, abs=0.15)
    assert fa.observed == 0 and fa.p_at_least == 1.0 and not fa.beyond_noise


def test_a_single_draw_side_cannot_be_called() -> None:
    assert p_regressed(0.05, 1, 0.05, 3) == 0.0


def test_tight_spreads_never_regress_by_noise() -> None:
    # spreads 0.001 on a 0.05 floor: a false move of 0.05 is 35 standard errors away
    assert p_regressed(0.001, 3, 0.001, 3) == 0.0


def test_poisson_binomial_tail_by_hand() -> None:
    assert p_at_least([0.5, 0.5], 1) == pytest.approx(0.75)
    assert p_at_least([0.5, 0.5], 2) == pytest.approx(0.25)
    # P(at least 2 of chances .1, .2, .3) = .1·.2·.7 + .1·.8·.3 + .9·.2·.3 + .1·.2·.3 = .098
    assert p_at_least([0.1, 0.2, 0.3], 2) == pytest.approx(0.098)
    assert p_at_least([0.1, 0.2, 0.3], 0) == 1.0
    assert p_at_least([0.1], 2) == 0.0


def test_diff_prints_the_expectation_and_keeps_the_verdict_words() -> None:
    # the statistics notes' multiplicity figure: at spread 0.05 with 3 draws about 3.5% of
    # unchanged cases read regressed, so 40 cases give about 40 × 3.45% = 1.4 (section 6.2)
    same = [case(f"c{i}", [0.70, 0.75, 0.80], [0.5, 0.55, 0.6]) for i in range(40)]
    judge = {**JUDGE, "scale": {"worst": 0.0, "best": 1.0, "step": 0.01}}
    r = Receipt.model_validate(make_receipt(same, judge=judge))
    c = compare_receipts(r, r, false_alarms=True)
    assert c.false_alarms is not None
    assert c.false_alarms.expected == pytest.approx(1.38, abs=0.2)
    assert c.false_alarms.observed == 0
    assert c.headline == "no separation detected at this sample size"
    from driftproof.render.comparison import comparison_text as to_text

    # to one decimal: standard error √(40 × .0345 × .9655 / 2,000) = .0258, half-width 1.96 ×
    # .0258 = .0506, over half a tenth (.05), under half a unit: 1.38 reads 1.4, not 1
    text = to_text(c)
    assert (
        "Noise alone: if every case's true mean were the same in both receipts, about 1.4 of "
        "these 40 cases would read regressed" in text
    )


def test_p_regressed_follows_the_documented_draw() -> None:
    # The simulation as documented, written out: side A's 500 runs of 3 draws as one array
    # from default_rng(seed), then side B's; on the 0.05 grid held in 0..1; "regressed" where
    # B's mean sits below A's by more than the two sds and by at least 0.05.
    import numpy as np

    rng = np.random.default_rng(5)
    a = np.clip(np.round(rng.normal(0.5, 0.06, (500, 3)) / 0.05) * 0.05, 0, 1)
    b = np.clip(np.round(rng.normal(0.5, 0.06, (500, 3)) / 0.05) * 0.05, 0, 1)
    d = b.mean(axis=1) - a.mean(axis=1)
    s = a.std(axis=1, ddof=1) + b.std(axis=1, ddof=1)
    hits = np.count_nonzero((-d - s > 1e-9) & (-d >= 0.05 - 1e-9))
    grid = (0.05, (0.0, 1.0))
    got = p_regressed(0.06, 3, 0.06, 3, grid_a=grid, grid_b=grid, trials=500, seed=5)
    assert hits > 0 and got == hits / 500
