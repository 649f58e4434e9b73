"""Planning a run from a pilot.

Draws per arm with the pilot's spreads taken at an upper confidence bound, and the chance that
the planned run gives a verdict at a stated effect.

A pilot of a few draws measures each arm's spread loosely (from 3 draws the sample sd is
typically 11% low and varies by half its size), so planning from it as if exact lands the run
on the underpowered boundary (D-5) half the time. Here each arm's pilot spread ``s`` over
``n`` measured draws is replaced by its upper :data:`SPREAD_LEVEL` confidence bound under
normal draws, ``s·sqrt((n−1)/χ²_{1−level}(n−1))``; a spread pooled over at least
:data:`POOLED_DF` degrees of freedom at its upper :data:`POOLED_LEVEL` bound, with its lower
:data:`POOLED_NONE_LEVEL` bound (the median-unbiased value) for the no-count test
(:func:`level_for`). Then:

- **No draw count** when even the two spreads' lower ``level`` bounds reach the effect floor:
  at any number of draws the spreads themselves keep the resolution at or above the floor
  (D-5). **Undecided** when the upper bounds reach it and the lower ones do not: the pilot is
  too small to tell, and the plan gives the pilot size (draws per arm, spreads held) at which
  one of the two bounds would decide. A count more than :data:`COSTLY_RATIO` times the count
  the pilot's own spreads would give is still the answer, with the advice that a pilot of
  twice the draws would likely cut it (its looseness, not the case, sets most of the cost).
  How often the test of whether a count exists errs is :func:`equal_spreads_no_count_chance`.
- **Draws per arm**: the smallest n ≥ 3 (the run's minimum) at which a run whose true
  spreads are the two bounds reads underpowered under no effect at most
  :data:`UNDERPOWERED_AT_MOST` of the time. The resolution ``s_A + s_B + 2·sqrt((s_A² +
  s_B²)/n)`` grows with each arm's run spread, so it stays under the floor whenever each
  arm's run spread stays under its own 95% point ``bound·sqrt(χ²_{0.95}(n−1)/(n−1))``, which
  happens at least 90% of the time (each fails at most 5%).
- **For a stated effect** δ: n is also at least the smallest count at which, by the same
  reasoning, a true lift δ is called at least 90% of the time: the observed lift stays above
  ``δ − 1.645·sqrt((b_A² + b_B²)/n)`` (95%) and each run spread under its 97.5% point (2.5%
  each), and that lower lift clears both the floor and the two spreads. When no count does
  (δ at or below the floor or the bounds' sum), the count is the underpowered one alone and
  the chance printed says how often δ is called.

**Pooling across cases.** Draw-to-draw spread is mostly the answering model's and the
judge's noise, so it is usually alike across a suite's cases. For each arm, the per-case
pilot variances (each with its own ``n − 1`` degrees of freedom) are put to Bartlett's test of
equal variances (:func:`bartlett`); unless it rejects at :data:`HOMOGENEITY_LEVEL` (5%), every
case of that arm is planned from the pooled spread ``sqrt(Σ(n_i − 1)·s_i² / Σ(n_i − 1))`` with
its pooled degrees of freedom ``Σ(n_i − 1)`` in the χ² bounds (:func:`pool_arm`); otherwise
each case keeps its own spread and bounds. The test needs positive variances: a zero sample
variance (identical draws on a coarse grid, STATISTICS-NOTES 6.6) enters the test at the grid's
rounding variance ``step²/12``, and with no known step it refuses pooling.

The chance of a verdict at δ is found by simulation (:func:`p_verdict`): seeded, so the same
pilot always gives the same figure, at the pilot's own measured spreads (pooled where pooled;
not the bounds), on the judge's per-draw grid, through the rule's own separation and floor
test (D-3, D-4).

χ² quantiles are exact (:mod:`driftproof.stats._chi2`), so the bounds need no statistics
library.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from driftproof.stats._chi2 import chi2_cdf, chi2_quantile
from driftproof.stats._chi2 import sd_factor as _sd_factor
from driftproof.stats._rule import meets_floor, separated
from driftproof.stats._simulate import Grid, arm_moments
from driftproof.wording import DEFAULT_EFFECT, EFFECT_FLOOR, MIN_DRAWS_PER_ARM, TOLERANCE

__all__ = [
    "COSTLY_RATIO",
    "DEFAULT_EFFECT",
    "HOMOGENEITY_LEVEL",
    "MAX_PILOT_DRAWS",
    "MAX_PLANNED_DRAWS",
    "POOLED_DF",
    "POOLED_LEVEL",
    "POOLED_NONE_LEVEL",
    "SPREAD_LEVEL",
    "UNDERPOWERED_AT_MOST",
    "ArmPool",
    "CaseSizing",
    "bartlett",
    "chi2_cdf",
    "chi2_quantile",
    "equal_spreads_no_count_chance",
    "level_for",
    "p_verdict",
    "pool_arm",
    "size_case",
    "spread_bound",
]

#: Confidence level of the bounds a pilot spread is taken at (80%): one case's own spread, or
#: a spread pooled over fewer than :data:`POOLED_DF` degrees of freedom.
SPREAD_LEVEL = 0.80
#: Confidence level of the bounds of a spread pooled over at least :data:`POOLED_DF` degrees of
#: freedom (60%).
POOLED_LEVEL = 0.60
#: The level of the lower bounds that name a case with no count when its spreads are bounded at
#: :data:`POOLED_LEVEL`: 50%, each pooled spread's median-unbiased value.
POOLED_NONE_LEVEL = 0.50
#: Pooled degrees of freedom per arm from which :data:`POOLED_LEVEL` applies (ten cases of 3
#: draws).
POOLED_DF = 20
#: A planned run under no effect reads underpowered at most this often.
UNDERPOWERED_AT_MOST = 0.10
#: The effect ``plan`` plans for unless told: 1.5 × the floor.
#: Above this many draws per arm no count is given (the spreads sit too near the floor).
MAX_PLANNED_DRAWS = 10_000
#: A count more than this many times the one the pilot's own spreads would give is still the
#: answer, with the advice that a pilot of twice its draws would likely cut it.
COSTLY_RATIO = 4
#: A pilot is never asked to grow past this many draws per arm.
MAX_PILOT_DRAWS = 200
#: An arm's per-case spreads are pooled unless Bartlett's test rejects equal spreads at this
#: level.
HOMOGENEITY_LEVEL = 0.05
_Z95 = 1.6448536269514722  # standard normal 95% point


def spread_bound(sd: float, n: int, level: float = SPREAD_LEVEL) -> float:
    """Return an upper confidence bound of an arm's true spread.

    Upper ``level`` confidence bound of an arm's true spread from its sample sd ``sd`` over
    ``n ≥ 2`` measured draws (normal draws): ``sd·sqrt((n−1)/χ²_{1−level}(n−1))``.
    """
    return sd / _sd_factor(n - 1, 1.0 - level)


def bartlett(variances: Sequence[float], dfs: Sequence[int]) -> tuple[float, float]:
    """Bartlett's test that ``k ≥ 2`` normal samples share one variance.

    Args:
        variances: each sample's variance (ddof = 1), all positive.
        dfs: each sample's degrees of freedom ν_i = n_i − 1, all ≥ 1.

    Returns:
        ``(T, p)``: with ν = Σν_i and the pooled variance S² = Σν_i·s_i²/ν,
        ``T = (ν·ln S² − Σν_i·ln s_i²) / (1 + (Σ1/ν_i − 1/ν)/(3(k − 1)))``, and
        ``p = P(χ²_{k−1} ≥ T)``.

    Raises:
        ValueError: fewer than two samples, a variance not positive or a df below 1.
    """
    k = len(variances)
    if k < 2 or len(dfs) != k or min(variances) <= 0.0 or min(dfs) < 1:
        raise ValueError("need two or more positive variances, each with df ≥ 1")
    nu = sum(dfs)
    pooled = sum(d * v for d, v in zip(dfs, variances, strict=True)) / nu
    t = nu * math.log(pooled) - sum(d * math.log(v) for d, v in zip(dfs, variances, strict=True))
    t /= 1.0 + (sum(1.0 / d for d in dfs) - 1.0 / nu) / (3.0 * (k - 1))
    t = max(t, 0.0)  # T ≥ 0 by Jensen; rounding can leave −1e-16
    return t, 1.0 - chi2_cdf(t, k - 1)


@dataclass(frozen=True)
class ArmPool:
    """One arm's per-case pilot spreads, tested for a common spread.

    Attributes:
        cases: the cases whose spreads were tested (each with two or more measured draws).
        statistic: Bartlett's T (:func:`bartlett`); ``None`` when it could not be computed
            (a zero variance and no known grid step).
        p: its chance under one common spread; ``None`` with the statistic.
        sd: the pooled spread ``sqrt(Σ(n_i − 1)·s_i²/Σ(n_i − 1))``.
        df: the pooled degrees of freedom ``Σ(n_i − 1)``.
    """

    cases: int
    statistic: float | None
    p: float | None
    sd: float
    df: int

    @property
    def pooled(self) -> bool:
        """The spreads agree: Bartlett's test does not reject at :data:`HOMOGENEITY_LEVEL`."""
        return self.p is not None and self.p >= HOMOGENEITY_LEVEL

    def bound(self, level: float = SPREAD_LEVEL) -> float:
        """Upper ``level`` bound of the common spread: ``sd·sqrt(df/χ²_{1−level}(df))``."""
        return self.sd / _sd_factor(self.df, 1.0 - level)


