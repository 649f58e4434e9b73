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
(:func:`arm_levels`); the pooled levels need the cases to agree across both arms as well
(below). Then:

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
judge's noise, so it is usually alike across a suite's cases. Each arm's per-case variances
are put to Bartlett's test; unless it rejects at :data:`HOMOGENEITY_LEVEL` (5%), every case of
that arm is planned from the pooled spread and degrees of freedom (:func:`pool_arm`). From
pilots under 5 draws per arm that test has 2 or 3 degrees of freedom per case and pools a suite
half at 0.015 and half at 0.032 in two pilots of three, whose pooled spread fits neither half;
so the cases are also tested across both arms, with twice the degrees of freedom per case
(:func:`pool_arms`, :func:`across_cases`): rejected at 5%, no arm is pooled; at
:data:`AGREEMENT_LEVEL` only, the pooled spreads are in doubt and keep the wider levels
(:func:`arm_levels`), so a pooled spread near the floor asks for a larger pilot, on which the
tests can tell the cases apart (benchmarks/plan_calibration.py).

The chance of a verdict at δ is found by simulation (:func:`p_verdict`): seeded, so the same
pilot always gives the same figure, at the pilot's own measured spreads (pooled where pooled;
not the bounds), on the judge's per-draw grid, through the rule's own separation and floor
test (D-3, D-4). χ² quantiles and tests: :mod:`driftproof.stats._chi2` (no statistics library).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from driftproof.stats._chi2 import (
    across_cases,
    bartlett,
    chi2_cdf,
    chi2_quantile,
    equal_spreads_no_count_chance,
)
from driftproof.stats._chi2 import sd_factor as _sd_factor
from driftproof.stats._rule import meets_floor, separated
from driftproof.stats._simulate import Grid, arm_moments
from driftproof.wording import DEFAULT_EFFECT, EFFECT_FLOOR, MIN_DRAWS_PER_ARM, TOLERANCE

__all__ = [
    "AGREEMENT_DF",
    "AGREEMENT_LEVEL",
    "COSTLY_RATIO",
    "DEFAULT_EFFECT",
    "DOUBT_NONE_LEVEL",
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
    "across_cases",
    "arm_levels",
    "bartlett",
    "chi2_cdf",
    "chi2_quantile",
    "equal_spreads_no_count_chance",
    "level_for",
    "p_verdict",
    "pool_arm",
    "pool_arms",
    "size_case",
    "spread_bound",
]

#: Confidence level of the bounds a pilot spread is taken at (80%): one case's own spread, or
#: a spread pooled over fewer than :data:`POOLED_DF` degrees of freedom.
SPREAD_LEVEL = 0.80
#: Level of the bounds of a spread pooled over :data:`POOLED_DF`+ degrees of freedom (60%).
POOLED_LEVEL = 0.60
#: The level of the lower bounds that name a case with no count when its spreads are bounded at
#: :data:`POOLED_LEVEL`: 50%, each pooled spread's median-unbiased value.
POOLED_NONE_LEVEL = 0.50
#: Pooled degrees of freedom per arm from which :data:`POOLED_LEVEL` applies (10 cases × 3 draws).
POOLED_DF = 20
UNDERPOWERED_AT_MOST = 0.10  # a planned run with no effect reads underpowered at most this often
#: The effect ``plan`` plans for unless told: 1.5 × the floor.
#: Above this many draws per arm no count is given (the spreads sit too near the floor).
MAX_PLANNED_DRAWS = 10_000
#: A count more than this many times the one the pilot's own spreads would give is still the
#: answer, with the advice that a pilot of twice its draws would likely cut it.
COSTLY_RATIO = 4
MAX_PILOT_DRAWS = 200  # a pilot is never asked to grow past this many draws per arm
#: An arm's per-case spreads are pooled unless Bartlett's test rejects at this level.
HOMOGENEITY_LEVEL = 0.05
#: From small pilots (:data:`AGREEMENT_DF`), below this chance of the test across cases
#: (:func:`across_cases`) the pooled spreads are in doubt (15%).
AGREEMENT_LEVEL = 0.15
#: The test across cases is taken when some case has fewer degrees of freedom than this over
#: both arms (under 5 draws per arm); from 5 draws each arm's own test has the power.
AGREEMENT_DF = 8
#: The level of the lower bounds that name a case with no count when its pooled spreads are in
#: doubt (their upper bounds at :data:`SPREAD_LEVEL`).
DOUBT_NONE_LEVEL = 0.70
_Z95 = 1.6448536269514722  # standard normal 95% point


