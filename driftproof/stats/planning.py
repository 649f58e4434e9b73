"""Planning a run from a pilot: draws per arm with the pilot's spreads taken at an upper
confidence bound, and the chance that the planned run gives a verdict at a stated effect.

A pilot of a few draws measures each arm's spread loosely (from 3 draws the sample sd is
typically 11% low and varies by half its size), so planning from it as if exact lands the run
on the underpowered boundary (D-5) half the time. Here each arm's pilot spread ``s`` over
``n`` measured draws is replaced by its upper :data:`SPREAD_LEVEL` confidence bound under
normal draws, ``s·sqrt((n−1)/χ²_{1−level}(n−1))``. Then:

- **No draw count** when even the two spreads' lower ``level`` bounds reach the effect floor:
  at any number of draws the spreads themselves keep the resolution at or above the floor
  (D-5). **Undecided** when the upper bounds reach it and the lower ones do not: the pilot is
  too small to tell, and the plan gives the pilot size (draws per arm, spreads held) at which
  one of the two bounds would decide. The pilot is also asked to grow (to twice its draws)
  when the count from the bounds is more than :data:`COSTLY_RATIO` times the count the
  pilot's own spreads would give: its looseness, not the case, would then set the cost.
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

The chance of a verdict at δ is found by simulation (:func:`p_verdict`): seeded, so the same
pilot always gives the same figure, at the pilot's own measured spreads (not the bounds), on
the judge's per-draw grid, through the rule's own separation and floor test (D-3, D-4).

χ² quantiles are exact (bisection on the regularised incomplete gamma function), so the
bounds need no statistics library.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass

from driftproof.stats._rule import separation_verdict
from driftproof.stats._simulate import Grid, arm_moments
from driftproof.stats.codes import VerdictCode
from driftproof.wording import EFFECT_FLOOR, MIN_DRAWS_PER_ARM, TOLERANCE

__all__ = [
    "COSTLY_RATIO",
    "DEFAULT_EFFECT",
    "MAX_PILOT_DRAWS",
    "MAX_PLANNED_DRAWS",
    "SPREAD_LEVEL",
    "UNDERPOWERED_AT_MOST",
    "CaseSizing",
    "chi2_cdf",
    "chi2_quantile",
    "p_verdict",
    "size_case",
    "spread_bound",
]

#: Confidence level of the bounds each pilot spread is taken at (80%).
SPREAD_LEVEL = 0.80
#: A planned run under no effect reads underpowered at most this often.
UNDERPOWERED_AT_MOST = 0.10
#: The effect ``plan`` plans for unless told: 1.5 × the floor.
DEFAULT_EFFECT = 1.5 * EFFECT_FLOOR
#: Above this many draws per arm no count is given (the spreads sit too near the floor).
MAX_PLANNED_DRAWS = 10_000
#: A count more than this many times the one the pilot's own spreads would give is not
#: planned: the pilot is asked to grow (to twice its draws) first.
COSTLY_RATIO = 4
#: A pilot is never asked to grow past this many draws per arm.
MAX_PILOT_DRAWS = 200
_Z95 = 1.6448536269514722  # standard normal 95% point


def _lower_gamma_regularised(a: float, x: float) -> float:
    """P(a, x) = γ(a, x)/Γ(a): series below a + 1, Lentz's continued fraction above."""
    if x <= 0.0:
        return 0.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        k = a
        while abs(term) > abs(total) * 1e-15:
            k += 1.0
            term *= x / k
            total += term
        return min(1.0, total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    i = 0
    while True:
        i += 1
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-15 or i > 100_000:
            break
    return max(0.0, 1.0 - math.exp(log_front) * h)


def chi2_cdf(x: float, df: int) -> float:
    """The χ² distribution function with ``df`` degrees of freedom at ``x``."""
    return _lower_gamma_regularised(df / 2.0, x / 2.0)


def chi2_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of χ² with ``df ≥ 1`` degrees of freedom (bisection, relative
    precision 1e-12)."""
    if not 0.0 < p < 1.0 or df < 1:
        raise ValueError("need 0 < p < 1 and df ≥ 1")
    lo, hi = 0.0, max(1.0, 2.0 * df)
    while chi2_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2.0
        if chi2_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def spread_bound(sd: float, n: int, level: float = SPREAD_LEVEL) -> float:
    """Upper ``level`` confidence bound of an arm's true spread from its sample sd ``sd`` over
    ``n ≥ 2`` measured draws (normal draws): ``sd·sqrt((n−1)/χ²_{1−level}(n−1))``."""
    return sd / _sd_factor(n, 1.0 - level)


@functools.lru_cache(maxsize=4096)
def _sd_factor(n: int, p: float) -> float:
    """The ``p`` point of the sample sd of ``n`` normal draws, per unit of true spread."""
    return math.sqrt(chi2_quantile(p, n - 1) / (n - 1))


def _smallest(ok: object) -> int | None:
    """Smallest n in [MIN_DRAWS_PER_ARM, MAX_PLANNED_DRAWS] with ``ok(n)`` (monotone), else
    ``None``."""
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
    f = _sd_factor(n, 0.95)
    qa, qb = b_a * f, b_b * f
    return qa + qb + 2.0 * math.sqrt((qa * qa + qb * qb) / n) < floor - TOLERANCE


def _calls(b_a: float, b_b: float, effect: float, floor: float, n: int) -> bool:
    f = _sd_factor(n, 0.975)
    qa, qb = b_a * f, b_b * f
    low = effect - _Z95 * math.sqrt((b_a * b_a + b_b * b_b) / n)
    return low > qa + qb + TOLERANCE and low >= floor - TOLERANCE


@dataclass(frozen=True)
class CaseSizing:
    """One case's planned draws.

    Attributes:
        bounds: the upper ``level`` bounds of the with-skill and baseline spreads.
        draws: draws per arm; ``None`` when no count does or the pilot cannot tell.
        no_draw_count: even the two spreads' lower ``level`` bounds reach the floor: no number
            of draws resolves the case.
        pilot_draws: when the pilot cannot tell (the upper bounds reach the floor, the lower
            ones do not): the draws per arm to grow the pilot to (:func:`_pilot_draws`);
            ``None`` otherwise, or when the pilot already has :data:`MAX_PILOT_DRAWS`.
        undecided: the pilot cannot tell whether a count exists.
        effect_sized: the count also meets the 90% target at the stated effect.
    """

    bounds: tuple[float, float]
    draws: int | None
    no_draw_count: bool
    pilot_draws: int | None
    undecided: bool
    effect_sized: bool


def size_case(
    sd_with: float,
    n_with: int,
    sd_base: float,
    n_base: int,
    effect: float = DEFAULT_EFFECT,
    floor: float = EFFECT_FLOOR,
    level: float = SPREAD_LEVEL,
) -> CaseSizing:
    """Draws per arm for one case from its pilot spreads (each over ``n ≥ 2`` measured draws),
    each spread taken at its upper ``level`` bound; see the module docstring.

    Three outcomes: a count; no count, when even the lower ``level`` bounds of the two spreads
    reach the floor; or undecided, when the upper bounds reach it and the lower ones do not,
    with the pilot size that would decide.
    """
    b_w, b_b = spread_bound(sd_with, n_with, level), spread_bound(sd_base, n_base, level)
    low = sd_with / _sd_factor(n_with, level) + sd_base / _sd_factor(n_base, level)
    if low >= floor - TOLERANCE:
        return CaseSizing((b_w, b_b), None, True, None, False, False)
    n0 = None
    if b_w + b_b < floor - TOLERANCE:
        n0 = _smallest(lambda n: _resolves(b_w, b_b, floor, n))
    if n0 is None:
        return CaseSizing(
            (b_w, b_b),
            None,
            False,
            _pilot_draws(sd_with + sd_base, max(n_with, n_base), floor, level),
            True,
            False,
        )
    n1 = _smallest(lambda n: _calls(b_w, b_b, effect, floor, n))
    count = max(n0, n1 or 0)
    held = _smallest(lambda n: _resolves(sd_with, sd_base, floor, n)) or MAX_PLANNED_DRAWS
    held_effect = _smallest(lambda n: _calls(sd_with, sd_base, effect, floor, n)) or 0
    pilot = max(n_with, n_base)
    if count > COSTLY_RATIO * max(held, held_effect) and 2 * pilot <= MAX_PILOT_DRAWS:
        # the pilot's looseness alone multiplies the run: a larger pilot is the cheaper step
        return CaseSizing((b_w, b_b), None, False, 2 * pilot, True, False)
    return CaseSizing((b_w, b_b), count, False, None, False, n1 is not None)


def _pilot_draws(total: float, n: int, floor: float, level: float) -> int | None:
    """The pilot size, per arm, to grow to: the smallest m ≥ 2n (at least doubled, since the
    held spreads are themselves loose) at which, with the spreads' sum ``total`` held, its
    upper ``level`` bound falls under the floor or its lower bound reaches it; 2n when no m up
    to :data:`MAX_PILOT_DRAWS` does (the held sum sits at the floor itself); ``None`` once the
    pilot already has that many."""
    if 2 * n > MAX_PILOT_DRAWS:
        return None
    for m in range(2 * n, MAX_PILOT_DRAWS + 1):
        if total / _sd_factor(m, 1.0 - level) < floor - TOLERANCE:
            return m
        if total / _sd_factor(m, level) >= floor - TOLERANCE:
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
    """The chance that a run of ``n`` draws per arm calls the case improved when the skill
    lifts the true mean by ``effect``: the share of ``trials`` simulated runs (seeded) whose
    with-skill and baseline bands separate by at least the floor upward (D-3, D-4, D-6)."""
    rng = random.Random(seed)
    hits = 0
    for _ in range(trials):
        mw, sw = arm_moments(rng, base_mean + effect, sd_with, n, grid)
        mb, sb = arm_moments(rng, base_mean, sd_base, n, grid)
        if separation_verdict(mw - mb, sw + sb) == VerdictCode.IMPROVED:
            hits += 1
    return hits / trials
