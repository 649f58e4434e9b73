"""The receipt sheet: one receipt as printable strings, for ``driftproof view`` and the site.

Bands (D-2), reading (D-7), lost draws (D-9), lift per 1,000 skill tokens (D-14), control delta
(D-16), context beyond the method; parts in :mod:`~driftproof.pages.sheet_facts`, printers in
:mod:`driftproof.render.sheet`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from driftproof.pages.band_sources import band_facts
from driftproof.pages.fidelity import FidelityView, fidelity_view
from driftproof.pages.sheet_facts import (
    ArmSummary,
    BreakdownView,
    arm_summaries,
    breakdown_view,
    headline,
    judge_cost,
    provenance,
    quality_fact,
    reading_facts,
)
from driftproof.pages.source import (
    FIGURE_COLUMNS,
    SourceFigureRow,
    UsageView,
    figure_columns,
    source_figures,
    source_origin,
    source_report_facts,
    source_report_table,
    usage_view,
)
from driftproof.pages.words import (
    ARM_NOT_RECORDED,
    VERDICT_WORDS,
    Fact,
    aa_line,
    anchor_for,
    arm_words,
    band_said,
    band_text,
    case_direction,
    case_heads,
    case_output_tokens,
    count_of,
    draws_of,
    fmt,
    format_lift,
    format_per_1k,
    grader_ran,
    has_bands,
    lift_coverage,
    lost_of,
    paired_interval,
    paired_line,
    score_name,
    unscored_said,
)
from driftproof.receipt import Case, Draw, Receipt
from driftproof.stats import (
    arm_band,
    band_source_of,
    judge_scale,
    lift_refusal,
    mean_delta,
    no_verdict,
    receipt_reading,
    suite_lift,
    unrecorded_arms,
    value_per_1k,
)
from driftproof.stats.aa import aa_reading
from driftproof.stats.breakdown import Breakdown, lift_breakdown
from driftproof.stats.context import CONTEXT_LABEL, SpreadSplit, lift_interval, spread_split
from driftproof.stats.fidelity import JUDGED_FACT
from driftproof.stats.lift import control_lift
from driftproof.stats.noninferiority import quality_at_margin
from driftproof.stats.paired import paired_test
from driftproof.wording import AA_NO_LIFT, ARM_WORDS, NOT_MEASURED


@dataclass(frozen=True)
class CaseRow:
    """One case of the sheet: bands as ``mean ± sd (n = …)`` strings, lift signed (three decimals).

    ``numbers``: with mean, with sd, baseline mean, baseline sd (``None``: unknown), for charts.
    ``lost``: each arm's count of lost draws (``with skill 1 of 3``) or ``none``.
    ``output_tokens``: :func:`~driftproof.pages.words.case_output_tokens`.
    ``said``: (arm words, :func:`~driftproof.pages.words.band_said`) per arm, with skill first.
    """

    case_id: str
    anchor: str
    with_skill: str
    baseline: str
    control: str | None
    lift: str
    verdict: str
    checks: str
    lost: str
    numbers: tuple[float | None, float | None, float | None, float | None]
    output_tokens: str = "–"
    said: tuple[tuple[str, str], ...] = ()

    @property
    def line(self) -> str:
        """The case in one line: ``with skill 0.800 (n = 3); baseline no draw in this case; …``."""
        return "; ".join([*(f"{a} {b}" for a, b in self.said[:2]), self.verdict])


@dataclass(frozen=True)
class LostDraw:
    """One lost draw: case, arm, ``draw`` (counting from 1: the receipt's index + 1), reason."""

    case_id: str
    arm: str
    draw: str
    reason: str


@dataclass(frozen=True)
class ContextView:
    """Context beyond the method, shown under ``label``; never a verdict.

    ``interval``: the suite lift's paired 95% interval; ``splits``: per case and arm, the draw
    score variance split into judge and draw parts; ``exact``: the exact paired test (``None``,
    with ``interval``, for a single-arm source).
    """

    label: str
    interval: str | None
    splits: tuple[Fact, ...]
    exact: str | None


@dataclass(frozen=True)
class Sheet:
    """The page model of one receipt; every value a printable string.

    Attributes:
        reading: the receipt's reading (D-7).
        lift, lift_per_1k: suite lift and value per 1,000 skill tokens (D-14), or "n/a…";
            the value without its label (``+1.859 (55 skill tokens, …)``).
        control_delta: with-skill minus control mean over cases (D-16); ``None``: no control.
        score_name: what its scores are, :func:`~driftproof.pages.words.score_name`.
    """

    title: str
    path: str | None
    provenance: tuple[Fact, ...]
    legend: str
    reading: tuple[Fact, ...]
    lift: str
    lift_per_1k: str
    control_delta: str | None
    judge_cost: tuple[Fact, ...]
    cases: tuple[CaseRow, ...]
    lost_draws: tuple[LostDraw, ...]
    breakdown: BreakdownView
    context: ContextView
    headline: Fact = Fact("headline", "n/a")
    arms: tuple[ArmSummary, ...] = ()
    source_figures: tuple[SourceFigureRow, ...] = ()
    figure_columns: tuple[tuple[str, str], ...] = FIGURE_COLUMNS
    source_origin: tuple[Fact, ...] = ()
    source_report: tuple[tuple[str, ...], ...] = ()
    source_report_head: tuple[str, ...] = ()
    source_report_note: str = ""
    source_decision: tuple[Fact, ...] = ()
    usage: UsageView | None = None
    fidelity: FidelityView | None = None
    case_heads: tuple[str, str, str] = ("with skill", "baseline", "lift")
    case_note: str = ""
    score_name: str = "judge score"

    @property
    def shows_printed_figures(self) -> bool:
        """Whether the sheet shows "Figures as the source printed them" (D-15)."""
        return bool(self.source_origin)


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
    report_head, report_rows, report_note = source_report_table(r)
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
        lost_draws=_lost_draws(r),
        breakdown=_breakdown_view(r, b),
        context=context_view(r, b),
        headline=headline(r, lift_text, per_1k_text),
        arms=arm_summaries(r),
        source_figures=source_figures(r),
        figure_columns=figure_columns(r),
        source_origin=source_origin(r),
        source_report=report_rows,
        source_report_head=report_head,
        source_report_note=report_note,
        source_decision=source_report_facts(r),
        usage=usage_view(r),
        fidelity=fidelity_view(r),
        case_heads=case_heads(r),
        case_note=case_direction(r) if r.run.aa else "",  # an A/A's difference has no usual way
        score_name=score_name(r),
    )


