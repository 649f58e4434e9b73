"""Reading one receipt: refusals, helps and hurts, UNDERPOWERED (D-6, D-7, D-8, D-17).

Each case compares its with-skill arm against its baseline (D-6). The receipt reads
``regressed`` when a case hurts, ``passing`` when one helps and none hurts, else UNDERPOWERED
(an underpowered case, or a receipt-wide band at the floor) or ``no separation detected``
(D-7); "not measured" when nothing was (D-17). :func:`no_verdict` names why a receipt gets none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftproof.stats.band import band_source_of, case_bands, judge_scale
from driftproof.stats.codes import Refusal, Status, VerdictCode
from driftproof.stats.receipt_band import ReceiptBand, receipt_band_of
from driftproof.stats.unmeasured import lost_or_undrawn, not_measured
from driftproof.stats.verdict import CaseVerdict, case_verdict
from driftproof.wording import (
    BELOW_EFFECT_FLOOR,
    LEVELS,
    NO_DRAW_COUNT_REACHES,
    NO_DRAW_COUNT_WHY,
    NO_SEPARATION,
    NOT_ENOUGH_DRAWS,
    NOT_MEASURED,
    SMOKE_RUN,
    first_of,
)

if TYPE_CHECKING:
    from driftproof.receipt import Receipt

#: Why a simulated receipt (``driftproof demo``, ``run --provider simulated``) gets no verdict.
SIMULATED_NO_VERDICT = (
    "simulated: no model answered and no model judged; the simulated provider drew these "
    "answers and scores at random, so the receipt gets no verdict"
)


def _simulated_reason(r: Receipt) -> str:
    """Why a simulated receipt gets no verdict, naming the judge that scored simulated answers."""
    judge = r.judge.provider if r.judge is not None else None
    if r.run.provider != "simulated":
        return (
            "simulated: no model judged; the simulated judge drew these scores at random, so "
            "the receipt gets no verdict"
        )
    if judge in (None, "simulated"):
        return SIMULATED_NO_VERDICT
    return (  # a regrade by another judge: the answers are still simulated
        f"simulated: no model answered; the simulated provider drew these answers at random and "
        f"the {judge} judge scored them, so the receipt gets no verdict"
    )


#: Why an A/A calibration (``run --aa``) gets no verdict.
AA_NO_VERDICT = (
    "an A/A calibration: both arms ran with the skill under the same settings, so it measures "
    "noise and carries no skill verdict (diff --aa cites it beside a comparison)"
)


@dataclass(frozen=True)
class Reading:
    """What one receipt reads (D-7).

    Attributes:
        status: one of :class:`Status` (D-7).
        sentence: the fixed sentence shown with the status (D-10): for UNDERPOWERED
            "Not enough draws …" or "More cases, not more draws, …"; for no separation
            "no separation detected at this sample size"; for a smoke run "Smoke run, no
            verdict"; for passing or regressed the cases that help or hurt.
        reason: why, in plain words (the refusal, the draw count, what makes a band wide).
        draws_needed: draws per arm that would have been needed, spreads held (D-5);
            ``None`` when not applicable or when no draw count reaches the floor.
        helps, hurts: ids of the cases that separated upward or downward (D-6).
        cases: each case's verdict, baseline as ``a`` and with skill as ``b``.
        receipt_band: the receipt-wide band when it was asked (D-8), else ``None``.
    """

    status: Status
    sentence: str
    reason: str
    draws_needed: int | None = None
    helps: tuple[str, ...] = ()
    hurts: tuple[str, ...] = ()
    cases: tuple[CaseVerdict, ...] = ()
    receipt_band: ReceiptBand | None = None


_ARM_WORDS = {"with_skill": "with-skill", "baseline": "baseline", "control": "control"}


def unrecorded_arms(r: Receipt) -> tuple[str, ...]:
    """The arms ``r`` marks ``recorded: false`` (a single-arm source), in arm order."""
    return tuple(
        n
        for n in ("with_skill", "baseline", "control")
        if getattr(r.arms, n) is not None and not getattr(r.arms, n).recorded
    )


def lift_refusal(r: Receipt) -> str | None:
    """Why ``r`` has no lift, interval or value per token for lack of an arm, or ``None``.

    A source that recorded one arm only (``arms.<arm>.recorded: false``) has nothing to subtract.
    """
    missing = [n for n in unrecorded_arms(r) if n in ("with_skill", "baseline")]
    if not missing:
        return None
    arms = " and ".join(f"{_ARM_WORDS[n]} arm" for n in missing)
    return (
        f"single-arm source: the {arms} was not recorded, "
        "so there is no lift, no interval and no value per token"
    )


@dataclass(frozen=True)
class NoVerdict:
    """Why a receipt gets no verdict: the refusal's code and its plain words.

    Attributes:
        refusal: which test of the rule refused it (:class:`Refusal`).
        reason: the refusal in plain words, as every reader of a verdict shows it.
    """

    refusal: Refusal
    reason: str


def no_verdict(r: Receipt) -> NoVerdict | None:
    """The one no-verdict rule every reader asks: why ``r`` gets none, or ``None`` (D-7, D-15).

    In order: aggregates only; a preset (smoke run) or simulated provider, whatever the level;
    an A/A calibration; below TESTED; an import that is not a regrade (D-15); an unrecorded
    arm; no judge; not measured (D-17, never UNDERPOWERED), asked before the level when the run
    lost draws or drew none.
    """
    if r.is_aggregates_only:
        return NoVerdict(
            Refusal.AGGREGATES_ONLY,
            "aggregates only: the source printed figures with no per-run score, "
            "so there is no band, lift or verdict",
        )
    if r.is_smoke:
        return NoVerdict(
            Refusal.SMOKE_RUN,
            f"{SMOKE_RUN}: the receipt names the preset {r.run.preset!r}, which counts as "
            f"below TESTED whatever level it carries ({r.verification_level})",
        )
    if r.is_simulated:
        return NoVerdict(Refusal.SIMULATED, _simulated_reason(r))
    if r.run.aa:
        return NoVerdict(Refusal.AA_CALIBRATION, AA_NO_VERDICT)
    # D-17: a run (not an import, whose refusal says more) with both arms recorded
    runner = (r.provenance is None or r.regrade is not None) and lift_refusal(r) is None
    nothing = not_measured(r, band_source_of(r)) if runner else None
    if nothing is not None and lost_or_undrawn(r):  # it tried, and lost: that comes first
        return NoVerdict(Refusal.NOT_MEASURED, nothing)
    if LEVELS.index(r.verification_level) < LEVELS.index("TESTED"):
        return NoVerdict(
            Refusal.BELOW_TESTED, f"verification level {r.verification_level} is below TESTED"
        )
    if r.provenance is not None and r.regrade is None:
        return NoVerdict(
            Refusal.IMPORTED,
            f"imported from {r.provenance.tool}: imported declarations never earn a verdict, "
            f"whatever level the receipt carries ({r.verification_level})",
        )
    unrecorded = lift_refusal(r)
    if unrecorded is not None:
        return NoVerdict(Refusal.SINGLE_ARM, unrecorded)
    if r.judge is None:
        return NoVerdict(Refusal.NO_JUDGE, "no judge is recorded, so no score can be banded")
    if nothing is not None:  # draws with no score that were not lost (token counts only)
        return NoVerdict(Refusal.NOT_MEASURED, nothing)
    return None


def verdict_refusal(r: Receipt) -> str | None:
    """Why ``r`` gets no verdict in plain words, or ``None``: :func:`no_verdict`'s reason."""
    refused = no_verdict(r)
    return refused.reason if refused is not None else None


