"""The two tests of the verdict rule on numbers or arrays: separation, then the floor (D-3, D-4)."""

from __future__ import annotations

from typing import Any, overload

from numpy import bool_, float64
from numpy.typing import NDArray

from driftproof.stats.codes import VerdictCode
from driftproof.wording import EFFECT_FLOOR, TOLERANCE

# Each test takes numbers, or numpy arrays of them: the simulations (``stats._simulate``) put
# whole arrays of simulated runs through the same two tests, elementwise.
Floats = NDArray[float64]


@overload
def separated(delta: float, sum_sd: float) -> bool: ...
@overload
def separated(delta: Floats, sum_sd: Floats) -> NDArray[bool_]: ...


def separated(delta: Any, sum_sd: Any) -> Any:
    """Bands apart: ``|Δ| > sd_A + sd_B``; bands that touch overlap, within 1e-9 (D-3)."""
    return abs(delta) - sum_sd > TOLERANCE


@overload
def meets_floor(delta: float, floor: float = ...) -> bool: ...
@overload
def meets_floor(delta: Floats, floor: float = ...) -> NDArray[bool_]: ...


def meets_floor(delta: Any, floor: float = EFFECT_FLOOR) -> Any:
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
