"""The words and number formats every page shares.

Judge-scale numbers print with three decimals; unknown stays unknown (D-13). The exact paired
test and the A/A calibration are worded here once: context beside a verdict, never one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from driftproof._anchor import slug
from driftproof.receipt import Case, CaseArm, Draw, Receipt
from driftproof.stats.aa import AAReading
from driftproof.stats.band import NO_VALID_SAMPLE, Band, threshold_outcome
from driftproof.stats.context import LiftInterval
from driftproof.stats.lift import CommonLifts, lift_left_out
from driftproof.stats.moments import mean_of
from driftproof.stats.paired import MC_FLIPS, MIN_CASES, PairedTest
from driftproof.wording import (
    AA_ARM_WORDS,
    ARM_WORDS,
    CHECK_ERROR,
    LOST_KIND_WORDS,
    MINUS,
    NO_SEPARATION,
    cases_named,
    numeral,
)
from driftproof.wording import count_of as count_of  # the pages' one counting word
from driftproof.wording import first_of as first_of

UNKNOWN = "not recorded"
#: What a case row shows for an arm the source did not record (``recorded: false``): it names
#: who left the arm out (the source, not this run).
ARM_NOT_RECORDED = "not recorded by the source"
#: Written in a workflow output where a lift is not given (method: "writes it as n/a").
NOT_APPLICABLE = "n/a"
#: How a draw's tokens were counted (``Tokens.counted_by``), in words: "tokens counted offline …".
COUNTED_BY_WORDS = {
    "provider": "as the provider reported them",
    "o200k_base": "counted offline with the o200k_base encoding",
    "source": "as the source file gives them",
}
#: A failed call's class (``error_class``) in words, as the runner's lost-draw reasons say it: a
#: lost draw's "fatal" is a call not retried, never a run that stopped.
ERROR_CLASS_WORDS = {"transient": "transient", "fatal": "not retryable"}
#: A check's kind in words (a case page's draw): what the check looks for.
CHECK_KIND_WORDS = {
    "regex": "pattern match",
    "structural": "structure",
    "must_include": "must include",
    "must_not_include": "must not include",
    "assertion": "the source's own check",
}
#: A check's outcome in words; an error is the check's own failure to run, never the answer's.
CHECK_OUTCOME_WORDS = {"pass": "pass", "fail": "fail", "error": CHECK_ERROR}
#: An arm whose draws no grader read (the arms table's words, and the case list's).
NOT_GRADED = "not graded"
VERDICT_WORDS = {"improved": "helps", "regressed": "hurts", "no separation": NO_SEPARATION}


def grader_ran(r: Receipt, draws: Iterable[Draw]) -> bool:
    """Whether a grader read ``draws``: ``r`` records a judge, or a draw holds judge samples."""
    return r.judge is not None or any(d.judge_samples for d in draws)


def unscored_said(checks: str | None, graded: bool) -> str | None:
    """What an arm with no score and no lost draw holds in one case, or ``None`` for nothing.

    Its ``checks`` as the case table says them (``2/2 facts and 1/1 verbatim check passed``),
    then ``no score``; with none and no grader run on it (``graded`` false), ``not graded``,
    as the arms table says it.
    """
    if checks:
        return f"{checks}, no score"
    return None if graded else NOT_GRADED


def band_said(band: str, arm: CaseArm | None, unscored: str | None = None) -> str:
    """An arm's band in one case (``band``: a case row's, ``–`` for none), or why it has none.

    ``unscored``: :func:`unscored_said` of an arm none of whose draws is lost; with no band, it
    is what the arm holds.
    """
    if band != "–":
        return band
    drew = arm is not None and arm.draws
    if drew and unscored:
        return unscored
    return "no score (lost or unscored)" if drew else "no draw in this case"


def labelled(n: int, labels: list[str], noun: str) -> str:
    """``n`` and ``noun`` after the distinct ``labels`` (:func:`first_of`): ``10 risk ratings``."""
    return count_of(n, f"{first_of(list(dict.fromkeys(labels)))} {noun}".lstrip())


def arm_words(r: Receipt) -> dict[str, str]:
    """Each arm of ``r`` as people read it: its two runs for an A/A calibration (``run.aa``)."""
    return AA_ARM_WORDS if r.run.aa else ARM_WORDS


def case_heads(r: Receipt) -> tuple[str, str, str]:
    """A case table's headers: ``("with skill", "baseline", "lift")``, or an A/A calibration's."""
    w = arm_words(r)
    return w["with_skill"], w["baseline"], "difference" if r.run.aa else "lift"


def case_direction(r: Receipt) -> str:
    """Which way a case table's lift goes: ``"lift is with skill minus baseline"``, or A/A's."""
    with_skill, baseline, lift = case_heads(r)
    return f"{lift} is {with_skill} minus {baseline}"


def lost_kind_words(kind: str) -> str:
    """A lost draw's ``lost.kind`` in words (:data:`~driftproof.wording.LOST_KIND_WORDS`)."""
    return LOST_KIND_WORDS.get(kind, kind.replace("_", " "))


