"""Data tables of the site's pages: every table is shown on its page and published as CSV.

A section or a sheet gives each table as a :class:`Table` of :class:`Row` of :class:`Cell`;
the generator renders it (``templates/pages/_macros.html``) and writes ``<id>.csv`` beside
the page, listed in SHA256SUMS. Cells carry text as shown and the value written to CSV
(full precision), so a number is formatted once, in Python, and never in a template.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.site._render import fmt_int

__all__ = ["Cell", "Column", "Row", "Table", "count_cell", "csv_number", "text_row"]


@dataclass(frozen=True)
class Column:
    """A table column: its header and whether it holds numbers (right-aligned, CSV as numbers)."""

    label: str
    numeric: bool = False


@dataclass(frozen=True)
class Cell:
    """A table cell: ``text`` as shown, ``value`` as written to CSV (full precision; ``""`` =
    unknown; None: the text itself)."""

    text: str
    value: str | None = None
    link: str | None = None
    """URL the cell's text links to (e.g. a case evidence page), or None."""

    @property
    def csv(self) -> str:
        return self.text if self.value is None else self.value


@dataclass(frozen=True)
class Row:
    """A table row; ``anchor`` is its element id (e.g. ``case-<id>``) or None."""

    cells: tuple[Cell, ...]
    anchor: str | None = None
    header: bool = False  # first cell is a row header (<th scope="row">)
    link: str | None = None
    """Where the row header links: a case evidence page (default: the row's own anchor)."""


@dataclass(frozen=True)
class Table:
    """A data table shown on the page and published as ``<id>.csv`` beside the report.

    Attributes:
        id: a slug unique within the report (file name of its CSV, element id of the table).
        caption: the table's caption (what it shows, with units).
        columns, rows: the contents; every row has one cell per column.
    """

    id: str
    caption: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]


def csv_number(v: float | None) -> str:
    """A figure as written to CSV: its full-precision ``repr``, or ``""`` when unknown."""
    return "" if v is None else repr(v)


def count_cell(v: int | None) -> Cell:
    """A count: shown with thousands separators (an en dash when unknown), plain in the CSV."""
    return Cell(fmt_int(v), "" if v is None else str(v))


def text_row(*texts: str, anchor: str | None = None) -> Row:
    """A row of plain text cells (CSV as shown) whose first cell is its header."""
    return Row(tuple(Cell(t) for t in texts), anchor=anchor, header=True)
