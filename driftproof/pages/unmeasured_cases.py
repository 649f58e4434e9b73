"""Cases the later receipt of a comparison measured nothing in, where the earlier one measured.

Such a case keeps its verdict code (UNDERPOWERED, no measured draw: D-9) but is named apart,
before any improved or regressed case, as "not measured" or "could not be compared", never as
wanting more draws (D-17).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftproof.stats.band import BandSource, arm_band
from driftproof.stats.reading import underpowered_draws
from driftproof.wording import ARM_WORDS, COMPARED_ARMS, NOT_MEASURED, count_of, first_of

if TYPE_CHECKING:
    from driftproof.receipt import Receipt
    from driftproof.stats import CaseVerdict

#: What is said of such a case, after its id.
LATER_NOT_MEASURED = f"{NOT_MEASURED} in the later receipt"

#: What a diff says of a case one side measured nothing in: not a spread too wide (D-17).
NOT_COMPARED = "could not be compared"


@dataclass(frozen=True)
class UnmeasuredCase:
    """A case the later receipt measured nothing in, for an arm the earlier receipt measured.

    Attributes:
        arms: the arms concerned, by receipt key, in :data:`COMPARED_ARMS` order.
        drawn: draws made in those arms of the later receipt, all of them lost (0: none made).
        reason: the commonest recorded lost reason (ties: alphabetical); ``None``: none recorded.
        reason_draws: the draws lost to ``reason``.
    """

    case_id: str
    arms: tuple[str, ...]
    drawn: int
    reason: str | None
    reason_draws: int = 0

    def words(self) -> str:
        """``not measured in the later receipt: every draw lost (with skill; 3 of 3 lost to …)``.

        Or ``…: no draw made (with skill)``; the recorded reason is not escaped.
        """
        arms = ", ".join(ARM_WORDS[a] for a in self.arms)
        if self.drawn == 0:
            return f"{LATER_NOT_MEASURED}: no draw made ({arms})"
        lost = _all_lost(self.drawn, self.reason, self.reason_draws)
        return f"{LATER_NOT_MEASURED}: every draw lost ({arms}; {lost})"


def _all_lost(drawn: int, reason: str | None, reason_draws: int) -> str:
    """``3 of 3 lost to <reason>``, ``… lost, most often to <reason> (2)``; ``drawn`` > 0."""
    why = reason or "no recorded reason"
    why = f" to {why}" if reason_draws == drawn else f", most often to {why}"
    why += "" if reason_draws in (0, drawn) else f" ({reason_draws})"
    return f"{drawn} of {drawn} lost{why}"


def _commonest(reasons: Counter[str]) -> tuple[str | None, int]:
    """The commonest reason and its count (ties: alphabetical); ``(None, 0)`` for none."""
    return min(reasons.items(), key=lambda kv: (-kv[1], kv[0])) if reasons else (None, 0)


def not_compared(v: CaseVerdict) -> str | None:
    """Why a diff's case could not be compared (a side measured no draw), else ``None``.

    ``could not be compared, its draws were lost (later: 3 of 3 lost to <reason>)``, each side
    (``earlier``: ``v.a``, ``later``: ``v.b``) that measured nothing named; reasons not escaped.
    """
    parts = [
        f"{side}: {_all_lost(b.drawn, *_commonest(Counter(b.lost_reasons)))}"
        if b.drawn
        else f"{side}: no draw made"
        for side, b in (("earlier", v.a), ("later", v.b))
        if b.n == 0
    ]
    if not parts:
        return None
    return f"{NOT_COMPARED}, its draws were lost ({'; '.join(parts)})"


def unmeasured_later(
    a: Receipt,
    b: Receipt,
    sources: tuple[BandSource | None, BandSource | None],
) -> tuple[UnmeasuredCase, ...]:
    """The cases ``b`` (later) measured nothing in, for an arm ``a`` (earlier) measured.

    Cases in both, in ``a``'s order, arms of :data:`COMPARED_ARMS`; none when ``b`` is aggregates
    only. ``sources``: their band sources (``None``: banded as ``generation``). Never raises.
    """
    if b.is_aggregates_only:
        return ()
    later = {c.id: c for c in b.cases}
    out = []
    for c, d in ((c, later[c.id]) for c in a.cases if c.id in later):
        arms, drawn, reasons = [], 0, Counter[str]()
        for name in COMPARED_ARMS:
            before = arm_band(getattr(c.arms, name), sources[0] or "generation")
            after = arm_band(getattr(d.arms, name), sources[1] or "generation")
            if before.n > 0 and after.n == 0:
                arms.append(name)
                drawn += after.drawn
                reasons.update(after.lost_reasons)
        if arms:
            out.append(UnmeasuredCase(c.id, tuple(arms), drawn, *_commonest(reasons)))
    return tuple(out)


def unmeasured_headline(cases: tuple[UnmeasuredCase, ...], *, ids: bool = True) -> str | None:
    """``5 cases not measured in the later receipt (case-01, …)`` (ids only if ``ids``), or None."""
    if not cases:
        return None
    names = f" ({first_of([u.case_id for u in cases])})" if ids else ""
    return f"{count_of(len(cases), 'case')} {LATER_NOT_MEASURED}{names}"


def weak_reason(weak: list[CaseVerdict]) -> tuple[int | None, str]:
    """The draws per arm needed and why, for a diff's underpowered cases (D-5).

    A case a side measured nothing in is named as not compared, never as wanting draws (D-17).
    """
    needed, reason = underpowered_draws(weak)
    gone = [v.case_id for v in weak if not_compared(v)]
    if not gone:
        return needed, reason
    # a clause that opens with words, never with a case id (the Action capitalises its first letter)
    which = "that case" if len(gone) == 1 else "those cases"
    said = (
        f"every draw of an arm was lost in {first_of(gone)}, so {which} {NOT_COMPARED} "
        "(reasons given with the case)"
    )
    rest = [v for v in weak if not not_compared(v)]
    return needed, said if not rest else f"{said}; {underpowered_draws(rest)[1]}"
