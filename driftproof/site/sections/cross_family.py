"""Section ``cross_family``: one skill across model families, led by each model's lift.

Method, "Other models, and one grader for all": a report comparing model families leads
with what the skill adds to each model; raw scores across families are background,
never a ranking. Every figure and word comes from :func:`driftproof.pages.cross_family.cross_family`
(rows ordered by family and model name, never by a score).

Parameters::

    - type: cross_family
      receipts: [claude-run, gpt-run]   # optional; default: every receipt of the report
      title: ...                         # optional heading
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from driftproof.pages.cross_family import cross_family
from driftproof.site._tables import Column, Table, text_row
from driftproof.site.sections import ReceiptsSection, SectionOutput, register_section

if TYPE_CHECKING:
    from driftproof.site.sections import ReceiptsParams, SectionContext

__all__ = ["CrossFamilySection"]


@register_section(name="cross_family", title="What the skill adds to each model")
class CrossFamilySection(ReceiptsSection):
    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        cf = cross_family([(n, ctx.receipts[n]) for n in self.names(params, ctx)])
        lead = Table(
            "lift-by-model",
            "What the skill adds to each model: lift (with skill minus baseline, equal "
            "weight per case) and per 1,000 skill tokens; rows in family and model order, "
            "not a ranking",
            (
                Column("model"),
                Column("family"),
                Column("surface"),
                Column("lift", True),
                Column("per 1,000 skill tokens", True),
                Column("reading"),
            ),
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
