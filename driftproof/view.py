"""The receipt sheet: one page model of one receipt, for ``driftproof view`` and the site.

:func:`sheet` turns a :class:`~driftproof.receipt.Receipt` into plain data whose every
value is a string ready to print (STYLE-EXAMPLES 19: templates and printers only
display; every number comes from :mod:`driftproof.stats`). It shows what produced
the receipt, each case's with-skill and baseline bands (D-2), the lift, checks as a
separate column (method, "Deterministic post-checks"), lost draws with reasons (D-9),
the receipt's reading (D-7), the lift raw and per 1,000 skill tokens (D-14), the
control arm's delta when there is one (D-16), the grader's cost apart from every
figure about the skill (method, "What grading cost"), the lift breakdown (method,
"Lift by case") and, labelled apart, context beyond the method.

Numbers on the judge scale are printed with three decimals; unknown stays unknown
("not recorded", D-13).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof.receipt import Case, Receipt
from driftproof.receipt._model import CaseArm, Draw
from driftproof.stats import (
    Reading,
    arm_band,
    band_source_of,
    lift_refusal,
    receipt_reading,
    suite_lift,
    unrecorded_arms,
    value_per_1k,
)
from driftproof.stats.band import Band
from driftproof.stats.breakdown import Breakdown, CaseLift, lift_breakdown
from driftproof.stats.context import CONTEXT_LABEL, lift_interval, spread_split
from driftproof.stats.savings import percent, token_savings
from driftproof.wording import BAND_SOURCE_LEGEND, NO_SEPARATION

__all__ = [
    "ARM_NOT_RECORDED",
    "ArmSummary",
    "BREAKDOWN_NOTE",
    "BreakdownRow",
    "BreakdownView",
    "CaseRow",
    "ContextView",
    "Fact",
    "LostDraw",
    "Sheet",
    "SourceFigureRow",
    "anchor_for",
    "breakdown_view",
    "receipt_breakdown",
    "fmt",
    "sheet",
]

UNKNOWN = "not recorded"
#: What a case row shows for an arm the source did not record (``recorded: false``, v0.15).
ARM_NOT_RECORDED = "arm not recorded"
#: The method's words on what the breakdown claims ("Lift by case").
BREAKDOWN_NOTE = (
    "It describes the recorded scores at this sample size. It predicts neither future answers "
    "nor a causal mechanism."
)
_VERDICT_WORDS = {"improved": "helps", "regressed": "hurts", "no separation": NO_SEPARATION}
_ARM_WORDS = {"with_skill": "with skill", "baseline": "baseline", "control": "control"}


@dataclass(frozen=True)
class Fact:
    """A labelled value of the sheet."""

    label: str
    value: str


@dataclass(frozen=True)
class CaseRow:
    """One case of the sheet: bands as ``mean ± sd (n = …)`` strings, lift signed (three decimals).

    ``numbers`` holds the raw band figures (with mean, with sd, baseline mean, baseline sd;
    None when unknown) for charts, which draw what the strings say.
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
    """Output tokens per arm (with skill · baseline[ · control]): one draw's count, or the mean
    over the draws when there are several, ``–`` where none was recorded."""


@dataclass(frozen=True)
class LostDraw:
    """One lost draw: which case, arm and draw, and the reason the receipt records."""

    case_id: str
    arm: str
    index: str
    reason: str


@dataclass(frozen=True)
class BreakdownRow:
    """One case of the lift breakdown, every figure formatted."""

    case_id: str
    anchor: str
    with_skill: str
    baseline: str
    lift: str
    counts: str
    lift_without: str
    label: str
    note: str


@dataclass(frozen=True)
class BreakdownView:
    """The lift breakdown as printed: summary lines, then one row per case."""

    available: bool
    summary: tuple[str, ...]
    rows: tuple[BreakdownRow, ...]
    note: str


@dataclass(frozen=True)
class ContextView:
    """Context beyond the method, labelled so: the paired interval and the spread split."""

    label: str
    interval: str
    splits: tuple[Fact, ...]


@dataclass(frozen=True)
class ArmSummary:
    """One arm across the receipt: what the site's sheet shows beside the scores (issue 14).

    Attributes:
        arm: ``with skill``, ``baseline`` or ``control``.
        draws: draws recorded, and how many were measured; or that the arm was not recorded.
        lost: lost draws with their kinds.
        refusals: draws the model refused (``draw.refusal`` or a lost draw of kind refusal).
        skill_fired: how often the skill fired where the source observed it (seed 000,
            "beside the score and never inside it"), from ``arms.<arm>.skill_fired`` or the draws.
        output_tokens: total output tokens over the draws that report them.
    """

    arm: str
    draws: str
    lost: str
    refusals: str
    skill_fired: str
    output_tokens: str


