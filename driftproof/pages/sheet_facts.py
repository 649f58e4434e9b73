"""The sheet's parts: provenance, reading (D-7), grading cost, headline, arms, lift breakdown."""

from __future__ import annotations

from dataclasses import dataclass

from driftproof import wording
from driftproof.pages.band_sources import band_facts
from driftproof.pages.skill_reached import skill_reached
from driftproof.pages.source import ON_THE_SHEET, printed_headline, source_report_headline
from driftproof.pages.words import (
    ARM_NOT_RECORDED,
    COUNTED_BY_WORDS,
    NO_ASSERTION,
    NO_LABEL,
    NOT_GRADED,
    UNKNOWN,
    VERDICT_WORDS,
    Fact,
    anchor_for,
    arm_words,
    count_of,
    fmt,
    format_lift,
    grader_ran,
    has_bands,
    judge_words,
    lost_class,
    lost_of,
    mean_spread,
    plain_reason,
    token_counts,
    unrecorded_words,
)
from driftproof.receipt import Draw, Receipt
from driftproof.stats import Reading, unrecorded_arms
from driftproof.stats.breakdown import Breakdown
from driftproof.stats.noninferiority import Quality, QualityReading
from driftproof.stats.rates import fired_counts, percent_of
from driftproof.stats.savings import percent, token_savings
from driftproof.wording import ARM_WORDS, LEVEL_WORDS, REGRADE_PRESET, cases_named, dollars

#: The label of the value per 1,000 skill tokens (D-14); its figure never repeats it.
PER_1K = "value per 1,000 skill tokens"
#: The method's words on what the breakdown claims ("Lift by case").
BREAKDOWN_NOTE = (
    "It describes the recorded scores at this sample size. It predicts neither future answers "
    "nor a causal mechanism."
)


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
    """The lift breakdown as printed: summary lines, then one row per case.

    ``note``: :data:`BREAKDOWN_NOTE`, or empty when unavailable; ``label``: its panel's summary.
    """

    available: bool
    summary: tuple[str, ...]
    rows: tuple[BreakdownRow, ...]
    note: str
    label: str = "Lift by case"

    @property
    def labelled(self) -> bool:
        """Whether some case is given a label: else the label column carries nothing."""
        return any(r.label != NO_LABEL for r in self.rows)


#: Said of an unrecorded model beside arm labels: whose names they are (an import's).
LABELS_NOT_MODELS = (
    "the arm labels below are the source's own names for its arms, not a model it records as "
    "answering"
)

#: The arms table's (header, field) as ``view`` and the site print it, :data:`ARMS_TITLE` beside.
ARMS_TITLE = "how often the skill fired sits beside the score, never in it"
ARM_COLUMNS: tuple[tuple[str, str], ...] = (
    ("arm", "arm"),
    ("draws", "draws"),
    ("lost", "lost"),
    ("refusals", "refusals"),
    ("skill fired", "skill_fired"),
    ("output tokens", "output_tokens"),
)


@dataclass(frozen=True)
class ArmSummary:
    """One arm across the receipt; the skill-fired rate sits beside the score, never inside it."""

    arm: str
    draws: str
    lost: str
    refusals: str
    skill_fired: str
    output_tokens: str


def reading_facts(rd: Reading) -> tuple[Fact, ...]:
    """The receipt's reading (D-7): status, sentence, why, and the draws needed when known."""
    facts = [Fact("reading", rd.status), Fact("sentence", rd.sentence), Fact("why", rd.reason)]
    if rd.draws_needed is not None:
        facts.append(Fact("draws per arm needed", str(rd.draws_needed)))
    return tuple(facts)


