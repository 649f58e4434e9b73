"""A tiny HTML table reader for tests (stdlib html.parser): rows as lists of cell texts."""

from __future__ import annotations

from html.parser import HTMLParser


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str | None] = []  # ids of open tables
        self.tables: dict[str, list[list[str]]] = {}
        self.rows_by_id: dict[str, list[str]] = {}
        self.row: list[str] | None = None
        self.row_id: str | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self.stack.append(a.get("id"))
        elif tag == "tr":
            self.row, self.row_id = [], a.get("id")
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            tid = self.stack[-1] if self.stack else None
            if tid:
                self.tables.setdefault(tid, []).append(self.row)
            if self.row_id:
                self.rows_by_id[self.row_id] = self.row
            self.row = None
        elif tag == "table" and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def _parse(html: str) -> _Tables:
    p = _Tables()
    p.feed(html)
    return p


def table_rows(html: str, table_id: str) -> list[list[str]]:
    """Body rows (header row excluded) of the table with element id ``table_id``."""
    return _parse(html).tables[table_id][1:]


def cells_of_row(html: str, row_id: str) -> list[str]:
    """Cell texts of the row with element id ``row_id``."""
    return _parse(html).rows_by_id[row_id]