def spread_bound(sd: float, n: int, level: float = SPREAD_LEVEL) -> float:
    """Return the upper ``level`` bound of a true spread: ``sd·sqrt((n−1)/χ²_{1−level}(n−1))``.

    ``sd`` is the sample sd over ``n ≥ 2`` measured draws (normal draws).
    """
    return sd / _sd_factor(n - 1, 1.0 - level)


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
    across: float | None = None
    """The chance of the test across cases under agreement (:func:`across_cases`); ``None``
    when it was not taken."""
    apart_below: float = HOMOGENEITY_LEVEL
    """Below this chance of the test across cases no arm is pooled (:func:`pool_arms`)."""
    doubt_below: float = AGREEMENT_LEVEL
    """Below this chance of the test across cases the pooled spreads are in doubt."""

    @property
    def pooled(self) -> bool:
        """The spreads agree: this arm's test does not reject at 5%, nor that across cases."""
        ok = self.p is not None and self.p >= HOMOGENEITY_LEVEL
        return ok and (self.across is None or self.across >= self.apart_below)

    @property
    def agrees(self) -> bool:
        """Pooled, and the test across cases does not put the pooled spreads in doubt."""
        return self.pooled and (self.across is None or self.across >= self.doubt_below)

    @property
    def level(self) -> float:
        """The level this arm's pooled spread is bounded at (:func:`arm_levels`)."""
        return arm_levels(self.df, self.agrees)[0]

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


def pool_arms(
    spreads: Sequence[tuple[float, int, float, int]], step: float | None = None
) -> tuple[ArmPool | None, ArmPool | None]:
    """Both arms' pools (:func:`pool_arm`), each carrying the test across cases (D-5 planning).

    From pilots where some case has under :data:`AGREEMENT_DF` degrees of freedom over both
    arms, the test across cases keeps the arms apart below 5% and puts them in doubt below
    :data:`AGREEMENT_LEVEL`; from larger pilots each arm's own test has the power to keep
    them apart, and the test across cases only puts them in doubt, below 5%.

    Args:
        spreads: ``(with-skill sd, draws ≥ 2, baseline sd, draws ≥ 2)`` per case.
        step: the per-draw grid's step (see :func:`pool_arm`).

    Returns:
        The with-skill and the baseline :class:`ArmPool`, each ``None`` with fewer than two
        cases.
    """
    small = any(nw + nb - 2 < AGREEMENT_DF for _, nw, _, nb in spreads)
    test = across_cases(spreads, step)
    lo, hi = (HOMOGENEITY_LEVEL, AGREEMENT_LEVEL) if small else (0.0, HOMOGENEITY_LEVEL)
    pools = [
        pool_arm([(w, nw) for w, nw, _, _ in spreads], step),
        pool_arm([(b, nb) for _, _, b, nb in spreads], step),
    ]
    if test is not None:
        for i, q in enumerate(pools):
            if q is not None:
                pools[i] = dataclasses.replace(q, across=test[1], apart_below=lo, doubt_below=hi)
    return pools[0], pools[1]


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
        levels: the confidence level of each arm's bounds (:func:`arm_levels`).
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
    """Return the upper level of an arm's spread whose cases agree (:func:`arm_levels`)."""
    return arm_levels(df, True if pooled else None)[0]


