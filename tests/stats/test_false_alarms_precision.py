"""The printed chance of at least the observed regressed cases from noise alone carries no more
precision than its simulation supports: checked against values worked out by integration.

Two draws per side, equal spreads s, no grid (the closed form of test_false_alarms.py, now with
the floor): Δ = s·Z0 and each side's sample sd is s·|Z|, so "regressed" is −Z0 ≥ max(c, R), with
c = 0.05/s and R = |Z_A| + |Z_B|. R has density (2/√π)·e^(−r²/4)·erf(r/2) (the convolution of
two half-normals), so P = Φ̄(c)·P(R < c) + ∫_c^∞ f_R(r)·Φ̄(r) dr, integrated here by Simpson's
rule (error under 1e-9 at this step; with c = 0 it gives the closed form atan(1/(2√2))/π).
"""

from __future__ import annotations

import math
import re

import pytest
from factories import JUDGE, case, make_receipt

from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt
from driftproof.stats.false_alarms import FalseAlarms, p_at_least, p_regressed


def _tail(x: float) -> float:
    return 0.5 * math.erfc(x / math.sqrt(2.0))


def _f_r(r: float) -> float:
    return 2.0 / math.sqrt(math.pi) * math.exp(-r * r / 4.0) * math.erf(r / 2.0)


def _simpson(f, a: float, b: float, n: int = 20_000) -> float:
    h = (b - a) / n
    return h / 3.0 * (f(a) + f(b) + sum((4 if i % 2 else 2) * f(a + i * h) for i in range(1, n)))


def _exact(sd: float) -> float:
    """The true chance that one such case reads regressed with no change."""
    c = 0.05 / sd
    return _tail(c) * _simpson(_f_r, 0.0, c) + _simpson(lambda r: _f_r(r) * _tail(r), c, c + 40)


def test_the_integral_gives_the_closed_form_away_from_the_floor() -> None:
    assert _exact(1e6) == pytest.approx(math.atan(1 / (2 * math.sqrt(2))) / math.pi, abs=1e-9)
    # a simulation of 400,000 pairs gave 0.550% (sd of that simulation 0.012%)
    assert _exact(0.02) == pytest.approx(0.0056054, abs=1e-7)


def _said(sd: float, seed: int) -> str:
    """The printed chance of at least one regressed case, one case simulated as diff does."""
    p = p_regressed(sd, 2, sd, 2, seed=seed)  # 2,000 pairs, as diff simulates a case
    fa = FalseAlarms(p, 1, p_at_least([p], 1), 1, 2000, 0.05, (p,))
    m = re.search(
        r"The chance of at least 1 from noise alone is (.*?): (beyond|within)", fa.sentence()
    )
    assert m is not None
    return m.group(1)


@pytest.mark.parametrize(
    ("sd", "seed", "true"),
    [
        # 5 of 2,000 pairs read regressed: it printed "0.2%" of a true 0.561%
        (0.02, 38, 0.0056054),
    ],
)
def test_a_small_chance_is_printed_with_the_range_its_simulation_allows(sd, seed, true) -> None:
    assert _exact(sd) == pytest.approx(true, rel=1e-4)
    said = _said(sd, seed)
    m = re.fullmatch(r"about [\d.]+%, ([\d.]+)% to ([\d.]+)% by simulation", said)
    assert m is not None, said
    assert float(m.group(1)) / 100 <= true <= float(m.group(2)) / 100


def test_the_range_holds_the_true_chance_about_95_times_in_100() -> None:
    # a true 0.0175% (sd .014): 2 of 2,000 pairs printed "0.1%", six times over. Over 200
    # seeds, the printed range (or bound) must hold the true chance in at least 90% of them
    true = _exact(0.014)
    assert true == pytest.approx(0.00017484, rel=1e-4)
    held = 0
    for seed in range(200):
        said = _said(0.014, seed)
        m = re.fullmatch(r"about [\d.]+%, ([\d.]+)% to ([\d.]+)% by simulation", said)
        u = re.fullmatch(r"under ([\d.]+)%", said)
        assert m is not None or u is not None, said
        low, high = (0.0, float(u.group(1))) if u else (float(m.group(1)), float(m.group(2)))
        held += low / 100 <= true <= high / 100
    assert held >= 180


