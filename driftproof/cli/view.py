"""``driftproof view RECEIPT``: the receipt sheet as text, Markdown or JSON.

Printers only lay out the strings of :func:`driftproof.view.sheet`; they compute
nothing. Untrusted strings (case ids, reasons, model names) are printed with
control characters made visible (text) or escaped (Markdown).
:func:`render_breakdown` is the entry point ``driftproof diff --lift-breakdown`` uses.
"""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import click

from driftproof.receipt import Receipt, read_receipt
from driftproof.stats.breakdown import lift_breakdown
from driftproof.view import (
    ArmSummary,
    BreakdownRow,
    BreakdownView,
    CaseRow,
    Fact,
    Sheet,
    SourceFigureRow,
    breakdown_view,
    sheet,
)

__all__ = [
    "render_breakdown",
    "render_json",
    "render_markdown",
    "render_text",
    "view",
    "with_breakdowns",
]

Format = Literal["text", "markdown", "json"]
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
#: Heading of the source figures, as the site's table names them.
FIGURES_TITLE = "Figures as the source printed them"
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


@click.command()
@click.argument("receipt", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
def view(receipt: Path, fmt: Format) -> None:
    """Show a receipt's sheet: provenance, reading, cases, lift, grading cost, lift breakdown."""
    r = read_receipt(receipt)
    s = sheet(r, path=receipt)
    click.echo(
        {"text": render_text, "markdown": render_markdown, "json": render_json}[fmt](s), nl=False
    )


def render_breakdown(
    r: Receipt, *, name: str | None = None, path: Path | None = None, fmt: Format = "text"
) -> str:
    """One receipt's lift breakdown, as ``diff --lift-breakdown`` prints it after the diff.

    Args:
        r: the receipt. name: how to title it (e.g. the file name).
        path: the receipt file, whose size decides the size limit.
        fmt: ``text``, ``markdown`` or ``json`` (a JSON object, no trailing newline).
    """
    bv = breakdown_view(
        lift_breakdown(r, size_bytes=path.stat().st_size if path is not None else None)
    )
    title = f"Lift breakdown of {name}" if name else "Lift breakdown"
    if fmt == "json":
        return json.dumps({"title": title, **dataclasses.asdict(bv)}, ensure_ascii=False, indent=2)
    if fmt == "markdown":
        return f"### {_md(title)}\n\n" + _md_breakdown(bv)
    return f"{_txt(title)}\n" + _txt_breakdown(bv)


def with_breakdowns(output: str, fmt: Format, receipts: Sequence[tuple[Path, Receipt]]) -> str:
    """``output`` (a diff in ``fmt``) followed by one lift breakdown per receipt.

    Text and Markdown: each breakdown after a blank line. JSON: the same document with a
    ``lift_breakdowns`` list added (same key order and layout as the diff's own JSON).
    """
    if fmt == "json":
        doc = json.loads(output)
        doc["lift_breakdowns"] = [
            json.loads(render_breakdown(r, name=str(p), path=p, fmt="json")) for p, r in receipts
        ]
        return json.dumps(doc, sort_keys=True, ensure_ascii=False, allow_nan=False, indent=2) + "\n"
    parts = [output.rstrip("\n")] + [
        render_breakdown(r, name=str(p), path=p, fmt=fmt).rstrip("\n") for p, r in receipts
    ]
    return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------- text


def render_text(s: Sheet) -> str:
    """The sheet as plain text for a terminal."""
    out = [f"Receipt sheet: {_txt(s.title)}"]
    if s.path:
        out.append(f"file: {_txt(s.path)}")
    out += ["", "Headline", *_txt_facts((s.headline,))]
    out += ["", "What produced it", *_txt_facts(s.provenance), f"  {_txt(s.legend)}"]
    out += ["", "Reading", *_txt_facts(s.reading)]
    lift = [Fact("lift", s.lift), Fact("per 1,000 tokens", s.lift_per_1k)]
    if s.control_delta is not None:
        lift.append(Fact("vs control", s.control_delta))
    out += ["", "What the skill adds", *_txt_facts(tuple(lift))]
    if s.source_figures:
        out += [
            "",
            f"{FIGURES_TITLE} (no band, lift or verdict)",
            *_txt_facts(s.source_origin),
            *_txt_table(_FIG_HEAD, [_fig_cells(f) for f in s.source_figures]),
        ]
    out += ["", "Arms", *_txt_table(_ARM_HEAD, [_arm_cells(a) for a in s.arms])]
    out += ["", "Cases", *_txt_table(_CASE_HEAD, [_case_cells(c) for c in s.cases])]
    out += ["", "Lost draws"]
    out += [
        f"  {_txt(d.case_id)}, {d.arm}, draw {d.index}: {_txt(d.reason)}" for d in s.lost_draws
    ] or ["  none"]
    out += ["", "Grading cost (apart from every figure about the skill)", *_txt_facts(s.judge_cost)]
    out += ["", 'Lift breakdown (method, "Lift by case")', _txt_breakdown(s.breakdown).rstrip("\n")]
    out += [
        "",
        s.context.label,
        f"  paired interval: {s.context.interval}",
        *_txt_facts(s.context.splits),
    ]
    return "\n".join(out) + "\n"


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


def _txt_breakdown(bv: BreakdownView) -> str:
    lines = [f"  {_txt(x)}" for x in bv.summary]
    if bv.rows:
        lines += _txt_table(_BD_HEAD, [_bd_cells(r) for r in bv.rows])
    lines.append(f"  {bv.note}")
    return "\n".join(lines) + "\n"


def _txt_facts(facts: Sequence[Fact]) -> list[str]:
    width = max((len(f.label) for f in facts), default=0)
    return [f"  {_txt(f.label).ljust(width)}  {_txt(f.value)}" for f in facts]


def _txt_table(head: Sequence[str], rows: list[list[str]]) -> list[str]:
    cells = [list(head)] + [[_txt(x) for x in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    return ["  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in cells]


#: Characters that reorder or break a terminal line without being control characters:
#: bidirectional embeddings, overrides and isolates ("Trojan Source"), line and paragraph
#: separators.
_TERMINAL_UNSAFE = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029"
)


def terminal_safe(value: str) -> str:
    """Untrusted text for a terminal: control characters (ANSI escapes included) shown as
    ``\\xNN``, bidirectional controls and line separators as ``\\uNNNN``; never sent as they are."""
    out = []
    for ch in value:
        if unicodedata.category(ch) == "Cc":
            out.append(f"\\x{ord(ch):02x}")
        elif ch in _TERMINAL_UNSAFE:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


_txt = terminal_safe


# ---------------------------------------------------------------- markdown


def render_markdown(s: Sheet) -> str:
    """The sheet as Markdown (CommonMark tables; untrusted text escaped)."""
    out = [f"# Receipt sheet: {_md(s.title)}", ""]
    if s.path:
        # a file name may hold a backtick or a line break: neither may end the code span or start a block
        out += [f"File: `{terminal_safe(s.path).replace('`', '')}`", ""]
    out += ["## Headline", "", *_md_facts((s.headline,)), ""]
    out += ["## What produced it", "", *_md_facts(s.provenance), "", _md(s.legend), ""]
    out += ["## Reading", "", *_md_facts(s.reading), ""]
    lift = [Fact("lift", s.lift), Fact("per 1,000 tokens", s.lift_per_1k)]
    if s.control_delta is not None:
        lift.append(Fact("vs control", s.control_delta))
    out += ["## What the skill adds", "", *_md_facts(tuple(lift)), ""]
    if s.source_figures:
        out += [
            f"## {FIGURES_TITLE}",
            "",
            "No band, lift or verdict is computed from them.",
            "",
            *_md_facts(s.source_origin),
            "",
            *_md_table(_FIG_HEAD, [_fig_cells(f) for f in s.source_figures]),
            "",
        ]
    out += ["## Arms", "", *_md_table(_ARM_HEAD, [_arm_cells(a) for a in s.arms]), ""]
    out += ["## Cases", "", *_md_table(_CASE_HEAD, [_case_cells(c) for c in s.cases]), ""]
    out += ["## Lost draws", ""]
    out += [
        f"- {_md(d.case_id)}, {d.arm}, draw {d.index}: {_md(d.reason)}" for d in s.lost_draws
    ] or ["none"]
    out += [
        "",
        "## Grading cost (apart from every figure about the skill)",
        "",
        *_md_facts(s.judge_cost),
        "",
    ]
    out += ["## Lift breakdown", "", _md_breakdown(s.breakdown)]
    out += [
        "## Context, beyond the method",
        "",
        _md(s.context.label),
        "",
        f"- paired interval: {_md(s.context.interval)}",
        *[f"- {_md(f.label)}: {_md(f.value)}" for f in s.context.splits],
    ]
    return "\n".join(out) + "\n"


def _md_breakdown(bv: BreakdownView) -> str:
    lines = [f"- {_md(x)}" for x in bv.summary] + [""]
    if bv.rows:
        lines += [*_md_table(_BD_HEAD, [_bd_cells(r) for r in bv.rows]), ""]
    lines += [bv.note, ""]
    return "\n".join(lines)


def _md_facts(facts: Sequence[Fact]) -> list[str]:
    return [f"- **{_md(f.label)}**: {_md(f.value)}" for f in facts]


def _md_table(head: Sequence[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(_md(h) for h in head) + " |", "|" + "---|" * len(head)] + [
        "| " + " | ".join(_md(x) for x in row) + " |" for row in rows
    ]


def _md(value: str) -> str:
    """Escape Markdown and HTML specials so untrusted text stays text."""
    out = _txt(value).replace("\n", " ")
    for ch in "\\`*_[]<>|#!":
        out = out.replace(ch, "\\" + ch)
    return out


# ---------------------------------------------------------------- json


def render_json(s: Sheet) -> str:
    """The sheet as a JSON document (the page model's fields, every value a string)."""
    return json.dumps(dataclasses.asdict(s), ensure_ascii=False, indent=2) + "\n"
