"""Could a case have been separated? Resolution and draws needed (D-5).

``resolution = sd_A + sd_B + 2·sqrt(sd_A²/n_A + sd_B²/n_B)`` (unpaired). At or above the 0.05
floor, or with an arm of one measured draw, an unseparated case is underpowered. Draws needed:
the smallest equal n ≥ 2 bringing it under the floor, spreads held; none when ``sd_A + sd_B``
alone reaches it. Comparisons use the D-3 tolerance.
"""

from __future__ import annotations

import math

from driftproof.wording import EFFECT_FLOOR, TOLERANCE

#: ``(n, no_draw_count)``: n is ``None`` when no draw count reaches the floor.
DrawsNeeded = tuple[int | None, bool]


def se_diff(sd_a: float, n_a: int, sd_b: float, n_b: int) -> float:
    """Unpaired SE of the difference of two means, ``sqrt(sd_A²/n_A + sd_B²/n_B)`` (D-5).

    Raises:
        ValueError: a count is below 1.
    """
    if n_a < 1 or n_b < 1:
        raise ValueError("each arm needs at least one measured draw")
    return math.sqrt(sd_a * sd_a / n_a + sd_b * sd_b / n_b)


def resolution(sd_a: float, n_a: int, sd_b: float, n_b: int) -> float:
    """``sd_A + sd_B + 2·SE_diff``, on the judge scale (D-5)."""
    return sd_a + sd_b + 2.0 * se_diff(sd_a, n_a, sd_b, n_b)


def reaches_floor(value: float, floor: float = EFFECT_FLOOR) -> bool:
    """True when ``value`` is at or above the floor, within the tolerance of D-3."""
    return value >= floor - TOLERANCE


def draws_needed(sd_a: float, sd_b: float, floor: float = EFFECT_FLOOR) -> DrawsNeeded:
    """Smallest equal draws per arm n ≥ 2 at which the resolution falls under the floor (D-5).

    Spreads are held at their observed values. Closed form: n > X = 4(sd_A² + sd_B²) /
    (floor − sd_A − sd_B)², checked against the resolution itself so that the
    tolerance of D-3 decides borderline counts exactly as it decides the verdict.

    Returns:
        ``(n, False)``, or ``(None, True)`` when ``sd_A + sd_B`` reaches the floor
        ("no draw count reaches the floor").
    """
    total = sd_a + sd_b
    if reaches_floor(total, floor):
        return None, True
    var = sd_a * sd_a + sd_b * sd_b
    if var == 0.0:
        return 2, False
    gap = floor - TOLERANCE - total
    x = 4.0 * var / (gap * gap)
    n = max(2, math.floor(x) + 1)
    if n > 10**9:  # float rounding cannot move a count this large by a meaningful amount
        return n, False

    def _under(k: int) -> bool:
        return not reaches_floor(total + 2.0 * math.sqrt(var / k), floor)

    while n > 2 and _under(n - 1):
        n -= 1
    while not _under(n):
        n += 1
    return n, False