def test_the_range_of_at_least_two_holds_each_cases_own_error() -> None:
    # Found: the bounds of "at least k" scaled every case's chance by one factor from the
    # suite's total count, right for k = 1 only: with one case at .9, one at .001 and 18 at
    # .0001, the true chance of at least 2 (worked out below) fell above the "95%" range about
    # half the time. Each case's count is drawn here as the simulation would give it.
    import numpy as np

    from driftproof.stats.false_alarms import chance_bounds

    true_ps = [0.9, 0.001] + [0.0001] * 18
    none = math.prod(1 - p for p in true_ps)
    one = sum(p * none / (1 - p) for p in true_ps)
    true = 1 - none - one  # at least 2: neither none nor exactly one
    rng = np.random.default_rng(5)
    held = 0
    for _ in range(200):
        est = [int(x) / 2000 for x in rng.binomial(2000, true_ps)]
        low, high = chance_bounds(est, 2, 2000)
        held += low <= true <= high
    assert held >= 180


def test_no_simulated_pair_read_regressed_gives_an_upper_bound() -> None:
    # 0 of 2,000 pairs: the true chance is 0.0419%; 0 events bound a Poisson mean, at the
    # 98.75% the upper bound is taken at, by −ln .0125 = 4.382: 4.382/2,000 = 0.219%, up to
    # a tenth of a percent "under 0.3%"
    assert _exact(0.015) == pytest.approx(0.00041878, rel=1e-4)
    assert _said(0.015, 38) == "under 0.3%"


def test_many_cases_with_no_event_are_bounded_together_not_one_event_each() -> None:
    # Found: each case's upper draw adds about one event, so 100 cases with none read "under
    # 5.9%"; together their 200,000 pairs with no event bound the sum of their chances by
    # 4.382/2,000 (as above): the chance of at least one is under 0.219%, "under 0.3%"
    from driftproof.stats.false_alarms import chance_words

    assert chance_words([0.0] * 100, 1, 2000) == "under 0.3%"


def test_a_chance_the_simulation_pins_down_is_printed_as_before() -> None:
    # 40 cases each regressed with chance 0.108173 (the closed form), 5 observed: the exact
    # binomial tail is P(at least 5 of 40) = 1 − Σ_{j<5} C(40, j)·p^j·(1 − p)^(40−j); the
    # simulation (about 8,650 pairs read regressed over 80,000) is within 2 points of it
    p = math.atan(1 / (2 * math.sqrt(2))) / math.pi
    exact = 1 - sum(math.comb(40, j) * p**j * (1 - p) ** (40 - j) for j in range(5))
    ps = [p_regressed(1e3, 2, 1e3, 2, seed=37 + i) for i in range(40)]
    fa = FalseAlarms(sum(ps), 5, p_at_least(ps, 5), 40, 2000, 0.05, tuple(ps))
    m = re.search(r"The chance of at least 5 from noise alone is (\d+)%: within", fa.sentence())
    assert m is not None and abs(int(m.group(1)) / 100 - exact) <= 0.02


def test_a_case_ruled_out_without_simulation_is_bounded_by_its_reasoning() -> None:
    # one case regressed from .80 .81 .80 to .60 .61 .60 on a 0.01 grid: sds .00577, standard
    # error of the gap √(2·.00577²/3) = .0047; the floor less both half steps, .04, is 8.5 of
    # them away, so the case is not simulated and its chance is under 2e-9: no 2,000-pair
    # bound (under 0.2%) applies, and it reads "under 0.01%"
    judge = {**JUDGE, "scale": {"worst": 0.0, "best": 1.0, "step": 0.01}}
    a = make_receipt([case("c", [0.80, 0.81, 0.80], [0.5, 0.5, 0.5])], judge=judge)
    b = make_receipt([case("c", [0.60, 0.61, 0.60], [0.5, 0.5, 0.5])], judge=judge)
    c = compare_receipts(Receipt.model_validate(a), Receipt.model_validate(b), false_alarms=True)
    assert c.false_alarms is not None and c.false_alarms.per_case == (0.0,)
    assert "The chance of at least 1 from noise alone is under 0.01%: beyond" in (
        c.false_alarms.sentence()
    )


def test_a_chance_short_of_certain_never_reads_100_percent() -> None:
    # Found: 300 cases each regressed by noise with chance 0.0315 (63 of 2,000 pairs), 3
    # observed; P(at least 3) = 1 − Σ_{j<3} C(300, j)·p^j·(1 − p)^(300−j) = 0.99607, printed
    # "100%". At least 1: 1 − 0.9685^300 = 0.99993, over 99.9% but not certain.
    from driftproof.stats.false_alarms import chance_words

    p = 0.0315
    exact = 1 - sum(math.comb(300, j) * p**j * (1 - p) ** (300 - j) for j in range(3))
    assert round(exact, 3) == 0.996
    assert chance_words([p] * 300, 3, 2000) == "99.6%"
    assert chance_words([p] * 300, 1, 2000) == "over 99.9%"
