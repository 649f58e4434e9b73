"""The sheet's labelled facts: provenance, reading (D-7), grading cost, headline, context."""

from __future__ import annotations

from driftproof.pages.sheet_model import ContextView
from driftproof.pages.source import source_figures, source_report_headline
from driftproof.pages.words import (
    UNKNOWN,
    Fact,
    arms_of,
    draws_of,
    fmt,
    has_bands,
    judge_words,
    paired_line,
    token_counts,
    unrecorded_words,
)
from driftproof.receipt import Receipt
from driftproof.stats import (
    Reading,
    band_source_of,
    lift_refusal,
    unrecorded_arms,
)
from driftproof.stats.breakdown import Breakdown
from driftproof.stats.context import CONTEXT_LABEL, lift_interval, spread_split
from driftproof.stats.noninferiority import Quality, QualityReading
from driftproof.stats.paired import paired_test
from driftproof.stats.savings import percent, token_savings
from driftproof.wording import ARM_WORDS


def reading_facts(rd: Reading) -> tuple[Fact, ...]:
    """The receipt's reading (D-7): status, sentence, why, and the draws needed when known."""
    facts = [Fact("reading", rd.status), Fact("sentence", rd.sentence), Fact("why", rd.reason)]
    if rd.draws_needed is not None:
        facts.append(Fact("draws per arm needed", str(rd.draws_needed)))
    return tuple(facts)


def provenance(r: Receipt) -> tuple[Fact, ...]:
    """What produced the receipt: model, harness, judge, skill, suite, counts, import, seal."""
    run = r.run
    missing = unrecorded_arms(r)
    # the counts the recorded arms hold, one per case and arm; a lost draw holds no judge sample
    draws = {len(getattr(c.arms, n).draws) for c in r.cases for n in arms_of(r) if n not in missing}
    samples = {len(d.judge_samples) for *_, d in draws_of(r) if d.judge_samples}
    judge = judge_words(r)
    if r.judge is not None:
        judge += f"; template sha256 {r.judge.template_sha256 or UNKNOWN}"
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
            if has_bands(r)
            else "none (no judged score)",
        ),
        Fact("draws per arm", _count(run.generations_per_arm, draws)),
        Fact("judge samples per draw", _count(run.judge_samples_per_generation, samples)),
        Fact("schema version", r.schema_version),
    ]
    if missing:
        facts.append(
            Fact(
                "arms not recorded",
                ", ".join(ARM_WORDS[n] for n in missing)
                + " (single-arm source: no lift, no interval, no value per token)",
            )
        )
    reached = _skill_reached(r)
    if reached is not None:
        facts.append(Fact("median reported input tokens", reached))
    if r.provenance is not None:
        facts.append(
            Fact(
                "imported from",
                f"{r.provenance.tool} {r.provenance.tool_version or ''}".strip()
                + f", document sha256 {r.provenance.document_sha256}",
            )
        )
        if r.provenance.partial:
            facts.append(Fact("partial", "yes: the source's run did not finish"))
        if r.provenance.unrecorded:
            facts.append(
                Fact("unrecorded", ", ".join(map(unrecorded_words, r.provenance.unrecorded)))
            )
    facts.append(Fact("seal", f"{r.seal.algorithm} {r.seal.sha256}"))
    return tuple(facts)


def _count(recorded: int | None, held: set[int]) -> str:
    """The recorded count; else, when the cases hold different counts, their range (D-13)."""
    if recorded is not None:
        return str(recorded)
    if len(held) > 1:
        return f"varies, {min(held)} to {max(held)}"
    return UNKNOWN


def _skill_reached(r: Receipt) -> str | None:
    """Each arm's median reported input tokens, the skill's difference and size, or ``None``."""
    medians = {n: getattr(r.arms, n).input_tokens_median for n in arms_of(r)}
    if all(v is None for v in medians.values()):
        return None
    text = ", ".join(
        f"{ARM_WORDS[n]} {UNKNOWN if v is None else f'{v:,.0f}'}" for n, v in medians.items()
    )
    skill, base = medians.get("with_skill"), medians.get("baseline")
    if skill is not None and base is not None:
        text += f"; with the skill {skill - base:+,.0f}"
    if r.skill.tokens is not None:
        text += f", beside a skill of about {r.skill.tokens:,} tokens"
    return text


def judge_cost(r: Receipt) -> tuple[Fact, ...]:
    """The grader's tokens and cost, apart from every figure about the skill."""
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


