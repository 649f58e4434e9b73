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
from driftproof.pages.tables import Cell, Column, Row, Table, row_of
from driftproof.site.sections import (
    ReceiptsParams,
    ReceiptsSection,
    SectionContext,
    SectionOutput,
    register_section,
)

__all__ = ["SourceFigures"]

_LONG_HEAD = (
    Column("Skill"),
    Column("Dimension"),
    Column("Num (the card's own count column)", numeric=True),
    Column("Agent"),
    Column("Score as printed (%)", numeric=True),
    Column("Uplift as printed", numeric=True),
    Column("Uplift unit"),
    Column("Source note"),
)


@register_section(name="source_figures", title="Figures as the source printed them")
class SourceFigures(ReceiptsSection):
    """The printed figures, one row per skill, and the files they were read from."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section (see the module docstring).

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
        table = Table(
            "source-figures",
            "Figures as the source printed them: skill-assisted score and uplift per dimension "
            "and agent (percent and percentage points, in the source's own units). "
            "No band, lift or verdict.",
            _LONG_HEAD,
            tuple(rows),
        )
        files_table = Table(
            "source-files",
            "Files read: repository, commit, path and git blob sha1 (git hash-object).",
            tuple(Column(h) for h in ("Repository", "Commit", "Path", "Git blob sha1")),
            tuple(Row(tuple(Cell(x) for x in key)) for key in sorted(files)),
        )
        html = self.page(
            params,
            ctx,
            heading_id=ctx.anchor("source-figures-h"),
            table=_by_skill(pivot, rows),
            files=files_table,
            n_skills=str(len(names)),
            n_rows=str(sum(1 for x in rows if x.cells[1].text != NO_RESULTS)),
        )
        return SectionOutput(html=html, tables=(files_table, table))


def _by_skill(pivot: list[tuple[str, dict[tuple[str, str], str]]], long_rows: list[Row]) -> Table:
    """The figures one row per skill, a column per dimension and agent (score and uplift)."""
    keys = list(dict.fromkeys(k for _, cells in pivot for k in cells))
    anchors = {row.cells[0].text: row.anchor for row in long_rows if row.anchor}
    return Table(
        "source-figures-by-skill",
        "Score with the skill, and in brackets the uplift over the run without it, per "
        "dimension and agent, exactly as the source printed them (score in percent; uplift in "
        "the source's own unit: percentage points in the catalogue's uplift_pct). — means the "
        "source printed no figure. The download has one row per figure, with the card's count "
        "column and notes.",
        (Column("Skill"), *(Column(f"{d}, {a}") for d, a in keys)),
        tuple(
            Row(
                (Cell(skill), *(Cell(cells.get(k, "—"), "") for k in keys)),
                anchor=anchors.get(skill),
                header=True,
            )
            for skill, cells in pivot
        ),
    )
