"""Section ``fidelity``: a caveman fidelity import's pass rates, as ``driftproof view`` says.

From :func:`driftproof.pages.sheet_caveman.fidelity_view`; no verdict (D-15). Per receipt:
the facts of its report, one row per arm (an arm the source did not record reads "not
recorded", D-13), the rows per category when there are any, and every failure. Parameters:
:class:`~driftproof.site.sections.ReceiptsParams`.
"""

from __future__ import annotations

from driftproof.errors import SiteBuildError
from driftproof.pages.sheet_caveman import fidelity_view
from driftproof.site.sections import (
    ReceiptsParams,
    ReceiptsSection,
    SectionContext,
    SectionOutput,
    register_section,
)
from driftproof.site.tables import Table, plain_table

__all__ = ["Fidelity"]


@register_section(name="fidelity", title="Fidelity pass rates")
class Fidelity(ReceiptsSection):
    """Each receipt's fidelity pass rates per arm and category, and its failures."""

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
