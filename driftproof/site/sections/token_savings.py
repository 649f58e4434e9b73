"""Section ``token_savings``: output-token savings of each skill arm.

For each receipt (one skill each), the savings in output tokens of the skill arm against the
control arm (the honest delta, D-16) and against the baseline: median, mean, min, max and
sample stdev across cases, with the token totals; a chart (median, whiskers min to max) with
the same numbers in tables, and a per-case table (``#case-<id>``). Every figure is
:func:`driftproof.stats.savings.token_savings`'s, printed with its :func:`percent`.
Parameters: :class:`~driftproof.site.sections.ReceiptsParams`.
"""

from __future__ import annotations

from driftproof.errors import SiteBuildError
from driftproof.pages.case import first_output_tokens
from driftproof.receipt import Receipt
from driftproof.site import charts
from driftproof.site.sections import (
    ReceiptsParams,
    ReceiptsSection,
    SectionContext,
    SectionOutput,
    register_section,
)
from driftproof.site.tables import Cell, Column, Row, Table, count_cell, csv_number
from driftproof.stats.savings import ArmSavings, Savings, percent, token_savings

__all__ = ["TokenSavings"]

REFERENCES = (("control", "vs terse control"), ("baseline", "vs baseline"))


@register_section(name="token_savings", title="Output-token savings")
class TokenSavings(ReceiptsSection):
    """The savings per skill as a chart and tables, and the tokens per case."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section (see the module docstring).

        Raises:
            SiteBuildError: the savings cannot be computed from these receipts.
        """
        names = self.names(params, ctx)
        receipts = [ctx.receipts[n] for n in names]
        try:
            arms = token_savings(receipts)
        except ValueError as exc:
            raise SiteBuildError.at(
                ctx.report.source, "/sections", f"token_savings cannot be computed: {exc}"
            ) from None
        labels = [a.skill for a in arms]
        # Drawn in percent (the axis unit); the alt text prints them back with percent().
        pct = [_percent_series(label, [_ref(a, ref) for a in arms]) for ref, label in REFERENCES]
        n_cases = max((a.vs_baseline.n for a in arms), default=0)
        fig, files = charts.figure(
            ctx.anchor("chart-token-savings"),
            labels,
            pct,
            subject=(
                "Median output-token saving per skill, in percent of the reference arm's tokens, "
                "against the terse control and against the baseline"
            ),
            xlabel="output-token saving (%)",
            fmt=lambda v: percent(None if v is None else v / 100),
            whiskers=f"smallest to largest saving across the {n_cases} cases",
            reference=0.0,
        )
        summary = _summary_table(arms)
        cases = _case_table(names, receipts, arms, ctx)
        html = self.page(
            params,
            ctx,
            fig=fig,
            summary=summary,
            cases=cases,
            n_cases=str(n_cases),
            counted_by=sorted({a.counted_by for a in arms}),
        )
        return SectionOutput(html=html, tables=(summary, cases), files=files)


def _ref(a: ArmSavings, ref: str) -> Savings | None:
    return a.vs_control if ref == "control" else a.vs_baseline


def _percent_series(label: str, per_arm: list[Savings | None]) -> charts.Series:
    """One reference's savings as a chart series in percent.

    The median, whiskers min to max (None where the arm has no such reference).
    """

    def pct(v: float | None) -> float | None:
        return None if v is None else 100 * v

    return charts.Series(
        label,
        tuple(pct(s.median) if s else None for s in per_arm),
        tuple(pct(s.min) if s else None for s in per_arm),
        tuple(pct(s.max) if s else None for s in per_arm),
    )


def _summary_table(arms: list[ArmSavings]) -> Table:
    cols = (
        "skill",
        "against",
        "median",
        "mean",
        "min",
        "max",
        "stdev",
        "cases",
        "skill output tokens",
        "reference output tokens",
    )
    rows = []
    for a in arms:
        for ref, label in REFERENCES:
            s = _ref(a, ref)
            if s is None:
                continue
            figures = [Cell(percent(v), csv_number(v)) for v in (s.median, s.mean, s.min, s.max)]
            figures.append(Cell(percent(s.stdev, signed=False), csv_number(s.stdev)))
            rows.append(
                Row(
                    (
                        Cell(a.skill),
                        Cell(label),
                        *figures,
                        Cell(str(s.n)),
                        count_cell(s.skill_tokens),
                        count_cell(s.reference_tokens),
                    ),
                    header=True,
                )
            )
    controls = {
        (a.control_vs_baseline, a.control_tokens, a.baseline_tokens)
        for a in arms
        if a.control_tokens is not None
    }
    for saving, ctl, base in sorted(controls, key=lambda t: (t[1], t[2])):
        rows.append(
            Row(
                (
                    Cell("terse control alone"),
                    Cell("vs baseline (ratio of totals)"),
                    Cell(percent(saving), csv_number(saving)),
                    Cell("–", ""),
                    Cell("–", ""),
                    Cell("–", ""),
                    Cell("–", ""),
                    Cell("–", ""),
                    count_cell(ctl),
                    count_cell(base),
                ),
                header=True,
            )
        )
    return Table(
        "token-savings",
        "Output-token savings across cases: saving = 1 − skill tokens ÷ reference tokens, "
        "per case; stdev is the sample standard deviation",
        tuple(Column(c, numeric=i >= 2) for i, c in enumerate(cols)),
        tuple(rows),
    )


def _case_table(
    names: list[str], receipts: list[Receipt], arms: list[ArmSavings], ctx: SectionContext
) -> Table:
    first = receipts[0] if receipts else None
    has_control = first is not None and first.arms.control is not None
    cols = ["case", "baseline tokens"] + (["control tokens"] if has_control else [])
    cols += [f"{a.skill} tokens" for a in arms] + [
        f"{a.skill} saving vs control" for a in arms if a.vs_control
    ]
    rows = []
    for case in first.cases if first else []:
        cells = [Cell(case.id), count_cell(first_output_tokens(case.arms.baseline))]
        if has_control:
            cells.append(count_cell(first_output_tokens(case.arms.control)))
        for n, r in zip(names, receipts, strict=True):
            match = next((c for c in r.cases if c.id == case.id), None)
            cell = count_cell(first_output_tokens(match.arms.with_skill) if match else None)
            if match is not None:  # the count links to the answers it counts: the case's page
                cell = Cell(cell.text, cell.value, ctx.case_url(n, case.id))
            cells.append(cell)
        for a in arms:
            if a.vs_control:
                v = dict(a.vs_control.per_case).get(case.id)
                cells.append(Cell(percent(v), csv_number(v)))
        rows.append(
            Row(
                tuple(cells),
                anchor=ctx.anchor(f"case-{case.id}"),
                header=True,
                link=ctx.case_url(names[0], case.id),
            )
        )
    return Table(
        "output-tokens-per-case",
        "Output tokens per case and arm, and each skill's saving against the control",
        tuple(Column(c, numeric=i > 0) for i, c in enumerate(cols)),
        tuple(rows),
    )
