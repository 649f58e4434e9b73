"""The receipt sheet and its lift breakdown as text, Markdown or JSON.

What ``driftproof view`` prints, and ``driftproof diff --lift-breakdown`` after the comparison.

Printers only lay out the strings of the page model; they compute nothing (STYLE-EXAMPLES
19). Untrusted strings (case ids, reasons, model names, file names) are printed with control
characters made visible (text) or escaped (Markdown), :mod:`driftproof.render.escape`.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Literal

from driftproof.pages.sheet import (
    ArmSummary,
    BreakdownRow,
    BreakdownView,
    CaseRow,
    Fact,
    FidelityView,
    Sheet,
    SourceFigureRow,
    UsageView,
)
from driftproof.pages.source import SOURCE_HEAD, SOURCE_TITLE, USAGE_TITLE
from driftproof.render.escape import md_text, terminal_safe
from driftproof.render.layout import md_facts, md_table, text_facts, text_table

__all__ = [
    "FIGURES_TITLE",
    "Format",
    "breakdown_document",
    "breakdown_markdown",
    "breakdown_text",
    "sheet_json",
    "sheet_markdown",
    "sheet_text",
]

#: The output formats of ``view`` and ``diff``.
Format = Literal["text", "markdown", "json"]

#: Heading of the source figures, as the site's table names them.
FIGURES_TITLE = "Figures as the source printed them"

_CASE_HEAD = (
    "case",
    "with skill",
    "baseline",
    "lift",
    "verdict",
    "checks",
    "lost draws",
    "output tokens",
)
_ARM_HEAD = (
    "arm",
    "draws",
    "lost",
    "refusals",
    "skill fired (beside the score, never in it)",
    "output tokens",
)
_FIG_HEAD = (
    "dimension",
    "agent",
    "score as printed",
    "uplift as printed",
    "count column (as printed)",
    "note",
)
_BD_HEAD = (
    "case",
    "with skill mean ± spread",
    "baseline mean ± spread",
    "lift",
    "measured/drawn/lost (with · base)",
    "lift without it",
    "label",
    "note",
)


def _case_cells(c: CaseRow) -> list[str]:
    return [
        c.case_id,
        c.with_skill,
        c.baseline,
        c.lift,
        c.verdict,
        c.checks,
        c.lost,
        c.output_tokens,
    ]


def _arm_cells(a: ArmSummary) -> list[str]:
    return [a.arm, a.draws, a.lost, a.refusals, a.skill_fired, a.output_tokens]


def _fig_cells(f: SourceFigureRow) -> list[str]:
    return [f.dimension, f.agent, f.score, f.uplift, f.count, f.note]


def _bd_cells(r: BreakdownRow) -> list[str]:
    return [r.case_id, r.with_skill, r.baseline, r.lift, r.counts, r.lift_without, r.label, r.note]


def _lift_facts(s: Sheet) -> tuple[Fact, ...]:
    lift = [Fact("lift", s.lift), Fact("per 1,000 tokens", s.lift_per_1k)]
    if s.control_delta is not None:
        lift.append(Fact("vs control", s.control_delta))
    return tuple(lift)


# ---------------------------------------------------------------- text


def sheet_text(s: Sheet) -> str:
    """The sheet as plain text for a terminal."""
    out = [f"Receipt sheet: {terminal_safe(s.title)}"]
    if s.path:
        out.append(f"file: {terminal_safe(s.path)}")
    out += ["", "Headline", *text_facts((s.headline,))]
    out += ["", "What produced it", *text_facts(s.provenance), f"  {terminal_safe(s.legend)}"]
    out += ["", "Reading", *text_facts(s.reading)]
    out += ["", "What the skill adds", *text_facts(_lift_facts(s))]
    if s.source_figures:
        out += [
            "",
            f"{FIGURES_TITLE} (no band, lift or verdict)",
            *text_facts(s.source_origin),
            *text_table(_FIG_HEAD, [_fig_cells(f) for f in s.source_figures]),
        ]
    if s.source_report or s.source_decision:
        out += [
            "",
            f"{SOURCE_TITLE} (no band, lift or verdict is computed from them)",
            *text_facts(s.source_decision),
            *(text_table(SOURCE_HEAD, s.source_report) if s.source_report else []),
        ]
    if s.usage is not None:
        out += ["", USAGE_TITLE, *_usage_text(s.usage)]
    if s.fidelity is not None:
        out += ["", s.fidelity.title, *_fidelity_text(s.fidelity)]
    out += ["", "Arms", *text_table(_ARM_HEAD, [_arm_cells(a) for a in s.arms])]
    out += ["", "Cases", *text_table(_CASE_HEAD, [_case_cells(c) for c in s.cases])]
    out += ["", "Lost draws"]
    out += [
        f"  {terminal_safe(d.case_id)}, {d.arm}, draw {d.index}: {terminal_safe(d.reason)}"
        for d in s.lost_draws
    ] or ["  none"]
    out += ["", "Grading cost (apart from every figure about the skill)", *text_facts(s.judge_cost)]
    out += ["", 'Lift breakdown (method, "Lift by case")', breakdown_text(s.breakdown).rstrip("\n")]
    out += [
        "",
        s.context.label,
        f"  paired interval: {s.context.interval}",
        f"  exact paired test: {s.context.exact}",
        *text_facts(s.context.splits),
    ]
    return "\n".join(out) + "\n"


def _usage_text(u: UsageView) -> list[str]:
    table = [f"  {u.unavailable}"] if u.unavailable else text_table(u.head, u.rows)
    return [*table, *text_facts(u.cost), f"  {u.note}"]


def _fidelity_text(f: FidelityView) -> list[str]:
    return [
        *text_facts(f.summary),
        *text_table(f.arm_head, f.arm_rows),
        *(
            ["  By category:", *text_table(f.category_head, f.category_rows)]
            if f.category_rows
            else []
        ),
        "  Failures:",
        *([f"  - {terminal_safe(x)}" for x in f.failures] or ["  none"]),
        f"  {f.note}",
    ]


def breakdown_text(bv: BreakdownView) -> str:
    """The lift breakdown as text: summary lines, the table, the method's note."""
    lines = [f"  {terminal_safe(x)}" for x in bv.summary]
    if bv.rows:
        lines += text_table(_BD_HEAD, [_bd_cells(r) for r in bv.rows])
    lines.append(f"  {bv.note}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- markdown


def sheet_markdown(s: Sheet) -> str:
    """The sheet as Markdown (CommonMark tables; untrusted text escaped)."""
    out = [f"# Receipt sheet: {md_text(s.title)}", ""]
    if s.path:
        # a file name may hold a backtick or a line break: neither may end the code span
        # or start a block
        out += [f"File: `{terminal_safe(s.path).replace('`', '')}`", ""]
    out += ["## Headline", "", *md_facts((s.headline,)), ""]
    out += ["## What produced it", "", *md_facts(s.provenance), "", md_text(s.legend), ""]
    out += ["## Reading", "", *md_facts(s.reading), ""]
    out += ["## What the skill adds", "", *md_facts(_lift_facts(s)), ""]
    if s.source_figures:
        out += [
            f"## {FIGURES_TITLE}",
            "",
            "No band, lift or verdict is computed from them.",
            "",
            *md_facts(s.source_origin),
            "",
            *md_table(_FIG_HEAD, [_fig_cells(f) for f in s.source_figures]),
            "",
        ]
    if s.source_report or s.source_decision:
        out += [
            f"## {SOURCE_TITLE}",
            "",
            "No band, lift or verdict is computed from them.",
            "",
            *md_facts(s.source_decision),
            "",
            *(md_table(SOURCE_HEAD, s.source_report) if s.source_report else []),
            "",
        ]
    if s.usage is not None:
        out += [f"## {USAGE_TITLE}", "", *_usage_markdown(s.usage), ""]
    if s.fidelity is not None:
        out += [f"## {s.fidelity.title}", "", *_fidelity_markdown(s.fidelity), ""]
    out += ["## Arms", "", *md_table(_ARM_HEAD, [_arm_cells(a) for a in s.arms]), ""]
    out += ["## Cases", "", *md_table(_CASE_HEAD, [_case_cells(c) for c in s.cases]), ""]
    out += ["## Lost draws", ""]
    out += [
        f"- {md_text(d.case_id)}, {d.arm}, draw {d.index}: {md_text(d.reason)}"
        for d in s.lost_draws
    ] or ["none"]
    out += [
        "",
        "## Grading cost (apart from every figure about the skill)",
        "",
        *md_facts(s.judge_cost),
        "",
    ]
    out += ["## Lift breakdown", "", breakdown_markdown(s.breakdown)]
    out += [
        "## Context, beyond the method",
        "",
        md_text(s.context.label),
        "",
        f"- paired interval: {md_text(s.context.interval)}",
        f"- exact paired test: {md_text(s.context.exact)}",
        *[f"- {md_text(f.label)}: {md_text(f.value)}" for f in s.context.splits],
    ]
    return "\n".join(out) + "\n"


def _usage_markdown(u: UsageView) -> list[str]:
    table = [md_text(u.unavailable)] if u.unavailable else md_table(u.head, u.rows)
    return [*table, "", *md_facts(u.cost), "", md_text(u.note)]


def _fidelity_markdown(f: FidelityView) -> list[str]:
    return [
        *md_facts(f.summary),
        "",
        *md_table(f.arm_head, f.arm_rows),
        "",
        *(
            ["**By category:**", "", *md_table(f.category_head, f.category_rows), ""]
            if f.category_rows
            else []
        ),
        "**Failures:**",
        "",
        *([f"- {md_text(x)}" for x in f.failures] or ["none"]),
        "",
        md_text(f.note),
    ]


def breakdown_markdown(bv: BreakdownView) -> str:
    """The lift breakdown as Markdown: a list, the table, the method's note."""
    lines = [f"- {md_text(x)}" for x in bv.summary] + [""]
    if bv.rows:
        lines += [*md_table(_BD_HEAD, [_bd_cells(r) for r in bv.rows]), ""]
    lines += [bv.note, ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- json


def sheet_json(s: Sheet) -> str:
    """The sheet as a JSON document (the page model's fields, every value a string)."""
    return json.dumps(dataclasses.asdict(s), ensure_ascii=False, indent=2) + "\n"


def breakdown_document(bv: BreakdownView, *, name: str | None = None, fmt: Format = "text") -> str:
    """One lift breakdown titled "Lift breakdown of NAME", as ``diff --lift-breakdown`` prints it.

    ``json`` gives a JSON object (``title`` and the :class:`~driftproof.pages.sheet.BreakdownView`
    fields) with no trailing newline; ``markdown`` a level-3 heading; ``text`` a title line.
    """
    title = f"Lift breakdown of {name}" if name else "Lift breakdown"
    if fmt == "json":
        return json.dumps({"title": title, **dataclasses.asdict(bv)}, ensure_ascii=False, indent=2)
    if fmt == "markdown":
        return f"### {md_text(title)}\n\n" + breakdown_markdown(bv)
    return f"{terminal_safe(title)}\n" + breakdown_text(bv)
