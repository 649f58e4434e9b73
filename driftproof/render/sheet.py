"""The receipt sheet and its lift breakdown as text, Markdown or JSON (``view``, ``diff``)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from driftproof.pages.fidelity import FidelityView
from driftproof.pages.lost_groups import lost_groups
from driftproof.pages.receipt_tables import verdict_line
from driftproof.pages.sheet import Sheet
from driftproof.pages.sheet_facts import ARM_COLUMNS, ARMS_TITLE, PER_1K, BreakdownView
from driftproof.pages.source import SOURCE_TITLE, USAGE_TITLE
from driftproof.pages.tables import json_text
from driftproof.pages.words import Fact
from driftproof.render.escape import (
    fit_text,
    md_facts,
    md_table,
    md_text,
    terminal_safe,
    text_facts,
    text_table,
)

#: The output formats of ``view`` and ``diff``.
Format = Literal["text", "markdown", "json"]

#: Heading of the source figures, as the site's table names them.
FIGURES_TITLE = "Figures as the source printed them"

#: Each table's columns: (header, page-model field).
Columns = tuple[tuple[str, str], ...]
_BD_COLUMNS: Columns = (
    ("case", "case_id"),
    ("with skill mean ± spread", "with_skill"),
    ("baseline mean ± spread", "baseline"),
    ("lift", "lift"),
    ("measured/drawn/lost (with · base)", "counts"),
    ("lift without this case", "lift_without"),
    ("helps or hurts", "label"),
    ("note", "note"),
)


@dataclass(frozen=True)
class _Block:
    """One block of a sheet section, laid out for a terminal and for Markdown."""

    text: list[str]
    markdown: list[str]


def _facts(facts: Sequence[Fact]) -> _Block:
    return _Block(text_facts(facts), md_facts(facts))


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], width: int | None) -> _Block:
    """A table; as a list in the text when wider than ``width`` (:func:`text_table`)."""
    return _Block(text_table(head, rows, width=width), md_table(head, rows))


def _fields(cols: Columns, rows: Sequence[object], width: int | None) -> _Block:
    """A table of ``rows``' page-model fields, one column per ``(header, field)``."""
    return _table([h for h, _ in cols], [[getattr(r, f) for _, f in cols] for r in rows], width)


def _line(text: str) -> _Block:
    return _Block([f"  {terminal_safe(text)}"], [md_text(text)])


def _items(items: Sequence[str], bullet: str = "  ") -> _Block:
    return _Block(
        [f"{bullet}{terminal_safe(x)}" for x in items] or ["  none"],
        [f"- {md_text(x)}" for x in items] or ["none"],
    )


_NO_FIGURE = "No band, lift or verdict is computed from them."
_NO_CASE = "none: the receipt holds no case row"

#: A sheet section: (text title, Markdown title, blocks).
_Section = tuple[str, str, list[_Block]]


def _both(title: str, *blocks: _Block) -> _Section:
    return title, title, list(blocks)


def _sections(s: Sheet, width: int | None = None) -> list[_Section]:
    """The sheet's sections in order; ``width``: the terminal's (:func:`text_table`) or None."""
    verdict = Fact("verdict", verdict_line(s.reading))  # status, sentence and why, as the site's
    said = s.headline.value == s.lift  # the headline says it word for word: not again
    lift = [Fact("lift", "n/a (see Headline)" if said else s.lift), Fact(PER_1K, s.lift_per_1k)]
    lift += (
        [Fact("lift against the control", s.control_delta)] if s.control_delta is not None else []
    )
    out = [
        _both("Headline", _facts((s.headline,))),
        _both("What produced it", _facts(s.provenance)),  # band source once, in full
        _both("Reading", _facts((verdict, *s.reading[3:]))),
        _both("What the skill adds", _facts(lift)),
    ]
    if s.shows_printed_figures:
        figures = (
            _fields(s.figure_columns, s.source_figures, width)
            if s.source_figures
            else _line("none: the source printed no figure for this skill")
        )
        blocks = [_Block([], [_NO_FIGURE]), _facts(s.source_origin), figures]
        out.append((f"{FIGURES_TITLE} (no band, lift or verdict)", FIGURES_TITLE, blocks))
    if s.source_report or s.source_decision:
        head, rows = s.source_report_head, s.source_report
        report = _table(head, rows, width) if rows else _Block([], [])
        blocks = [_Block([], [_NO_FIGURE]), _facts(s.source_decision), report]
        blocks += [_line(s.source_report_note)] if s.source_report_note else []
        title = f"{SOURCE_TITLE} (no band, lift or verdict is computed from them)"
        out.append((title, SOURCE_TITLE, blocks))
    if (u := s.usage) is not None:
        table = _line(u.unavailable) if u.unavailable else _table(u.head, u.rows, width)
        out.append(_both(USAGE_TITLE, table, _facts(u.cost), _line(u.note)))
    if s.fidelity is not None:
        out.append(_both(s.fidelity.title, *_fidelity(s.fidelity, width)))
    lost = [g.line for g in lost_groups(s.lost_draws)]
    cost = "What grading cost (kept apart from the skill's figures)"
    return out + [
        _both(f"Arms ({ARMS_TITLE})", _fields(ARM_COLUMNS, s.arms, width)),
        _both(
            f"Cases ({s.case_note})" if s.case_note else "Cases",
            _fields(_case_columns(s), s.cases, width) if s.cases else _line(_NO_CASE),
        ),
        _both("Lost draws", _items(lost)),
        _both(cost, _facts(s.judge_cost)),
        (
            'Lift breakdown (method, "Reading the lift breakdown")',
            "Lift breakdown",
            [_breakdown(s.breakdown, width)],
        ),
        (s.context.label, "Context, beyond the method", _context(s)),
    ]


