"""Section ``cross_family``: one skill across model families, led by each model's lift.

Method, "Other models, and one grader for all": the report leads with what the skill adds to
each model; raw scores across families are background, never a ranking. Every figure and word
is :func:`driftproof.pages.cross_family.cross_family`'s (rows in family and model order).
Parameters: :class:`~driftproof.site.sections.ReceiptsParams`.
"""

from __future__ import annotations

from driftproof.pages.cross_family import cross_family
from driftproof.site.sections import (
    ReceiptsParams,
    ReceiptsSection,
    SectionContext,
    SectionOutput,
    register_section,
)
from driftproof.site.tables import Column, Table, text_row

__all__ = ["CrossFamilySection"]

_LEAD = ("model", "family", "surface", "lift", "per 1,000 skill tokens", "reading")


@register_section(name="cross_family", title="What the skill adds to each model")
class CrossFamilySection(ReceiptsSection):
    """The lift per model, then each model's raw scores as background."""

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
