"""χ² distribution function and quantiles, exact to 1e-12, without a statistics library.

The regularised lower incomplete gamma function by its series below ``a + 1`` and Lentz's
continued fraction above; quantiles by bisection. Used by the planning bounds
(:mod:`driftproof.stats.planning`).
"""

from __future__ import annotations

import functools
import math

__all__ = ["chi2_cdf", "chi2_quantile", "sd_factor"]


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
    """Return a χ² quantile.

    The ``p`` quantile of χ² with ``df ≥ 1`` degrees of freedom (bisection, relative
    precision 1e-12).
    """
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


@functools.lru_cache(maxsize=4096)
def sd_factor(df: int, p: float) -> float:
    """Return a sample sd's quantile per unit of true spread.

    The ``p`` point of a sample sd with ``df`` degrees of freedom (normal draws), per unit
    of true spread: ``sqrt(χ²_p(df)/df)``.
    """
    return math.sqrt(chi2_quantile(p, df) / df)