def pool_arm(spreads: Sequence[tuple[float, int]], step: float | None = None) -> ArmPool | None:
    """Test one arm's per-case pilot spreads for a common spread and pool them (D-5 planning).

    Args:
        spreads: ``(sample sd, measured draws ≥ 2)`` per case.
        step: the per-draw score grid's step; a zero variance enters the test at
            ``step²/12`` (STATISTICS-NOTES 6.6), and with ``step`` unknown stops the test.

    Returns:
        ``None`` with fewer than two cases, else the :class:`ArmPool`.
    """
    if len(spreads) < 2:
        return None
    dfs = [n - 1 for _, n in spreads]
    df = sum(dfs)
    sd = math.sqrt(sum(d * s * s for d, (s, _) in zip(dfs, spreads, strict=True)) / df)
    least = step * step / 12.0 if step else 0.0
    variances = [max(s * s, least) for s, _ in spreads]
    if min(variances) <= 0.0:
        return ArmPool(len(spreads), None, None, sd, df)
    t, p = bartlett(variances, dfs)
    return ArmPool(len(spreads), t, p, sd, df)


def _smallest(ok: object) -> int | None:
    """Return the smallest draw count that passes a monotone test.

    Smallest n in [MIN_DRAWS_PER_ARM, MAX_PLANNED_DRAWS] with ``ok(n)`` (monotone), else
    ``None``.
    """
    assert callable(ok)
    if not ok(MAX_PLANNED_DRAWS):
        return None
    lo, hi = MIN_DRAWS_PER_ARM, MAX_PLANNED_DRAWS
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _resolves(b_a: float, b_b: float, floor: float, n: int) -> bool:
    f = _sd_factor(n - 1, 0.95)
    qa, qb = b_a * f, b_b * f
    return qa + qb + 2.0 * math.sqrt((qa * qa + qb * qb) / n) < floor - TOLERANCE


