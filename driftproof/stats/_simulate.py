"""Simulated draws of one arm on the judge's score grid, for the planning and false-alarm
simulations (private: :mod:`driftproof.stats.planning` and :mod:`driftproof.stats.false_alarms`).

A per-draw score is normal around the arm's true mean with the arm's spread, rounded to the
per-draw grid (the judge's step divided by the judge samples averaged into a draw, D-1) and
held inside the judge scale. Deterministic for a given :class:`random.Random`.
"""

from __future__ import annotations

import random

from driftproof.stats.moments import mean_sd

__all__ = ["Grid", "arm_moments"]

#: ``(step, (worst, best))`` of one arm's per-draw scores; either part ``None`` when unknown
#: (no rounding, no clipping).
Grid = tuple[float | None, tuple[float, float] | None]


def arm_moments(
    rng: random.Random, mean: float, sd: float, n: int, grid: Grid
) -> tuple[float, float]:
    """Mean and sample sd (ddof = 1, D-2) of ``n ≥ 2`` simulated per-draw scores."""
    step, scale = grid
    scores = []
    for _ in range(n):
        x = rng.gauss(mean, sd)
        if step:
            x = round(x / step) * step
        if scale is not None:
            x = min(max(x, scale[0]), scale[1])
        scores.append(x)
    m, s = mean_sd(scores)
    assert m is not None and s is not None  # n ≥ 2
    return m, s