def lost_class(reason: str, kind: str) -> str:
    """A lost draw's kind in words; a failed request's with its reason's head: ``… : HTTP 400``."""
    words, head = lost_kind_words(kind), reason.split(";")[0].split(":")[0].strip()
    return f"{words}: {head}" if kind == "error" and head else words


#: A receipt field an importer names as unrecorded, in the words a page shows (D-13); the
#: receipt keeps the field name, the page says what it is.
_FIELD_WORDS = {
    "run.generations_per_arm": "draws per arm",
    "generations_per_arm": "draws per arm",
    "run.judge_samples_per_generation": "judge samples per draw",
    "judge_samples_per_generation": "judge samples per draw",
    "run.model": "model",
    "run.provider": "provider",
    "run.surface": "surface",
    "run.harness.version": "harness version",
    "run.harness version": "harness version",
    "run.harness": "harness",
    "run.started_at": "start time",
    "run.finished_at": "finish time",
    "judge.model": "judge model",
    "skill.sha256 and skill.tokens": "the skill's sha256 and token count",
    "provenance.tool_version": "the source tool's version",
    "provenance.details.declared_cost_usd": "the import's details as the declared cost in USD",
    "source_figures.repository": "the source's repository",
    "source_figures.commit": "the source's commit",
    "source_figures": "the source's own figures",
    "economics.judge_overhead": "grading cost",
    "rubric_sha256": "rubric sha256",
    "arms labels": "the arms' labels",
    "started_at": "start time",
    "finished_at": "finish time",
    "evaluator_version is null": "the source records no evaluator version",
    "baseline arm (__baseline__)": "baseline arm",
    "control arm (__terse__)": "terse control arm",
    "endpoint attempts": "requests sent",
    **{f"the {arm} arm": f"the {words} arm" for arm, words in ARM_WORDS.items()},
}
_FIELD = re.compile(
    r"(?<![\w.])("
    + "|".join(re.escape(k) for k in sorted(_FIELD_WORDS, key=len, reverse=True))
    + r")(?![\w])"
)


@dataclass(frozen=True)
class Fact:
    """A labelled value of a page."""

    label: str
    value: str


def fmt(x: float | None, digits: int = 3, *, signed: bool = False) -> str:
    """Fixed-point text of ``x``, or ``–`` when unknown (D-13); ``-0.000`` prints as ``0.000``.

    A minus sign is U+2212 (:func:`~driftproof.wording.numeral`): ``−0.120``.
    """
    if x is None or not math.isfinite(x):
        return "–"
    text = numeral(x, f"+.{digits}f" if signed else f".{digits}f")
    return text if text.strip(f"+{MINUS}0.") else f"{0:.{digits}f}"  # sign, zeros, point: 0


def format_lift(lift: float | None, *, minus: str = MINUS) -> str:
    """``+0.120`` (a rounded zero is ``+0.000``), or ``n/a`` for ``None`` or a non-finite.

    A minus sign is ``minus`` (:func:`~driftproof.wording.numeral`): ``−0.120`` by default.
    """
    if lift is None or not math.isfinite(lift):
        return NOT_APPLICABLE
    return numeral(0.0 if round(lift, 3) == 0 else lift, "+.3f", minus=minus)  # never -0.000