@dataclass(frozen=True)
class SourceFigureRow:
    """One figure an aggregates-only source printed, as printed (D-15)."""

    dimension: str
    agent: str
    score: str
    uplift: str
    count: str
    note: str


@dataclass(frozen=True)
class Sheet:
    """The page model of one receipt (plain data; every value a printable string).

    Attributes:
        title: heading. path: the file as given, or None.
        provenance: what produced the receipt (model … band source, seal).
        legend: the band-source legend line for this receipt's source.
        reading: status, sentence and reason of the receipt's reading (D-7).
        lift, lift_per_1k: suite lift and value per 1,000 skill tokens (D-14), or "n/a".
        control_delta: with-skill minus control mean over cases (D-16), or None without a control arm.
        judge_cost: the grader's cost, apart from every figure about the skill.
        cases, lost_draws, breakdown, context: as their types say.
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
    """The receipt's headline figure (issue 16, item 8): the source's printed figures for an
    aggregates-only receipt, the output-token saving for a token receipt, else the lift."""
    arms: tuple[ArmSummary, ...] = ()
    source_figures: tuple[SourceFigureRow, ...] = ()
    """For an aggregates-only receipt: every figure its source printed, as printed."""
    source_origin: tuple[Fact, ...] = ()
    """Where the source figures were read: repository, commit, files with their git blob sha1."""


def fmt(x: float | None, digits: int = 3, *, signed: bool = False) -> str:
    """Fixed-point text of ``x``, or ``–`` when unknown (D-13). ``-0.000`` prints as ``0.000``."""
    if x is None or not math.isfinite(x):
        return "–"
    text = f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
    return f"{0:.{digits}f}" if re.fullmatch(r"[+-]?0(\.0*)?", text) else text


def anchor_for(case_id: str) -> str:
    """The element id of a case row, ``case-<id>`` with unsafe characters as ``-``."""
    return "case-" + (re.sub(r"[^A-Za-z0-9_.-]+", "-", case_id).strip("-") or "x")


def _has_bands(r: Receipt) -> bool:
    """Whether any draw holds a judged score: only then does a band source mean anything."""
    return (
        not r.is_aggregates_only
        and r.judge is not None
        and any(
            d.score is not None for c in r.cases for n in _arms(r) for d in getattr(c.arms, n).draws
        )
    )


def lift_coverage(r: Receipt) -> str:
    """ " over N of M cases …" when the suite lift covers fewer cases than the receipt has, else ""."""
    from driftproof.stats.lift import lift_case_ids

    n, total = len(lift_case_ids(r)), len(r.cases)
    if n >= total:
        return ""
    return (
        f" (over {n} of {total} cases: the other {total - n} "
        f"{'has' if total - n == 1 else 'have'} no measured draw in an arm)"
    )


def sheet(r: Receipt, *, path: str | Path | None = None, size_bytes: int | None = None) -> Sheet:
    """The sheet of receipt ``r`` (issue 6; D-6, D-7, D-9, D-14, D-16).

    Args:
        r: a receipt read by :func:`~driftproof.receipt.read_receipt`.
        path: the receipt file, shown on the sheet; its size decides the breakdown's
            size limit (``BREAKDOWN_MAX_BYTES``) unless ``size_bytes`` is given.
        size_bytes: the receipt file's size in bytes (e.g. ``len(raw)``); without it and
            without ``path``, the canonical JSON size is used.

    Raises:
        OSError: ``path`` is given and cannot be read (stat).
    """
    size = (
        size_bytes
        if size_bytes is not None
        else (Path(path).stat().st_size if path is not None else None)
    )
    reading = receipt_reading(r)
    lift = suite_lift(r)
    per_1k = value_per_1k(lift, r.skill.tokens)
    context = (
        "" if reading.status != "no verdict" else " (context only: the receipt has no verdict)"
    )
    tokens = (
        f"{r.skill.tokens:,} skill tokens"
        if r.skill.tokens is not None
        else "skill tokens not recorded"
    )
    b = lift_breakdown(r, size_bytes=size)
    single = lift_refusal(r)
    if single is not None:
        lift_text, per_1k_text = f"n/a: {single}", f"n/a ({tokens}): {single}"
    else:
        lift_text = (
            (fmt(lift, signed=True) + lift_coverage(r) + context) if lift is not None else "n/a"
        )
        per_1k_text = (
            f"{fmt(per_1k, signed=True)} per 1,000 skill tokens ({tokens}, ceil(characters ÷ 4))"
            if per_1k is not None
            else f"n/a ({tokens})"
        )
    return Sheet(
        title=f"{r.skill.name} on {r.run.model or 'an unrecorded model'}",
        path=str(path) if path is not None else None,
        provenance=_provenance(r),
        legend=(
            BAND_SOURCE_LEGEND[band_source_of(r)]
            if _has_bands(r)
            else "none: the receipt holds no judged score, so it has no band"
        ),
        reading=_reading(reading),
        lift=lift_text,
        lift_per_1k=per_1k_text,
        control_delta=_control_delta(r),
        judge_cost=_judge_cost(r),
        cases=_cases(r, {v.case_id: v.verdict for v in reading.cases}),
        lost_draws=tuple(
            LostDraw(c.id, _ARM_WORDS[n], str(d.index), d.lost.reason)
            for c in r.cases
            for n in _arms(r)
            for d in getattr(c.arms, n).draws
            if d.lost is not None
        ),
        breakdown=breakdown_view(b),
        context=_context(r, b),
        headline=_headline(r, lift_text, per_1k_text),
        arms=_arm_summaries(r),
        source_figures=_source_figures(r),
        source_origin=_source_origin(r),
    )


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
            with_skill=_mean_spread(c.with_skill.mean, c.with_skill.spread),
            baseline=_mean_spread(c.baseline.mean, c.baseline.spread),
            lift=fmt(c.lift, signed=True),
            counts=" · ".join(
                f"{a.measured}/{a.drawn}/{a.lost}" for a in (c.with_skill, c.baseline)
            ),
            lift_without=fmt(c.lift_without, signed=True) if c.lift_without is not None else "n/a",
            label=_label(c),
            note=_note(c, b),
        )
        for c in b.cases
    )
    return BreakdownView(True, tuple(lines), rows, BREAKDOWN_NOTE)


def receipt_breakdown(r: Receipt, *, path: str | Path | None = None) -> BreakdownView:
    """The formatted lift breakdown of ``r`` (method, "Lift by case"); the file at ``path``,
    when given, decides the size limit by its size.

    Raises:
        OSError: ``path`` is given and cannot be read (stat).
    """
    size = Path(path).stat().st_size if path is not None else None
    return breakdown_view(lift_breakdown(r, size_bytes=size))


# ---------------------------------------------------------------- helpers


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
        return "No single case carries the positive measured lift: removing any one leaves a positive lift"
    return "The measured lift is not positive: no case carries a positive lift"


def _label(c: CaseLift) -> str:
    if c.label is not None:
        return c.label
    if c.verdict is not None:
        return _VERDICT_WORDS.get(c.verdict, c.verdict)
    return "no label"


def _note(c: CaseLift, b: Breakdown) -> str:
    if c.note is not None:
        return c.note
    if c.label_withheld is not None and not b.assertions_withheld:
        return f"no label: {c.label_withheld}"
    return ""


def _mean_spread(mean: float | None, spread: float | None) -> str:
    if mean is None:
        return "–"
    return f"{fmt(mean)} ± {fmt(spread)}" if spread is not None else f"{fmt(mean)} (no spread)"


def band_text(b: Band) -> str:
    """``mean ± sd (n = k)``, ``mean (n = 1)`` with no spread, ``–`` when nothing was measured."""
    if b.mean is None:
        return "–"
    lost = f", {b.lost} lost" if b.lost else ""
    return (
        f"{fmt(b.mean)} ± {fmt(b.sd)} (n = {b.n}{lost})"
        if b.sd is not None
        else f"{fmt(b.mean)} (n = {b.n}{lost})"
    )


def _arms(r: Receipt) -> tuple[str, ...]:
    return (
        ("with_skill", "baseline", "control")
        if r.arms.control is not None
        else ("with_skill", "baseline")
    )


def _cases(r: Receipt, verdicts: dict[str, str]) -> tuple[CaseRow, ...]:
    src = band_source_of(r)
    missing = set(unrecorded_arms(r))

    def shown(name: str, band: Band) -> str:
        return ARM_NOT_RECORDED if name in missing else band_text(band)

    rows = []
    for c in r.cases:
        w, base = arm_band(c.arms.with_skill, src), arm_band(c.arms.baseline, src)
        ctl = arm_band(c.arms.control, src) if c.arms.control is not None else None
        lift = (
            w.mean - base.mean
            if w.mean is not None
            and base.mean is not None
            and not missing & {"with_skill", "baseline"}
            else None
        )
        verdict = verdicts.get(c.id)
        rows.append(
            CaseRow(
                case_id=c.id,
                anchor=anchor_for(c.id),
                with_skill=shown("with_skill", w),
                baseline=shown("baseline", base),
                control=shown("control", ctl) if ctl is not None else None,
                lift=fmt(lift, signed=True),
                verdict=_VERDICT_WORDS.get(verdict, verdict)
                if verdict is not None
                else "no verdict",
                checks=_checks(r, c),
                lost=_lost(r, c),
                numbers=(w.mean, w.sd, base.mean, base.sd),
                output_tokens=" · ".join(_case_output(getattr(c.arms, n)) for n in _arms(r)),
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
    return f"mean {math.fsum(counts) / len(counts):,.1f} ({len(counts)} draws)"


# ---------------------------------------------------------------- headline, arms, source figures


def _headline(r: Receipt, lift_text: str, per_1k_text: str) -> Fact:
    """The one figure a reader looks for first (issue 16, item 8)."""
    if r.is_aggregates_only:
        n = len(_source_figures(r))
        return Fact(
            "source figures",
            f"{n} figure{'s' if n != 1 else ''} as the source printed them (see "
            '"Figures as the source printed them"); no band, lift or verdict is computed from them',
        )
    if r.judge is None and any(
        d.tokens is not None and d.tokens.output is not None
        for c in r.cases
        for d in c.arms.with_skill.draws
    ):
        return Fact("output-token saving", _token_saving(r))
    if lift_text.startswith("n/a"):
        return Fact("lift", lift_text)
    return Fact("lift", f"{lift_text}; {per_1k_text}")


def _token_saving(r: Receipt) -> str:
    """The skill arm's output-token saving, caveman's arithmetic (:mod:`driftproof.stats.savings`)."""
    try:
        (arm,) = token_savings([r])
    except ValueError as exc:
        return f"unavailable: {exc}"
    sv = arm.vs_control if arm.vs_control is not None else arm.vs_baseline
    ref = "the control arm" if arm.vs_control is not None else "the baseline arm"
    label = f" ({sv.reference_label})" if sv.reference_label else ""
    text = (
        f"output tokens saved against {ref}{label}: median {percent(sv.median)} over {sv.n} case"
        f"{'s' if sv.n != 1 else ''} (mean {percent(sv.mean)}, min {percent(sv.min)}, max {percent(sv.max)}; "
        f"{sv.skill_tokens:,} vs {sv.reference_tokens:,} tokens, counted by {arm.counted_by})"
    )
    if arm.vs_control is not None:
        text += f"; against the baseline arm: median {percent(arm.vs_baseline.median)}"
    return text


def _arm_summaries(r: Receipt) -> tuple[ArmSummary, ...]:
    missing = set(unrecorded_arms(r))
    out = []
    for n in _arms(r):
        words = _ARM_WORDS[n]
        if n in missing:
            out.append(ArmSummary(words, ARM_NOT_RECORDED, "–", "–", "–", "–"))
            continue
        draws = [
            d for c in r.cases if getattr(c.arms, n) is not None for d in getattr(c.arms, n).draws
        ]
        measured = sum(d.score is not None for d in draws)
        lost = [d.lost for d in draws if d.lost is not None]
        kinds = sorted({x.kind for x in lost if x.kind})
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
        seen = [d.skill_fired for d in draws if d.skill_fired is not None]
        fired, observed = sum(seen), len(seen)
    if not observed:
        return UNKNOWN
    return f"{fired:,} of {observed:,} observed draws ({fmt(100 * fired / observed, 0)}%)"


def _printed(fig: Any) -> str:
    if not isinstance(fig, dict):
        return "–"
    if fig.get("printed"):
        return str(fig["printed"])
    return "–" if fig.get("value") is None else json.dumps(fig["value"])


def _source_figures(r: Receipt) -> tuple[SourceFigureRow, ...]:
    """An aggregates-only receipt's figures exactly as its source printed them (method, "Figures
    a source printed give no verdict"): the same cells as the site's table."""
    sf = r.source_figures
    if not r.is_aggregates_only or not isinstance(sf, dict) or not isinstance(sf.get("rows"), list):
        return ()
    return tuple(
        SourceFigureRow(
            dimension=str(x.get("dimension")),
            agent=str(x.get("agent")),
            score=str(x["printed"]) if x.get("printed") else _printed(x.get("score")),
            uplift=_printed(x.get("uplift")),
            count="–" if x.get("num") is None else str(x.get("num")),
            note=str(x.get("note") or ""),
        )
        for x in sf["rows"]
        if isinstance(x, dict)
    )