def _calls(b_a: float, b_b: float, effect: float, floor: float, n: int) -> bool:
    f = _sd_factor(n - 1, 0.975)
    qa, qb = b_a * f, b_b * f
    low = effect - _Z95 * math.sqrt((b_a * b_a + b_b * b_b) / n)
    return low > qa + qb + TOLERANCE and low >= floor - TOLERANCE


@dataclass(frozen=True)
class CaseSizing:
    """One case's planned draws.

    Attributes:
        bounds: the upper bounds of the with-skill and baseline spreads, each at its level.
        draws: draws per arm; ``None`` when no count does or the pilot cannot tell.
        no_draw_count: even the two spreads' lower bounds reach the floor: no number of draws
            resolves the case.
        pilot_draws: when the pilot cannot tell (the upper bounds reach the floor, the lower
            ones do not): the draws per arm to grow the pilot to (:func:`_pilot_draws`);
            ``None`` otherwise, or when the pilot already has :data:`MAX_PILOT_DRAWS`.
        undecided: the pilot cannot tell whether a count exists.
        effect_sized: the count also meets the 90% target at the stated effect.
        levels: the confidence level of each arm's bounds (:func:`level_for`).
        larger_pilot: with a count more than :data:`COSTLY_RATIO` times the one the pilot's own
            spreads give, the draws per arm of a pilot that would likely cut it (twice the
            pilot's); ``None`` otherwise. The count stands either way.
    """

    bounds: tuple[float, float]
    draws: int | None
    no_draw_count: bool
    pilot_draws: int | None
    undecided: bool
    effect_sized: bool
    levels: tuple[float, float] = (SPREAD_LEVEL, SPREAD_LEVEL)
    larger_pilot: int | None = None


