"""Receipts of different model families side by side, never ranked (lift first, D-14).

Method, "Other models, and one grader for all": raw scores are background only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.pages.tables import Column, Table, text_row
from driftproof.pages.words import fmt, format_per_1k
from driftproof.receipt import Receipt
from driftproof.stats import case_bands, mean_of, receipt_reading, suite_lift, value_per_1k

#: The method's words, shown with every cross-family reading.
GRADER_NOTE = (
    "Because one grader from one model family scores every answer, a report comparing model "
    "families leads with what the skill adds to each model. That reduces a grader's taste for its "
    "own family's writing, but does not remove it, and no report has measured how much is left. "
    "Raw scores across families are background, never a ranking."
)
_FAMILIES = {"anthropic": "Anthropic", "openai": "OpenAI", "stub": "stub (no model)"}


@dataclass(frozen=True)
class FamilyRow:
    """One receipt in a cross-family reading: the lift first, raw scores as background."""

    name: str
    family: str
    model: str
    surface: str
    lift: str
    lift_per_1k: str
    reading: str
    background_with_skill: str
    background_baseline: str


@dataclass(frozen=True)
class CrossFamily:
    """A cross-family reading: ``rows`` in family then model order (never by score).

    ``caveats`` say why the rows are not like for like (different graders or suites), if so.
    """

    rows: tuple[FamilyRow, ...]
    caveats: tuple[str, ...]
    grader_note: str


def cross_family(receipts: Sequence[tuple[str, Receipt]]) -> CrossFamily:
    """The reading of ``(name, receipt)`` pairs; its order depends only on family and model."""
    rows = []
    for name, r in receipts:
        lift = suite_lift(r)
        per_1k = value_per_1k(lift, r.skill.tokens)
        bands = [] if r.is_aggregates_only else case_bands(r)
        with_mean = mean_of([x.mean for _, x, _ in bands if x.mean is not None])
        base_mean = mean_of([y.mean for _, _, y in bands if y.mean is not None])
        reading = receipt_reading(r)
        rows.append(
            FamilyRow(
                name=name,
                family=_FAMILIES.get(r.run.provider or "", "not recorded"),
                model=r.run.model or "not recorded",
                surface=r.run.surface or "not recorded",
                lift=fmt(lift, signed=True) if lift is not None else "n/a",
                lift_per_1k=format_per_1k(per_1k, lift),
                reading=reading.status
                if reading.status != "no verdict"
                else f"no verdict ({reading.reason})",
                background_with_skill=fmt(with_mean),
                background_baseline=fmt(base_mean),
            )
        )
    rows.sort(key=lambda x: (x.family, x.model, x.name))
    return CrossFamily(tuple(rows), _caveats(receipts), GRADER_NOTE)


def _caveats(receipts: Sequence[tuple[str, Receipt]]) -> tuple[str, ...]:
    out = []
    judges = {r.judge.model if r.judge else "no judge" for _, r in receipts}
    if len(judges) > 1:
        out.append("Not one judge for all: the receipts name " + ", ".join(sorted(judges)))
    suites = {r.suite.sha256 or "not recorded" for _, r in receipts}
    if len(suites) > 1:
        out.append("Not the same tasks: the suite hashes differ")
    elif "not recorded" in suites:
        out.append("The same tasks are not shown: no receipt records its suite hash")
    return tuple(out)


_LEAD = ("model", "family", "surface", "lift", "per 1,000 skill tokens", "reading")


def cross_family_tables(cf: CrossFamily) -> tuple[Table, Table]:
    """Each model's lift (the lead, not a ranking) and its raw scores (background)."""
    lead = Table(
        "lift-by-model",
        "What the skill adds to each model: lift (with skill minus baseline, equal "
        "weight per case) and per 1,000 skill tokens; rows in family and model order, "
        "not a ranking",
        tuple(Column(c, c in ("lift", "per 1,000 skill tokens")) for c in _LEAD),
        tuple(
            text_row(x.model, x.family, x.surface, x.lift, x.lift_per_1k, x.reading)
            for x in cf.rows
        ),
    )
    background = Table(
        "raw-scores-by-model",
        "Background, not a ranking: each model's raw mean judge score "
        "over cases, with the skill and without it",
        (Column("model"), Column("with skill", True), Column("baseline", True)),
        tuple(text_row(x.model, x.background_with_skill, x.background_baseline) for x in cf.rows),
    )
    return lead, background
