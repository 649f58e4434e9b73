"""Section ``comparison``: two receipts compared case by case, in the words of ``driftproof diff``.

The comparison is :func:`driftproof.compare.compare_receipts` (the with-skill arms of
each case, D-6, lost draws per D-9); the table's header and rows are
:func:`driftproof.compare_report.report_rows`, the same strings the CLI prints. A side
that gets no verdict (below TESTED, smoke run, aggregates only) shows the refusal
lines and no table. A chart draws each side's with-skill band as an error bar
(mean ± one sample sd), with the table beside it. Case rows are anchored ``#case-<id>``.

Parameters::

    - type: comparison
      a: earlier-receipt       # receipt names, both among the report's receipts
      b: later-receipt
      a_label: "March run"     # optional display names (default: the receipt names)
      b_label: "April run"
      title: ...               # optional heading
"""

from __future__ import annotations

from pydantic import Field

from driftproof.band_facts import band_facts
from driftproof.compare import compare_receipts
from driftproof.compare_report import report_rows
from driftproof.site import charts
from driftproof.site.report_source import receipt_name
from driftproof.site.sections import (
    Cell,
    Column,
    Row,
    SectionContext,
    SectionOutput,
    SectionParams,
    Table,
    receipts_check,
    register_section,
)
from driftproof.view import fmt


class Params(SectionParams):
    a: str = Field(min_length=1)
    b: str = Field(min_length=1)
    a_label: str | None = Field(default=None, min_length=1, max_length=80)
    b_label: str | None = Field(default=None, min_length=1, max_length=80)


@register_section
class ComparisonSection:
    name = "comparison"
    Params = Params

    def check(self, params: Params, report_receipts: tuple[str, ...]) -> list[tuple[str, str]]:
        return [
            (f"/{k}", msg)
            for k in ("a", "b")
            for _, msg in receipts_check([getattr(params, k)], report_receipts)
        ]

    def render(self, params: Params, ctx: SectionContext) -> SectionOutput:
        a, b = receipt_name(params.a), receipt_name(params.b)
        an, bn = params.a_label or a, params.b_label or b
        c = compare_receipts(ctx.receipts[a], ctx.receipts[b], a_name=an, b_name=bn)
        heading = ctx.anchor(f"comparison-{a}-{b}")
        table, chart, files = None, None, {}
        if not c.refusals:
            header, rows = report_rows(c)
            table = Table(
                f"comparison-{a}-{b}".replace("/", "-"),
                f"{an} (earlier) against {bn} (later): with-skill bands, mean ± one sample sd; Δ = later − earlier",
                tuple(Column(h, numeric=i in (1, 2, 3)) for i, h in enumerate(header)),
                tuple(
                    Row(
                        tuple(Cell(x) for x in r),
                        anchor=ctx.anchor(f"case-{v.case_id}"),
                        header=True,
                        link=_later_case(ctx, b, v.case_id),
                    )
                    for r, v in zip(rows, c.rows, strict=True)
                ),
            )
            drawn = [v for v in c.rows if v.a.mean is not None or v.b.mean is not None]
            if drawn:
                ser = [
                    charts.Series(
                        name,
                        tuple(getattr(v, side).mean for v in drawn),
                        tuple(getattr(v, side).low for v in drawn),
                        tuple(getattr(v, side).high for v in drawn),
                    )
                    for name, side in ((f"{an} (earlier)", "a"), (f"{bn} (later)", "b"))
                ]
                cats = [v.case_id for v in drawn]
                chart, files = charts.figure(
                    ctx.anchor(f"chart-{heading}"),
                    cats,
                    ser,
                    subject="Each case's with-skill mean judge score in the earlier and the later run",
                    xlabel="with-skill mean score on the judge scale",
                    fmt=fmt,
                    whiskers="the band, mean minus to mean plus one sample standard deviation",
                )
        after = [
            x
            for x in (
                (
                    f"{c.underpowered_sentence} ({c.underpowered_reason})"
                    if c.underpowered_sentence
                    else None
                ),
                c.not_like_for_like,
            )
            if x
        ]
        html = ctx.render(
            "sections/comparison.html",
            title=params.title or f"{an} against {bn}",
            heading_id=heading,
            c=c,
            after=after,
            table=table,
            fig=chart,
            a_url=ctx.sheet_url(a),
            b_url=ctx.sheet_url(b),
            a_name=an,
            b_name=bn,
            facts=[(an, band_facts(ctx.receipts[a])), (bn, band_facts(ctx.receipts[b]))],
        )
        return SectionOutput(html=html, tables=(table,) if table else (), files=files)


def _later_case(ctx: SectionContext, name: str, case_id: str) -> str | None:
    """The later receipt's evidence page of the case, when that receipt has the case."""
    try:
        return ctx.case_url(name, case_id)
    except KeyError:
        return None
