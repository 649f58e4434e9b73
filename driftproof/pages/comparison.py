"""Two receipts compared case by case: the with-skill arms of the same case (D-6)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from driftproof.pages.band_sources import band_kind, recorded_not_held, source_legend, source_named
from driftproof.pages.comparison_setup import setup_note
from driftproof.pages.lost_groups import LOST_NOTE
from driftproof.pages.unmeasured_cases import UnmeasuredCase, unmeasured_headline, unmeasured_later
from driftproof.pages.words import (
    count_of,
    first_of,
    format_lift,
    has_bands,
    judge_model,
    lift_cover_words,
    paired_line,
)
from driftproof.receipt import Judge, Receipt
from driftproof.stats import (
    Band,
    CaseVerdict,
    Status,
    VerdictCode,
    arm_band,
    band_source_of,
    case_verdict,
    judge_scale,
    verdict_refusal,
    verdict_words,
)
from driftproof.stats.band import BandSource
from driftproof.stats.false_alarms import FalseAlarms, draw_grid, suite_false_alarms
from driftproof.stats.lift import CommonLifts, common_lifts
from driftproof.stats.paired import PairedTest, paired_test
from driftproof.stats.reading import underpowered_draws
from driftproof.wording import (
    NO_DRAW_COUNT_REACHES,
    NO_SEPARATION,
    NOT_ENOUGH_DRAWS,
    NOT_LIKE_FOR_LIKE,
)

#: Said, by ``diff`` and the Action alike, when the two receipts share no case.
NO_COMMON_CASE = "No case is in both receipts, so nothing was compared."
#: Said when a side gets no verdict and the bands are shown all the same.
CONTEXT_ONLY = "The bands below are shown as context; no verdict is given."
#: Why two receipts that each get a verdict get none together: their judges differ.
OTHER_JUDGE = (
    "The two receipts were graded by different judges, or by one judge under other instructions, "
    "on another scale or served by another service, so their scores cannot be compared for a "
    "verdict; grading one receipt's saved answers again under the other's judge (driftproof "
    "regrade) makes them comparable."
)

#: ``diff``'s exit statuses; 5 when the receipts were read but a side gets no verdict (not bad
#: input's 2, nor ``run``'s 3 or 4).
EXIT_NO_REGRESSION, EXIT_REGRESSED, EXIT_NO_VERDICT = 0, 1, 5


@dataclass(frozen=True)
class Comparison:
    """The comparison of receipt A (earlier) with receipt B (later).

    Attributes:
        refusals: one line per side that gets no verdict, else :data:`OTHER_JUDGE` alone when
            the judges differ (:func:`_judges_differ`); when any, ``rows`` is empty.
        rows: one verdict per case in both receipts, in A's order.
        not_like_for_like: the D-10 sentence when the two band sources differ.
        lost_cases: cases that lost draws on either side (D-9).
        unmatched: cases in one receipt only, naming its side.
        unmeasured: cases the later receipt measured nothing in or lacks, for an arm the earlier
            one measured; named first in ``headline`` (verdicts and refusals unchanged).
        underpowered_sentence, underpowered_reason, draws_needed: when no case separated and
            one is underpowered: the sentence, why, and the largest draws per arm needed (D-5).
        context_rows: when a side gets no verdict, each common case's two bands.
        false_alarms: regressed cases noise alone would give at these spreads (when asked).
        paired: the exact paired test over the with-skill mean changes; context, not a verdict.
        band_names: each side's band source as named beside its bands
            (:func:`~driftproof.pages.band_sources.source_named`).
    """

    a_name: str
    b_name: str
    band_sources: tuple[BandSource | None, BandSource | None]
    legend: tuple[str, ...]
    not_like_for_like: str | None
    unmatched: tuple[str, ...]
    refusals: tuple[str, ...] = ()
    headline: str = Status.NO_VERDICT
    summary: str = Status.NO_VERDICT
    rows: tuple[CaseVerdict, ...] = ()
    lost_cases: tuple[str, ...] = ()
    regressed: bool = False
    underpowered_sentence: str | None = None
    underpowered_reason: str | None = None
    draws_needed: int | None = None
    notes: tuple[str, ...] = ()
    context_rows: tuple[CaseVerdict, ...] = ()
    lifts: CommonLifts | None = None
    false_alarms: FalseAlarms | None = None
    paired: PairedTest | None = None
    unmeasured: tuple[UnmeasuredCase, ...] = ()
    band_names: tuple[str, ...] = ("no band", "no band")


def compare_receipts(
    a: Receipt, b: Receipt, *, a_name: str = "A", b_name: str = "B", false_alarms: bool = False
) -> Comparison:
    """Compare the with-skill arm of each case of ``a`` (earlier) with ``b`` (later) (D-6, D-9).

    Lost draws are bounded by the union of the two judge scales; never raises.
    """
    sources = (_source(a), _source(b))
    kinds = (band_kind(a), band_kind(b))
    legend = tuple(source_legend(k) for k in dict.fromkeys(kinds) if k is not None)
    not_held = ((a_name, recorded_not_held(a)), (b_name, recorded_not_held(b)))
    legend += tuple(dict.fromkeys(f"{name}: {why}." for name, why in not_held if why))
    # one score per answer as the source gave it is a band of one draw, as a generation band is
    alike = {"generation" if k == "as_given" else k for k in kinds}
    differ = NOT_LIKE_FOR_LIKE if None not in kinds and len(alike) > 1 else None
    refusals = tuple(
        f"{name}: {why}"
        for name, r in ((a_name, a), (b_name, b))
        if (why := verdict_refusal(r)) is not None
    )
    refusals = refusals or ((OTHER_JUDGE,) if _judges_differ(a, b) else ())
    lifts = None if a.is_aggregates_only or b.is_aggregates_only else common_lifts(a, b)
    if lifts is not None and (a.run.aa or b.run.aa):  # an A/A's difference is noise, no lift
        x, y = (None, None) if a.run.aa else (lifts.a, lifts.a_own)
        z, w = (None, None) if b.run.aa else (lifts.b, lifts.b_own)
        lifts = replace(lifts, a=x, a_own=y, b=z, b_own=w)
    rows = _rows(a, b, sources, a_name, b_name)
    b_ids, a_ids = {c.id for c in b.cases}, {c.id for c in a.cases}
    unmatched = tuple(
        [f"{c.id} (only in {a_name})" for c in a.cases if c.id not in b_ids]
        + [f"{c.id} (only in {b_name})" for c in b.cases if c.id not in a_ids]
    )
    refused = Comparison(a_name, b_name, sources, legend, differ, unmatched, refusals)
    named = (source_named(k, r.band_source is not None) for k, r in zip(kinds, (a, b), strict=True))
    refused = replace(refused, band_names=tuple(named))
    gone = unmeasured_later(a, b, sources)
    first = unmeasured_headline(gone)
    refused = replace(refused, unmeasured=gone, headline=_joined(first, refused.headline))
    if refusals:
        # no verdict, but the bands are shown under the reason (where both sides have bands)
        shown = () if None in sources else rows
        lost = tuple(v.case_id for v in shown if v.a.lost or v.b.lost)
        # a side with no scored answer has no band: say first that there is nothing to compare
        who = [f"{n} holds no" for n, x in zip((a_name, b_name), sources, strict=True) if x is None]
        who = ["Neither receipt holds a"] if len(who) == 2 else who
        notes = tuple(f"{w} scored answer, so there are no scores to compare." for w in who)
        notes += _notes(a, b, scored=sources != (None, None))
        notes += (NO_COMMON_CASE,) if unmatched and not rows else ()
        return replace(refused, lost_cases=lost, context_rows=shown, lifts=lifts, notes=notes)
    if not rows:
        # a renamed suite must not pass a regression check silently
        return replace(refused, refusals=(NO_COMMON_CASE,), notes=_notes(a, b))
    sentence = reason = needed = None
    if not any(v.verdict in (VerdictCode.IMPROVED, VerdictCode.REGRESSED) for v in rows):
        weak = [v for v in rows if v.verdict == VerdictCode.UNDERPOWERED]
        if weak:
            sentence = NOT_ENOUGH_DRAWS
            needed, reason = underpowered_draws(weak)
    return replace(
        refused,
        refusals=(),
        headline=_joined(first, _headline(rows)),
        summary=_summary(rows),
        rows=rows,
        lost_cases=tuple(v.case_id for v in rows if v.a.lost or v.b.lost),
        regressed=any(v.verdict == VerdictCode.REGRESSED for v in rows),
        underpowered_sentence=sentence,
        underpowered_reason=reason,
        draws_needed=needed,
        notes=_notes(a, b),
        lifts=lifts,
        false_alarms=suite_false_alarms(rows, draw_grid(a), draw_grid(b)) if false_alarms else None,
        paired=paired_test([v.delta for v in rows if v.delta is not None]),
    )


def _notes(a: Receipt, b: Receipt, *, scored: bool = True) -> tuple[str, ...]:
    """What differs besides the skill's text, not what either lacks (``scored``: scores held)."""
    out = []
    if a.seal.sha256 == b.seal.sha256:
        out.append(
            "The two receipts are one and the same (the same seal): nothing was measured again, "
            "so this comparison cannot show a change."
        )
    if a.skill.name != b.skill.name:
        out.append(
            f"The two receipts measure different skills ({a.skill.name} and {b.skill.name}): "
            "a diff is meant for two runs of the same skill."
        )
    ma, mb = a.run.model, b.run.model
    if _both_differ(ma, mb):
        out.append(
            f"The two receipts were answered by different models ({ma} and {mb}): a change "
            "between them may be the model's, not the skill's."
        )
    ja, jb = a.judge, b.judge
    judges_differ = _judges_differ(a, b, settings=False)
    if ja is not None and jb is not None and judges_differ:
        scales = "their scores are on different scales, so " if scored else ""
        out.append(
            f"The two receipts were graded by different judges ({_judge_name(ja)} and "
            f"{_judge_name(jb)}): {scales}a change between them may be the judge's, not the "
            "skill's."
        )
    settings = (_judge_setting_note(a, b, judges_differ), _suite_note(a, b), setup_note(a, b))
    out += [x for x in settings if x]
    asked = _asked_differently(a, b)
    if asked:
        were = "was" if len(asked) == 1 else "were"
        out.append(
            f"{count_of(len(asked), 'case')} in both receipts {were} asked differently (another "
            f"prompt or rubric): {first_of(asked)}. A change there may come from the prompt or "
            "rubric, not the skill."
        )
    return tuple(out)


