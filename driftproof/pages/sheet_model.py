"""The receipt sheet's page model: frozen dataclasses whose every value is a printable string.

:mod:`driftproof.pages.sheet` builds it; :mod:`driftproof.render.sheet` and the site print it.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.pages.words import Fact

__all__ = [
    "BREAKDOWN_NOTE",
    "ArmSummary",
    "BreakdownRow",
    "BreakdownView",
    "CaseRow",
    "ContextView",
    "FidelityView",
    "LostDraw",
    "Sheet",
    "SourceFigureRow",
    "UsageView",
]

#: The method's words on what the breakdown claims ("Lift by case").
BREAKDOWN_NOTE = (
    "It describes the recorded scores at this sample size. It predicts neither future answers "
    "nor a causal mechanism."
)


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
    """Context beyond the method, labelled so; never a verdict.

    Attributes:
        label: the label every figure here is shown under.
        interval: the suite lift's paired 95% interval over cases, or why it is unavailable.
        splits: per case and arm, the draw-score variance split into judge and draw parts.
        exact: the exact paired test over the cases' lifts, or why it is unavailable.
    """

    label: str
    interval: str
    splits: tuple[Fact, ...]
    exact: str


@dataclass(frozen=True)
class ArmSummary:
    """One arm across the receipt: what the site's sheet shows beside the scores.

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
class UsageView:
    """caveman's ``measure.py`` usage table, its cost lines and its note.

    One row for the receipt's skill arm; ``rows`` is empty and ``unavailable`` set when the
    receipt cannot give it.
    """

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    cost: tuple[Fact, ...]
    note: str
    unavailable: str | None = None


@dataclass(frozen=True)
class FidelityView:
    """caveman's ``score_fidelity.py`` report, headed by ``title``.

    Passed / answered and the rate per arm, the same per category (none for a judged snapshot),
    then every failed check as ``<arm> · <case>: <failures>``.
    """

    summary: tuple[Fact, ...]
    arm_head: tuple[str, ...]
    arm_rows: tuple[tuple[str, ...], ...]
    category_head: tuple[str, ...]
    category_rows: tuple[tuple[str, ...], ...]
    failures: tuple[str, ...]
    note: str
    title: str = "Fidelity checks (as caveman's score_fidelity.py; no verdict)"


@dataclass(frozen=True)
class Sheet:
    """The page model of one receipt (plain data; every value a printable string).

    Attributes:
        title: heading. path: the file as given, or None.
        provenance: what produced the receipt (model … band source, seal).
        legend: the band-source legend line for this receipt's source.
        reading: status, sentence and reason of the receipt's reading (D-7).
        lift, lift_per_1k: suite lift and value per 1,000 skill tokens (D-14), or "n/a".
        control_delta: with-skill minus control mean over cases (D-16), or None without a
            control arm.
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
    """The receipt's headline figure: the source's printed figures for an
    aggregates-only receipt, the output-token saving for a token receipt, else the lift."""
    arms: tuple[ArmSummary, ...] = ()
    source_figures: tuple[SourceFigureRow, ...] = ()
    """For an aggregates-only receipt: every figure its source printed, as printed."""
    source_origin: tuple[Fact, ...] = ()
    """Where the source figures were read: repository, commit, files with their git blob sha1."""
    source_report: tuple[tuple[str, ...], ...] = ()
    """An imported receipt's source's own figures, one row each, as the source gave them."""
    source_decision: tuple[Fact, ...] = ()
    """The source's own decision, stages, reducers and evaluated revision."""
    usage: UsageView | None = None
    """For a caveman import with Claude's own counts: caveman's usage table (seed 004)."""
    fidelity: FidelityView | None = None
    """For a caveman fidelity import: the pass rates and failed checks (seed 004)."""
