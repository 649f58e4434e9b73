"""Section ``source_figures``: the figures an aggregates-only source printed, as printed (D-15).

Shown one row per skill (the CSV has one per figure), and the files read; no band, lift or
verdict.
"""

from __future__ import annotations

from driftproof.errors import SiteBuildError
from driftproof.pages.printed_figures import (
    NO_RESULTS,
    figure_rows,
    files_read,
    printed_rows,
    printed_text,
)
from driftproof.pages.report_tables import figure_tables
from driftproof.pages.tables import Row, row_of
from driftproof.site.sections import (
    ReceiptsParams,
    ReceiptsSection,
    SectionContext,
    SectionOutput,
    register_section,
)

__all__ = ["SourceFigures"]


@register_section(name="source_figures", title="Figures as the source printed them")
class SourceFigures(ReceiptsSection):
    """The printed figures, one row per skill, and the files they were read from."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section's HTML and tables.

        Raises:
            SiteBuildError: a receipt is not aggregates-only with printed rows.
        """
        names = self.names(params, ctx)
        rows: list[Row] = []
        files: dict[tuple[str, str, str, str], None] = {}
        pivot: list[tuple[str, dict[tuple[str, str], str]]] = []
        for n in names:
            r = ctx.receipts[n]
            printed = printed_rows(r)
            if printed is None:
                raise SiteBuildError.at(
                    ctx.report.source,
                    "/sections",
                    "source_figures needs aggregates-only receipts with printed rows; "
                    f"{n} is not one",
                )
            files.update(dict.fromkeys(files_read(r)))
            anchor = ctx.anchor(f"skill-{r.skill.name}")
            found = figure_rows(r.skill.name, printed)
            rows += [row_of(x, anchor if i == 0 else None) for i, x in enumerate(found)]
            cells = {
                (str(x.get("dimension")), str(x.get("agent"))): printed_text(x) for x in printed
            }
            pivot.append((r.skill.name, cells))
        table, files_table, by_skill = figure_tables(rows, files, pivot)
        html = self.page(
            params,
            ctx,
            heading_id=ctx.anchor("source-figures-h"),
            table=by_skill,
            files=files_table,
            n_skills=str(len(names)),
            n_rows=str(sum(1 for x in rows if x.cells[1].text != NO_RESULTS)),
        )
        return SectionOutput(html=html, tables=(files_table, table))
