"""The section types over some of the report's receipts, each shown in turn.

``source_figures`` shows what an aggregates-only source printed, as printed (D-15);
``token_savings`` the output-token savings of each skill arm against the control (D-16) and the
baseline, every figure :func:`driftproof.stats.savings.token_savings`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial

from driftproof.pages import chart_text
from driftproof.pages.case import first_output_tokens
from driftproof.pages.cross_family import cross_family, cross_family_tables
from driftproof.pages.fidelity import fidelity_view
from driftproof.pages.printed_figures import (
    NOT_PRINTED,
    figure_rows,
    figures_count,
    files_read,
    printed_rows,
    printed_text,
)
from driftproof.pages.receipt_tables import Chart, ReceiptTables, receipt_tables, sheet_lost_link
from driftproof.pages.sheet import Sheet, sheet
from driftproof.pages.skill_fired import arm_rows, case_rows, fired_about, skill_fired_tables
from driftproof.pages.tables import Cell, Column, Row, Table, plain_table, row_of
from driftproof.pages.token_savings import (
    REFERENCES,
    count_cell,
    percent_points,
    reference,
    saving_cell,
    savings_summary,
)
from driftproof.pages.words import count_of, sheet_link_text
from driftproof.receipt import PrintedRow, Receipt
from driftproof.site import charts
from driftproof.site.sections import (
    ReceiptsParams,
    ReceiptsSection,
    SectionContext,
    SectionOutput,
    register_section,
)
from driftproof.stats.savings import ArmSavings, percent, token_savings


def band_chart(prefix: str) -> Chart:
    """A sheet's band chart, files named from ``prefix``: each case's band per arm, where any."""
    return partial(_band_chart, prefix=prefix)


def _band_chart(
    s: Sheet, anchor: Callable[[str], str], prefix: str
) -> tuple[dict[str, str] | None, dict[str, bytes]]:
    rows = [c for c in s.cases if c.numbers[0] is not None or c.numbers[2] is not None]
    if not rows:
        return None, {}
    first, second, lift = s.case_heads  # an A/A calibration's arms are its two runs
    ser = [
        chart_text.band_series(label, [(c.numbers[i], c.numbers[i + 1]) for c in rows])
        for label, i in ((first, 0), (second, 2))
    ]
    arms = "with the skill and without it" if lift == "lift" else f"in its {first} and its {second}"
    return charts.band_figure(
        anchor(prefix),
        [c.case_id for c in rows],
        ser,
        subject=f"Each case's mean {s.score_name} {arms}",
        xlabel=f"mean {s.score_name}",
    )


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
                    "link": sheet_link_text(ctx.receipts[n]),
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
    return receipt_tables(
        name,
        ctx.receipts[name],
        anchor=lambda base: ctx.anchor(f"{name}-{base}"),
        chart=band_chart("chart-bands"),
        case_link=lambda case_id: ctx.case_url(name, case_id),
        key=ctx.sheet_key(name),  # x/a and x-a, or a sheet shown twice: tables of their own
    )


@register_section(name="skill_fired", title="How often the skill fired")
class SkillFiredSection(ReceiptsSection):
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
                found = case_rows(r, row, i, ctx.sheet_url(n) + sheet_lost_link(n))
                if found:  # the case's first row carries its anchor
                    anchor = ctx.anchor(f"{n}-fired-{r.cases[i].id}")
                    cases += [Row(x, anchor if j == 0 else None, True) for j, x in enumerate(found)]
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
        lead, background = ctx.own(*cross_family_tables(cf))
        key = ctx.anchor("cross-family")
        html = self.page(params, ctx, heading_id=key, lead=lead, background=background, cf=cf)
        return SectionOutput(html=html, tables=(lead, background))


@register_section(name="fidelity", title="Fidelity pass rates")
class Fidelity(ReceiptsSection):
    """A caveman fidelity import's pass rates, as ``driftproof view`` words them (D-13, D-15)."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section's HTML and tables; SiteBuildError for a receipt not a fidelity import."""
        shown = []
        tables: list[Table] = []
        for n in self.names(params, ctx):
            f = fidelity_view(ctx.receipts[n])
            if f is None:
                raise ctx.refusal(
                    f"fidelity needs caveman fidelity imports (draws with checks); {n} is not one"
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
                dict(name=n, facts=f.summary, arms=arms, categories=categories, failures=f.failures)
            )
        html = self.page(params, ctx, heading_id=ctx.anchor("fidelity"), shown=shown)
        return SectionOutput(html=html, tables=tuple(tables))


_FIGURES_HEAD = (
    Column("Skill"),
    Column("Dimension"),
    Column("Num (the card's own count column)", numeric=True),
    Column("Agent"),
    Column("Score as printed (%)", numeric=True),
    Column("Uplift as printed", numeric=True),
    Column("Uplift unit"),
    Column("Source note"),
)

#: A skill and its printed figures by (dimension, agent).
Pivot = tuple[str, dict[tuple[str, str], str]]


def figure_tables(
    rows: Sequence[Row], files: Iterable[tuple[str, str, str, str]], pivot: Sequence[Pivot]
) -> tuple[Table, Table, Table]:
    """Printed figures (D-15): one row per figure (the CSV), the files read, one row per skill.

    The skill rows take the anchors of the figure rows that have one.
    """
    table = Table(
        "source-figures",
        "Figures as the source printed them: skill-assisted score and uplift per dimension "
        "and agent (percent and percentage points, in the source's own units). "
        "No band, lift or verdict.",
        _FIGURES_HEAD,
        tuple(rows),
    )
    files_table = Table(
        "source-files",
        "Files read: repository, commit, path and git blob sha1 (git hash-object).",
        (
            Column("Repository"),
            Column("Commit", hash=True),
            Column("Path"),
            Column("Git blob sha1", hash=True),
        ),
        tuple(Row(tuple(Cell(x) for x in key)) for key in sorted(files)),
    )
    keys = list(dict.fromkeys(k for _, cells in pivot for k in cells))
    anchors = {row.cells[0].text: row.anchor for row in rows if row.anchor}
    by_skill = Table(
        "source-figures-by-skill",
        "Score with the skill, and in brackets the uplift over the run without it, per "
        "dimension and agent, exactly as the source printed them (score in percent; uplift in "
        "the source's own unit: percentage points in the catalogue's uplift_pct). – means the "
        "source printed no figure. The download has one row per figure, with the card's count "
        "column and notes.",
        (Column("Skill"), *(Column(a, group=d) for d, a in keys)),
        tuple(
            Row(
                (Cell(skill), *(Cell(cells.get(k, NOT_PRINTED), "") for k in keys)),
                anchor=anchors.get(skill),
                header=True,
            )
            for skill, cells in pivot
        ),
    )
    return table, files_table, by_skill


@register_section(name="source_figures", title="Figures as the source printed them")
class SourceFiguresSection(ReceiptsSection):
    """The printed figures, one row per skill, and the files they were read from."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section's HTML and tables; SiteBuildError for a receipt without printed rows."""
        names = self.names(params, ctx)
        rows: list[Row] = []
        files: dict[tuple[str, str, str, str], None] = {}
        pivot: list[tuple[str, dict[tuple[str, str], str]]] = []
        shown: list[list[PrintedRow]] = []
        for n in names:
            r = ctx.receipts[n]
            printed = printed_rows(r)
            if printed is None:
                raise ctx.refusal(
                    "source_figures needs aggregates-only receipts with printed rows; "
                    f"{n} is not one"
                )
            shown.append(printed)
            files.update(dict.fromkeys(files_read(r)))
            anchor = ctx.anchor(f"skill-{r.skill.name}")
            found = figure_rows(r.skill.name, printed)
            rows += [row_of(x, anchor if i == 0 else None) for i, x in enumerate(found)]
            cells = {(x.dimension, x.agent): printed_text(x) for x in printed}
            pivot.append((r.skill.name, cells))
        table, files_table, by_skill = ctx.own(*figure_tables(rows, files, pivot))
        html = self.page(
            params,
            ctx,
            heading_id=ctx.anchor("source-figures-h"),
            table=by_skill,
            files=files_table,
            n_skills=count_of(len(names), "skill"),
            n_rows=figures_count(shown),
        )
        return SectionOutput(html=html, tables=(files_table, table))


