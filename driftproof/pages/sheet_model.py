"""The receipt sheet's page model: frozen dataclasses whose every value is a printable string."""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.pages.words import Fact

#: The method's words on what the breakdown claims ("Lift by case").
BREAKDOWN_NOTE = (
    "It describes the recorded scores at this sample size. It predicts neither future answers "
    "nor a causal mechanism."
)


@dataclass(frozen=True)
class CaseRow:
    """One case of the sheet: bands as ``mean ± sd (n = …)`` strings, lift signed (three decimals).

    ``numbers``: with mean, with sd, baseline mean, baseline sd (``None``: unknown), for charts.
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
    """Per arm, ``·``-separated: one draw's output tokens, or their mean over several."""


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
    """The lift breakdown as printed: summary lines, then one row per case.

    ``note`` is the method's words on what the breakdown claims, empty when it is unavailable.
    """

    available: bool
    summary: tuple[str, ...]
    rows: tuple[BreakdownRow, ...]
    note: str


@dataclass(frozen=True)
class ContextView:
    """Context beyond the method, shown under ``label``; never a verdict.

    ``interval``: the suite lift's paired 95% interval; ``splits``: per case and arm, the draw
    score variance split into judge and draw parts; ``exact``: the exact paired test.
    """

    label: str
    interval: str
    splits: tuple[Fact, ...]
    exact: str


@dataclass(frozen=True)
class ArmSummary:
    """One arm across the receipt; the skill-fired rate sits beside the score, never inside it."""

    arm: str
    draws: str
    lost: str
    refusals: str
    skill_fired: str
    output_tokens: str


#: The columns of the printed figures, as (header, :class:`SourceFigureRow` field).
FIGURE_COLUMNS = (
    ("dimension", "dimension"),
    ("agent", "agent"),
    ("score as printed", "score"),
    ("uplift as printed", "uplift"),
    ("count column (as printed)", "count"),
    ("note", "note"),
)


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
    """caveman's ``measure.py`` usage table; without it, ``rows`` empty and ``unavailable`` why."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    cost: tuple[Fact, ...]
    note: str
    unavailable: str | None = None


@dataclass(frozen=True)
class FidelityView:
    """caveman's ``score_fidelity.py`` report: rates per arm and category, then each failure."""

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
    """The page model of one receipt; every value a printable string.

    Attributes:
        reading: the receipt's reading (D-7).
        lift, lift_per_1k: suite lift and value per 1,000 skill tokens (D-14), or "n/a…".
        control_delta: with-skill minus control mean over cases (D-16); ``None``: no control.
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
    """Printed figures (aggregates only), the output-token saving (no judge), else the lift."""
    arms: tuple[ArmSummary, ...] = ()
    source_figures: tuple[SourceFigureRow, ...] = ()
    source_origin: tuple[Fact, ...] = ()
    source_report: tuple[tuple[str, ...], ...] = ()
    source_decision: tuple[Fact, ...] = ()
    usage: UsageView | None = None
    fidelity: FidelityView | None = None