def _lost_draws(r: Receipt) -> tuple[LostDraw, ...]:
    """Every lost draw of ``r``, case by case, in arm order (one pass over the draws)."""
    judged = has_bands(r)  # once, not per draw: each call scans every draw
    return tuple(
        LostDraw(c.id, arm_words(r)[n], str(d.number), x[0])
        for c, n, d in draws_of(r)
        if (x := lost_of(d, judged))
    )


def _lift_texts(r: Receipt, status: str) -> tuple[str, str]:
    """The suite lift and the value per 1,000 skill tokens (D-14) as the sheet prints them."""
    t = r.skill.tokens
    tokens = count_of(t, "skill token") if t is not None else "skill tokens not recorded"
    none = f"n/a ({tokens})"
    # a single-arm source's lack is said once, in the lift; an A/A's difference is no lift
    if (why := lift_refusal(r) or (AA_NO_LIFT if r.run.aa else None)) is not None:
        return f"n/a: {why}", none
    lift = suite_lift(r)
    if lift is None:  # aggregates only, or no case measured in both arms (D-17)
        return "n/a" if r.is_aggregates_only else f"n/a ({NOT_MEASURED})", none
    per_1k = value_per_1k(lift, r.skill.tokens)
    context = "context only: the receipt has no verdict" if status == "no verdict" else ""
    notes = "; ".join(n for n in (lift_coverage(r).strip(" ()"), context) if n)
    lift_text = format_lift(lift) + (f" ({notes})" if notes else "")
    if per_1k is None:
        return lift_text, none
    return (
        lift_text,
        f"{format_per_1k(per_1k, lift)} ({tokens}: characters ÷ 4, rounded up)",
    )