def provenance(r: Receipt) -> tuple[Fact, ...]:
    """What produced the receipt: model, harness, judge, skill, suite, counts, import, seal."""
    run, h = r.run, r.run.harness
    missing = unrecorded_arms(r)
    counts = band_facts(r)  # the counts as recorded, and as held where they differ
    judge = judge_words(r)
    if r.judge is not None:
        judge += f"; template sha256 {r.judge.template_sha256 or UNKNOWN}"
    labels = _arm_labels(r)
    said = "a full run, not --quick" if r.provenance is None else "imported: the source's own run"
    bare = f"none ({REGRADE_PRESET if r.regrade else said})"  # a regrade: its original's
    facts = [
        Fact("model", run.model or UNKNOWN + (f": {LABELS_NOT_MODELS}" if labels else "")),
        *labels,
        Fact("provider", run.provider or UNKNOWN),
        Fact("surface", run.surface or UNKNOWN),
        Fact("harness", f"{h.name} {h.version or f'(version {UNKNOWN})'}" if h else UNKNOWN),
        Fact("capture mode", run.capture or UNKNOWN),
        Fact("preset", run.preset or (UNKNOWN if r.schema_version in _NO_PRESET else bare)),
        Fact("judge", judge),
        Fact("skill", r.skill.name),
        Fact("skill sha256", r.skill.sha256 or UNKNOWN),
        Fact("suite sha256", r.suite.sha256 or UNKNOWN),
        Fact(
            "verification level",
            f"{r.verification_level}: {LEVEL_WORDS[r.verification_level]}"
            + (" (smoke run: counts as below TESTED)" if r.is_smoke else ""),
        ),
        Fact("band source", counts.source),
        Fact("draws per arm", counts.draws),
        Fact("judge samples per draw", counts.judge_samples),
        Fact("schema version", r.schema_version),
    ]
    if missing:  # what that leaves out is said once, in the lift
        facts.append(Fact("arms not recorded", ", ".join(ARM_WORDS[n] for n in missing)))
    if (reached := skill_reached(r)) is not None:
        facts.append(Fact("median reported input tokens", reached))
    if (p := r.provenance) is not None:
        by = f"{p.tool} {p.tool_version or ''}".strip()
        label, what = ("imported from", "document")
        if r.regrade is not None:
            label, what = ("regraded by", "from the receipt of file")
        facts.append(Fact(label, f"{by}, {what} sha256 {p.document_sha256}"))
        if p.partial:
            facts.append(Fact("partial", "yes: the source's run did not finish"))
        if p.unrecorded:
            facts.append(Fact("unrecorded", "; ".join(map(unrecorded_words, p.unrecorded))))
        facts += [Fact("import note", n) for n in p.notes or ()]
    facts.append(Fact("seal", f"{r.seal.algorithm} {r.seal.sha256}"))
    return tuple(facts)


def _over_cases(per_case: list[int]) -> str:
    n = sum(k > 0 for k in per_case)
    return f" over {count_of(n, 'case')}" if n else ""


def _arm_labels(r: Receipt) -> list[Fact]:
    """``<arm>: <label>`` per arm, ``;``-joined, unless no label names more than its arm."""
    labels = {n: getattr(r.arms, n).label for n in r.arm_names}
    said = "; ".join(f"{ARM_WORDS[n]}: {v or UNKNOWN}" for n, v in labels.items())
    return [] if all(v is None or v == n for n, v in labels.items()) else [Fact("arm labels", said)]


def judge_cost(r: Receipt) -> tuple[Fact, ...]:
    """The grader's tokens and cost, apart from every figure about the skill."""
    oh = r.economics.judge_overhead
    if oh is None:
        return (Fact("grading cost", UNKNOWN),)
    # D-13: a receipt before 0.14 did not record the draws missing usage; never print a number
    missing, no_usage = oh.judged_draws_missing_usage, "with no token counts from the judge"
    missing_words = f"draws {no_usage} {UNKNOWN}" if missing is None else f"{missing:,} {no_usage}"
    return (
        Fact("judge tokens", f"{oh.input_tokens:,} input, {oh.output_tokens:,} output"),
        Fact(
            "grading cost",
            f"{dollars(oh.usd, 4)} (a floor: usage the judge's answered samples reported)"
            if oh.usd is not None
            else UNKNOWN,
        ),
        Fact("draws counted", f"{oh.judged_draws_counted:,} counted, {missing_words}"),
    )


def headline(r: Receipt, lift_text: str, per_1k_text: str) -> Fact:
    """The one figure a reader looks for first."""
    if r.is_aggregates_only:  # as the site's results page leads with it
        return Fact("source figures", printed_headline(r, ON_THE_SHEET))
    if r.judge is None and any(token_counts(c.arms.with_skill.draws) for c in r.cases):
        return Fact("output-token saving", _token_saving(r))
    if lift_text.startswith("n/a"):
        own = source_report_headline(r)
        return Fact("lift", lift_text) if own is None else Fact("source figures", own)
    return Fact("lift", lift_and_per_1k(lift_text, per_1k_text))