def format_per_1k(value: float | None, lift: float | None, *, minus: str = MINUS) -> str:
    """A value per 1,000 skill tokens (D-14) reading ``+0.000`` only beside a ``lift`` that does."""
    if value and lift is not None and round(lift, 3) and not round(value, 3):
        return numeral(value, f"+.{1 - math.floor(math.log10(abs(value)))}f", minus=minus)
    return format_lift(value, minus=minus)


def unrecorded_words(item: str) -> str:
    """One ``provenance.unrecorded`` item with each receipt field name in words."""
    return _FIELD.sub(lambda m: _FIELD_WORDS[m.group(1)], item)


def anchor_for(case_id: str) -> str:
    """The element id of a case row, ``case-<id>`` with unsafe characters as ``-``."""
    return "case-" + slug(case_id)


def judge_model(r: Receipt) -> str | None:
    """The judge's model as recorded; ``None`` for none or ``unrecorded:<tool>/<grader>``."""
    model = r.judge.model if r.judge is not None else None
    return None if model is None or model.startswith("unrecorded:") else model


def score_name(*receipts: Receipt) -> str:
    """What the receipts' scores are called: ``judge score`` or ``score``.

    ``judge score`` when every receipt names its judge's model; else ``score`` (a grader whose
    model is not recorded: an imported source's regex, check or unnamed grader).
    """
    return "judge score" if all(judge_model(r) for r in receipts) else "score"


def judge_words(r: Receipt) -> str:
    """``model (provider P, surface S)``; unrecorded: ``not recorded (<tool>'s <grader>)``."""
    j = r.judge
    if j is None:
        return UNKNOWN
    named = j.model
    tool, _, grader = j.model.removeprefix("unrecorded:").partition("/")
    if j.model.startswith("unrecorded:") and grader:
        named = f"{UNKNOWN} ({tool}'s {grader})"
        if j.provider is None and j.surface is None:
            return named
    return f"{named} (provider {j.provider or UNKNOWN}, surface {j.surface or UNKNOWN})"


def draws_of(r: Receipt) -> Iterator[tuple[Case, str, Draw]]:
    """Every draw of ``r`` as ``(case, arm name, draw)``, case by case, in arm order."""
    return ((c, n, d) for c in r.cases for n in r.arm_names for d in getattr(c.arms, n).draws)


def token_counts(draws: Iterable[Draw], part: str = "output") -> list[int]:
    """The ``part`` (``output`` or ``total``) token counts the draws record, in draw order."""
    return [n for d in draws if d.tokens is not None and (n := getattr(d.tokens, part)) is not None]


def output_tokens_text(arm: CaseArm | None) -> str:
    """An arm's output tokens: ``1,024``, ``mean 150.0 (2 draws)``, or ``–`` for none (D-13)."""
    counts = token_counts(arm.draws if arm is not None else [])
    if not counts:
        return "–"
    if len(counts) == 1:
        return f"{counts[0]:,}"
    return f"mean {mean_of(counts) or 0.0:,.1f} ({count_of(len(counts), 'draw')})"


def case_output_tokens(c: Case, arms: Iterable[str], sep: str = " · ") -> str:
    """Each of ``arms``' :func:`output_tokens_text` in ``c``, ``sep``-joined; else UNKNOWN."""
    parts = [output_tokens_text(getattr(c.arms, n)) for n in arms]
    return UNKNOWN if all(x == "–" for x in parts) else sep.join(parts)


def sheet_link_text(r: Receipt) -> str:
    """The words of the link to ``r``'s full sheet: they promise answers only where it holds one."""
    if any(d.answer for _, _, d in draws_of(r)):
        return "Full receipt sheet, with every answer"
    return "Full receipt sheet (this receipt holds no answer text)"


