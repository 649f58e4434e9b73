"""Lift and value per 1,000 skill tokens (method, "The value-per-token axis"; D-14).

The lift weighs every case equally: the mean over cases of (with-skill − baseline mean). It is
context kept without a verdict, except for aggregates-only (D-15) and single-arm receipts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftproof.stats.band import arm_band, band_source_of, case_bands, mean_delta
from driftproof.stats.moments import mean_of
from driftproof.stats.reading import lift_refusal

if TYPE_CHECKING:
    from driftproof.receipt import Receipt


def suite_lift(r: Receipt) -> float | None:
    """Mean over cases with both means of (with-skill − baseline mean), on the judge scale.

    ``None`` for aggregates-only (D-15) or single-arm receipts, or when no case has both means.
    """
    if lift_refusal(r) is not None:
        return None
    return mean_of([d for _, d in _case_lifts(r)])


def _case_lifts(r: Receipt) -> list[tuple[str, float]]:
    """``(case id, lift)`` of each case measured in both arms; none when aggregates-only."""
    if r.is_aggregates_only:
        return []
    return [(cid, d) for cid, w, b in case_bands(r) if (d := mean_delta(b, w)) is not None]


def control_lift(r: Receipt) -> tuple[float | None, int]:
    """With-skill minus control mean over cases measured in both (D-16), and how many cases.

    ``(None, 0)`` when none is; context beside the lift, never a verdict.
    """
    src = band_source_of(r)
    deltas = []
    for c in r.cases:
        if c.arms.control is None:
            continue
        delta = mean_delta(arm_band(c.arms.control, src), arm_band(c.arms.with_skill, src))
        if delta is not None:
            deltas.append(delta)
    return mean_of(deltas), len(deltas)


def value_per_1k(lift: float | None, skill_tokens: int | None) -> float | None:
    """Lift per 1,000 skill tokens: ``lift ÷ (skill_tokens ÷ 1000)`` (D-14).

    Returns ``None`` when the lift or the token count is unknown, or the count is not positive.
    """
    if lift is None or skill_tokens is None or skill_tokens <= 0:
        return None
    return lift / (skill_tokens / 1000)


def lift_case_ids(r: Receipt) -> tuple[str, ...]:
    """Ids of the cases measured in both arms, in order; none when aggregates-only (D-15)."""
    return tuple(cid for cid, _ in _case_lifts(r))


def lift_left_out(r: Receipt) -> tuple[str, ...]:
    """Ids of the cases ``r``'s suite lift leaves out (no measured draw in an arm), in order."""
    measured = set(lift_case_ids(r))
    return tuple(c.id for c in r.cases if c.id not in measured)


@dataclass(frozen=True)
class CommonLifts:
    """Two receipts' suite lifts over the same cases (lifts over different cases do not compare).

    Attributes:
        a, b: each receipt's lift over ``cases``; ``None`` when there is no common case.
        cases: ids of the cases both receipts measured in both arms, in A's order.
        a_cases, b_cases: how many cases each receipt's own suite lift covers.
        a_total, b_total: how many cases each receipt has.
        a_own, b_own: each receipt's own suite lift (over its ``a_cases``/``b_cases``).
    """

    a: float | None
    b: float | None
    cases: tuple[str, ...]
    a_cases: int
    b_cases: int
    a_total: int
    b_total: int
    a_own: float | None
    b_own: float | None


def common_lifts(a: Receipt, b: Receipt) -> CommonLifts:
    """The suite lifts of ``a`` and ``b`` over the cases both measured in both arms."""
    lifts_a, lifts_b = _case_lifts(a), _case_lifts(b)
    ids_b = {c for c, _ in lifts_b}
    both = tuple(c for c, _ in lifts_a if c in ids_b)
    wanted = set(both)
    return CommonLifts(
        mean_of([d for c, d in lifts_a if c in wanted]) if both else None,
        mean_of([d for c, d in lifts_b if c in wanted]) if both else None,
        both,
        len(lifts_a),
        len(lifts_b),
        len(a.cases),
        len(b.cases),
        mean_of([d for _, d in lifts_a]),
        mean_of([d for _, d in lifts_b]),
    )
