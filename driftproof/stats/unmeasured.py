"""Lost draws counted by cause, and a receipt that measured nothing (D-17).

A draw's cause is the provider's words: the last failed attempt's error for a draw lost to an
error (the jittered retry tail left out), else its lost reason; an error with no HTTP status
on an arm that records its service names the base URL beside it. A receipt with no case
measured in both arms is "not measured" with the commonest cause, never UNDERPOWERED (D-17).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftproof.stats.band import BandSource, arm_band
from driftproof.wording import ARM_WORDS, ARMS, COMPARED_ARMS, NOT_MEASURED

if TYPE_CHECKING:
    from driftproof.receipt import Draw, Receipt
    from driftproof.receipt._model_draw import FailedAttempt


@dataclass(frozen=True)
class LostCause:
    """One cause of lost draws and how many draws it lost.

    Attributes:
        cause: the provider's words (with `` (base URL …)`` for a connection with no answer).
        draws: the number of lost draws with this cause.
    """

    cause: str
    draws: int


def lost_causes(r: Receipt, arms: Sequence[str] = ARMS) -> list[LostCause]:
    """The causes of the lost draws of ``arms`` over every case, commonest first.

    Ties in alphabetical order; empty when no draw of those arms was lost.
    """
    counts: Counter[str] = Counter()
    for _, _, arm, d in r.draws_at():
        if arm not in arms or d.lost is None:
            continue
        spec = getattr(r.arms, arm)
        last = _last_failed(d)
        cause = draw_cause(d) or d.lost.reason
        status = last.status if last is not None else d.lost.status
        if d.lost.kind == "error" and status is None and spec is not None and spec.service:
            cause += f" (base URL {spec.service})"
        counts[cause] += 1
    return [LostCause(k, n) for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def draw_cause(d: Draw) -> str | None:
    """A lost draw's cause in the provider's words, ``None`` for a draw with no ``lost`` record.

    The last failed attempt's error for a draw lost to an error that records its attempts (the
    attempt count and the jittered waits left out), else the draw's lost reason.
    """
    if d.lost is None:
        return None
    last = _last_failed(d)
    return last.error if last is not None else d.lost.reason


def _last_failed(d: Draw) -> FailedAttempt | None:
    """The last failed attempt of a draw lost to an error that records its attempts, else None."""
    return d.attempts[-1] if d.lost is not None and d.lost.kind == "error" and d.attempts else None


def arms_measured_nothing(r: Receipt) -> tuple[str, ...]:
    """The recorded arms none of whose draws has a score, in arm order (D-17).

    ``driftproof run`` exits non-zero when there is one.
    """
    scored = {name for _, _, name, d in r.draws_at() if d.score is not None}
    return tuple(
        arm
        for arm in ARMS
        if (spec := getattr(r.arms, arm, None)) is not None and spec.recorded and arm not in scored
    )


def lost_or_undrawn(r: Receipt) -> bool:
    """Whether the with-skill and baseline arms of ``r`` hold a lost draw, or no draw at all."""
    draws = [d for c in r.cases for a in (c.arms.with_skill, c.arms.baseline) for d in a.draws]
    return not draws or any(d.lost is not None for d in draws)


def not_measured(r: Receipt, band_source: BandSource) -> str | None:
    """``"not measured: …"`` with the commonest cause, or ``None`` (D-17).

    Given when no case has a measured score in both the with-skill and baseline arms.
    """
    if any(
        arm_band(c.arms.with_skill, band_source).mean is not None
        and arm_band(c.arms.baseline, band_source).mean is not None
        for c in r.cases
    ):  # lazy: stops at the first measured case
        return None
    draws = [d for c in r.cases for a in (c.arms.with_skill, c.arms.baseline) for d in a.draws]
    causes = lost_causes(r, ("with_skill", "baseline"))
    if not draws:
        return f"{NOT_MEASURED}: no draw was made"
    if not causes:
        return f"{NOT_MEASURED}: no case has a measured score in both arms"
    if sum(c.draws for c in causes) == len(draws):
        return f"{NOT_MEASURED}: {lost_words(causes, len(draws))}"
    by_arm = {a: [d for c in r.cases for d in getattr(c.arms, a).draws] for a in COMPARED_ARMS}
    lossy = [a for a, ds in by_arm.items() if any(d.lost is not None for d in ds)]
    arm = (
        lossy[0] if len(lossy) == 1 and all(d.lost is not None for d in by_arm[lossy[0]]) else None
    )
    words = lost_words(causes, len(draws), arm)
    return f"{NOT_MEASURED}: no case has a measured score in both arms; {words}"


def lost_words(causes: Sequence[LostCause], draws: int, arm: str | None = None) -> str:
    """``N of M draws lost to <cause>``, or ``…, most often to <cause> (k)`` when causes differ.

    With ``arm`` (the one arm that lost draws, and lost every one): ``every <arm> draw lost
    (N of the M draws of both arms) to <cause>``.
    """
    lost, top = sum(c.draws for c in causes), causes[0]
    why = f" to {top.cause}" if top.draws == lost else f", most often to {top.cause} ({top.draws})"
    if arm is not None:
        return f"every {ARM_WORDS[arm]} draw lost ({lost} of the {draws} draws of both arms){why}"
    return f"{lost} of {draws} draws lost{why}"