def _judges_differ(a: Receipt, b: Receipt, *, settings: bool = True) -> bool:
    """Whether both receipts name their judge's model and the judges differ.

    They differ in model, or in provider where both record one; with ``settings``, also in
    template or service (where both record one) or scale. A judge one side does not name never
    differs.
    """
    ja, jb = a.judge, b.judge
    if ja is None or jb is None or not (judge_model(a) and judge_model(b)):
        return False
    if ja.model != jb.model or _both_differ(ja.provider, jb.provider):
        return True
    scales = (ja.scale.worst, ja.scale.best) != (jb.scale.worst, jb.scale.best)
    recorded = (ja.template_sha256, jb.template_sha256), (ja.service, jb.service)
    return settings and (scales or any(_both_differ(x, y) for x, y in recorded))


def _both_differ(x: str | None, y: str | None) -> bool:
    """Whether both ``x`` and ``y`` are recorded and differ (one not recorded is unknown, D-13)."""
    return x is not None and y is not None and x != y


def _judge_setting_note(a: Receipt, b: Receipt, judges_differ: bool) -> str | None:
    """The note when one judge graded under another template, scale or service, else None."""
    ja, jb = a.judge, b.judge
    if ja is None or jb is None or judges_differ:  # the different judges' note says it
        return None
    ta, tb = ja.template_sha256, jb.template_sha256
    if ta is not None and tb is not None and ta != tb:
        return (
            "The two receipts' judge was given different instructions (judge templates that "
            f"hash to {ta[:12]}… and {tb[:12]}…): their scores may be on different scales, so a "
            "change between them may be the judge's, not the skill's."
        )
    sa, sb = ja.scale, jb.scale
    if (sa.worst, sa.best) != (sb.worst, sb.best):
        return (
            f"The two receipts' judge scored on different scales ({sa.worst:g} to {sa.best:g} "
            f"and {sb.worst:g} to {sb.best:g}): a change between them may be the scale's, not "
            "the skill's."
        )
    if _both_differ(ja.service, jb.service):
        return (
            f"The two receipts' judge was served by different services ({ja.service} and "
            f"{jb.service}): the same judge's name there may be another model or build, so a "
            "change between them may be the service's, not the skill's."
        )
    return None