def has_bands(r: Receipt) -> bool:
    """Whether any draw holds a judged score: only then does a band source mean anything."""
    return (
        not r.is_aggregates_only
        and r.judge is not None
        and any(d.score is not None for *_, d in draws_of(r))
    )


def lost_of(d: Draw, judged: bool) -> tuple[str, str | None] | None:
    """A lost draw's (reason, kind); ``None`` for a draw that is not lost.

    A draw with no score is lost too (D-1), as ``unscored``, when its judge samples are all
    invalid, or it has none and ``judged`` (:func:`has_bands` of its receipt).
    """
    if d.lost is not None:
        return d.lost.reason, d.lost.kind
    unscored = d.score is None and all(s.score is None for s in d.judge_samples)
    return (NO_VALID_SAMPLE, "unscored") if unscored and (judged or d.judge_samples) else None


def band_text(
    b: Band, threshold: float | None = None, scale: tuple[float, float] | None = None
) -> str:
    """``mean ± sd (n = k)``, ``mean (n = 1)`` with no spread, ``–`` when nothing was measured.

    With the case's ``threshold``, the arm's outcome against it follows where it has one
    (:func:`~driftproof.stats.band.threshold_outcome`, lost draws completed on the judge
    ``scale``): ``…, borderline against threshold 0.700``; a threshold three places cannot hold
    exactly is printed as recorded (``0.7004``).
    """
    if b.mean is None:
        return "–"
    lost = f", {b.lost} lost" if b.lost else ""
    spread = f" ± {fmt(b.sd)}" if b.sd is not None else ""
    outcome = threshold_outcome(b, threshold, scale)
    exact = threshold is None or round(threshold, 3) == threshold
    held = fmt(threshold) if exact else repr(threshold)
    said = f", {outcome} against threshold {held}" if outcome else ""
    return f"{fmt(b.mean)}{spread} (n = {b.n}{lost}){said}"


def mean_spread(mean: float | None, spread: float | None) -> str:
    """``mean ± spread``, ``mean (no spread)``, or ``–`` when nothing was measured."""
    if mean is None:
        return "–"
    return f"{fmt(mean)} ± {fmt(spread)}" if spread is not None else f"{fmt(mean)} (no spread)"


def paired_line(t: PairedTest, subject: str, interval_of: str) -> str:
    """The exact paired test in one line: counts, sign-test p and sign-flip interval, or why not.

    ``subject``: what moved per case (``"lift"``); ``interval_of``: what the interval bounds.
    """
    counts = (
        f"{subject} up in {t.up:,} of {count_of(t.cases, 'case')}, down in {t.down:,}, "
        f"zero in {t.ties:,}"
    )
    if t.sign_p is None or t.low is None or t.high is None or t.coverage is None:
        return (
            f"{counts}; not computed: this exact test needs at least {MIN_CASES} cases, because "
            "with fewer none of its results can reach the 95% level"
        )
    if t.method == "exact":
        how = f"exact, over all {2**t.cases:,} sign flips"
    else:
        how = f"Monte Carlo, over {MC_FLIPS:,} random sign flips from a fixed seed"
    return (
        f"{counts}; sign test p = {t.sign_p:.3g} (two-sided, exact); sign-flip interval on "
        f"{interval_of} {fmt(t.low, signed=True)} to {fmt(t.high, signed=True)} "
        f"({100 * t.coverage:.1f}% coverage, {how})"
    )


def aa_called(aa: AAReading) -> str:
    """How many cases an A/A calibration's rule called a change in, in words."""
    return (
        f"the rule called a change, up or down, in {aa.observed:,} of "
        f"{count_of(len(aa.cases), 'case')} between two runs of the same arm"
    )


def aa_line(name: str, aa: AAReading) -> str:
    """An A/A calibration, naming the A/A receipt ``name``, in one sentence."""
    read = len(aa.cases) - aa.unread
    text = f"A/A calibration {name}: {aa_called(aa)}"
    if read:
        text += (
            f"; {aa.where()}, noise alone is expected to call an average of "
            f"{aa.expected_words()} changes, up or down, per comparison over "
            f"{count_of(read, 'case')} (chance of at "
            f"least one: {aa.at_least_one_words()}); the smallest effect these spreads can "
            f"resolve is {aa.smallest_median:.3f} at the median case, {aa.smallest_max:.3f} at "
            "the widest"
        )
    if aa.unread:
        text += f"; {count_of(aa.unread, 'case')} with no spread to read"
    return text + "."