def lift_and_per_1k(lift_text: str, per_1k_text: str) -> str:
    """The suite lift with its value per 1,000 skill tokens after it, as a headline says both."""
    return f"{lift_text}; {PER_1K} {per_1k_text}"


def _token_saving(r: Receipt) -> str:
    """The skill arm's output-token saving, by caveman's arithmetic."""
    try:
        (arm,) = token_savings([r])
    except ValueError as exc:
        return f"unavailable: {exc}"
    sv = arm.vs_control if arm.vs_control is not None else arm.vs_baseline
    ref = _reference(sv.reference, sv.reference_label)
    text = (
        f"output tokens saved against {ref}: median {percent(sv.median)} over "
        f"{count_of(sv.n, 'case')} (mean {percent(sv.mean)}, min {percent(sv.min)}, "
        f"max {percent(sv.max)}; {sv.skill_tokens:,} vs {sv.reference_tokens:,} tokens, "
        f"{COUNTED_BY_WORDS[arm.counted_by]})"
    )
    if arm.vs_control is not None:
        text += f"; against the baseline arm: median {percent(arm.vs_baseline.median)}"
    return text


def _reference(arm: str, label: str | None) -> str:
    """The reference arm, with the source's label in words (D-16; ``__terse__``: "terse")."""
    words = " ".join((label or "").replace("_", " ").split())
    if not words or words == arm:
        return f"the {arm} arm"
    return f"the {words} control" if arm == "control" else f"the {arm} arm ({words})"


def quality_fact(q: QualityReading) -> Fact | None:
    """The reading at a margin, or None when no margin is declared."""
    if q.margin is None:
        return None
    label = "quality at a margin"
    d = f"{q.margin.value:g}"
    if q.reading is None:
        return Fact(label, f"no reading at the margin {d}: {q.reason}")
    saved = percent(q.saving, signed=False)  # a reading is made only of a saving above 0
    words = {
        Quality.NOT_WORSE: f"saves {saved} of output tokens and is not worse by more than {d}",
        Quality.NOT_SHOWN: f"saves {saved} but quality not shown within {d}",
        Quality.WORSE: f"worse by more than {d}",
    }[q.reading]
    when = (
        "before the run" if q.margin.declared == "receipt" else "when reading, not before the run"
    )
    return Fact(
        label,
        f"{words} ({q.measure}, skill arm minus the {q.reference} arm over "
        f"{count_of(q.cases, 'case')}: "
        f"mean {fmt(q.mean, signed=True)}, 90% interval {fmt(q.low, signed=True)} to "
        f"{fmt(q.high, signed=True)}; two one-sided tests at 5% each; margin declared {when})",
    )


def breakdown_view(b: Breakdown) -> BreakdownView:
    """Format a :class:`~driftproof.stats.breakdown.Breakdown` (method, "Lift by case")."""
    if not b.available:
        return BreakdownView(
            False, tuple(f"Lift breakdown unavailable: {x}" for x in b.reasons), (), ""
        )  # no note: there are no recorded scores for it to describe
    n = sum(c.included for c in b.cases)
    lift = (
        f"unavailable: {b.suite_lift_reason}" if b.suite_lift is None else format_lift(b.suite_lift)
    )
    lines = [f"Measured lift, equal weight per case over {count_of(n, 'included case')}: {lift}"]
    if b.excluded:
        lines.append(f"Excluded with both arms (an arm failed): {cases_named(b.excluded)}")
    if b.assertions_withheld:
        lines.append(f"{NO_ASSERTION}: " + "; ".join(map(plain_reason, b.assertions_withheld)))
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
            lift="–" if c.lift is None else format_lift(c.lift),
            counts=" · ".join(f"{a.n}/{a.drawn}/{a.lost}" for a in (c.with_skill, c.baseline)),
            lift_without=format_lift(c.lift_without),
            label=c.label
            if c.label is not None
            else VERDICT_WORDS.get(c.verdict, c.verdict)
            if c.verdict is not None
            else NO_LABEL,
            note=c.note
            if c.note is not None
            else f"{NO_LABEL}: {c.label_withheld}"
            if c.label_withheld is not None and not b.assertions_withheld
            else "",
        )
        for c in b.cases
    )
    return BreakdownView(True, tuple(lines), rows, BREAKDOWN_NOTE)


