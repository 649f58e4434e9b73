"""The receipt sheet: one receipt as printable strings, for ``driftproof view`` and the site.

What produced the receipt, each case's bands (D-2), the reading (D-7), lost draws (D-9), the
lift raw and per 1,000 skill tokens (D-14), the control arm's delta (D-16), the grader's cost
apart, the lift breakdown and, labelled apart, context beyond the method. Types are in
:mod:`~driftproof.pages.sheet_model`; printers in :mod:`driftproof.render.sheet`.
"""

from __future__ import annotations

from pathlib import Path

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
    BreakdownRow,
    BreakdownView,
    LostDraw,
    Sheet,
)
from driftproof.pages.sheet_tables import arm_summaries, case_rows
from driftproof.pages.source import (
    fidelity_view,
    source_figures,
    source_origin,
    source_report_facts,
    source_report_rows,
    usage_view,
)
from driftproof.pages.words import (
    ARM_WORDS,
    VERDICT_WORDS,
    Fact,
    aa_line,
    anchor_for,
    arms_of,
    fmt,
    has_bands,
    mean_spread,
)
from driftproof.receipt import Receipt
from driftproof.stats import (
    band_source_of,
    lift_refusal,
    receipt_reading,
    suite_lift,
    unrecorded_arms,
    value_per_1k,
)
from driftproof.stats.aa import aa_reading
from driftproof.stats.breakdown import Breakdown, CaseLift, lift_breakdown
from driftproof.stats.lift import control_lift, lift_case_ids
from driftproof.stats.noninferiority import quality_at_margin
from driftproof.wording import BAND_SOURCE_LEGEND


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
    size = (
        size_bytes
        if size_bytes is not None
        else (Path(path).stat().st_size if path is not None else None)
    )
    reading = receipt_reading(r)
    lift_text, per_1k_text = _lift_texts(r, reading.status)
    b = lift_breakdown(r, size_bytes=size)
    return Sheet(
        title=f"{r.skill.name} on {r.run.model or 'an unrecorded model'}",
        path=str(path) if path is not None else None,
        provenance=provenance(r),
        legend=(
            BAND_SOURCE_LEGEND[band_source_of(r)]
            if has_bands(r)
            else "none: the receipt holds no judged score, so it has no band"
        ),
        reading=reading_facts(reading) + _quality(r, margin),
        lift=lift_text,
        lift_per_1k=per_1k_text,
        control_delta=_control_delta(r),
        judge_cost=judge_cost(r),
        cases=case_rows(r, {v.case_id: v.verdict for v in reading.cases}),
        lost_draws=tuple(
            LostDraw(c.id, ARM_WORDS[n], str(d.index), d.lost.reason)
            for c in r.cases
            for n in arms_of(r)
            for d in getattr(c.arms, n).draws
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
            False, tuple(f"Lift breakdown unavailable: {x}" for x in b.reasons), (), BREAKDOWN_NOTE
        )
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
        lines.append("Excluded with both arms (failed arm): " + ", ".join(b.excluded))
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
            label=_label(c),
            note=_note(c, b),
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


def _label(c: CaseLift) -> str:
    if c.label is not None:
        return c.label
    if c.verdict is not None:
        return VERDICT_WORDS.get(c.verdict, c.verdict)
    return "no label"


def _note(c: CaseLift, b: Breakdown) -> str:
    if c.note is not None:
        return c.note
    if c.label_withheld is not None and not b.assertions_withheld:
        return f"no label: {c.label_withheld}"
    return ""


def _control_delta(r: Receipt) -> str | None:
    if r.arms.control is None or r.is_aggregates_only:
        return None
    missing = [n for n in unrecorded_arms(r) if n in ("with_skill", "control")]
    if missing:
        return (
            f"n/a: the {ARM_WORDS[missing[0]]} arm was not recorded "
            f"(arms.{missing[0]}.recorded is false)"
        )
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
