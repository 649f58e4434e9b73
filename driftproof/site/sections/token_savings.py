"""Section ``token_savings``: output-token savings of each skill arm, as a chart and tables.

Against the control (D-16) and the baseline; every figure is
:func:`driftproof.stats.savings.token_savings`'s.
"""

from __future__ import annotations

from driftproof.errors import SiteBuildError
from driftproof.pages import chart_text
from driftproof.pages.case import first_output_tokens
from driftproof.pages.report_tables import savings_summary
from driftproof.pages.tables import Cell, Column, Row, Table
from driftproof.pages.token_savings import (
    REFERENCES,
    count_cell,
    percent_points,
    reference,
    saving_cell,
)
from driftproof.receipt import Receipt
from driftproof.site import charts
from driftproof.site.sections import (
    ReceiptsParams,
    ReceiptsSection,
    SectionContext,
    SectionOutput,
    register_section,
)
from driftproof.stats.savings import ArmSavings, percent, token_savings

__all__ = ["TokenSavings"]


@register_section(name="token_savings", title="Output-token savings")
class TokenSavings(ReceiptsSection):
    """The savings per skill as a chart and tables, and the tokens per case."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section's HTML and tables.

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
        # Drawn in percent (the axis unit); the alt text prints them back with percent().
        pct = [
            chart_text.Series(label, *percent_points([reference(a, ref) for a in arms]))
            for ref, label in REFERENCES
        ]
        n_cases = max((a.vs_baseline.n for a in arms), default=0)
        fig, files = charts.figure(
            ctx.anchor("chart-token-savings"),
            [a.skill for a in arms],
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
        summary = savings_summary(arms)
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
        cells = [Cell(case.id), Cell(*count_cell(first_output_tokens(case.arms.baseline)))]
        if has_control:
            cells.append(Cell(*count_cell(first_output_tokens(case.arms.control))))
        for n, r in zip(names, receipts, strict=True):
            match = next((c for c in r.cases if c.id == case.id), None)
            tokens = count_cell(first_output_tokens(match.arms.with_skill) if match else None)
            # the count links to the answers it counts: the case's page
            cells.append(Cell(*tokens, ctx.case_url(n, case.id) if match is not None else None))
        cells += [
            Cell(*saving_cell(dict(a.vs_control.per_case).get(case.id)))
            for a in arms
            if a.vs_control
        ]
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
