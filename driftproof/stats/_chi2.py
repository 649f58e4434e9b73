"""χ² distribution function and quantiles (exact to 1e-12), and the χ² tests of planning.

The regularised lower incomplete gamma by its series below ``a + 1`` and Lentz's continued
fraction above; quantiles by bisection; no statistics library.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from driftproof.wording import EFFECT_FLOOR

#: The two spread sums, as multiples of the floor, at which a plan states how often its test of
#: whether a count exists errs: 0.8 × the floor (a count exists) and 1.25 × (none does).
EXISTENCE_SUMS = (0.8, 1.25)


@dataclass(frozen=True)
class ExistenceRates:
    """How often the test of whether a count exists answers each way.

    For two arms of equal true spread over ``df`` degrees of freedom each, bounded at ``level``
    (:func:`equal_spreads_no_count_chance`): at the true spread sum ``below`` (a count exists)
    and ``above`` (none does), the chance of a count and of none.
    """

    df: int
    level: float
    below: float
    count_below: float
    none_below: float
    above: float
    none_above: float
    count_above: float


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
    """The ``p`` quantile of χ² with ``df ≥ 1`` degrees of freedom (relative precision 1e-12)."""
    if not 0.0 < p < 1.0 or df < 1:
        raise ValueError("need 0 < p < 1 and df ≥ 1")
    lo, hi = 0.0, max(1.0, 2.0 * df)
    while chi2_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if chi2_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2.0


@functools.lru_cache(maxsize=4096)
def sd_factor(df: int, p: float) -> float:
    """The ``p`` point of a sample sd over ``df`` degrees of freedom per unit of true spread.

    ``sqrt(χ²_p(df)/df)``, normal draws.
    """
    return math.sqrt(chi2_quantile(p, df) / df)


def bartlett(variances: Sequence[float], dfs: Sequence[int]) -> tuple[float, float]:
    """Bartlett's test that ``k ≥ 2`` normal samples share one variance.

    ``variances`` (ddof = 1) are positive, ``dfs`` ν_i = n_i − 1 ≥ 1.

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


def across_cases(
    spreads: Sequence[tuple[float, int, float, int]], step: float | None = None
) -> tuple[float, float] | None:
    """Bartlett's test that the cases share one spread, over both arms (D-5 planning).

    Each case's variance over both arms, ``v_i = (ν_wi·s_wi²/S_w² + ν_bi·s_bi²/S_b²)/(ν_wi +
    ν_bi)`` with ``ν = n − 1`` and ``S²`` each arm's pooled variance, on ``ν_wi + ν_bi``
    degrees of freedom, put to :func:`bartlett`.

    ``spreads`` holds ``(with-skill sd, draws ≥ 2, baseline sd, draws ≥ 2)`` per case; a zero
    variance enters at ``step²/12``. ``None`` with under two cases, or a zero variance and no step.
    """
    if len(spreads) < 2:
        return None
    least = step * step / 12.0 if step else 0.0
    rows = [(max(w * w, least), nw - 1, max(b * b, least), nb - 1) for w, nw, b, nb in spreads]
    if min(min(vw, vb) for vw, _, vb, _ in rows) <= 0.0:
        return None
    s_w = sum(d * v for v, d, _, _ in rows) / sum(d for _, d, _, _ in rows)
    s_b = sum(d * v for _, _, v, d in rows) / sum(d for _, _, _, d in rows)
    scaled = [(dw * vw / s_w + db * vb / s_b) / (dw + db) for vw, dw, vb, db in rows]
    return bartlett(scaled, [dw + db for _, dw, _, db in rows])


def equal_spreads_no_count_chance(
    total: float, df: int, level: float, floor: float = EFFECT_FLOOR, *, upper: bool = False
) -> float:
    """How often the test of whether a count exists errs, for two arms of true spread ``total/2``.

    Each arm is measured over ``df`` degrees of freedom and bounded at ``level`` (normal draws).
    ``upper`` false: the chance both lower bounds reach ``floor``; true: that both upper bounds
    stay under it. ``P(√(X₁/df) + √(X₂/df) ≥ 2·floor·f/total)``, ``X ~ χ²_df``, by the midpoint
    rule on 20,000 steps (absolute error under 1e-5).
    """
    p = 1.0 - level if upper else level
    t = 2.0 * floor * sd_factor(df, p) / total
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


def existence_rates(df: int, level: float, none_level: float) -> ExistenceRates:
    """:class:`ExistenceRates` at ``df``, upper bounds at ``level``, lower at ``none_level``."""
    below, above = (k * EFFECT_FLOOR for k in EXISTENCE_SUMS)
    return ExistenceRates(
        df,
        level,
        below,
        equal_spreads_no_count_chance(below, df, level, upper=True),
        equal_spreads_no_count_chance(below, df, none_level),
        above,
        equal_spreads_no_count_chance(above, df, none_level),
        equal_spreads_no_count_chance(above, df, level, upper=True),
    )
