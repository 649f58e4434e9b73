"""Section ``skill_fired``: how often the skill fired, beside the scores and never inside them.

Per receipt (figures from :mod:`driftproof.pages.skill_fired`): one row per case and arm with
its band, the measured draws on which the source saw the skill fire and the lost draws with
their reasons; one row per arm with the rate the receipt records; and the receipt's reading
with the source's notes. Parameters: :class:`~driftproof.site.sections.ReceiptsParams`.
"""

from __future__ import annotations

from driftproof.pages.sheet import sheet
from driftproof.pages.skill_fired import arm_rows, case_rows, fired_about
from driftproof.site.sections import (
    ReceiptsParams,
    ReceiptsSection,
    SectionContext,
    SectionOutput,
    register_section,
)
from driftproof.site.tables import Column, Row, Table, row_of

__all__ = ["SkillFired"]

_CASES_HEAD = ("case", "arm", "score band", "skill fired (measured draws)", "lost draws")
_ARMS_HEAD = ("receipt", "arm", "source's name for the arm", "skill fired")


@register_section(name="skill_fired", title="How often the skill fired")
class SkillFired(ReceiptsSection):
    """Per case and arm, and per arm: how often the skill fired."""

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
