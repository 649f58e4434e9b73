"""The source's own report on an imported receipt, as it recorded or printed it.

Its figures, its decision, its pipeline stages and the revision it evaluated: shown as the
source's, never as this receipt's band, lift or verdict (D-15). Every member may be absent:
unknown (D-13).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from driftproof.receipt._model_base import _Model, _v015

Text200 = Annotated[str, StringConstraints(max_length=200)]
Text500 = Annotated[str, StringConstraints(max_length=500)]


class SourceFigure(_Model):
    """One figure the source computed, as it gave it."""

    label: Text200
    """What the source calls the figure (a metric, dimension or signal name)."""
    value: float | None
    """Its value in ``unit``; null when the source gave only an interval or printed no number."""
    case: Annotated[str, StringConstraints(max_length=128)] | None = _v015()
    """The receipt case it belongs to; absent or null: the whole run."""
    arm: Literal["with_skill", "baseline", "control", "lift", "other"] | None = _v015()
    """The arm it belongs to; lift for a difference between arms; other for an arm the receipt
    does not hold (e.g. a whole-plugin arm)."""
    lower: float | None = _v015()
    """Lower end of the source's interval."""
    upper: float | None = _v015()
    """Upper end of the source's interval."""
    level: Annotated[float, Field(gt=0, lt=1)] | None = _v015()
    """The interval's confidence level, e.g. 0.95."""
    unit: Literal["fraction", "percent", "points", "scale", "count", "p_value"] | None = _v015()
    """fraction (0..1), percent, points (percentage points), scale (the source's own score
    scale), count or p_value."""
    reducer: Text200 | None = _v015()
    """The epoch reducer that produced it (Inspect: mean, max, pass_at_2, …)."""
    printed: Text200 | None = _v015()
    """The text as the source printed it."""
    rounded: bool | None = _v015()
    """True when the source printed it rounded (the value is the rounded print)."""


class SourceStage(_Model):
    """One stage of the source's pipeline (a tier) and its status as printed."""

    name: Text200
    """The stage's name, e.g. Tier 3."""
    title: Text200 | None = _v015()
    """Its title, e.g. Live agent evaluation."""
    status: Literal[
        "passed", "passed_with_observations", "failed", "not_run", "incomplete", "other"
    ]
    """Its status; not_run is a stage that never ran, never a fail."""
    printed: Text200
    """The status as printed."""


class SourceDecision(_Model):
    """The source's own decision; never a verdict of this receipt (D-15)."""

    printed: Annotated[str, StringConstraints(max_length=4000)]
    """The decision in the source's words."""
    passed: bool | None = _v015()
    """The source's pass flag, when it has one."""
    significant: bool | None = _v015()
    """The source's significance flag, when it has one."""
    test: Text200 | None = _v015()
    """The test the source used to decide, e.g. exact one-sided sign test."""
    p_value: Annotated[float, Field(ge=0, le=1)] | None = _v015()
    """The test's p value as the source recorded it."""


class SourceReport(_Model):
    """What the source itself reported about the run (v0.16)."""

    figures: list[SourceFigure] = Field(max_length=10000)
    """Every figure read, in the source's order."""
    decision: SourceDecision | None = _v015()
    """The source's decision."""
    stages: list[SourceStage] | None = _v015(max_length=50)
    """The source's stages (tiers) with their status."""
    reducers: list[Text200] | None = _v015(max_length=20)
    """The epoch reducers the source declared, in its order."""
    source_repository: Text500 | None = _v015()
    """The repository the source says it evaluated."""
    source_revision: Text200 | None = _v015()
    """The revision (commit) the source says it evaluated."""
    evaluator_digest: Text500 | None = _v015()
    """The evaluator's container digest the source recorded."""
