"""A below-floor case with lost draws (D-9 as revised): it keeps "below effect floor" only when
every completion of its lost draws stays separated and on the same side of the floor.

Worked by hand. A is two draws at .451 (mean .451, sd 0). B is n = 399 measured draws all at
b and one lost draw completed at v on the judge scale 0 to 1. With N = 400 draws:
mean_B = b + (v − b)/N; the squared deviations sum to (v − b)²·(N − 1)/N, so
sd_B = |v − b| / √N = |v − b| / 20, and Δ = mean_B − .451.
"""

from __future__ import annotations

import pytest

from driftproof.stats import band_of_scores, case_verdict
from driftproof.stats.codes import VerdictCode

A = [0.451, 0.451]


def _b(b: float) -> list[float | None]:
    return [b] * 399 + [None]


def test_one_completion_that_clears_the_floor_makes_it_inconclusive() -> None:
    # b = .50: measured Δ = .049, sd 0 → separated, below the floor.
    # v = 1: mean .50125, sd .025, Δ = .05025 ≥ .05 and > .025 → improved at this completion;
    # v = 0: mean .49875, sd .025, Δ = .04775 < .05 and > .025 → still below the floor.
    v = case_verdict(band_of_scores(A), band_of_scores(_b(0.50)), scale=(0.0, 1.0))
    assert v.delta == pytest.approx(0.049)
    assert v.verdict == VerdictCode.INCONCLUSIVE


def test_every_completion_separated_and_below_the_floor_keeps_below_floor() -> None:
    # b = .49: measured Δ = .039. v = 1: Δ = .039 + .51/400 = .040275, sd .0255;
    # v = 0: Δ = .039 − .49/400 = .037775, sd .0245: separated and below the floor at both
    # corners, so at every completion between them.
    v = case_verdict(band_of_scores(A), band_of_scores(_b(0.49)), scale=(0.0, 1.0))
    assert v.delta == pytest.approx(0.039)
    assert v.verdict == VerdictCode.BELOW_EFFECT_FLOOR


def test_one_completion_that_breaks_separation_makes_it_inconclusive() -> None:
    # Example C3 with B's third draw lost: A .80 .81 .80 (mean .80333, sd .00577); B .83 .84
    # (mean .835, sd .00707): Δ = .03167 > .01284 → below the floor. v = 0: B = .83 .84 0,
    # mean .55667, sd .48211 → the bands overlap.
    v = case_verdict(
        band_of_scores([0.80, 0.81, 0.80]), band_of_scores([0.83, 0.84, None]), scale=(0.0, 1.0)
    )
    assert v.delta == pytest.approx(0.031667, abs=1e-6)
    assert v.verdict == VerdictCode.INCONCLUSIVE


def test_no_recorded_scale_bounds_nothing() -> None:
    v = case_verdict(band_of_scores(A), band_of_scores(_b(0.49)), scale=None)
    assert v.verdict == VerdictCode.INCONCLUSIVE
