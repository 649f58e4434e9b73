"""The noise-alone figure (the ground of ``fail-on: beyond-noise``) runs high when draws are uneven.

Found: with draws mostly steady and now and then a bad answer (15% of draws 0.3 lower), a
50-case suite's figure read about 2.5 regressed cases where noise alone gives about 1.3, so a
gate on beyond-noise waits for about twice the regressed cases it should; README and the method
page claimed only "high near the judge's grid step, about 4% low at others". The figure follows
the method (normal draws at the measured spreads) and stays; the docs say when it runs high.
Here one case's truth is simulated from the verdict rule's own words, independently of the
product, and set beside the product's figure at the spreads such runs measure."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from driftproof.stats.false_alarms import p_regressed

ROOT = Path(__file__).resolve().parents[2]


def _arms(rng: np.random.Generator, runs: int) -> np.ndarray:
    """``runs`` pairs of arms of 3 draws at 0.70, spread 0.02, 15% of draws 0.3 lower, on 0.01."""
    x = rng.normal(0.70, 0.02, (2, runs, 3)) - 0.3 * (rng.random((2, runs, 3)) < 0.15)
    return np.clip(np.round(x / 0.01) * 0.01, 0.0, 1.0)


def test_uneven_draws_make_the_figure_about_twice_the_truth() -> None:
    rng = np.random.default_rng(2026)
    # the truth: B's mean below A's by more than the two sample sds and by at least 0.05
    x = _arms(rng, 100_000)
    m, s = x.mean(axis=2), x.std(axis=2, ddof=1)
    d = m[1] - m[0]
    truth = float(
        np.mean((d < 0) & (np.abs(d) - (s[0] + s[1]) > 1e-9) & (np.abs(d) >= 0.05 - 1e-9))
    )
    # the product's figure: normal draws at the spreads (and mean) each pair of runs measured
    y = _arms(rng, 300)
    ym, ys = y.mean(axis=2), y.std(axis=2, ddof=1)
    grid = (0.01, (0.0, 1.0))
    figure = np.mean(
        [
            p_regressed(
                ys[0, i],
                3,
                ys[1, i],
                3,
                mean=(ym[0, i] + ym[1, i]) / 2,
                grid_a=grid,
                grid_b=grid,
                trials=500,
                seed=i,
            )
            for i in range(300)
        ]
    )
    # about .049 against .026 (1.9 times); 50 such cases: 2.5 against 1.3
    assert 1.5 <= figure / truth <= 2.6, (figure, truth)


def test_readme_and_method_page_say_uneven_draws_make_it_run_high() -> None:
    for path in (ROOT / "README.md", ROOT / "site_src" / "method.md"):
        text = re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))
        assert "uneven" in text and "about twice" in text, path
        assert "misses real regressions more often" in text, path