def _breakdown_view(r: Receipt, b: Breakdown) -> BreakdownView:
    """The lift breakdown; unavailable, its label alone says why."""
    v = breakdown_view(b)
    return v if b.available else replace(v, label=f"Lift by case: {_unavailable(r, b)}", summary=())


def receipt_breakdown(r: Receipt, *, path: str | Path | None = None) -> BreakdownView:
    """The formatted lift breakdown of ``r``; the size of the file at ``path`` sets the limit.

    Raises:
        OSError: ``path`` is given and cannot be read (stat).
    """
    size = Path(path).stat().st_size if path is not None else None
    return breakdown_view(lift_breakdown(r, size_bytes=size))


def _control_delta(r: Receipt) -> str | None:
    if r.arms.control is None or r.is_aggregates_only:
        return None
    missing = [n for n in unrecorded_arms(r) if n in ("with_skill", "control")]
    if missing:
        return f"n/a: the {ARM_WORDS[missing[0]]} arm was not recorded"
    delta, cases = control_lift(r)
    if delta is None:
        return "n/a (not measured)"
    return (
        f"{fmt(delta, signed=True)} (with skill minus control, "
        f"equal weight over {count_of(cases, 'case')})"
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
    src, lost = band_source_of(r), partial(lost_count, judged=has_bands(r))
    missing, named = set(unrecorded_arms(r)), arm_words(r)  # an A/A's arms are its two runs
    # a receipt with no verdict reads no outcome either; lost draws are completed on the scale
    judged, scale = no_verdict(r) is None, judge_scale(r)

    rows = []
    for c in r.cases:
        w, base = arm_band(c.arms.with_skill, src), arm_band(c.arms.baseline, src)
        ctl = arm_band(c.arms.control, src) if c.arms.control is not None else None
        lift = mean_delta(base, w) if not missing & {"with_skill", "baseline"} else None
        bands = {"with_skill": w, "baseline": base, "control": ctl}
        shown = {  # each arm's band, with its outcome against the case's threshold
            n: ARM_NOT_RECORDED
            if n in missing
            else band_text(b, c.threshold if judged else None, scale)
            for n, b in bands.items()
            if b is not None
        }
        arms = {n: getattr(c.arms, n) for n in shown}
        kept = {n: a.draws for n, a in arms.items() if a and not lost(a.draws)}  # none lost
        held = {n: unscored_said(_checks(d), grader_ran(r, d)) for n, d in kept.items()}
        said = tuple((named[n], band_said(x, arms[n], held.get(n))) for n, x in shown.items())
        verdict = verdicts.get(c.id)
        rows.append(
            CaseRow(
                case_id=c.id,
                anchor=anchor_for(c.id),
                with_skill=shown["with_skill"],
                baseline=shown["baseline"],
                control=shown.get("control"),
                lift="–" if lift is None else format_lift(lift),
                verdict=VERDICT_WORDS.get(verdict, verdict) if verdict else "no verdict",
                checks=_per_arm(r, c, _checks),
                lost=_per_arm(r, c, lost),
                numbers=(w.mean, w.sd, base.mean, base.sd),
                output_tokens=case_output_tokens(c, r.arm_names),
                said=said,
            )
        )
    return tuple(rows)


def _per_arm(r: Receipt, c: Case, words: Callable[[list[Draw]], str | None]) -> str:
    said = arm_words(r)
    parts = [f"{said[n]} {x}" for n in r.arm_names if (x := words(getattr(c.arms, n).draws))]
    return " · ".join(parts) or "none"


def _checks(draws: list[Draw]) -> str | None:
    """The arm's checks passed, over its measured draws (a lost draw's answer is not the arm's)."""
    checks = [k for d in draws if d.lost is None for k in d.checks]
    if not checks:
        return None
    errored = sum(k.outcome == "error" for k in checks)
    passed = f"{sum(k.pass_ for k in checks):,}/{len(checks):,} passed"
    facts = [k for k in checks if k.source_type == JUDGED_FACT]  # counted apart from the rest
    if facts and (rest := [k for k in checks if k.source_type != JUDGED_FACT]):
        kinds = {k.source_type for k in rest}
        kind = f"{kinds.pop()} check" if len(kinds) == 1 and None not in kinds else "other check"
        passed = f"{sum(k.pass_ for k in facts):,}/{len(facts):,} facts and "
        passed += f"{sum(k.pass_ for k in rest):,}/{count_of(len(rest), kind)} passed"
    return passed + (f", {errored:,} could not run (error)" if errored else "")


def lost_count(draws: list[Draw], judged: bool) -> str | None:
    """``1 of 3``: how many of the arm's draws are lost (D-9); ``None`` when none is.

    ``judged``: :func:`has_bands` of the receipt (a draw with no valid score is lost in it).
    """
    lost = sum(lost_of(d, judged) is not None for d in draws)
    return f"{lost:,} of {len(draws):,}" if lost else None


#: The context's label when the lift by case is unavailable (each figure is over its lifts).
CONTEXT_UNAVAILABLE = (
    "Context, beyond the method: unavailable, because the lift by case is unavailable"
)
#: An A/A calibration's paired interval and test: of a lift it has not (its lift by case says why).
AS_LIFT_BY_CASE = "n/a, because the lift by case is unavailable"


def context_view(r: Receipt, b: Breakdown) -> ContextView:
    """Context beyond the method: the paired interval, the spread split, the exact paired test."""
    # no lift by case (its label says why, once): nothing to set beside it, save an A/A's splits
    if lift_refusal(r) is not None or not (b.available or r.run.aa):
        return ContextView(CONTEXT_UNAVAILABLE, None, (), None)
    words = arm_words(r)  # an A/A's spread split is of its two runs, its noise
    splits = [Fact(f"{s.case_id}, {words[s.arm]}", _split_words(s)) for s in spread_split(r)]
    reasons = {f.value for f in splits}
    if len(splits) > 1 and len(reasons) == 1 and next(iter(reasons)).startswith("unavailable"):
        splits = [Fact("spread split, every case and arm", splits[0].value)]
    if not b.available:  # an A/A calibration: no lift, so no interval or test on it
        return ContextView(CONTEXT_LABEL, AS_LIFT_BY_CASE, tuple(splits), AS_LIFT_BY_CASE)
    iv = lift_interval(b)
    interval = paired_interval(iv) if iv.reason is None else f"unavailable: {iv.reason}"
    return ContextView(CONTEXT_LABEL, interval, tuple(splits), _exact(b))


def _split_words(s: SpreadSplit) -> str:
    """One case and arm's draw score variance split into judge and draw parts, or why not."""
    if s.reason is not None:
        return f"unavailable: {s.reason}"
    if s.total is not None and s.judge_part is not None and s.judge_part > s.total:
        return (
            f"variance {fmt(s.total, 5)}: the judge samples' part, {fmt(s.judge_part, 5)}, "
            f"is more than the whole, so at {count_of(s.draws, 'draw')} this split is noise"
        )
    text = (
        f"variance {fmt(s.total, 5)}: judge samples {fmt(s.judge_part, 5)}, "
        f"draw to draw {fmt(s.draw_part, 5)}"
    )
    if (share := s.judge_share) is not None:
        text += f" ({fmt(100 * share, 0)}% judge, {fmt(100 * (1 - share), 0)}% draw)"
    return text


def _unavailable(r: Receipt, b: Breakdown) -> str:
    """Why ``b`` is unavailable, in few words for a panel's summary (its panels hold no more)."""
    missing = [ARM_WORDS[n] for n in unrecorded_arms(r) if n in ("with_skill", "baseline")]
    if missing:
        were = "arms were" if len(missing) > 1 else "arm was"
        return f"unavailable, the {' and '.join(missing)} {were} not recorded"
    return "unavailable, " + "; ".join(b.reasons)


def _exact(b: Breakdown) -> str:
    """The exact paired test over the included cases' lifts, or why it is unavailable."""
    if b.suite_lift is None:
        return f"unavailable: {b.suite_lift_reason or 'the suite lift is unavailable'}"
    lifts = [c.lift for c in b.cases if c.included and c.lift is not None]
    return paired_line(paired_test(lifts), "lift", "the suite lift")