def _source_origin(r: Receipt) -> tuple[Fact, ...]:
    sf = r.source_figures
    if not r.is_aggregates_only or not isinstance(sf, dict):
        return ()
    facts = [
        Fact("repository", str(sf.get("repository") or UNKNOWN)),
        Fact("commit", str(sf.get("commit") or UNKNOWN)),
    ]
    units = []
    for what in ("score", "uplift"):
        found = sorted(
            {
                str(x[what]["unit"])
                for x in sf.get("rows") or []
                if isinstance(x, dict) and isinstance(x.get(what), dict) and x[what].get("unit")
            }
        )
        units.append(
            f"{what} in {', '.join(found)}" if found else f"{what}: unit not stated by the source"
        )
    facts.append(Fact("units, as the source states them", "; ".join(units)))
    for f in sf.get("files") or []:
        if isinstance(f, dict):
            facts.append(
                Fact("file", f"{f.get('path')} (git blob {f.get('git_blob_sha1') or UNKNOWN})")
            )
    return tuple(facts)


def _checks(r: Receipt, c: Case) -> str:
    parts = []
    for n in _arms(r):
        results = [k.pass_ for d in getattr(c.arms, n).draws for k in d.checks]
        if results:
            parts.append(f"{_ARM_WORDS[n]} {sum(results)}/{len(results)} passed")
    return " · ".join(parts) or "none"


