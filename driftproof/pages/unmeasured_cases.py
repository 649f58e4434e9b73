"""Cases the later receipt of a comparison measured nothing in, where the earlier one measured.

A case whose every with-skill draw is lost in the later receipt keeps its own verdict word
(UNDERPOWERED, with no measured draw: D-9), and a receipt that measured something elsewhere gets
a verdict (D-17 is for a receipt with nothing measured at all). So ``diff`` and the Action name
such cases apart, before any improved or regressed case: a skill that makes the model refuse
every draw of a case must not read as a quiet gap.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftproof.stats.band import BandSource, arm_band
from driftproof.wording import ARM_WORDS, COMPARED_ARMS, NOT_MEASURED, count_of, first_of

if TYPE_CHECKING:
    from driftproof.receipt import Receipt

#: What is said of such a case, after its id.
LATER_NOT_MEASURED = f"{NOT_MEASURED} in the later receipt"


@dataclass(frozen=True)
class UnmeasuredCase:
    """A case the later receipt measured nothing in, for an arm the earlier receipt measured.

    Attributes:
        case_id: the case's id, as both receipts record it.
        arms: the arms concerned, by receipt key (``with_skill``, ``baseline``), in that order.
        drawn: draws made in those arms of the later receipt, all of them lost (0: none made).
        reason: the commonest recorded lost reason over those arms (ties: alphabetical), as
            recorded; ``None`` when none is recorded (no draw made).
        reason_draws: the draws lost to ``reason``.
    """

    case_id: str
    arms: tuple[str, ...]
    drawn: int
    reason: str | None
    reason_draws: int = 0

    def words(self) -> str:
        """The case's words, after its id; the recorded reason is not escaped.

        ``not measured in the later receipt: every draw lost (with skill; 3 of 3 lost to
        <reason>)`` (``…, most often to <reason> (2)`` when the reasons differ), or ``…: no draw
        made (with skill)``.
        """
        arms = ", ".join(ARM_WORDS[a] for a in self.arms)
        if self.drawn == 0:
            return f"{LATER_NOT_MEASURED}: no draw made ({arms})"
        lost = f"{self.drawn} of {self.drawn} lost"
        why = self.reason or "no recorded reason"
        why = f" to {why}" if self.reason_draws == self.drawn else f", most often to {why}"
        why += "" if self.reason_draws in (0, self.drawn) else f" ({self.reason_draws})"
        return f"{LATER_NOT_MEASURED}: every draw lost ({arms}; {lost}{why})"


def unmeasured_later(
    a: Receipt,
    b: Receipt,
    sources: tuple[BandSource | None, BandSource | None],
) -> tuple[UnmeasuredCase, ...]:
    """The cases ``b`` (later) measured nothing in, for an arm ``a`` (earlier) measured.

    Cases in both receipts, in ``a``'s order; the arms are :data:`COMPARED_ARMS`.

    An arm measured in neither receipt is left out: nothing was lost between the two. A later
    receipt of printed aggregates only (no draws by its nature) gives none; an earlier one has no
    measured arm. ``sources`` are the receipts' band sources (``None``: banded as
    ``generation``). Never raises.
    """
    if b.is_aggregates_only:
        return ()
    later = {c.id: c for c in b.cases}
    out = []
    for c in a.cases:
        d = later.get(c.id)
        if d is None:
            continue
        arms, drawn, reasons = [], 0, Counter[str]()
        for name in COMPARED_ARMS:
            before = arm_band(getattr(c.arms, name), sources[0] or "generation")
            after = arm_band(getattr(d.arms, name), sources[1] or "generation")
            if before.n > 0 and after.n == 0:
                arms.append(name)
                drawn += after.drawn
                reasons.update(after.lost_reasons)
        if arms:
            top = min(reasons.items(), key=lambda kv: (-kv[1], kv[0])) if reasons else (None, 0)
            out.append(UnmeasuredCase(c.id, tuple(arms), drawn, *top))
    return tuple(out)


def unmeasured_headline(cases: tuple[UnmeasuredCase, ...], *, ids: bool = True) -> str | None:
    """``5 cases not measured in the later receipt (case-01, …)``; ``None`` for no case.

    The ids are left out when ``ids`` is false.
    """
    if not cases:
        return None
    names = f" ({first_of([u.case_id for u in cases])})" if ids else ""
    return f"{count_of(len(cases), 'case')} {LATER_NOT_MEASURED}{names}"
