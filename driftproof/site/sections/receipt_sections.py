"""The section types over some of the report's receipts, each shown in turn."""

from __future__ import annotations

from driftproof.errors import SiteBuildError
from driftproof.pages.cross_family import cross_family
from driftproof.pages.receipt_tables import ReceiptTables, receipt_tables
from driftproof.pages.sheet import sheet
from driftproof.pages.skill_fired import arm_rows, case_rows, fired_about
from driftproof.pages.source import fidelity_view
from driftproof.pages.tables import Column, Row, Table, plain_table, row_of, text_row
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
    return receipt_tables(
        name, r, anchor=anchor, chart=band_chart("chart-bands"), case_link=case_link
    )


_CASES_HEAD = ("case", "arm", "score band", "skill fired (measured draws)", "lost draws")
_ARMS_HEAD = ("receipt", "arm", "source's name for the arm", "skill fired")


@register_section(name="skill_fired", title="How often the skill fired")
class SkillFired(ReceiptsSection):
    """How often the skill fired, per case and arm and per arm, beside the scores (D-9)."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section (see the module docstring)."""
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
        case_table = Table(
            f"{key}-cases",
            "Per case and arm: the band (mean ± one sample standard deviation of the "
            "per-draw scores, n = measured draws) and, beside it, the measured draws on which "
            "the source saw the skill fire. Lost draws are left out of both and listed with "
            "their reasons.",
            tuple(Column(h, h.startswith("skill fired")) for h in _CASES_HEAD),
            tuple(cases),
        )
        arm_table = Table(
            f"{key}-arms",
            "Per arm: how often the skill fired, as the receipt records it "
            "(arms.<arm>.skill_fired: draws it fired on, of measured draws where firing was "
            "observed). Beside the score, never inside it.",
            tuple(Column(h, h == "skill fired") for h in _ARMS_HEAD),
            tuple(arms),
        )
        html = self.page(params, ctx, heading_id=key, cases=case_table, arms=arm_table, about=about)
        return SectionOutput(html=html, tables=(arm_table, case_table))


_LEAD = ("model", "family", "surface", "lift", "per 1,000 skill tokens", "reading")


@register_section(name="cross_family", title="What the skill adds to each model")
class CrossFamilySection(ReceiptsSection):
    """One skill across model families, led by each model's lift; raw scores are background."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section (see the module docstring)."""
        cf = cross_family([(n, ctx.receipts[n]) for n in self.names(params, ctx)])
        lead = Table(
            "lift-by-model",
            "What the skill adds to each model: lift (with skill minus baseline, equal "
            "weight per case) and per 1,000 skill tokens; rows in family and model order, "
            "not a ranking",
            tuple(Column(c, c in ("lift", "per 1,000 skill tokens")) for c in _LEAD),
            tuple(
                text_row(x.model, x.family, x.surface, x.lift, x.lift_per_1k, x.reading)
                for x in cf.rows
            ),
        )
        background = Table(
            "raw-scores-by-model",
            "Background, not a ranking: each model's raw mean judge score "
            "over cases, with the skill and without it",
            (Column("model"), Column("with skill", True), Column("baseline", True)),
            tuple(
                text_row(x.model, x.background_with_skill, x.background_baseline) for x in cf.rows
            ),
        )
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
        """The section (see the module docstring).

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
