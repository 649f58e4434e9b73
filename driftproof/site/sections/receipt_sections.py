"""The section types over some of the report's receipts, each shown in turn."""

from __future__ import annotations

from driftproof.errors import SiteBuildError
from driftproof.pages.cross_family import cross_family
from driftproof.pages.receipt_tables import ReceiptTables, receipt_tables
from driftproof.pages.report_tables import cross_family_tables, skill_fired_tables
from driftproof.pages.sheet import sheet
from driftproof.pages.skill_fired import arm_rows, case_rows, fired_about
from driftproof.pages.source import fidelity_view
from driftproof.pages.tables import Row, Table, plain_table, row_of
from driftproof.site.receipt_page import band_chart
from driftproof.site.sections import (
    ReceiptsParams,
    ReceiptsSection,
    SectionContext,
    SectionOutput,
    register_section,
)

__all__ = ["CrossFamilySection", "Fidelity", "ReceiptSheets", "SkillFired"]


@register_section(name="receipt_sheets", title="Receipt sheets")
class ReceiptSheets(ReceiptsSection):
    """Each receipt's sheet (D-7, D-14) with a band chart, its case rows linking to case pages."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section's HTML and tables."""
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
    return receipt_tables(
        name, r, anchor=anchor, chart=band_chart("chart-bands"), case_link=case_link
    )


@register_section(name="skill_fired", title="How often the skill fired")
class SkillFired(ReceiptsSection):
    """How often the skill fired, per case and arm and per arm, beside the scores (D-9)."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section's HTML and tables."""
        cases: list[Row] = []
        arms: list[Row] = []
        about = []
        for n in self.names(params, ctx):
            r = ctx.receipts[n]
            s = sheet(r)
            arms += [row_of(x) for x in arm_rows(n, r)]
            for i, row in enumerate(s.cases):
                found = case_rows(r, row, i)
                if found:  # the case's first row carries its anchor
                    anchor = ctx.anchor(f"{n}-fired-{r.cases[i].id}")
                    cases += [row_of(x, anchor if j == 0 else None) for j, x in enumerate(found)]
            about.append(fired_about(n, r, s))
        key = ctx.anchor("skill-fired")
        case_table, arm_table = skill_fired_tables(key, cases, arms)
        html = self.page(params, ctx, heading_id=key, cases=case_table, arms=arm_table, about=about)
        return SectionOutput(html=html, tables=(arm_table, case_table))


@register_section(name="cross_family", title="What the skill adds to each model")
class CrossFamilySection(ReceiptsSection):
    """One skill across model families, led by each model's lift; raw scores are background."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section's HTML and tables."""
        cf = cross_family([(n, ctx.receipts[n]) for n in self.names(params, ctx)])
        lead, background = cross_family_tables(cf)
        html = self.page(
            params,
            ctx,
            heading_id=ctx.anchor("cross-family"),
            lead=lead,
            background=background,
            grader_note=cf.grader_note,
            caveats=list(cf.caveats),
        )
        return SectionOutput(html=html, tables=(lead, background))


@register_section(name="fidelity", title="Fidelity pass rates")
class Fidelity(ReceiptsSection):
    """A caveman fidelity import's pass rates, as ``driftproof view`` words them (D-13, D-15)."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section's HTML and tables.

        Raises:
            SiteBuildError: a receipt is not a caveman fidelity import.
        """
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
            key = ctx.anchor(f"{n}-fidelity")
            caption = f"Per arm: {', '.join(h.lower() for h in f.arm_head[1:])}. {f.note}"
            arms = plain_table(f"{key}-arms", caption, f.arm_head, f.arm_rows)
            categories = None
            if f.category_rows:
                caption = "Passed / answered per category and arm."
                categories = plain_table(
                    f"{key}-categories", caption, f.category_head, f.category_rows
                )
            tables += [t for t in (arms, categories) if t is not None]
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
