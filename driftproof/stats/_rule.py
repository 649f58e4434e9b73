"""The two tests of the verdict rule on plain numbers: separation, then the floor (D-3, D-4).

Private: :mod:`driftproof.stats.verdict` and :mod:`driftproof.stats.lost_draws` share it.
"""

from __future__ import annotations

from driftproof.stats.codes import VerdictCode
from driftproof.wording import EFFECT_FLOOR, TOLERANCE

__all__ = ["meets_floor", "separated", "separation_verdict"]


def separated(delta: float, sum_sd: float) -> bool:
    """Bands apart: ``|Δ| > sd_A + sd_B``; bands that touch overlap, within 1e-9 (D-3)."""
    return abs(delta) - sum_sd > TOLERANCE


def meets_floor(delta: float, floor: float = EFFECT_FLOOR) -> bool:
    """``|Δ| ≥ floor`` within the tolerance of D-3 (0.05 computed in floats still meets 0.05)."""
    return abs(delta) >= floor - TOLERANCE


def separation_verdict(
    delta: float, sum_sd: float, floor: float = EFFECT_FLOOR
) -> VerdictCode | None:
    """Improved, regressed or below effect floor for separated bands, else ``None`` (D-4)."""
    if not separated(delta, sum_sd):
        return None
    if not meets_floor(delta, floor):
        return VerdictCode.BELOW_EFFECT_FLOOR
    return VerdictCode.IMPROVED if delta > 0 else VerdictCode.REGRESSED