def _lost(r: Receipt, c: Case) -> str:
    parts = []
    for n in _arms(r):
        draws = getattr(c.arms, n).draws
        lost = [d.lost.reason for d in draws if d.lost is not None]
        if lost:
            parts.append(
                f"{_ARM_WORDS[n]} {len(lost)} of {len(draws)} lost ({'; '.join(dict.fromkeys(lost))})"
            )
    return " · ".join(parts) or "none"


def _control_delta(r: Receipt) -> str | None:
    if r.arms.control is None or r.is_aggregates_only:
        return None
    missing = [n for n in unrecorded_arms(r) if n in ("with_skill", "control")]
    if missing:
        return f"n/a: the {_ARM_WORDS[missing[0]]} arm was not recorded (arms.{missing[0]}.recorded is false)"
    src = band_source_of(r)
    deltas = []
    for c in r.cases:
        if c.arms.control is None:
            continue
        w, ctl = arm_band(c.arms.with_skill, src), arm_band(c.arms.control, src)
        if w.mean is not None and ctl.mean is not None:
            deltas.append(w.mean - ctl.mean)
    if not deltas:
        return "n/a"
    return (
        f"{fmt(math.fsum(deltas) / len(deltas), signed=True)} (with skill minus control, "
        f"equal weight over {len(deltas)} case{'s' if len(deltas) != 1 else ''})"
    )