def receipt_reading(r: Receipt) -> Reading:
    """Read one receipt (D-6, D-7, D-8; lost draws as in D-9, bounded by its judge scale)."""
    refused = no_verdict(r)
    if refused is not None:
        sentence = (
            SMOKE_RUN
            if r.is_smoke and not r.is_aggregates_only
            else NOT_MEASURED
            if refused.refusal is Refusal.NOT_MEASURED
            else Status.NO_VERDICT
        )
        return Reading(Status.NO_VERDICT, sentence, refused.reason)
    scale = judge_scale(r)
    bands = case_bands(r)
    verdicts = tuple(
        case_verdict(
            base, with_, case_id=cid, scale=scale, a_label="baseline", b_label="with skill"
        )
        for cid, with_, base in bands
    )
    helps = tuple(v.case_id for v in verdicts if v.verdict == VerdictCode.IMPROVED)
    hurts = tuple(v.case_id for v in verdicts if v.verdict == VerdictCode.REGRESSED)
    if hurts:
        why = "a case separated downward under the rule"
        return Reading(
            Status.REGRESSED, "hurts: " + first_of(hurts), why, None, helps, hurts, verdicts
        )
    if helps:
        why = "a case separated upward and none downward"
        return Reading(
            Status.PASSING, "helps: " + first_of(helps), why, None, helps, hurts, verdicts
        )
    weak = [v for v in verdicts if v.verdict == VerdictCode.UNDERPOWERED]
    if weak:
        needed, reason = underpowered_draws(weak)
        return Reading(Status.UNDERPOWERED, NOT_ENOUGH_DRAWS, reason, needed, cases=verdicts)
    band = None
    if sum(v.verdict == VerdictCode.NO_SEPARATION for v in verdicts) >= 2:
        band = receipt_band_of([(w, b) for _, w, b in bands], scale)
        if band is not None and band.underpowered:
            sentence = band.sentence or NOT_ENOUGH_DRAWS
            return Reading(Status.UNDERPOWERED, sentence, band.reason, None, (), (), verdicts, band)
    below = [v.case_id for v in verdicts if v.verdict == VerdictCode.BELOW_EFFECT_FLOOR]
    reason = "no case separated under the rule"
    if below:  # D-4: a case apart but under the floor is named apart, not called unseparated
        reason = f"no case separated by the effect floor or more; {BELOW_EFFECT_FLOOR}: "
        reason += first_of(below)
    lost = [v.case_id for v in verdicts if v.verdict == VerdictCode.INCONCLUSIVE]
    if lost:
        reason += f"; inconclusive for lost draws: {', '.join(lost)}"
    return Reading(Status.NO_SEPARATION, NO_SEPARATION, reason, None, (), (), verdicts, band)