def _suite_note(a: Receipt, b: Receipt) -> str | None:
    """The note when the two receipts ran different suite files (hashes recorded), else None."""
    sa, sb = a.suite, b.suite
    if sa.sha256 is None or sb.sha256 is None or sa.sha256 == sb.sha256:
        return None
    if _both_differ(sa.name, sb.name):
        what = f"different suites ({sa.name} and {sb.name})"
    else:
        named = sa.name or sb.name
        what = "different versions of the suite" + (f" {named}" if named else "")
        what += f" (files that hash to {sa.sha256[:12]}… and {sb.sha256[:12]}…)"
    return (
        f"The two receipts ran {what}: a case added, removed or changed there may move the "
        "result, not the skill."
    )


def _asked_differently(a: Receipt, b: Receipt) -> list[str]:
    """The ids of cases in both receipts whose recorded prompt or rubric sha256 differ."""
    theirs = {c.id: c for c in b.cases}
    return [
        c.id
        for c in a.cases
        if (d := theirs.get(c.id)) is not None
        and any(
            _both_differ(x, y)
            for x, y in ((c.prompt_sha256, d.prompt_sha256), (c.rubric_sha256, d.rubric_sha256))
        )
    ]


def _judge_name(j: Judge) -> str:
    return j.model if j.provider is None else f"{j.model} by {j.provider}"


