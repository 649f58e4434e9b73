"""Section ``receipt_sheets``: each receipt's reading and per-case bands, on the report page.

Per receipt: the reading (D-7, words from the core), suite lift and value per 1,000
skill tokens (D-14), provenance facts and the per-case band table, with a link to the
full sheet (every answer) at ``receipts/<name>/``. Case rows are anchored
``#<receipt>-case-<id>``.

Parameters::

    - type: receipt_sheets
      receipts: [a, b]     # optional; default: every receipt of the report
      title: ...           # optional heading
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftproof.site.sections import ReceiptsSection, SectionOutput, register_section
from driftproof.site.sheet import ReceiptSheet, receipt_sheet

if TYPE_CHECKING:
    from driftproof.site.sections import ReceiptsParams, SectionContext

__all__ = ["ReceiptSheets"]


@dataclass(frozen=True)
class _Shown:
    """One receipt's sheet as the section shows it (the template's ``s``)."""

    id: str
    name: str
    sheet: ReceiptSheet
    url: str
    json: str
    skill: str


@register_section(name="receipt_sheets", title="Receipt sheets")
class ReceiptSheets(ReceiptsSection):
    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        sheets = [
            _Shown(
                sheet=_sheet(n, ctx),  # first: its ids are taken before the heading's, as ever
                id=ctx.anchor(f"receipt-{n}"),
                name=n,
                url=ctx.sheet_url(n),
                json=ctx.receipt_url(n),
                skill=ctx.receipts[n].skill.name,
            )
            for n in self.names(params, ctx)
        ]
        html = self.page(
            params,
            ctx,
            heading_id=ctx.anchor("receipt-sheets"),
            sheets=sheets,
        )
        tables = tuple(
            t
            for s in sheets
            for t in (s.sheet.cases, s.sheet.breakdown, s.sheet.lost)
            if t is not None
        )
        files = {k: v for s in sheets for k, v in s.sheet.files.items()}
        return SectionOutput(html=html, tables=tables, files=files)


def _sheet(name: str, ctx: SectionContext) -> ReceiptSheet:
    """The sheet of receipt ``name``: its element ids prefixed with the name (unique on the
    page), its case rows linking to the case pages."""

    def anchor(base: str) -> str:
        return ctx.anchor(f"{name}-{base}")

    def case_link(case_id: str) -> str:
        return ctx.case_url(name, case_id)

    return receipt_sheet(
        name,
        ctx.receipts[name],
        anchor=anchor,
        chart_prefix="chart-bands",
        case_link=case_link,
    )