def own_lifts(lf: CommonLifts) -> tuple[str | None, str | None]:
    """Each receipt's own suite lift as printed where it differs from ``lf.a``/``lf.b``."""
    a, b = (format_lift(own) for own in (lf.a_own, lf.b_own))
    return (a if a != format_lift(lf.a) else None, b if b != format_lift(lf.b) else None)


def lift_cover_words(
    lf: CommonLifts, a_label: str = "earlier receipt", b_label: str = "later receipt"
) -> str:
    """``over the 1 case both receipts measured in both arms (…)``: each side's count, own lift."""
    own = own_lifts(lf)
    sides = ((a_label, lf.a_cases, lf.a_total, own[0]), (b_label, lf.b_cases, lf.b_total, own[1]))
    said = ("; " if any(own) else ", ").join(
        f"{label} {k} of {n}" + (f", its own lift {o}" if o else "") for label, k, n, o in sides
    )
    n = len(lf.cases)
    return (
        f"over the {n} {'case' if n == 1 else 'cases'} both receipts measured in both arms ({said})"
    )


def paired_interval(iv: LiftInterval) -> str:
    """The suite lift's paired interval (context), lift ± t·se; ``iv`` was computed (``se`` set)."""
    low_end, high_end = numeral(-1, "+d"), numeral(1, "+d")
    ends = " and ".join(
        e for e, cut in ((low_end, iv.clipped_low), (high_end, iv.clipped_high)) if cut
    )
    return (
        f"suite lift {format_lift(iv.lift)}, paired standard error {fmt(iv.se)} "
        f"over {count_of(iv.cases, 'case')}; "
        f"approximate 95% interval {fmt(iv.low, signed=True)} to {fmt(iv.high, signed=True)} "
        f"(the lift ± {fmt(iv.t)} standard errors, {fmt(iv.t)} being Student's t for "
        f"{count_of(iv.df or 0, 'degree')} of freedom, one fewer than the cases: it assumes the "
        "cases' lifts are normally spread, where the exact paired test assumes no shape)"
        + (f"; clipped at {ends}: a lift is never outside {low_end} to {high_end}" if ends else "")
    )


#: The breakdown's line when it names no case (method: "no helps, hurts or carrier assertion").
NO_ASSERTION = "No case is said to help or hurt, and none is named as carrying the lift"
#: A breakdown row's label where none may be given (method: "no label").
NO_LABEL = "not given"
#: The breakdown's reasons (:mod:`driftproof.stats.breakdown`) in words a reader needs no
#: glossary for: (pattern, words).
_PLAIN = (
    (r"below TESTED \((\w+)\)", r"the receipt's verification level, \1, is below TESTED"),
    (r"smoke run \(preset .*\)", "it is a smoke run, a quick first look"),
    (r"incomplete: a failed arm", "incomplete: an arm of a case lost every draw"),
    (
        r"incomplete: missing draw evidence",
        "incomplete: a draw holds neither a score nor a reason it was lost",
    ),
    (r"lost draws prevent a carrier assertion", "an included case lost draws"),
)


def plain_reason(reason: str) -> str:
    """A reason of the lift breakdown for naming no case, in plain words (else as given)."""
    for pattern, words in _PLAIN:
        if re.fullmatch(pattern, reason):
            return re.sub(pattern, words, reason)
    return reason


def lift_coverage(r: Receipt) -> str:
    """`` (over N of M cases …)`` when the suite lift leaves cases of ``r`` out, else ``""``."""
    left = lift_left_out(r)
    if not left:
        return ""
    return (
        f" (over {len(r.cases) - len(left):,} of {count_of(len(r.cases), 'case')}: "
        f"{cases_named(left)} {'has' if len(left) == 1 else 'have'} no measured draw in an arm)"
    )