def _case_columns(s: Sheet) -> Columns:
    """The case table's columns; the output tokens' header names its arms in their order."""
    arms = " · ".join(a.arm for a in s.arms)
    tokens = (f"output tokens ({arms})" if arms else "output tokens", "output_tokens")
    heads = zip(s.case_heads, ("with_skill", "baseline", "lift"), strict=True)
    rest = (("verdict", "verdict"), ("checks", "checks"), ("lost draws", "lost"), tokens)
    return (("case", "case_id"), *heads, *rest)


def _breakdown(bv: BreakdownView, width: int | None = None) -> _Block:
    """The lift breakdown: summary lines, the table (as a list when wider than ``width``), note."""
    said = bv.summary or ((bv.label,) if not bv.rows else ())  # no summary: its label says why
    text = [f"  {terminal_safe(x)}" for x in said]
    markdown = [f"- {md_text(x)}" for x in said] + [""]
    if bv.rows:
        cols = tuple(c for c in _BD_COLUMNS if bv.labelled or c[1] != "label")
        table = _fields(cols, bv.rows, width)
        text += table.text
        markdown += [*table.markdown, ""]
    note = [bv.note] if bv.note else []
    return _Block([*text, *(f"  {x}" for x in note)], [*markdown, *note])


def _fidelity(f: FidelityView, width: int | None) -> list[_Block]:
    out = [_facts(f.summary), _table(f.arm_head, f.arm_rows, width)]
    if f.category_rows:
        table = _table(f.category_head, f.category_rows, width)
        out.append(
            _Block(["  By category:", *table.text], ["**By category:**", "", *table.markdown])
        )
    items = _items(f.failures, "  - ")
    out.append(_Block(["  Failures:", *items.text], ["**Failures:**", "", *items.markdown]))
    return [*out, _line(f.note)]


def _context(s: Sheet) -> list[_Block]:
    c = s.context
    said = (("paired interval", c.interval), ("exact paired test", c.exact))
    lines = [f"{k}: {v}" for k, v in said if v is not None]  # None: the label says why
    body = _Block(
        [f"  {terminal_safe(x)}" for x in lines] + text_facts(c.splits),
        [f"- {md_text(x)}" for x in lines + [f"{f.label}: {f.value}" for f in c.splits]],
    )
    return [_Block([], [md_text(c.label)])] + ([body] if body.text else [])


def sheet_text(s: Sheet, width: int | None = None) -> str:
    """The sheet as plain text for a terminal.

    ``width``: the terminal's width in characters, or ``None`` (not a terminal): a wider table
    is laid out as a list (:func:`~driftproof.render.escape.text_table`), a longer line wrapped
    (:func:`~driftproof.render.escape.fit_text`).
    """
    out = [f"Receipt sheet: {terminal_safe(s.title)}"]
    if s.path:
        out.append(f"file: {terminal_safe(s.path)}")
    for title, _, blocks in _sections(s, width):
        out += ["", title, *(line for b in blocks for line in b.text)]
    return fit_text("\n".join(out) + "\n", width)


def sheet_markdown(s: Sheet) -> str:
    """The sheet as Markdown (CommonMark tables; untrusted text escaped)."""
    out = [f"# Receipt sheet: {md_text(s.title)}", ""]
    if s.path:
        # a line break is shown as \x0a; the code span's fence is one backtick longer than
        # any run of them in the name, padded with a space when the name holds one (CommonMark)
        path = terminal_safe(s.path)
        fence = "`" * (max(map(len, re.findall("`+", path)), default=0) + 1)
        pad = " " * ("`" in path)
        out += [f"File: {fence}{pad}{path}{pad}{fence}", ""]
    for _, title, blocks in _sections(s):
        out += [f"## {title}", ""]
        for i, b in enumerate(blocks):
            out += [""] * (i > 0) + b.markdown
        out.append("")
    return "\n".join(out[:-1]) + "\n"


def sheet_json(s: Sheet) -> str:
    """The sheet as a JSON document (the page model's fields, every value a string)."""
    return json_text(dataclasses.asdict(s), sort_keys=False)


def breakdown_document(
    bv: BreakdownView, *, name: str | None = None, fmt: Format = "text", width: int | None = None
) -> str:
    """One lift breakdown titled "Lift breakdown of NAME", as ``diff --lift-breakdown`` prints it.

    ``json`` gives a JSON object (``title`` and the :class:`~driftproof.pages.sheet.BreakdownView`
    fields) with no trailing newline; ``markdown`` a level-3 heading; ``text`` a title line, laid
    out for a terminal ``width`` characters wide as :func:`sheet_text` is.
    """
    title = f"Lift breakdown of {name}" if name else "Lift breakdown"
    if fmt == "json":
        return json_text({"title": title, **dataclasses.asdict(bv)}, sort_keys=False, end="")
    b = _breakdown(bv, width)
    if fmt == "markdown":
        return "\n".join([f"### {md_text(title)}", "", *b.markdown, ""])
    return fit_text("\n".join([terminal_safe(title), *b.text, ""]), width)
