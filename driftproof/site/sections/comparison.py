"""Section ``comparison``: two receipts compared case by case, in the words of ``driftproof diff``.

The with-skill arms of each case (D-6, lost draws per D-9), as a table and a band chart, and
both suite lifts over the common cases; a side that gets no verdict shows the refusal lines,
then the bands as context where both sides have bands. Parameters::

    - type: comparison
      a: earlier-receipt       # receipt names, both among the report's receipts
      b: later-receipt
      a_label: "March run"     # optional display names (default: the receipt names)
      b_label: "April run"
      title: ...               # optional heading
"""

from __future__ import annotations

from pydantic import Field

from driftproof.pages import chart_text
from driftproof.pages.band_sources import band_facts
from driftproof.pages.comparison import (
    CONTEXT_ONLY,
    Comparison,
    after_summary,
    compare_receipts,
    lift_line,
    paired_context,
    report_rows,
)
from driftproof.pages.lost_groups import DIFF_LOST_HEAD, diff_lost
from driftproof.pages.tables import Cell, Column, Row, Table
from driftproof.pages.words import score_name
from driftproof.site import charts
from driftproof.site.sections import (
    SectionContext,
    SectionOutput,
    SectionParams,
    receipt_name,
    receipts_check,
    register_section,
)
from driftproof.stats import CaseVerdict


class ComparisonParams(SectionParams):
    """Parameters of a ``comparison`` section (see the module docstring)."""

    a: str = Field(min_length=1)
    b: str = Field(min_length=1)
    a_label: str | None = Field(default=None, min_length=1, max_length=80)
    b_label: str | None = Field(default=None, min_length=1, max_length=80)


@register_section(name="comparison")
class ComparisonSection:
    """Two of the report's receipts compared case by case."""

    Params = ComparisonParams

    def check(
        self, params: ComparisonParams, report_receipts: tuple[str, ...]
    ) -> list[tuple[str, str]]:
        """``a`` and ``b`` must be receipts of the report."""
        return [
            (f"/{k}", msg)
            for k in ("a", "b")
            for _, msg in receipts_check([getattr(params, k)], report_receipts)
        ]

    def render(self, params: ComparisonParams, ctx: SectionContext) -> SectionOutput:
        """The section's HTML and tables."""
        a, b = receipt_name(params.a), receipt_name(params.b)
        an, bn = params.a_label or a, params.b_label or b
        c = compare_receipts(
            ctx.receipts[a], ctx.receipts[b], a_name=an, b_name=bn, false_alarms=True
        )
        heading = ctx.anchor(f"comparison-{a}-{b}")
        # as diff: with no verdict, each common case's bands as context, where both have bands
        rows = c.context_rows if c.refusals else c.rows
        # its row ids before the chart's
        table = ctx.own(_table(c, rows, ctx, a, b))[0] if rows else None
        name = score_name(ctx.receipts[a], ctx.receipts[b])
        chart, files = _chart(c, rows, ctx, heading, name)
        html = ctx.render(
            "sections/comparison.html",
            title=params.title or f"{an} against {bn}",
            heading_id=heading,
            c=c,
            after=after_summary(c),
            context_only=CONTEXT_ONLY,
            lifts=[x for x in (lift_line(c), paired_context(c)) if x],
            table=table,
            lost=diff_lost(rows),
            lost_head=DIFF_LOST_HEAD,
            fig=chart,
            a_url=ctx.sheet_url(a),
            b_url=ctx.sheet_url(b),
            a_name=an,
            b_name=bn,
            facts=[(an, band_facts(ctx.receipts[a])), (bn, band_facts(ctx.receipts[b]))],
        )
        return SectionOutput(html=html, tables=(table,) if table else (), files=files)


def _table(
    c: Comparison, shown: tuple[CaseVerdict, ...], ctx: SectionContext, a: str, b: str
) -> Table:
    """The rows ``driftproof diff`` prints, of the cases ``shown``, anchored ``#case-<id>``.

    Each row links to the later receipt's case page.
    """
    header, rows = report_rows(c)
    return Table(
        f"comparison-{a}-{b}".replace("/", "-"),
        f"{c.a_name} (earlier) against {c.b_name} (later): with-skill bands, mean ± one sample "
        "sd; Δ = later − earlier, worked from the unrounded means",
        tuple(Column(h, numeric=i in (1, 2, 3)) for i, h in enumerate(header)),
        tuple(
            Row(
                tuple(Cell(x) for x in r),
                anchor=ctx.anchor(f"case-{v.case_id}"),
                header=True,
                link=ctx.case_url(b, v.case_id),  # every row's case is in both receipts
            )
            for r, v in zip(rows, shown, strict=True)
        ),
    )


def _chart(
    c: Comparison, shown: tuple[CaseVerdict, ...], ctx: SectionContext, heading: str, name: str
) -> tuple[dict[str, str] | None, dict[str, bytes]]:
    """Each side's with-skill band per case of ``shown`` (where a side has a mean) as error bars.

    ``name``: what the scores are (:func:`~driftproof.pages.words.score_name`).
    """
    drawn = [v for v in shown if v.a.mean is not None or v.b.mean is not None]
    if not drawn:
        return None, {}
    ser = [
        chart_text.band_series(name, [(getattr(v, side).mean, getattr(v, side).sd) for v in drawn])
        for name, side in ((f"{c.a_name} (earlier)", "a"), (f"{c.b_name} (later)", "b"))
    ]
    return charts.band_figure(
        ctx.anchor(f"chart-{heading}"),
        [v.case_id for v in drawn],
        ser,
        subject=f"Each case's with-skill mean {name} in the earlier and the later run",
        xlabel=f"with-skill mean {name}",
    )
