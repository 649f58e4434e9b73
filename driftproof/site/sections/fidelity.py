"""Section ``fidelity``: a caveman fidelity import's pass rates, as ``driftproof view`` words them
(:func:`driftproof.pages.source.fidelity_view`; D-15: no verdict).

Per receipt: the facts of its report (cases, grader or checks, rubrics or case file), one row per
arm (passed / total, the rate and, for a judged snapshot, the mean of the per-prompt fidelity as
the source printed it; an arm the source did not record reads "not recorded", D-13), the rows per
category when there are any, and every failure. The figures are the sheet's own, so the page and
``view`` cannot disagree.

Parameters::

    - type: fidelity
      receipts: [a, b]     # optional; default: every receipt of the report
      title: ...           # optional heading
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from driftproof.errors import SiteBuildError
from driftproof.pages.source import fidelity_view
from driftproof.site._tables import Cell, Column, Row, Table
from driftproof.site.sections import ReceiptsSection, SectionOutput, register_section

if TYPE_CHECKING:
    from driftproof.site.sections import ReceiptsParams, SectionContext

__all__ = ["Fidelity"]


@register_section(name="fidelity", title="Fidelity pass rates")
class Fidelity(ReceiptsSection):
    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        shown = []
        tables: list[Table] = []
        for n in self.names(params, ctx):
            f = fidelity_view(ctx.receipts[n])
            if f is None:
                raise SiteBuildError.at(
                    ctx.report.source,
                    "/sections",
                    f"fidelity needs caveman fidelity imports (draws with checks); {n} is not one",
                )
            slug = ctx.anchor(f"{n}-fidelity")
            arms = Table(
                f"{slug}-arms",
                f"Per arm: {', '.join(h.lower() for h in f.arm_head[1:])}. {f.note}",
                tuple(Column(h) for h in f.arm_head),
                tuple(Row(tuple(Cell(x) for x in row), header=True) for row in f.arm_rows),
            )
            tables.append(arms)
            categories = None
            if f.category_rows:
                categories = Table(
                    f"{slug}-categories",
                    "Passed / answered per category and arm.",
                    tuple(Column(h) for h in f.category_head),
                    tuple(Row(tuple(Cell(x) for x in row), header=True) for row in f.category_rows),
                )
                tables.append(categories)
            shown.append(
                {
                    "name": n,
                    "facts": f.summary,
                    "arms": arms,
                    "categories": categories,
                    "failures": f.failures,
                }
            )
        html = self.page(params, ctx, heading_id=ctx.anchor("fidelity"), shown=shown)
        return SectionOutput(html=html, tables=tuple(tables))