def _reading(rd: Reading) -> tuple[Fact, ...]:
    facts = [Fact("reading", rd.status), Fact("sentence", rd.sentence), Fact("why", rd.reason)]
    if rd.draws_needed is not None:
        facts.append(Fact("draws per arm needed", str(rd.draws_needed)))
    return tuple(facts)


def _provenance(r: Receipt) -> tuple[Fact, ...]:
    run = r.run
    judge = (
        UNKNOWN
        if r.judge is None
        else (
            f"{r.judge.model} ({r.judge.provider or UNKNOWN}, {r.judge.surface or UNKNOWN}); "
            f"template sha256 {r.judge.template_sha256 or UNKNOWN}"
        )
    )
    facts = [
        Fact("model", run.model or UNKNOWN),
        Fact("provider", run.provider or UNKNOWN),
        Fact("surface", run.surface or UNKNOWN),
        Fact(
            "harness",
            f"{run.harness.name} {run.harness.version or '(version ' + UNKNOWN + ')'}"
            if run.harness
            else UNKNOWN,
        ),
        Fact("capture mode", run.capture or UNKNOWN),
        Fact("preset", run.preset or "none"),
        Fact("judge", judge),
        Fact("skill", r.skill.name),
        Fact("skill sha256", r.skill.sha256 or UNKNOWN),
        Fact("suite sha256", r.suite.sha256 or UNKNOWN),
        Fact(
            "verification level",
            r.verification_level + (" (smoke run: counts as below TESTED)" if r.is_smoke else ""),
        ),
        Fact(
            "band source",
            (r.band_source or f"{UNKNOWN} (read as {band_source_of(r)})")
            if _has_bands(r)
            else "none (no judged score)",
        ),
        Fact(
            "draws per arm",
            str(run.generations_per_arm) if run.generations_per_arm is not None else UNKNOWN,
        ),
        Fact(
            "judge samples per draw",
            str(run.judge_samples_per_generation)
            if run.judge_samples_per_generation is not None
            else UNKNOWN,
        ),
        Fact("schema version", r.schema_version),
    ]
    missing = unrecorded_arms(r)
    if missing:
        facts.append(
            Fact(
                "arms not recorded",
                ", ".join(_ARM_WORDS[n] for n in missing)
                + " (single-arm source: no lift, no interval, no value per token)",
            )
        )
    if r.provenance is not None:
        facts.append(
            Fact(
                "imported from",
                f"{r.provenance.tool} {r.provenance.tool_version or ''}".strip()
                + f", document sha256 {r.provenance.document_sha256}",
            )
        )
        if r.provenance.unrecorded:
            facts.append(Fact("unrecorded", ", ".join(r.provenance.unrecorded)))
    facts.append(Fact("seal", f"{r.seal.algorithm} {r.seal.sha256}"))
    return tuple(facts)


