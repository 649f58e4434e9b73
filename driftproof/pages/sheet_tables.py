"""The sheet's two tables: one row per case (D-2, D-9) and one summary per arm."""

from __future__ import annotations

from driftproof.pages.sheet_model import ArmSummary, CaseRow
from driftproof.pages.words import (
    ARM_NOT_RECORDED,
    ARM_WORDS,
    UNKNOWN,
    VERDICT_WORDS,
    anchor_for,
    arms_of,
    band_text,
    fmt,
)
from driftproof.receipt import Case, Receipt
from driftproof.receipt._model import CaseArm, Draw
from driftproof.stats import (
    arm_band,
    band_source_of,
    mean_delta,
    mean_of,
    unrecorded_arms,
)
from driftproof.stats.band import Band
from driftproof.stats.rates import fired_counts, percent_of
from driftproof.wording import ENDING_WORDS


def case_rows(r: Receipt, verdicts: dict[str, str]) -> tuple[CaseRow, ...]:
    """One row per case; ``verdicts`` maps a case id to its verdict code."""
    src = band_source_of(r)
    missing = set(unrecorded_arms(r))

    def shown(name: str, band: Band) -> str:
        return ARM_NOT_RECORDED if name in missing else band_text(band)

    rows = []
    for c in r.cases:
        w, base = arm_band(c.arms.with_skill, src), arm_band(c.arms.baseline, src)
        ctl = arm_band(c.arms.control, src) if c.arms.control is not None else None
        lift = mean_delta(base, w) if not missing & {"with_skill", "baseline"} else None
        verdict = verdicts.get(c.id)
        rows.append(
            CaseRow(
                case_id=c.id,
                anchor=anchor_for(c.id),
                with_skill=shown("with_skill", w),
                baseline=shown("baseline", base),
                control=shown("control", ctl) if ctl is not None else None,
                lift=fmt(lift, signed=True),
                verdict=VERDICT_WORDS.get(verdict, verdict)
                if verdict is not None
                else "no verdict",
                checks=_checks(r, c),
                lost=_lost(r, c),
                numbers=(w.mean, w.sd, base.mean, base.sd),
                output_tokens=" · ".join(_case_output(getattr(c.arms, n)) for n in arms_of(r)),
            )
        )
    return tuple(rows)


def _case_output(arm: CaseArm | None) -> str:
    counts = [
        d.tokens.output
        for d in (arm.draws if arm is not None else [])
        if d.tokens is not None and d.tokens.output is not None
    ]
    if not counts:
        return "–"
    if len(counts) == 1:
        return f"{counts[0]:,}"
    return f"mean {mean_of(counts) or 0.0:,.1f} ({len(counts)} draws)"


#: Lost-draw kinds of a reply that did not end as a finished answer with the skill (D-19), in
#: words; older kinds are shown as recorded.
_KIND_WORDS = {
    **{k: v for k, v in ENDING_WORDS.items() if k not in ("truncated", "refusal")},
    "prompt_dropped": "prompt dropped",
}


def arm_summaries(r: Receipt) -> tuple[ArmSummary, ...]:
    """One summary per arm of ``r``; an arm the source did not record says so."""
    missing = set(unrecorded_arms(r))
    out = []
    for n in arms_of(r):
        words = ARM_WORDS[n]
        if n in missing:
            out.append(ArmSummary(words, ARM_NOT_RECORDED, "–", "–", "–", "–"))
            continue
        draws = [
            d for c in r.cases if getattr(c.arms, n) is not None for d in getattr(c.arms, n).draws
        ]
        measured = sum(d.score is not None for d in draws)
        lost = [d.lost for d in draws if d.lost is not None]
        kinds = sorted({_KIND_WORDS.get(x.kind, x.kind) for x in lost if x.kind})
        refused = sum(
            d.refusal is not None or (d.lost is not None and d.lost.kind == "refusal")
            for d in draws
        )
        outputs = [
            d.tokens.output for d in draws if d.tokens is not None and d.tokens.output is not None
        ]
        totals = [
            d.tokens.total for d in draws if d.tokens is not None and d.tokens.total is not None
        ]
        out.append(
            ArmSummary(
                arm=words,
                draws=f"{len(draws):,} drawn, {measured:,} scored",
                lost=(f"{len(lost):,}" + (f" ({', '.join(kinds)})" if kinds else ""))
                if lost
                else "none",
                refusals=f"{refused:,} of {len(draws):,} draws"
                if refused
                else f"none of {len(draws):,} draws",
                skill_fired=_skill_fired(r, n, draws),
                output_tokens=(
                    f"{sum(outputs):,} over {len(outputs):,} draw{'s' if len(outputs) != 1 else ''}"
                    if outputs
                    else f"not split; {sum(totals):,} total tokens over {len(totals):,} "
                    f"draw{'s' if len(totals) != 1 else ''}, as the source reported them"
                    if totals
                    else UNKNOWN
                ),
            )
        )
    return tuple(out)


def _skill_fired(r: Receipt, name: str, draws: list[Draw]) -> str:
    """How often the skill fired, beside the score and never inside it (seed 000, interop)."""
    spec = getattr(r.arms, name)
    rate = spec.skill_fired if spec is not None else None
    if rate is not None:
        fired, observed = rate.fired, rate.observed
    else:
        fired, observed = fired_counts(draws, lost_too=True)
    pct = percent_of(fired, observed)
    if pct is None:
        return UNKNOWN
    return f"{fired:,} of {observed:,} observed draws ({fmt(pct, 0)}%)"


def _checks(r: Receipt, c: Case) -> str:
    parts = []
    for n in arms_of(r):
        checks = [k for d in getattr(c.arms, n).draws for k in d.checks]
        if checks:
            errored = sum(k.outcome == "error" for k in checks)
            parts.append(
                f"{ARM_WORDS[n]} {sum(k.pass_ for k in checks)}/{len(checks)} passed"
                + (f", {errored} could not run (error)" if errored else "")
            )
    return " · ".join(parts) or "none"


def _lost(r: Receipt, c: Case) -> str:
    parts = []
    for n in arms_of(r):
        draws = getattr(c.arms, n).draws
        lost = [d.lost.reason for d in draws if d.lost is not None]
        if lost:
            parts.append(
                f"{ARM_WORDS[n]} {len(lost)} of {len(draws)} lost "
                f"({'; '.join(dict.fromkeys(lost))})"
            )
    return " · ".join(parts) or "none"