def arm_levels(df: int, agrees: bool | None, level: float | None = None) -> tuple[float, float]:
    """Return the levels of an arm's upper bound and of its no-count lower bound.

    Pooled over 20 degrees of freedom a spread is known to about 1/√(2·df) = 16%, and the run's
    own margins (each arm's run spread under its 95% point) carry most of the protection; at
    80% a spread of 0.019 per arm would be out of reach one pilot in eight
    (benchmarks/plan_calibration.py).

    Args:
        df: the degrees of freedom of the arm's spread.
        agrees: ``None`` for a case's own spread; for a pooled spread, whether the cases agree
            (:attr:`ArmPool.agrees`) or are in doubt.
        level: a level that replaces the product's.

    Returns:
        ``(upper, no-count)``: ``level`` given, ``level`` for both (:data:`POOLED_NONE_LEVEL`
        for the no-count test when it is :data:`POOLED_LEVEL`); a pooled spread over
        :data:`POOLED_DF` or more degrees of freedom, :data:`POOLED_LEVEL` and
        :data:`POOLED_NONE_LEVEL` when the cases agree, :data:`SPREAD_LEVEL` and
        :data:`DOUBT_NONE_LEVEL` in doubt; any other, :data:`SPREAD_LEVEL` for both.
    """
    if level is not None:
        return level, POOLED_NONE_LEVEL if level == POOLED_LEVEL else level
    if agrees is None or df < POOLED_DF:
        return SPREAD_LEVEL, SPREAD_LEVEL
    return (POOLED_LEVEL, POOLED_NONE_LEVEL) if agrees else (SPREAD_LEVEL, DOUBT_NONE_LEVEL)


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
    ``None``, at :func:`arm_levels`; see the module docstring. An arm
    whose entry in ``pools`` is pooled (:attr:`ArmPool.pooled`) is planned from the pooled
    spread and degrees of freedom instead of the case's own, and grows its pilot over all its
    pooled cases (each case's ``m`` draws adding ``m − 1`` to each of them).

    Three outcomes: a count; no count, when even the lower bounds of the two spreads reach the
    floor; or undecided, when the upper bounds reach it and the lower ones do not, with the
    pilot size that would decide. A count more than :data:`COSTLY_RATIO` times the one the
    pilot's own spreads give is still the answer, with the advice of a pilot of twice the draws
    (:attr:`CaseSizing.larger_pilot`).
    """
    arms: list[tuple[float, int, int, bool | None]] = []
    for sd, n, pool in ((sd_with, n_with, pools[0]), (sd_base, n_base, pools[1])):
        if pool is not None and pool.pooled:
            arms.append((pool.sd, pool.df, pool.cases, pool.agrees))
        else:
            arms.append((sd, n - 1, 1, None))
    (s_w, df_w, _, a_w), (s_b, df_b, _, a_b) = arms
    (lv_w, nl_w), (lv_b, nl_b) = arm_levels(df_w, a_w, level), arm_levels(df_b, a_b, level)
    b_w, b_b = s_w / _sd_factor(df_w, 1.0 - lv_w), s_b / _sd_factor(df_b, 1.0 - lv_b)
    low = s_w / _sd_factor(df_w, nl_w) + s_b / _sd_factor(df_b, nl_b)
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
    arms: Sequence[tuple[float, int, int, bool | None]], n: int, floor: float, level: float | None
) -> int | None:
    """Return the pilot size to grow to.

    The pilot size, per arm and case, to grow to: the smallest m ≥ 2n (at least doubled,
    since the held spreads are themselves loose) at which, with each arm's spread held and its
    degrees of freedom ``cases·(m − 1)`` (``arms``: ``(spread, df, cases, agrees)`` per arm,
    ``agrees`` as in :func:`arm_levels`), the sum of the upper bounds (each at
    :func:`arm_levels` its grown degrees of freedom) falls under the floor or that of the lower
    bounds reaches it; 2n when no m up to
    :data:`MAX_PILOT_DRAWS` does (the held sum sits at the floor itself); ``None`` once the
    pilot already has that many.
    """
    if 2 * n > MAX_PILOT_DRAWS:
        return None
    for m in range(2 * n, MAX_PILOT_DRAWS + 1):
        grown = [(s, k * (m - 1), *arm_levels(k * (m - 1), q, level)) for s, _, k, q in arms]
        if sum(s / _sd_factor(df, 1.0 - lv) for s, df, lv, _ in grown) < floor - TOLERANCE:
            return m
        if sum(s / _sd_factor(df, nl) for s, df, _, nl in grown) >= floor - TOLERANCE:
            return m
    return 2 * n


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
