"""Data tables, each shown on its page and published as CSV beside it; JSON; SHA256SUMS files.

A cell carries its text as shown and its CSV value (full precision): a number is formatted in
Python, never in a template.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from driftproof.wording import MINUS

#: A page model's cell: the text shown and the CSV value (``None``: the text itself).
Pair = tuple[str, str | None]


@dataclass(frozen=True)
class Column:
    """A column: its header and whether it holds numbers (right-aligned, sortable).

    ``group``: a heading over adjacent columns of that group, in a header row above theirs.
    ``hash``: its cells hold hashes, set in monospace and broken anywhere to fit the page.
    """

    label: str
    numeric: bool = False
    group: str = ""
    hash: bool = False

    @property
    def name(self) -> str:
        """The column's full name, as a CSV or JSON header gives it."""
        return f"{self.group}, {self.label}" if self.group else self.label


@dataclass(frozen=True)
class Cell:
    """A cell: its text, its CSV value (``""`` unknown, None: the text) and its link or None."""

    text: str
    value: str | None = None
    link: str | None = None

    @property
    def csv(self) -> str:
        """The value written to CSV; a figure shown with U+2212 (``−0.120``) as ``-0.120``."""
        if self.value is not None:
            return self.value
        plain = "-" + self.text[1:] if self.text.startswith(MINUS) else self.text
        return plain if _PLAIN_NUMBER.fullmatch(plain) else self.text


@dataclass(frozen=True)
class Row:
    """A row of cells; ``header``: the first is a row header, linking to ``link`` or ``anchor``."""

    cells: tuple[Cell, ...]
    anchor: str | None = None
    header: bool = False
    link: str | None = None


@dataclass(frozen=True)
class Table:
    """A table shown on a page and published as ``<id>.csv`` (``id`` unique on its page).

    ``keys``: how many leading columns name a row (1, or 2 where the first repeats: a skill
    and what it is measured against); each stays on screen as the table scrolls sideways.
    """

    id: str
    caption: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    keys: int = 1

    @property
    def element_id(self) -> str:
        """The ``id`` of the table's element on its page: ``#`` and it link to the table."""
        return f"table-{self.id}"

    @property
    def groups(self) -> tuple[tuple[str, int, Column | None], ...]:
        """The upper header row when a column has a group, else ``()``.

        Per run of one group's columns ``(group, columns it spans, None)``; per column of none
        ``("", 1, column)``.
        """
        if not any(c.group for c in self.columns):
            return ()
        runs: list[tuple[str, int, Column | None]] = []
        for c in self.columns:
            if c.group and runs and runs[-1][2] is None and runs[-1][0] == c.group:
                runs[-1] = (c.group, runs[-1][1] + 1, None)
            else:
                runs.append((c.group, 1, None) if c.group else ("", 1, c))
        return tuple(runs)


def csv_number(v: float | None) -> str:
    """A figure as written to CSV: its full-precision ``repr``, or ``""`` when unknown."""
    return "" if v is None else repr(v)


def text_row(*texts: str, anchor: str | None = None) -> Row:
    """A row of plain text cells whose first cell is its header."""
    return Row(tuple(Cell(t) for t in texts), anchor=anchor, header=True)


def row_of(cells: Iterable[Pair], anchor: str | None = None) -> Row:
    """A header row of ``(text, CSV value)`` pairs (the page models' cells)."""
    return Row(tuple(Cell(t, v) for t, v in cells), anchor=anchor, header=True)


def plain_table(
    id_: str, caption: str, head: Sequence[str], rows: Iterable[Sequence[str]]
) -> Table:
    """A table of text columns, each row a header row of plain text."""
    return Table(id_, caption, tuple(Column(h) for h in head), tuple(text_row(*r) for r in rows))


#: What a spreadsheet may read as a formula at a cell's start (OWASP's list, and ASVS's NUL).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\0")
#: A number as spreadsheets read one: ASCII digits, an optional sign, point and exponent
#: (``float`` also takes "-inf", "-nan", "-1_0", other scripts' digits and spaces around).
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
#: Other separators a spreadsheet may split a line at (";" where the decimal mark is ",", and an
#: unquoted carriage return): a row holding one has every cell quoted, so none starts a formula.
_OTHER_SEPARATORS = (";", "\t", "\r")


def _inert(cell: str) -> str:
    """A cell no spreadsheet runs as a formula: a leading apostrophe unless a plain number."""
    if cell.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def csv_bytes(t: Table) -> bytes:
    """The table as CSV: its column labels, then one line per row, formulas made inert."""
    buf = io.StringIO()
    some = csv.writer(buf, lineterminator="\n")
    every = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)
    for cells in ([c.name for c in t.columns], *([c.csv for c in r.cells] for r in t.rows)):
        line = [_inert(c) for c in cells]
        (every if any(s in c for c in line for s in _OTHER_SEPARATORS) else some).writerow(line)
    return buf.getvalue().encode("utf-8")


#: Every character outside printable ASCII and the line feed: each is checked by its category.
_NOT_ASCII = re.compile("[^\x20-\x7e\n]")
#: Categories JSON's encoder leaves as they are but a terminal or a page's script reads: controls
#: (DEL and C1; ``\x9b`` starts an escape sequence in some terminals), format characters
#: (bidirectional overrides, zero-width characters), line and paragraph separators, surrogates.
_INVISIBLE = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def _u_escape(m: re.Match[str]) -> str:
    ch = m.group()
    if unicodedata.category(ch) not in _INVISIBLE:
        return ch
    c = ord(ch)
    if c <= 0xFFFF:
        return f"\\u{c:04x}"
    c -= 0x10000  # a UTF-16 surrogate pair, as JSON writes a character beyond U+FFFF
    return f"\\u{0xD800 + (c >> 10):04x}\\u{0xDC00 + (c & 0x3FF):04x}"


def json_text(doc: object, *, sort_keys: bool = True, end: str = "\n") -> str:
    r"""``doc`` as JSON: two-space indent, UTF-8 kept, NaN refused, ``end`` after it.

    Invisible characters (:data:`_INVISIBLE`) are written as ``\uXXXX`` escapes.

    Raises:
        ValueError: a number is NaN or infinite.
    """
    text = json.dumps(doc, sort_keys=sort_keys, ensure_ascii=False, allow_nan=False, indent=2)
    return _NOT_ASCII.sub(_u_escape, text) + end


def sums_of(digests: Mapping[str, str]) -> bytes:
    """A ``SHA256SUMS`` file (``sha256sum -c`` format) of ``{site path: sha256 hex}``."""
    return "".join(f"{d}  {p}\n" for p, d in sorted(digests.items())).encode("utf-8")