def _judge_cost(r: Receipt) -> tuple[Fact, ...]:
    oh = r.economics.judge_overhead
    if oh is None:
        return (Fact("grading cost", UNKNOWN),)
    return (
        Fact("grader tokens", f"{oh.input_tokens:,} input, {oh.output_tokens:,} output"),
        Fact(
            "grader cost",
            f"${oh.usd:.4f} (a floor: usage the grader's answered samples reported)"
            if oh.usd is not None
            else f"USD {UNKNOWN}",
        ),
        Fact(
            "draws counted",
            f"{oh.judged_draws_counted:,} counted, "
            + (
                f"{oh.judged_draws_missing_usage:,} without usage"
                if oh.judged_draws_missing_usage is not None
                # D-13: a receipt before 0.14 did not record it; say so, never print a number
                else f"draws without usage {UNKNOWN}"
            ),
        ),
    )


def _context(r: Receipt, b: Breakdown) -> ContextView:
    iv = lift_interval(b) if b.available else None
    single = lift_refusal(r)
    if single is not None:
        interval = f"unavailable: {single}"
    elif iv is None:
        interval = "unavailable: the lift breakdown is unavailable"
    elif iv.reason is not None:
        interval = f"unavailable: {iv.reason}"
    else:
        interval = (
            f"suite lift {fmt(iv.lift, signed=True)}, paired standard error {fmt(iv.se)} over {iv.cases} cases; "
            f"95% interval {fmt(iv.low, signed=True)} to {fmt(iv.high, signed=True)} "
            f"(t = {fmt(iv.t)}, df = {iv.df})"
        )
    splits = []
    for s in spread_split(r) if b.available else ():
        label = f"{s.case_id}, {_ARM_WORDS[s.arm]}"
        if s.reason is not None:
            splits.append(Fact(label, f"unavailable: {s.reason}"))
            continue
        share = s.judge_share
        text = f"variance {fmt(s.total, 5)}: judge samples {fmt(s.judge_part, 5)}, draw to draw {fmt(s.draw_part, 5)}"
        if share is not None:
            text += f" ({fmt(100 * share, 0)}% judge, {fmt(100 * (1 - share), 0)}% draw)"
        splits.append(Fact(label, text))
    reasons = {f.value for f in splits}
    if len(splits) > 1 and len(reasons) == 1 and next(iter(reasons)).startswith("unavailable"):
        splits = [Fact("spread split, every case and arm", splits[0].value)]
    return ContextView(CONTEXT_LABEL, interval, tuple(splits))
