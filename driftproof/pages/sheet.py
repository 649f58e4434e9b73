"""The receipt sheet: one receipt as printable strings, for ``driftproof view`` and the site.

Bands (D-2), reading (D-7), lost draws (D-9), lift per 1,000 skill tokens (D-14), control delta
(D-16); types in :mod:`~driftproof.pages.sheet_model`, printers in :mod:`driftproof.render.sheet`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from driftproof.pages.band_sources import band_facts
from driftproof.pages.sheet_facts import (
    context_view,
    headline,
    judge_cost,
    provenance,
    quality_fact,
    reading_facts,
)
from driftproof.pages.sheet_model import (
    BREAKDOWN_NOTE,
    ArmSummary,
    BreakdownRow,
    BreakdownView,
    CaseRow,
    LostDraw,
    Sheet,
)
from driftproof.pages.source import (
    fidelity_view,
    source_figures,
    source_origin,
    source_report_facts,
    source_report_rows,
    usage_view,
)
from driftproof.pages.words import (
    ARM_NOT_RECORDED,
    UNKNOWN,
    VERDICT_WORDS,
    Fact,
    aa_line,
    anchor_for,
    arms_of,
    band_text,
    draws_of,
    fmt,
    mean_spread,
    token_counts,
)
from driftproof.receipt import Case, CaseArm, Draw, Receipt
from driftproof.stats import (
    arm_band,
    band_source_of,
    lift_refusal,
    mean_delta,
    mean_of,
    receipt_reading,
    suite_lift,
    unrecorded_arms,
    value_per_1k,
)
from driftproof.stats.aa import aa_reading
from driftproof.stats.band import Band
from driftproof.stats.breakdown import Breakdown, lift_breakdown
from driftproof.stats.lift import control_lift, lift_case_ids
from driftproof.stats.noninferiority import quality_at_margin
from driftproof.stats.rates import fired_counts, percent_of
from driftproof.wording import ARM_WORDS, ENDING_WORDS


def lift_coverage(r: Receipt) -> str:
    """`` (over N of M cases …)`` when the suite lift leaves cases of ``r`` out, else ``""``."""
    n, total = len(lift_case_ids(r)), len(r.cases)
    if n >= total:
        return ""
    return (
        f" (over {n} of {total} cases: the other {total - n} "
        f"{'has' if total - n == 1 else 'have'} no measured draw in an arm)"
    )


def sheet(
    r: Receipt,
    *,
    path: str | Path | None = None,
    size_bytes: int | None = None,
    margin: float | None = None,
) -> Sheet:
    """The sheet of receipt ``r`` (D-6, D-7, D-9, D-14, D-16).

    Args:
        r: a receipt read by :func:`~driftproof.receipt.read_receipt`.
        path: the receipt file, shown; its size in bytes (else ``size_bytes``, else the
            canonical JSON size) decides the breakdown's size limit (``BREAKDOWN_MAX_BYTES``).
        size_bytes: the receipt file's size in bytes.
        margin: a non-inferiority margin given at reading, used only when the receipt records
            none.

    Raises:
        OSError: ``path`` is given and cannot be read (stat).
        ValueError: ``margin`` differs from the margin the receipt records, or is outside (0, 1].
    """
    size = size_bytes if size_bytes is not None or path is None else Path(path).stat().st_size
    reading = receipt_reading(r)
    lift_text, per_1k_text = _lift_texts(r, reading.status)
    b = lift_breakdown(r, size_bytes=size)
    return Sheet(
        title=f"{r.skill.name} on {r.run.model or 'an unrecorded model'}",
        path=str(path) if path is not None else None,
        provenance=provenance(r),
        legend=band_facts(r).source,  # a source the receipt does not name is said so
        reading=reading_facts(reading) + _quality(r, margin),
        lift=lift_text,
        lift_per_1k=per_1k_text,
        control_delta=_control_delta(r),
        judge_cost=judge_cost(r),
        cases=case_rows(r, {v.case_id: v.verdict for v in reading.cases}),
        lost_draws=tuple(
            LostDraw(c.id, ARM_WORDS[n], str(d.index), d.lost.reason)
            for c, n, d in draws_of(r)
            if d.lost is not None
        ),
        breakdown=breakdown_view(b),
        context=context_view(r, b),
        headline=headline(r, lift_text, per_1k_text),
        arms=arm_summaries(r),
        source_figures=source_figures(r),
        source_origin=source_origin(r),
        source_report=source_report_rows(r),
        source_decision=source_report_facts(r),
        usage=usage_view(r),
        fidelity=fidelity_view(r),
    )


def _lift_texts(r: Receipt, status: str) -> tuple[str, str]:
    """The suite lift and the value per 1,000 skill tokens (D-14) as the sheet prints them."""
    single = lift_refusal(r)
    tokens = (
        f"{r.skill.tokens:,} skill tokens"
        if r.skill.tokens is not None
        else "skill tokens not recorded"
    )
    if single is not None:
        return f"n/a: {single}", f"n/a ({tokens}): {single}"
    lift = suite_lift(r)
    per_1k = value_per_1k(lift, r.skill.tokens)
    context = "" if status != "no verdict" else " (context only: the receipt has no verdict)"
    lift_text = (fmt(lift, signed=True) + lift_coverage(r) + context) if lift is not None else "n/a"
    if per_1k is None:
        return lift_text, f"n/a ({tokens})"
    words = f"per 1,000 skill tokens ({tokens}, ceil(characters ÷ 4))"
    return lift_text, f"{fmt(per_1k, signed=True)} {words}"


def breakdown_view(b: Breakdown) -> BreakdownView:
    """Format a :class:`~driftproof.stats.breakdown.Breakdown` (method, "Lift by case")."""
    if not b.available:
        return BreakdownView(
            False, tuple(f"Lift breakdown unavailable: {x}" for x in b.reasons), (), ""
        )  # no note: there are no recorded scores for it to describe
    n = sum(c.included for c in b.cases)
    lines = [
        f"Measured lift, equal weight per case over {n} included case{'s' if n != 1 else ''}: "
        + (
            fmt(b.suite_lift, signed=True)
            if b.suite_lift is not None
            else f"unavailable: {b.suite_lift_reason}"
        )
    ]
    if b.excluded:
        cases = "case" if len(b.excluded) == 1 else "cases"
        lines.append(f"Excluded with both arms (an arm failed): {cases} " + ", ".join(b.excluded))
    if b.assertions_withheld:
        lines.append("No helps, hurts or carrier assertion: " + "; ".join(b.assertions_withheld))
    else:
        lines.append("Helps (separates upward): " + (", ".join(b.helps) or "none"))
        lines.append("Hurts (separates downward): " + (", ".join(b.hurts) or "none"))
        lines.append(_carrier_line(b))
    rows = tuple(
        BreakdownRow(
            case_id=c.case_id,
            anchor=anchor_for(c.case_id),
            with_skill=mean_spread(c.with_skill.mean, c.with_skill.sd),
            baseline=mean_spread(c.baseline.mean, c.baseline.sd),
            lift=fmt(c.lift, signed=True),
            counts=" · ".join(f"{a.n}/{a.drawn}/{a.lost}" for a in (c.with_skill, c.baseline)),
            lift_without=fmt(c.lift_without, signed=True) if c.lift_without is not None else "n/a",
            label=c.label
            if c.label is not None
            else VERDICT_WORDS.get(c.verdict, c.verdict)
            if c.verdict is not None
            else "no label",
            note=c.note
            if c.note is not None
            else f"no label: {c.label_withheld}"
            if c.label_withheld is not None and not b.assertions_withheld
            else "",
        )
        for c in b.cases
    )
    return BreakdownView(True, tuple(lines), rows, BREAKDOWN_NOTE)


def receipt_breakdown(r: Receipt, *, path: str | Path | None = None) -> BreakdownView:
    """The formatted lift breakdown of ``r``; the size of the file at ``path`` sets the limit.

    Raises:
        OSError: ``path`` is given and cannot be read (stat).
    """
    size = Path(path).stat().st_size if path is not None else None
    return breakdown_view(lift_breakdown(r, size_bytes=size))


def _carrier_line(b: Breakdown) -> str:
    if b.carrier_withheld is not None:
        return f"No carrier assertion: {b.carrier_withheld}"
    if b.carriers:
        parts = [
            f"{c.case_id} (removing it leaves {fmt(c.lift_without, signed=True)})"
            for c in b.cases
            if c.carrier
        ]
        return "Carries the positive measured lift: " + ", ".join(parts)
    if b.suite_lift is not None and b.suite_lift > 0:
        return (
            "No single case carries the positive measured lift: "
            "removing any one leaves a positive lift"
        )
    return "The measured lift is not positive: no case carries a positive lift"


def _control_delta(r: Receipt) -> str | None:
    if r.arms.control is None or r.is_aggregates_only:
        return None
    missing = [n for n in unrecorded_arms(r) if n in ("with_skill", "control")]
    if missing:
        return f"n/a: the {ARM_WORDS[missing[0]]} arm was not recorded"
    delta, cases = control_lift(r)
    if delta is None:
        return "n/a"
    return (
        f"{fmt(delta, signed=True)} (with skill minus control, "
        f"equal weight over {cases} case{'s' if cases != 1 else ''})"
    )


def _quality(r: Receipt, margin: float | None) -> tuple[Fact, ...]:
    """The reading at a declared margin, and what an A/A calibration says about noise."""
    fact = quality_fact(quality_at_margin(r, margin))
    out: tuple[Fact, ...] = (fact,) if fact is not None else ()
    if r.run.aa:
        out += (Fact("A/A calibration", aa_line("(this receipt)", aa_reading(r))),)
    return out


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
                verdict=VERDICT_WORDS.get(verdict, verdict) if verdict else "no verdict",
                checks=_per_arm(r, c, _checks),
                lost=_per_arm(r, c, _lost),
                numbers=(w.mean, w.sd, base.mean, base.sd),
                output_tokens=" · ".join(_case_output(getattr(c.arms, n)) for n in arms_of(r)),
            )
        )
    return tuple(rows)


def _case_output(arm: CaseArm | None) -> str:
    counts = token_counts(arm.draws if arm is not None else [])
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
        outputs, totals = token_counts(draws), token_counts(draws, "total")
        out.append(
            ArmSummary(
                arm=words,
                draws=f"{len(draws):,} drawn, {measured:,} scored",
                lost=(f"{len(lost):,}" + (f" ({', '.join(kinds)})" if kinds else ""))
                if lost
                else "none",
                refusals=f"{f'{refused:,}' if refused else 'none'} of {len(draws):,} draws",
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


def _per_arm(r: Receipt, c: Case, words: Callable[[list[Draw]], str | None]) -> str:
    """``<arm> <words of its draws>`` for each arm of case ``c`` with words, ``·``-joined."""
    parts = [f"{ARM_WORDS[n]} {x}" for n in arms_of(r) if (x := words(getattr(c.arms, n).draws))]
    return " · ".join(parts) or "none"


def _checks(draws: list[Draw]) -> str | None:
    checks = [k for d in draws for k in d.checks]
    if not checks:
        return None
    errored = sum(k.outcome == "error" for k in checks)
    passed = f"{sum(k.pass_ for k in checks)}/{len(checks)} passed"
    return passed + (f", {errored} could not run (error)" if errored else "")


def _lost(draws: list[Draw]) -> str | None:
    lost = [d.lost.reason for d in draws if d.lost is not None]
    return f"{len(lost)} of {len(draws)} lost ({'; '.join(dict.fromkeys(lost))})" if lost else None
