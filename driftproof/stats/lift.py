"""Lift and value per 1,000 skill tokens (method, "The value-per-token axis"; D-14).

The lift of a receipt weighs every case equally: the mean over cases of
(with-skill mean − baseline mean). It is context, kept even where a receipt gets
no verdict, except for an aggregates-only import, which has none (D-15), and for a
single-arm import (an arm ``recorded: false``), which has nothing to subtract.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from driftproof.stats.reading import case_bands, lift_refusal

if TYPE_CHECKING:
    from driftproof.receipt import Receipt

__all__ = ["suite_lift", "value_per_1k"]


def suite_lift(r: Receipt) -> float | None:
    """Mean over cases of (with-skill mean − baseline mean), on the judge scale.

    Cases where an arm measured no draw are left out. Returns ``None`` for an
    aggregates-only receipt (D-15), for a single-arm receipt (an arm ``recorded: false``,
    v0.15: :func:`~driftproof.stats.reading.lift_refusal`), or when no case has both means.
    """
    if r.is_aggregates_only or lift_refusal(r) is not None:
        return None
    lifts = [w.mean - b.mean for _, w, b in case_bands(r) if w.mean is not None and b.mean is not None]
    if not lifts:
        return None
    return math.fsum(lifts) / len(lifts)


def value_per_1k(lift: float | None, skill_tokens: int | None) -> float | None:
    """Lift per 1,000 skill tokens: ``lift ÷ (skill_tokens ÷ 1000)`` (D-14).

    Returns ``None`` when the lift or the token count is unknown, or the count is not positive.
    """
    if lift is None or skill_tokens is None or skill_tokens <= 0:
        return None
    return lift / (skill_tokens / 1000)