def _rows(
    a: Receipt, b: Receipt, sources: tuple[BandSource | None, ...], a_name: str, b_name: str
) -> tuple[CaseVerdict, ...]:
    """The verdict of each case in both receipts, in A's order (lost draws as D-9)."""
    scales = [s for s in (judge_scale(a), judge_scale(b)) if s is not None]
    scale = (min(min(s) for s in scales), max(max(s) for s in scales)) if scales else None
    b_cases = {c.id: c for c in b.cases}
    return tuple(
        case_verdict(
            arm_band(c.arms.with_skill, sources[0] or "generation"),
            arm_band(b_cases[c.id].arms.with_skill, sources[1] or "generation"),
            case_id=c.id,
            scale=scale,
            a_label=a_name,
            b_label=b_name,
        )
        for c in a.cases
        if c.id in b_cases
    )


def _source(r: Receipt) -> BandSource | None:
    return band_source_of(r) if has_bands(r) else None


def _headline(rows: tuple[CaseVerdict, ...]) -> str:
    parts = []
    for verdict in (VerdictCode.REGRESSED, VerdictCode.IMPROVED):
        ids = [v.case_id for v in rows if v.verdict == verdict]
        if ids:
            parts.append(f"{count_of(len(ids), 'case')} {verdict} ({first_of(ids)})")
    return "; ".join(parts) if parts else NO_SEPARATION


def _joined(first: str | None, headline: str) -> str:
    return headline if first is None else f"{first}; {headline}"