def underpowered_draws(weak: list[CaseVerdict]) -> tuple[int | None, str]:
    """The largest draws per arm the underpowered cases needed, and the words for it (D-5).

    The words say which question the count answers (the bands as measured, spreads held), apart
    from ``driftproof plan``'s (a next run, from the spreads' upper bounds). ``None`` when a
    case's spreads alone reach the floor or a case has too few draws; the words then name every
    such case, each kind once.
    """
    reach = [v.case_id for v in weak if v.no_draw_count]
    parts = [f"{NO_DRAW_COUNT_REACHES} ({', '.join(reach)}): {NO_DRAW_COUNT_WHY}"] if reach else []
    # count the draws as they are: an arm with none is not "a single measured draw"
    unknown = [v for v in weak if v.draws_needed is None and not v.no_draw_count]
    none = [v.case_id for v in unknown if min(v.a.n, v.b.n) == 0]
    single = [v.case_id for v in unknown if min(v.a.n, v.b.n) != 0]
    arms = ([f"an arm has no measured draw ({', '.join(none)})"] if none else []) + (
        [f"an arm has a single measured draw ({', '.join(single)})"] if single else []
    )
    parts += ["; ".join(arms) + ": no draw count can be worked out"] if arms else []
    if parts:
        return None, "; ".join(parts)
    n = max(v.draws_needed for v in weak if v.draws_needed is not None)
    return n, (
        f"{n} draws per arm would have been needed with the spreads held, for the bands as "
        "measured; driftproof plan sizes a next run from the spreads' upper bounds, so its "
        "count differs"
    )