def level_for(df: int, pooled: bool) -> float:
    """Return the confidence level an arm's spread is bounded at.

    The confidence level an arm's spread is bounded at: :data:`POOLED_LEVEL` (60%) for a
    spread pooled over at least :data:`POOLED_DF` degrees of freedom, else
    :data:`SPREAD_LEVEL` (80%).

    With ten or more pooled cases the spread is known well enough (its sd relative error is
    about 1/√(2·df), 16% at 20 degrees of freedom) that the run's own margins, each arm's run
    spread under its 95% point, carry most of the protection; the 80% level would then put a
    spread of 0.019 per arm out of reach of a count for one pilot in eight and ask for more than
    four times the draws the spread itself needs (benchmarks/plan_calibration.py).
    """
    return POOLED_LEVEL if pooled and df >= POOLED_DF else SPREAD_LEVEL


def _none_level(level: float) -> float:
    """Return the level of the lower bounds that name a case with no count.

    The level of the lower bounds that name a case with no count: :data:`POOLED_NONE_LEVEL`
    for spreads bounded at :data:`POOLED_LEVEL`, else ``level`` itself.
    """
    return POOLED_NONE_LEVEL if level == POOLED_LEVEL else level


def size_case(
    sd_with: float,
    n_with: int,
    sd_base: float,
    n_base: int,
    effect: float = DEFAULT_EFFECT,
    floor: float = EFFECT_FLOOR,
    level: float | None = None,
    *,
    pools: tuple[ArmPool | None, ArmPool | None] = (None, None),
) -> CaseSizing:
    """Draws per arm for one case from its pilot spreads (each over ``n ≥ 2`` measured draws).

    Each arm's spread is taken at its upper bound at ``level``, or, when ``level`` is
    ``None``, at :func:`level_for` its degrees of freedom; see the module docstring. An arm
    whose entry in ``pools`` is pooled (:attr:`ArmPool.pooled`) is planned from the pooled
    spread and degrees of freedom instead of the case's own, and grows its pilot over all its
    pooled cases (each case's ``m`` draws adding ``m − 1`` to each of them).

    Three outcomes: a count; no count, when even the lower bounds of the two spreads reach the
    floor; or undecided, when the upper bounds reach it and the lower ones do not, with the
    pilot size that would decide. A count more than :data:`COSTLY_RATIO` times the one the
    pilot's own spreads give is still the answer, with the advice of a pilot of twice the draws
    (:attr:`CaseSizing.larger_pilot`).
    """
    arms = []
    for sd, n, pool in ((sd_with, n_with, pools[0]), (sd_base, n_base, pools[1])):
        if pool is not None and pool.pooled:
            arms.append((pool.sd, pool.df, pool.cases, True))
        else:
            arms.append((sd, n - 1, 1, False))
    (s_w, df_w, _, p_w), (s_b, df_b, _, p_b) = arms
    lv_w, lv_b = (level_for(df_w, p_w), level_for(df_b, p_b)) if level is None else (level, level)
    b_w, b_b = s_w / _sd_factor(df_w, 1.0 - lv_w), s_b / _sd_factor(df_b, 1.0 - lv_b)
    low = s_w / _sd_factor(df_w, _none_level(lv_w)) + s_b / _sd_factor(df_b, _none_level(lv_b))
    levels = (lv_w, lv_b)
    if low >= floor - TOLERANCE:
        return CaseSizing((b_w, b_b), None, True, None, False, False, levels)
    n0 = None
    if b_w + b_b < floor - TOLERANCE:
        n0 = _smallest(lambda n: _resolves(b_w, b_b, floor, n))
    pilot = max(n_with, n_base)
    if n0 is None:
        grow = _pilot_draws(arms, pilot, floor, level)
        return CaseSizing((b_w, b_b), None, False, grow, True, False, levels)
    n1 = _smallest(lambda n: _calls(b_w, b_b, effect, floor, n))
    count = max(n0, n1 or 0)
    held = _smallest(lambda n: _resolves(s_w, s_b, floor, n)) or MAX_PLANNED_DRAWS
    held_effect = _smallest(lambda n: _calls(s_w, s_b, effect, floor, n)) or 0
    costly = count > COSTLY_RATIO * max(held, held_effect) and 2 * pilot <= MAX_PILOT_DRAWS
    return CaseSizing(
        (b_w, b_b), count, False, None, False, n1 is not None, levels, 2 * pilot if costly else None
    )


