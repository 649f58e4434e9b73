"""Cases the later receipt of a comparison measured nothing in, where the earlier one measured.

Such a case in both receipts is underpowered (D-2, D-5, E2); one the later receipt does not hold
has no verdict. Either is named apart, before any improved or regressed case, as "not measured in
the later receipt" (D-17), which the Action's ``not-measured`` gate reads.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftproof.stats.band import Band, BandSource, arm_band
from driftproof.wording import (
    AA_ARM_WORDS,
    ARM_WORDS,
    COMPARED_ARMS,
    NOT_MEASURED,
    count_of,
    first_of,
)

if TYPE_CHECKING:
    from driftproof.receipt import Receipt

#: What is said of such a case, after its id.
LATER_NOT_MEASURED = f"{NOT_MEASURED} in the later receipt"
#: The band of an arm of a case the later receipt does not hold: nothing drawn.
_ABSENT = Band(None, None, 0, 0, 0, (), "generation")


@dataclass(frozen=True)
class UnmeasuredCase:
    """A case the later receipt measured nothing in, for an arm the earlier receipt measured.

    Attributes:
        arms: the arms concerned, by receipt key, in :data:`COMPARED_ARMS` order.
        drawn: draws made in those arms of the later receipt, all of them lost (0: none made).
        reason: the commonest recorded lost reason (ties: alphabetical); ``None``: none recorded.
        reason_draws: the draws lost to ``reason``.
        aa: the later receipt is an A/A calibration, its arms named as its two runs.
        held: the later receipt holds the case (``False``: dropped or renamed, ``drawn`` 0).
        smoke: the later receipt is a smoke run, which runs part of the suite.
    """

    case_id: str
    arms: tuple[str, ...]
    drawn: int
    reason: str | None
    reason_draws: int = 0
    aa: bool = False
    held: bool = True
    smoke: bool = False

    def words(self) -> str:
        """``not measured in the later receipt: every draw lost (with skill; 3 of 3 lost to …)``.

        Or ``…: no draw made (with skill)``, ``…: not in it (dropped or renamed)`` (``(a smoke
        run, which runs part of the suite)``); the recorded reason is not escaped.
        """
        if not self.held:
            why = (
                "a smoke run, which runs part of the suite" if self.smoke else "dropped or renamed"
            )
            return f"{LATER_NOT_MEASURED}: not in it ({why})"
        arms = ", ".join((AA_ARM_WORDS if self.aa else ARM_WORDS)[a] for a in self.arms)
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


def unmeasured_later(
    a: Receipt, b: Receipt, sources: tuple[BandSource | None, BandSource | None]
) -> tuple[UnmeasuredCase, ...]:
    """The cases ``b`` (later) measured nothing in or does not hold, for an arm ``a`` measured.

    In ``a``'s order, arms of :data:`COMPARED_ARMS`; none when ``b`` is aggregates only, nor a
    case only in ``b``. ``sources``: their band sources (``None``: as ``generation``). Never raises.
    """
    if b.is_aggregates_only:
        return ()
    later = {c.id: c for c in b.cases}
    out = []
    for c, d in ((c, later.get(c.id)) for c in a.cases):
        arms, drawn, reasons = [], 0, Counter[str]()
        for name in COMPARED_ARMS:
            before = arm_band(getattr(c.arms, name), sources[0] or "generation")
            after = arm_band(getattr(d.arms, name), sources[1] or "generation") if d else _ABSENT
            if before.n > 0 and after.n == 0:
                arms.append(name)
                drawn += after.drawn
                reasons.update(after.lost_reasons)
        if arms:
            out.append(
                UnmeasuredCase(
                    c.id,
                    tuple(arms),
                    drawn,
                    *_commonest(reasons),
                    bool(b.run.aa),
                    d is not None,
                    b.is_smoke,
                )
            )
    return tuple(out)


def unmeasured_headline(cases: tuple[UnmeasuredCase, ...], *, ids: bool = True) -> str | None:
    """``5 cases not measured in the later receipt (case-01, …)`` (ids only if ``ids``), or None."""
    if not cases:
        return None
    names = f" ({first_of([u.case_id for u in cases])})" if ids else ""
    return f"{count_of(len(cases), 'case')} {LATER_NOT_MEASURED}{names}"
