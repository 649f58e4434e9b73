"""The package's one mean and variance helper (D-2): ``math.fsum`` and two-pass deviations."""

from __future__ import annotations

import math
from collections.abc import Sequence


def mean_of(values: Sequence[float]) -> float | None:
    """``math.fsum(values) / len(values)``; ``None`` for no value."""
    return math.fsum(values) / len(values) if values else None


def mean_var(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and sample variance (ddof = 1) of finite ``values``; ``None`` where undefined (D-2).

    The mean needs one value, the variance two. Values so far off any judge scale that a
    sum or a square overflows are scaled by a power of two first; the variance is then
    ``inf`` when it lies past the float range.
    """
    mean, var, half = _moments(values)
    if half is None:
        return mean, var
    return _rescale(mean, half), (var * half * 2.0 * half * 2.0 if var is not None else None)


def mean_sd(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and sample sd (ddof = 1) of finite ``values``; ``None`` where undefined (D-2).

    Overflowing values are scaled by a power of two as in :func:`mean_var`.
    """
    mean, var, half = _moments(values)
    sd = math.sqrt(var) if var is not None else None
    if half is None:
        return mean, sd
    return _rescale(mean, half), _rescale(sd, half)


def _moments(values: Sequence[float]) -> tuple[float | None, float | None, float | None]:
    """``(mean, variance, half)`` of ``values / half / 2``; half None unless a sum overflows."""
    n = len(values)
    if n == 0:
        return None, None, None
    try:
        return (*_plain(values), None)
    except OverflowError:
        pass
    # a power of two putting every scaled value in (−1, 1); 2·half may overflow, so never formed
    half = 2.0 ** (math.frexp(max(abs(v) for v in values))[1] - 1)  # float products never raise
    mean, var = _plain([v / half / 2.0 for v in values])
    return mean, var, half


def _plain(values: Sequence[float]) -> tuple[float, float | None]:
    """Two-pass mean and variance; raises ``OverflowError`` when a sum or square overflows."""
    n = len(values)
    mean = math.fsum(values) / n
    if n == 1:
        return mean, None
    ss = math.fsum([(v - mean) * (v - mean) for v in values])
    if not math.isfinite(ss):
        raise OverflowError("sum of squared deviations overflows")
    return mean, ss / (n - 1)


def _rescale(value: float | None, half: float) -> float | None:
    """``value · half · 2``: undoes the scaling of :func:`_moments`."""
    return value * half * 2.0 if value is not None else None
