"""Output-token savings of each skill arm, as a report shows them (D-16: against the control).

Figures are :func:`driftproof.stats.savings.token_savings`'s; cells are :data:`~.tables.Pair`.
"""

from __future__ import annotations

from collections.abc import Sequence

from driftproof.pages.tables import Column, Table, row_of
from driftproof.pages.tables import Pair as Cell
from driftproof.stats.savings import ArmSavings, Savings, percent

#: The reference arms, in order, with the words shown.
REFERENCES = (("control", "vs terse control"), ("baseline", "vs baseline"))


def reference(a: ArmSavings, ref: str) -> Savings | None:
    """The savings of ``a`` against reference arm ``ref`` (None: the arm has no such one)."""
    return a.vs_control if ref == "control" else a.vs_baseline


def percent_points(per_arm: Sequence[Savings | None]) -> list[tuple[float | None, ...]]:
    """The median, min and max saving of each arm in percent (the chart's unit), or None."""
    return [
        tuple(None if s is None or (v := getattr(s, k)) is None else 100 * v for s in per_arm)
        for k in ("median", "min", "max")
    ]


def saving_cell(v: float | None, signed: bool = True) -> Cell:
    """A saving as printed (:func:`percent`), full precision in the CSV."""
    return percent(v, signed=signed), "" if v is None else repr(v)


def count_cell(v: int | None) -> Cell:
    """A token count with thousands separators, plain in the CSV."""
    return ("–", "") if v is None else (f"{v:,}", str(v))


def summary_rows(arms: Sequence[ArmSavings]) -> list[tuple[Cell, ...]]:
    """One row per skill and reference, then one per terse control alone (saving of totals only)."""
    rows: list[tuple[Cell, ...]] = []
    for a in arms:
        for ref, label in REFERENCES:
            s = reference(a, ref)
            if s is not None:
                figures = [saving_cell(v) for v in (s.median, s.mean, s.min, s.max)]
                rows.append(
                    ((a.skill, None), (label, None), *figures, saving_cell(s.stdev, signed=False))
                    + ((str(s.n), None), count_cell(s.skill_tokens), count_cell(s.reference_tokens))
                    + (saving_cell(s.of_totals),)
                )
    controls = {
        (a.control_vs_baseline, a.control_tokens, a.baseline_tokens)
        for a in arms
        if a.control_tokens is not None
    }
    for saving, ctl, base in sorted(controls, key=lambda t: (t[1], t[2])):
        # a ratio of totals (caveman's own line): under "saving of totals", not the median
        blank: Cell = ("–", "")
        head: tuple[Cell, ...] = (("terse control alone", None), ("vs baseline", None))
        rows.append((*head, *[blank] * 6, count_cell(ctl), count_cell(base), saving_cell(saving)))
    return rows


_SUMMARY_HEAD = ("skill", "against", "median", "mean", "min", "max", "stdev", "cases")


def savings_summary(arms: Sequence[ArmSavings]) -> Table:
    """The output-token savings of each skill arm across cases (D-16), and of the totals."""
    head = (*_SUMMARY_HEAD, "skill output tokens", "reference output tokens", "saving of totals")
    return Table(
        "token-savings",
        "Output-token savings: saving = 1 − skill tokens ÷ reference tokens, per case (median "
        "to stdev, across the cases; stdev is the sample standard deviation) and over the "
        "totals (saving of totals, the terse control alone's only figure)",
        tuple(Column(c, numeric=i >= 2) for i, c in enumerate(head)),
        tuple(row_of(x) for x in summary_rows(arms)),
        keys=2,
    )
