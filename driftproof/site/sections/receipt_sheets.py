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

from driftproof.site.report_source import receipt_name
from driftproof.site.sections import (
    SectionContext,
    SectionOutput,
    SectionParams,
    receipts_check,
    register_section,
)
from driftproof.site.sheet import receipt_sheet


class Params(SectionParams):
    receipts: list[str] | None = None


@register_section
class ReceiptSheets:
    name = "receipt_sheets"
    Params = Params

    def check(self, params: Params, report_receipts: tuple[str, ...]) -> list[tuple[str, str]]:
        return receipts_check(params.receipts, report_receipts)

    def render(self, params: Params, ctx: SectionContext) -> SectionOutput:
        names = (
            [receipt_name(n) for n in params.receipts] if params.receipts else list(ctx.receipts)
        )
        sheets = []
        for n in names:
            sheet = receipt_sheet(
                n,
                ctx.receipts[n],
                anchor=lambda base, n=n: ctx.anchor(f"{n}-{base}"),
                chart_prefix="chart-bands",
                case_link=lambda cid, n=n: ctx.case_url(n, cid),
            )
            sheets.append(
                {
                    "id": ctx.anchor(f"receipt-{n}"),
                    "name": n,
                    "sheet": sheet,
                    "url": ctx.sheet_url(n),
                    "json": ctx.receipt_url(n),
                    "skill": ctx.receipts[n].skill.name,
                }
            )
        html = ctx.render(
            "sections/receipt_sheets.html",
            title=params.title or "Receipt sheets",
            heading_id=ctx.anchor("receipt-sheets"),
            sheets=sheets,
        )
        tables = tuple(
            t
            for s in sheets
            for t in (s["sheet"].cases, s["sheet"].breakdown, s["sheet"].lost)
            if t is not None
        )
        files = {k: v for s in sheets for k, v in s["sheet"].files.items()}
        return SectionOutput(html=html, tables=tables, files=files)
