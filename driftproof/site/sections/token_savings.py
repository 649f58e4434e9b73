"""Section ``token_savings``: output-token savings of each skill arm (Report 001, caveman).

For each receipt (one skill each), the savings in output tokens of the skill arm against
the control arm (the honest delta, D-16) and against the baseline: median, mean, min,
max and sample stdev across cases, with the token totals; a chart (median, whiskers
min to max) and the same numbers in tables, plus a per-case table (``#case-<id>``).

Parameters::

    - type: token_savings
      receipts: [caveman, caveman-cn]   # optional; default: every receipt of the report
      title: ...                         # optional heading

Every figure comes from the core, :func:`driftproof.stats.savings.token_savings`
(caveman's own arithmetic); percentages are printed with its :func:`percent`.
"""

from __future__ import annotations

from typing import Any

from driftproof.errors import SiteBuildError
from driftproof.receipt import Receipt
from driftproof.site import charts
from driftproof.site._render import fmt_int
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
from driftproof.stats.savings import ArmSavings, Savings, percent, token_savings

REFERENCES = (("control", "vs terse control"), ("baseline", "vs baseline"))


def _output(arm: Any) -> int | None:
    """The output-token count of the arm's first draw, as the receipt records it (display only)."""
    for d in arm.draws:
        if d.tokens is not None and d.tokens.output is not None:
            return int(d.tokens.output)
    return None


class Params(SectionParams):
    receipts: list[str] | None = None


@register_section
class TokenSavings:
    name = "token_savings"
    Params = Params

    def check(self, params: Params, report_receipts: tuple[str, ...]) -> list[tuple[str, str]]:
        return receipts_check(params.receipts, report_receipts)

    def render(self, params: Params, ctx: SectionContext) -> SectionOutput:
        names = (
            [receipt_name(n) for n in params.receipts] if params.receipts else list(ctx.receipts)
        )
        receipts = [ctx.receipts[n] for n in names]
        try:
            arms = token_savings(receipts)
        except ValueError as exc:
            raise SiteBuildError.at(
                ctx.report.source, "/sections", f"token_savings cannot be computed: {exc}"
            ) from None
        labels = [a.skill for a in arms]
        series = [
            charts.Series(
                label,
                tuple(_ref(a, ref) and _ref(a, ref).median for a in arms),
                tuple(_ref(a, ref) and _ref(a, ref).min for a in arms),
                tuple(_ref(a, ref) and _ref(a, ref).max for a in arms),
            )
            for ref, label in REFERENCES
        ]
        pct = [
            charts.Series(
                s.label,
                *(
                    tuple(None if v is None else 100 * v for v in t)
                    for t in (s.values, s.low, s.high)
                ),
            )
            for s in series
        ]
        n_cases = max((a.vs_baseline.n for a in arms), default=0)
        fig, files = charts.figure(
            ctx.anchor("chart-token-savings"),
            labels,
            pct,
            subject=(
                "Median output-token saving per skill, in percent of the reference arm's tokens, against the "
                "terse control and against the baseline"
            ),
            xlabel="output-token saving (%)",
            fmt=lambda v: percent(None if v is None else v / 100),
            whiskers=f"smallest to largest saving across the {n_cases} cases",
            reference=0.0,
        )
        summary = _summary_table(arms)
        cases = _case_table(names, receipts, arms, ctx)
        html = ctx.render(
            "sections/token_savings.html",
            title=params.title or "Output-token savings",
            fig=fig,
            summary=summary,
            cases=cases,
            n_cases=str(n_cases),
            counted_by=sorted({a.counted_by for a in arms}),
        )
        return SectionOutput(html=html, tables=(summary, cases), files=files)


def _ref(a: ArmSavings, ref: str) -> Savings | None:
    return a.vs_control if ref == "control" else a.vs_baseline


def _summary_table(arms: list[ArmSavings]) -> Table:
    cols = (
        "skill",
        "against",
        "median",
        "mean",
        "min",
        "max",
        "stdev",
        "cases",
        "skill output tokens",
        "reference output tokens",
    )
    rows = []
    for a in arms:
        for ref, label in REFERENCES:
            s = _ref(a, ref)
            if s is None:
                continue
            figures = [Cell(percent(v), _raw(v)) for v in (s.median, s.mean, s.min, s.max)]
            figures.append(Cell(percent(s.stdev, signed=False), _raw(s.stdev)))
            rows.append(
                Row(
                    (
                        Cell(a.skill),
                        Cell(label),
                        *figures,
                        Cell(str(s.n)),
                        Cell(fmt_int(s.skill_tokens), str(s.skill_tokens)),
                        Cell(fmt_int(s.reference_tokens), str(s.reference_tokens)),
                    ),
                    header=True,
                )
            )
    controls = {
        (a.control_vs_baseline, a.control_tokens, a.baseline_tokens)
        for a in arms
        if a.control_tokens is not None
    }
    for saving, ctl, base in sorted(controls, key=lambda t: (t[1], t[2])):
        rows.append(
            Row(
                (
                    Cell("terse control alone"),
                    Cell("vs baseline (ratio of totals)"),
                    Cell(percent(saving), _raw(saving)),
                    Cell("–", ""),
                    Cell("–", ""),
                    Cell("–", ""),
                    Cell("–", ""),
                    Cell("–", ""),
                    Cell(fmt_int(ctl), str(ctl)),
                    Cell(fmt_int(base), str(base)),
                ),
                header=True,
            )
        )
    return Table(
        "token-savings",
        "Output-token savings across cases: saving = 1 − skill tokens ÷ reference tokens, "
        "per case; stdev is the sample standard deviation",
        tuple(Column(c, numeric=i >= 2) for i, c in enumerate(cols)),
        tuple(rows),
    )


def _case_table(
    names: list[str], receipts: list[Receipt], arms: list[ArmSavings], ctx: SectionContext
) -> Table:
    first = receipts[0] if receipts else None
    has_control = first is not None and first.arms.control is not None
    cols = ["case", "baseline tokens"] + (["control tokens"] if has_control else [])
    cols += [f"{a.skill} tokens" for a in arms] + [
        f"{a.skill} saving vs control" for a in arms if a.vs_control
    ]
    rows = []
    for i, case in enumerate(first.cases if first else []):
        cells = [Cell(case.id), _count(_output(case.arms.baseline))]
        if has_control:
            cells.append(_count(_output(case.arms.control) if case.arms.control else None))
        for n, r in zip(names, receipts, strict=True):
            match = next((c for c in r.cases if c.id == case.id), None)
            cell = _count(_output(match.arms.with_skill) if match else None)
            if (
                match is not None
            ):  # the count links to the answers it counts: the case's evidence page
                cell = Cell(cell.text, cell.value, ctx.case_url(n, case.id))
            cells.append(cell)
        for a in arms:
            if a.vs_control:
                v = dict(a.vs_control.per_case).get(case.id)
                cells.append(Cell(percent(v), _raw(v)))
        rows.append(
            Row(
                tuple(cells),
                anchor=ctx.anchor(f"case-{case.id}"),
                header=True,
                link=ctx.case_url(names[0], case.id),
            )
        )
    return Table(
        "output-tokens-per-case",
        "Output tokens per case and arm, and each skill's saving against the control",
        tuple(Column(c, numeric=i > 0) for i, c in enumerate(cols)),
        tuple(rows),
    )


def _count(v: int | None) -> Cell:
    return Cell(fmt_int(v), "" if v is None else str(v))


def _raw(v: float | None) -> str:
    return "" if v is None else repr(v)