def _summary(rows: tuple[CaseVerdict, ...]) -> str:
    counts = Counter(v.verdict for v in rows)
    # every verdict, in its order of definition, counted (zero included)
    return f"{count_of(len(rows), 'case')}: " + ", ".join(
        f"{counts[k]:,} {verdict_words(k)}" for k in VerdictCode
    )


def exit_status(c: Comparison) -> int:
    """The exit status for CI: 5 when a side gets no verdict, 1 when a case regressed, else 0."""
    if c.refusals:
        return EXIT_NO_VERDICT
    return EXIT_REGRESSED if c.regressed else EXIT_NO_REGRESSION


def band_words(b: Band) -> str:
    """A compared band in words: ``mean ± sd``, one draw with no spread, or not measured."""
    if b.mean is None:
        return "not measured"
    if b.sd is None:
        return f"{b.mean:.3f} (one draw, no spread)"
    return f"{b.mean:.3f} ± {b.sd:.3f}"


def _note(v: CaseVerdict) -> str:
    if v.verdict == VerdictCode.INCONCLUSIVE:
        return LOST_NOTE if v.lost_detail else ""
    if v.verdict == VerdictCode.UNDERPOWERED:
        if v.no_draw_count:
            return NO_DRAW_COUNT_REACHES
        if v.draws_needed is not None:
            return f"{count_of(v.draws_needed, 'draw')} per arm needed"
        return f"an arm has {'no' if min(v.a.n, v.b.n) == 0 else 'a single'} measured draw"
    return ""


def report_rows(c: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and one row of strings per case, as the CLI and the site show them.

    Measured/drawn counts appear when a case lost draws or a side gets no verdict; the reasons
    are under the table (:func:`~driftproof.pages.lost_groups.diff_lost`). A case an arm
    measured nothing in is underpowered (D-2, D-5), its band "not measured".
    """
    src_a, src_b = c.band_names
    header = ["case", f"earlier ({src_a})", f"later ({src_b})", "Δ", "verdict"]
    unjudged = bool(c.refusals)
    counts = bool(c.lost_cases) or unjudged
    if counts:
        header += ["earlier measured/drawn", "later measured/drawn"]
    header.append("note")
    rows = []
    for v in c.context_rows if unjudged else c.rows:
        row = [
            v.case_id,
            band_words(v.a),
            band_words(v.b),
            format_lift(v.delta),
            "no verdict" if unjudged else verdict_words(v.verdict),
        ]
        if counts:
            row += [f"{v.a.drawn - v.a.lost}/{v.a.drawn}", f"{v.b.drawn - v.b.lost}/{v.b.drawn}"]
        row.append((LOST_NOTE if v.lost_detail else "") if unjudged else _note(v))
        rows.append(row)
    return header, rows


def after_summary(c: Comparison) -> list[str]:
    """The lines under the summary: why underpowered, not like for like, false alarms, notes."""
    under = c.underpowered_sentence and f"{c.underpowered_sentence} ({c.underpowered_reason})"
    fa = c.false_alarms and c.false_alarms.sentence()
    return [x for x in (under, c.not_like_for_like, fa, *c.notes) if x]


def lift_line(c: Comparison) -> str | None:
    """Both suite lifts over the same cases as context, never a verdict; ``None`` without lifts."""
    lf = c.lifts
    if lf is None or not lf.cases:
        return None
    return (
        f"Lift (with skill − baseline), context: {c.a_name} {format_lift(lf.a)}, {c.b_name} "
        f"{format_lift(lf.b)}, "
        f"{lift_cover_words(lf, c.a_name, c.b_name)}."
    )


def paired_context(c: Comparison) -> str | None:
    """The exact paired test as context, never a verdict; ``None`` without one."""
    if c.paired is None:
        return None
    words = paired_line(c.paired, "with-skill mean", "the mean change")
    return f"Exact paired test over cases, context (never a verdict): {words}."