def _carrier_line(b: Breakdown) -> str:
    if b.carrier_withheld is not None:
        return f"No case is named as carrying the lift: {plain_reason(b.carrier_withheld)}"
    if b.carriers:
        parts = [
            f"{c.case_id} (removing it leaves {format_lift(c.lift_without)})"
            for c in b.cases
            if c.carrier
        ]
        return "Carries the positive measured lift: " + ", ".join(parts)
    if b.suite_lift is not None and b.suite_lift > wording.TOLERANCE:  # as the carrier test
        return (
            "No single case carries the positive measured lift: "
            "removing any one leaves a positive lift"
        )
    return "The measured lift is not positive: no case carries a positive lift"


#: Schema versions with no record of refusals (0.15 added them), or of a preset (0.11).
_NO_REFUSALS, _NO_PRESET = ("0.3.1", "0.10", "0.11", "0.13", "0.14"), ("0.3.1", "0.10")


def arm_summaries(r: Receipt) -> tuple[ArmSummary, ...]:
    """One summary per arm of ``r``; an arm the source did not record says so."""
    missing, judged = set(unrecorded_arms(r)), has_bands(r)
    out = []
    for n in r.arm_names:
        words = arm_words(r)[n]
        if n in missing or r.is_aggregates_only:
            none = ARM_NOT_RECORDED if n in missing else "no per-run result (aggregates only)"
            out.append(ArmSummary(words, none, "–", "–", "–", "–"))
            continue
        held = [getattr(c.arms, n) for c in r.cases if getattr(c.arms, n) is not None]
        draws = [d for a in held for d in a.draws]
        measured = sum(d.score is not None for d in draws)
        scored = "holding checks, no score" if not measured and any(d.checks for d in draws) else ""
        scored = scored or (NOT_GRADED if draws and not (measured or grader_ran(r, draws)) else "")
        lost = [x for d in draws if (x := lost_of(d, judged))]
        kinds = sorted({lost_class(reason, kind) for reason, kind in lost if kind})
        refused = sum(
            d.refusal is not None or (d.lost is not None and d.lost.kind == "refusal")
            for d in draws
        )
        outputs, totals = token_counts(draws), token_counts(draws, "total")
        out.append(
            ArmSummary(
                arm=words,
                draws=f"{len(draws):,} drawn{_over_cases([len(a.draws) for a in held])}, "
                f"{scored or f'{measured:,} scored'}",
                lost=(f"{len(lost):,}" + (f" ({', '.join(kinds)})" if kinds else ""))
                if lost
                else "none",
                refusals="none (no draws)"
                if not draws
                else f"{f'{refused:,}' if refused else 'none'} of {count_of(len(draws), 'draw')}"
                if _refusals_recorded(r)
                else UNKNOWN,
                skill_fired=_skill_fired(r, n, draws),
                output_tokens=(
                    f"{sum(outputs):,} over {count_of(len(outputs), 'draw')}"
                    if outputs
                    else f"not split; {sum(totals):,} total tokens over "
                    f"{count_of(len(totals), 'draw')}, as the source reported them"
                    if totals
                    else UNKNOWN
                ),
            )
        )
    return tuple(out)


def _refusals_recorded(r: Receipt) -> bool:
    """Whether ``r`` can record a refusal: a run's (or its regrade's) receipt of 0.15 or later."""
    tool = r.provenance.tool if r.provenance is not None else None
    return r.schema_version not in _NO_REFUSALS and tool in (None, "driftproof regrade")


def _skill_fired(r: Receipt, name: str, draws: list[Draw]) -> str:
    """How often the skill fired, beside the score and never inside it (seed 000, interop)."""
    rate = getattr(r.arms, name).skill_fired  # an arm of r.arm_names
    fired, observed = (rate.fired, rate.observed) if rate is not None else fired_counts(draws)
    pct = percent_of(fired, observed)
    if pct is None:
        return UNKNOWN
    return f"{fired:,} of {count_of(observed, 'observed draw')} ({fmt(pct, 0)}%)"