def headline(r: Receipt, lift_text: str, per_1k_text: str) -> Fact:
    """The one figure a reader looks for first."""
    if r.is_aggregates_only:
        n = len(source_figures(r))
        return Fact(
            "source figures",
            f"{n} figure{'s' if n != 1 else ''} as the source printed them (see "
            '"Figures as the source printed them"); no band, lift or verdict is computed from them',
        )
    if r.judge is None and any(token_counts(c.arms.with_skill.draws) for c in r.cases):
        return Fact("output-token saving", _token_saving(r))
    if lift_text.startswith("n/a"):
        own = source_report_headline(r)
        return Fact("lift", lift_text) if own is None else Fact("source figures", own)
    return Fact("lift", f"{lift_text}; {per_1k_text}")


def _token_saving(r: Receipt) -> str:
    """The skill arm's output-token saving, by caveman's arithmetic."""
    try:
        (arm,) = token_savings([r])
    except ValueError as exc:
        return f"unavailable: {exc}"
    sv = arm.vs_control if arm.vs_control is not None else arm.vs_baseline
    ref = _reference(sv.reference, sv.reference_label)
    text = (
        f"output tokens saved against {ref}: median {percent(sv.median)} over {sv.n} case"
        f"{'s' if sv.n != 1 else ''} (mean {percent(sv.mean)}, min {percent(sv.min)}, "
        f"max {percent(sv.max)}; "
        f"{sv.skill_tokens:,} vs {sv.reference_tokens:,} tokens, counted by {arm.counted_by})"
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


def context_view(r: Receipt, b: Breakdown) -> ContextView:
    """Context beyond the method: the paired interval, the spread split, the exact paired test."""
    why = lift_refusal(r)
    if why is None and not b.available:
        why = "the lift breakdown is unavailable"
    iv = lift_interval(b) if why is None else None
    if iv is None or iv.reason is not None:
        interval = f"unavailable: {why if iv is None else iv.reason}"
    else:
        interval = (
            f"suite lift {fmt(iv.lift, signed=True)}, paired standard error {fmt(iv.se)} "
            f"over {iv.cases} cases; "
            f"95% interval {fmt(iv.low, signed=True)} to {fmt(iv.high, signed=True)} "
            f"(t = {fmt(iv.t)}, df = {iv.df})"
        )
    splits = []
    for s in spread_split(r) if b.available else ():
        label = f"{s.case_id}, {ARM_WORDS[s.arm]}"
        if s.reason is not None:
            splits.append(Fact(label, f"unavailable: {s.reason}"))
            continue
        share = s.judge_share
        if s.total is not None and s.judge_part is not None and s.judge_part > s.total:
            text = (
                f"variance {fmt(s.total, 5)}: the judge samples' part, {fmt(s.judge_part, 5)}, "
                f"is more than the whole, so at {s.draws} draws this split is noise"
            )
        else:
            text = (
                f"variance {fmt(s.total, 5)}: judge samples {fmt(s.judge_part, 5)}, "
                f"draw to draw {fmt(s.draw_part, 5)}"
            )
            if share is not None:
                text += f" ({fmt(100 * share, 0)}% judge, {fmt(100 * (1 - share), 0)}% draw)"
        splits.append(Fact(label, text))
    reasons = {f.value for f in splits}
    if len(splits) > 1 and len(reasons) == 1 and next(iter(reasons)).startswith("unavailable"):
        splits = [Fact("spread split, every case and arm", splits[0].value)]
    exact = _exact(b) if why is None else f"unavailable: {why}"
    return ContextView(CONTEXT_LABEL, interval, tuple(splits), exact)


def _exact(b: Breakdown) -> str:
    """The exact paired test over the included cases' lifts, or why it is unavailable."""
    if b.suite_lift is None:
        return f"unavailable: {b.suite_lift_reason or 'the suite lift is unavailable'}"
    lifts = [c.lift for c in b.cases if c.included and c.lift is not None]
    return paired_line(paired_test(lifts), "lift", "the suite lift")


def quality_fact(q: QualityReading) -> Fact | None:
    """The reading at a margin, or None when no margin is declared."""
    if q.margin is None:
        return None
    label = "quality at a margin"
    d = f"{q.margin.value:g}"
    if q.reading is None:
        return Fact(label, f"no reading at the margin {d}: {q.reason}")
    saved = f"{100 * q.saving:.0f}%" if q.saving is not None else UNKNOWN
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
        f"{words} ({q.measure}, skill arm minus the {q.reference} arm over {q.cases} cases: "
        f"mean {fmt(q.mean, signed=True)}, 90% interval {fmt(q.low, signed=True)} to "
        f"{fmt(q.high, signed=True)}; two one-sided tests at 5% each; margin declared {when})",
    )
