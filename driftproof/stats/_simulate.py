"""Simulated draws of one arm on the judge's score grid, for the simulations.

Normal around the true mean, rounded to the per-draw grid (judge step ÷ samples per draw, D-1;
half to even) and clipped to the judge scale; a (runs × draws) array, deterministic for a given
:class:`numpy.random.Generator`. A measured spread is a spread of scores already on the grid, so
the normal's spread is the one whose rounded draws have the arm's spread around the true mean
(:func:`latent_sd`), never the measured spread rounded a second time.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from driftproof.stats._rule import meets_floor, separated

#: ``(step, (worst, best))`` of one arm's per-draw scores; either part ``None`` when unknown
#: (no rounding, no clipping).
Grid = tuple[float | None, tuple[float, float] | None]


def arm_moments(
    rng: np.random.Generator, mean: float, sd: float, n: int, grid: Grid, runs: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Means and sample sds (ddof = 1, D-2) of ``runs`` simulated runs of ``n ≥ 2`` draws each."""
    step, scale = grid
    x = rng.normal(mean, latent_sd(mean, sd, step) if step else sd, size=(runs, n))
    if step:
        with np.errstate(over="ignore"):  # past a float, a step is below a score's own precision
            cells = np.round(x / step)
        x = np.where(np.isfinite(cells), cells * step, x)
    if scale is not None:
        x = np.clip(x, scale[0], scale[1])
    return x.mean(axis=1), x.std(axis=1, ddof=1)


def rounded_sd(mean: float, sd: float, step: float) -> float:
    """The spread of ``N(mean, sd)`` rounded to multiples of ``step`` (exact, by its cells).

    Worked in units of ``step`` from the grid point nearest ``mean`` (cell ``k`` is that point
    plus ``k · step``; a shift by whole cells leaves the spread as it is), so that no square
    overflows and the mean's place between two points keeps its precision on any scale.
    """
    if sd <= 0.0:
        return 0.0
    mu, s = math.remainder(mean, step) / step, sd / step
    cells = range(math.floor(mu - 9.0 * s), math.ceil(mu + 9.0 * s) + 1)
    cdf = [0.5 * math.erfc(-(k + 0.5 - mu) / (s * math.sqrt(2.0))) for k in cells]
    probs = [b - a for a, b in zip([0.0, *cdf[:-1]], cdf, strict=True)]
    m = math.fsum(p * k for p, k in zip(probs, cells, strict=True))
    return step * math.sqrt(
        max(0.0, math.fsum(p * (k - m) ** 2 for p, k in zip(probs, cells, strict=True)))
    )


def latent_sd(mean: float, sd: float, step: float) -> float:
    """The normal spread whose draws rounded to ``step`` have spread ``sd`` around ``mean``.

    From ``step`` up, Sheppard's ``sqrt(sd² − step²/12)`` (rounding adds ``step²/12`` to the
    variance of a normal that wide, to within 1e-8), worked in units of ``sd``; under it, by
    bisection on ``[0, sd + step]`` (the rounded spread grows with it), 0 when even the narrowest
    normal (a spread of 1e-12 steps) rounds to a wider spread (a mean half-way between two grid
    points).
    """
    if sd >= step:
        return sd * math.sqrt(1.0 - (step / sd) ** 2 / 12.0)
    if sd <= 0.0 or rounded_sd(mean, 1e-12 * step, step) >= sd:
        return 0.0
    lo, hi = 0.0, sd + step
    for _ in range(50):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if rounded_sd(mean, mid, step) < sd else (lo, mid)
    return (lo + hi) / 2.0


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
    """Share of ``trials`` seeded simulated runs called improved (D-3, D-4, D-6).

    Each run has ``n`` draws per arm; the with-skill true mean is ``base_mean + effect``.
    """
    rng = np.random.default_rng(seed)
    mw, sw = arm_moments(rng, base_mean + effect, sd_with, n, grid, trials)
    mb, sb = arm_moments(rng, base_mean, sd_base, n, grid, trials)
    delta = mw - mb
    called = separated(delta, sw + sb) & meets_floor(delta) & (delta > 0)
    return int(np.count_nonzero(called)) / trials
