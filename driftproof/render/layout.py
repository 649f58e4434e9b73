"""Labelled facts and tables as plain text and as Markdown, byte-stable; every cell escaped.

Plain string building: rich draws boxes and wraps to the terminal; markdown-it-py only parses.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from driftproof.render.escape import md_text, terminal_safe

if TYPE_CHECKING:  # the printers of the CLI's error lines import this package: keep it light
    from driftproof.pages.words import Fact

Escape = Callable[[str], str]


def text_facts(facts: Sequence[Fact], *, indent: str = "  ") -> list[str]:
    """One line per fact, ``label  value``, labels padded to the longest one."""
    width = max((len(f.label) for f in facts), default=0)
    return [
        f"{indent}{terminal_safe(f.label).ljust(width)}  {terminal_safe(f.value)}" for f in facts
    ]


def text_table(
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    indent: str = "  ",
    escape: Escape = terminal_safe,
) -> list[str]:
    """Columns padded to their widest cell, two spaces apart, trailing spaces dropped.

    Every cell, header included (a header may hold a file name), passes through ``escape``.

    Raises:
        ValueError: a row has another number of cells than ``head``.
    """
    cells = [[escape(x) for x in row] for row in (head, *rows)]
    if any(len(r) != len(head) for r in cells):
        raise ValueError(f"every row needs {len(head)} cells, one per column of {list(head)}")
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    return [
        indent + "  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip()
        for r in cells
    ]


def json_document(doc: object) -> str:
    """``doc`` as JSON: sorted keys, two-space indent, UTF-8 kept, NaN refused, a final newline."""
    return json.dumps(doc, sort_keys=True, ensure_ascii=False, allow_nan=False, indent=2) + "\n"


def md_facts(facts: Sequence[Fact]) -> list[str]:
    """One list item per fact, ``- **label**: value``."""
    return [f"- **{md_text(f.label)}**: {md_text(f.value)}" for f in facts]


def md_table(
    head: Sequence[str], rows: Sequence[Sequence[str]], *, escape: Escape = md_text
) -> list[str]:
    """A CommonMark/GFM pipe table; every cell (header included) escaped by ``escape``."""
    return ["| " + " | ".join(escape(h) for h in head) + " |", "|" + "---|" * len(head)] + [
        "| " + " | ".join(escape(x) for x in row) + " |" for row in rows
    ]
