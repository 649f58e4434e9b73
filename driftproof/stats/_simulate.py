"""Simulated draws of one arm on the judge's score grid, for the simulations.

Normal around the true mean with the arm's spread, rounded to the per-draw grid (judge step ÷
samples per draw, D-1; half to even) and clipped to the judge scale; a (runs × draws) array,
deterministic for a given :class:`numpy.random.Generator`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

#: ``(step, (worst, best))`` of one arm's per-draw scores; either part ``None`` when unknown
#: (no rounding, no clipping).
Grid = tuple[float | None, tuple[float, float] | None]


def arm_moments(
    rng: np.random.Generator, mean: float, sd: float, n: int, grid: Grid, runs: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Means and sample sds (ddof = 1, D-2) of ``runs`` simulated runs of ``n ≥ 2`` draws each."""
    step, scale = grid
    x = rng.normal(mean, sd, size=(runs, n))
    if step:
        x = np.round(x / step) * step
    if scale is not None:
        x = np.clip(x, scale[0], scale[1])
    return x.mean(axis=1), x.std(axis=1, ddof=1)
