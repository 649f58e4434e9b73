"""Section ``receipt_sheets``: each receipt's sheet on the report page, linking to its own.

Per receipt: the reading (D-7), suite lift and value per 1,000 skill tokens (D-14), provenance
facts, a band chart and the per-case table, whose rows are anchored ``#<receipt>-case-<id>``
and link to the case pages. Parameters: :class:`~driftproof.site.sections.ReceiptsParams`.
"""

from __future__ import annotations

from driftproof.site.receipt_page import ReceiptTables, receipt_tables
from driftproof.site.sections import (
    ReceiptsParams,
    ReceiptsSection,
    SectionContext,
    SectionOutput,
    register_section,
)

__all__ = ["ReceiptSheets"]


@register_section(name="receipt_sheets", title="Receipt sheets")
class ReceiptSheets(ReceiptsSection):
    """Each receipt's sheet, as on its own page without the list of cases."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section (see the module docstring)."""
        shown: list[dict[str, object]] = []
        parts: list[ReceiptTables] = []
        for n in self.names(params, ctx):
            parts.append(_tables(n, ctx))  # its ids are taken before the heading's
            shown.append(
                {
                    "sheet": parts[-1],
                    "id": ctx.anchor(f"receipt-{n}"),
                    "name": n,
                    "url": ctx.sheet_url(n),
                    "json": ctx.receipt_url(n),
                    "skill": ctx.receipts[n].skill.name,
                }
            )
        html = self.page(params, ctx, heading_id=ctx.anchor("receipt-sheets"), sheets=shown)
        return SectionOutput(
            html=html,
            tables=tuple(t for s in parts for t in (s.cases, s.breakdown, s.lost) if t is not None),
            files={k: v for s in parts for k, v in s.files.items()},
        )


def _tables(name: str, ctx: SectionContext) -> ReceiptTables:
    """Receipt ``name``'s sheet, its ids prefixed with the name, its rows linking to cases."""

    def anchor(base: str) -> str:
        return ctx.anchor(f"{name}-{base}")

    def case_link(case_id: str) -> str:
        return ctx.case_url(name, case_id)

    r = ctx.receipts[name]
    return receipt_tables(name, r, anchor=anchor, chart_prefix="chart-bands", case_link=case_link)
