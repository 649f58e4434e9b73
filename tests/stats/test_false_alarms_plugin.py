"""The noise-alone figure plugs in spreads measured from a few draws: it runs high, never low.

The method page says so with figures; here they are worked by an independent simulation of the
verdict rule from the method's words (band = mean ± sample sd, ddof 1; bands apart, touching
overlaps; the mean falls by at least 0.05), scores N(mean, sd) on the 0.05 grid clipped to 0..1,
and compared with the mean of what ``p_regressed`` prints for runs of that same process.
"""

from __future__ import annotations

import numpy as np
import pytest

from driftproof.stats.false_alarms import p_regressed

GRID = (0.05, (0.0, 1.0))


def _draws(rng: np.random.Generator, mean: float, sd: float, shape: tuple[int, int]) -> np.ndarray:
    return np.clip(np.round((mean + sd * rng.standard_normal(shape)) / 0.05) * 0.05, 0.0, 1.0)


def _true_and_printed(mean: float, sd: float, n: int) -> tuple[float, float]:
    rng = np.random.default_rng(7)
    a, b = _draws(rng, mean, sd, (400_000, n)), _draws(rng, mean, sd, (400_000, n))
    delta = b.mean(axis=1) - a.mean(axis=1)
    apart = np.abs(delta) - (a.std(axis=1, ddof=1) + b.std(axis=1, ddof=1)) > 1e-9
    true = float(np.mean(apart & (delta <= -(0.05 - 1e-9))))
    a, b = _draws(rng, mean, sd, (300, n)), _draws(rng, mean, sd, (300, n))
    printed = [
        p_regressed(
            float(a[i].std(ddof=1)),
            n,
            float(b[i].std(ddof=1)),
            n,
            mean=mean,
            grid_a=GRID,
            grid_b=GRID,
            seed=i,
        )
        for i in range(300)
    ]
    return true, float(np.mean(printed))


@pytest.mark.parametrize(
    ("mean", "sd", "n", "low", "high"),
    [
        (0.50, 0.06, 3, 0.95, 1.2),  # "about right ... (up to a sixth high)"
        (0.62, 0.06, 3, 0.95, 1.2),
        (0.50, 0.10, 5, 1.15, 1.45),  # "about 30% high at 0.10 and five draws"
        (0.50, 0.03, 3, 1.15, 1.4),  # "25% to 85% high at 0.03 and three draws"
        (0.675, 0.03, 3, 1.6, 2.0),
    ],
)
def test_the_noise_alone_chance_runs_high_as_the_method_page_says(
    mean: float, sd: float, n: int, low: float, high: float
) -> None:
    true, printed = _true_and_printed(mean, sd, n)
    assert true > 0.005 and low <= printed / true <= high
