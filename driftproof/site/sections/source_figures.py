"""Section ``source_figures``: the figures an aggregates-only source printed, as printed (D-15).

For receipts marked ``uncertainty_unavailable: "aggregates_only"`` (NVIDIA's benchmark
cards and catalogue today), one table row per skill × dimension × agent with the score
and the uplift exactly as the source printed them, the uplift's unit as printed (or
"unstated" when it printed none), and the source's own note; a second table names the
files read with their repository, commit and git blob sha1. No band, no lift and no
verdict are computed or shown (method, "Figures a source printed give no verdict").

Parameters::

    - type: source_figures
      receipts: [a, b]     # optional; default: every receipt of the report
      title: ...           # optional heading

Written by the importers engineer, following the registry of :mod:`driftproof.site.sections`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from driftproof.errors import SiteBuildError
from driftproof.site._tables import Cell, Column, Row, Table
from driftproof.site.sections import ReceiptsSection, SectionOutput, register_section
from driftproof.site.sheet import printed_rows

if TYPE_CHECKING:
    from driftproof.site.sections import ReceiptsParams, SectionContext

__all__ = ["SourceFigures"]


def _number(v: Any) -> str:
    """A number as the JSON source wrote it (``92.0``, ``-3.0``); ``""`` for none."""
    if v is None:
        return ""
    return json.dumps(v)


def _figure(fig: dict[str, Any] | None, printed_part: str | None = None) -> Cell:
    """The cell text as printed (a card's own text), else the JSON number as written."""
    if not fig:
        return Cell("—", "")
    value = fig.get("value")
    return Cell(printed_part if printed_part else _number(value), _number(value))


def _unit(up: dict[str, Any] | None) -> str:
    if not up:
        return ""
    unit = up.get("unit")
    if unit is None:
        return "unstated"
    if up.get("field"):
        return f"percentage points (field {up['field']})"
    return {"%": "% (as printed)", "points": "points", "pp": "pp"}.get(str(unit), str(unit))


def _files_read(sf: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """The files the source figures were read from: repository, commit, path, git blob sha1."""
    return [
        (
            str(sf.get("repository") or "not recorded"),
            str(sf.get("commit") or "not recorded"),
            str(f.get("path")),
            str(f.get("git_blob_sha1")),
        )
        for f in sf.get("files") or []
    ]


def _skill_rows(skill: str, printed: list[dict[str, Any]], anchor: str) -> list[Row]:
    """The long table's rows of one skill: one per figure printed (the first carries
    ``anchor``), or one saying that the source printed no result."""
    if not printed:
        return [
            Row(
                (
                    Cell(skill),
                    Cell("no results printed"),
                    Cell("", ""),
                    Cell(""),
                    Cell("—", ""),
                    Cell("—", ""),
                    Cell(""),
                    Cell(""),
                ),
                anchor=anchor,
                header=True,
            )
        ]
    rows = []
    for i, row in enumerate(printed):
        up = row.get("uplift")
        score_printed = row["printed"].split("(")[0].strip() if row.get("printed") else None
        rows.append(
            Row(
                (
                    Cell(skill),
                    Cell(str(row.get("dimension"))),
                    Cell(
                        "" if row.get("num") is None else str(row["num"]),
                        _number(row.get("num")),
                    ),
                    Cell(str(row.get("agent"))),
                    _figure(row.get("score"), score_printed),
                    _figure(up, up.get("printed")) if up else Cell("—", ""),
                    Cell(_unit(up)),
                    Cell(str(row.get("note") or "")),
                ),
                anchor=anchor if i == 0 else None,
                header=True,
            )
        )
    return rows


@register_section(name="source_figures", title="Figures as the source printed them")
class SourceFigures(ReceiptsSection):
    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        names = self.names(params, ctx)
        rows: list[Row] = []
        files: dict[tuple[str, str, str, str], None] = {}
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
            files.update(dict.fromkeys(_files_read(r.source_figures or {})))
            rows += _skill_rows(r.skill.name, printed, ctx.anchor(f"skill-{r.skill.name}"))
        table = Table(
            id="source-figures",
            caption=(
                "Figures as the source printed them: skill-assisted score and uplift per dimension "
                "and agent (percent and percentage points, in the source's own units). "
                "No band, lift or verdict."
            ),
            columns=(
                Column("Skill"),
                Column("Dimension"),
                Column("Num (the card's own count column)", numeric=True),
                Column("Agent"),
                Column("Score as printed (%)", numeric=True),
                Column("Uplift as printed", numeric=True),
                Column("Uplift unit"),
                Column("Source note"),
            ),
            rows=tuple(rows),
        )
        files_table = Table(
            id="source-files",
            caption="Files read: repository, commit, path and git blob sha1 (git hash-object).",
            columns=(
                Column("Repository"),
                Column("Commit"),
                Column("Path"),
                Column("Git blob sha1"),
            ),
            rows=tuple(Row(tuple(Cell(x) for x in key)) for key in sorted(files)),
        )
        html = self.page(
            params,
            ctx,
            heading_id=ctx.anchor("source-figures-h"),
            table=_pivot(names, ctx, rows),
            files=files_table,
            n_skills=str(len(names)),
            n_rows=str(sum(1 for x in rows if x.cells[1].text != "no results printed")),
        )
        return SectionOutput(html=html, tables=(files_table, table))


def _pivot(names: list[str], ctx: SectionContext, long_rows: list[Row]) -> Table:
    """The page's view of the same figures: one row per skill, one column per dimension × agent,
    each cell the score and the uplift as printed. (The long table, one row per figure, is the
    CSV download.)"""
    columns: dict[tuple[str, str], None] = {}
    per_skill: list[tuple[str, dict[tuple[str, str], str]]] = []
    for n in names:
        r = ctx.receipts[n]
        cells: dict[tuple[str, str], str] = {}
        for row in printed_rows(r) or []:
            key = (str(row.get("dimension")), str(row.get("agent")))
            columns.setdefault(key, None)
            up = row.get("uplift")
            if row.get("printed"):
                text = str(row["printed"])
            else:
                score = _number((row.get("score") or {}).get("value"))
                upt = (up.get("printed") or _number(up.get("value"))) if up else ""
                text = f"{score} ({upt})" if upt else score
            cells[key] = text
        per_skill.append((r.skill.name, cells))
    keys = list(columns)
    anchors = {row.cells[0].text: row.anchor for row in long_rows if row.anchor}
    rows = tuple(
        Row(
            (Cell(skill), *(Cell(cells.get(k, "—"), "") for k in keys)),
            anchor=anchors.get(skill),
            header=True,
        )
        for skill, cells in per_skill
    )
    return Table(
        id="source-figures-by-skill",
        caption=(
            "Score with the skill, and in brackets the uplift over the run without it, per "
            "dimension and agent, exactly as the source printed them (score in percent; uplift in "
            "the source's own unit: percentage points in the catalogue's uplift_pct). — means the "
            "source printed no figure. The download has one row per figure, with the card's count "
            "column and notes."
        ),
        columns=(Column("Skill"), *(Column(f"{d}, {a}") for d, a in keys)),
        rows=rows,
    )