def _pilot_draws(
    arms: Sequence[tuple[float, int, int, bool]], n: int, floor: float, level: float | None
) -> int | None:
    """Return the pilot size to grow to.

    The pilot size, per arm and case, to grow to: the smallest m ≥ 2n (at least doubled,
    since the held spreads are themselves loose) at which, with each arm's spread held and its
    degrees of freedom ``cases·(m − 1)`` (``arms``: ``(spread, df, cases, pooled)`` per arm),
    the sum of the upper bounds (each at ``level``, or at :func:`level_for` its grown degrees of
    freedom) falls under the floor or that of the lower bounds reaches it; 2n when no m up to
    :data:`MAX_PILOT_DRAWS` does (the held sum sits at the floor itself); ``None`` once the
    pilot already has that many.
    """
    if 2 * n > MAX_PILOT_DRAWS:
        return None
    for m in range(2 * n, MAX_PILOT_DRAWS + 1):
        grown = [
            (s, k * (m - 1), level_for(k * (m - 1), q) if level is None else level)
            for s, _, k, q in arms
        ]
        if sum(s / _sd_factor(df, 1.0 - lv) for s, df, lv in grown) < floor - TOLERANCE:
            return m
        if sum(s / _sd_factor(df, _none_level(lv)) for s, df, lv in grown) >= floor - TOLERANCE:
            return m
    return 2 * n


def equal_spreads_no_count_chance(
    total: float, df: int, level: float, floor: float = EFFECT_FLOOR, *, upper: bool = False
) -> float:
    """Return how often the test of whether a count exists errs.

    How often the existence test errs, for two arms of equal true spread ``total/2``, each
    measured over ``df`` degrees of freedom and bounded at ``level`` (normal draws).

    With ``upper`` false: the chance that the two lower bounds reach ``floor`` (the case is
    named as having no count); with ``upper`` true: the chance that the two upper bounds stay
    under it (the case gets a count). Each sample sd is ``(total/2)·√(X/df)``, ``X ~ χ²_df``,
    so the chance is ``P(√(X₁/df) + √(X₂/df) ≥ t)`` at ``t = 2·floor·f/total`` (``f`` the
    sd factor of the bound), computed by the midpoint rule on 20,000 steps of the sd's density
    (absolute error under 1e-5). For df = 2 it is ``e^(−t²) + t·√(π/2)·e^(−t²/2)·erf(t/√2)``.
    """
    p = 1.0 - level if upper else level
    t = 2.0 * floor * _sd_factor(df, p) / total
    h = (1.0 + 12.0 / math.sqrt(df)) / 20_000
    mid = (np.arange(20_000) + 0.5) * h  # midpoints: the density is never taken at 0
    x = df * mid * mid
    log_chi2 = (df / 2.0 - 1.0) * np.log(x) - x / 2.0 - df / 2.0 * math.log(2.0)
    dens = 2.0 * df * mid * np.exp(log_chi2 - math.lgamma(df / 2.0))  # density of √(X/df)
    edges = np.arange(20_001) * h
    cdf = np.concatenate(([0.0], np.cumsum(dens * h)))
    survive = 1.0 - np.interp(t - mid, edges, cdf, left=0.0, right=1.0)
    tail = float(np.sum(dens * survive) * h)
    return 1.0 - tail if upper else tail


def p_verdict(
    base_mean: float,
    sd_with: float,
    sd_base: float,
    n: int,
    effect: float,
    grid: Grid = (None, None),
    *,
    trials: int = 1000,
    seed: int = 37,
) -> float:
    """Return the simulated chance of a verdict at an effect.

    The chance that a run of ``n`` draws per arm calls the case improved when the skill
    lifts the true mean by ``effect``: the share of ``trials`` simulated runs (seeded) whose
    with-skill and baseline bands separate by at least the floor upward (D-3, D-4, D-6).
    """
    rng = np.random.default_rng(seed)
    mw, sw = arm_moments(rng, base_mean + effect, sd_with, n, grid, trials)
    mb, sb = arm_moments(rng, base_mean, sd_base, n, grid, trials)
    delta = mw - mb
    called = separated(delta, sw + sb) & meets_floor(delta) & (delta > 0)
    return int(np.count_nonzero(called)) / trials