@register_section(name="token_savings", title="Output-token savings")
class TokenSavings(ReceiptsSection):
    """The savings per skill as a chart and tables, and the tokens per case."""

    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        """The section's HTML and tables; SiteBuildError when the savings cannot be computed."""
        names = self.names(params, ctx)
        receipts = [ctx.receipts[n] for n in names]
        arms: list[ArmSavings] = []
        for n, r in zip(names, receipts, strict=True):
            try:
                arms += token_savings([r])
            except ValueError as exc:  # its message names the skill: the receipt is named here
                why = str(exc).removeprefix(f"{r.skill.name}: ")
                raise ctx.refusal(f"token_savings cannot be computed from {n}: {why}") from None
        # Drawn in percent (the axis unit); the alt text prints them back with percent().
        pct = [
            chart_text.Series(label, *percent_points([reference(a, ref) for a in arms]))
            for ref, label in REFERENCES
        ]
        n_cases = max((a.vs_baseline.n for a in arms), default=0)
        fig, files = charts.figure(
            ctx.anchor("chart-token-savings"),
            [a.skill for a in arms],
            pct,
            subject=(
                "Median output-token saving per skill, in percent of the reference arm's tokens, "
                "against the terse control and against the baseline"
            ),
            xlabel="output-token saving (%)",
            fmt=lambda v: percent(None if v is None else v / 100),
            whiskers=f"smallest to largest saving across the {count_of(n_cases, 'case')}",
            reference=0.0,
        )
        summary, cases = ctx.own(savings_summary(arms), _case_table(names, receipts, arms, ctx))
        html = self.page(params, ctx, fig=fig, summary=summary, cases=cases)
        return SectionOutput(html=html, tables=(summary, cases), files=files)


def _case_table(
    names: list[str], receipts: list[Receipt], arms: list[ArmSavings], ctx: SectionContext
) -> Table:
    first = receipts[0]  # a section shows one receipt at least: its report cites one or more
    has_control = first.arms.control is not None
    cols = ["case", "baseline tokens"] + (["control tokens"] if has_control else [])
    cols += [f"{a.skill} tokens" for a in arms] + [
        f"{a.skill} saving vs control" for a in arms if a.vs_control
    ]
    rows = []
    for case in first.cases:
        cells = [Cell(case.id), Cell(*count_cell(first_output_tokens(case.arms.baseline)))]
        if has_control:
            cells.append(Cell(*count_cell(first_output_tokens(case.arms.control))))
        for n, r in zip(names, receipts, strict=True):
            match = next((c for c in r.cases if c.id == case.id), None)
            tokens = count_cell(first_output_tokens(match.arms.with_skill) if match else None)
            # the count links to the answers it counts: the case's page
            cells.append(Cell(*tokens, ctx.case_url(n, case.id) if match is not None else None))
        cells += [
            Cell(*saving_cell(dict(a.vs_control.per_case).get(case.id)))
            for a in arms
            if a.vs_control
        ]
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
