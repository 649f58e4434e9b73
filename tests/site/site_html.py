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


def table_header(html: str, table_id: str) -> list[str]:
    """Header row cell texts of the table with element id ``table_id``."""
    return _parse(html).tables[table_id][0]


def table_rows(html: str, table_id: str) -> list[list[str]]:
    """Body rows (header row excluded) of the table with element id ``table_id``."""
    return _parse(html).tables[table_id][1:]


def cells_of_row(html: str, row_id: str) -> list[str]:
    """Cell texts of the row with element id ``row_id``."""
    return _parse(html).rows_by_id[row_id]


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}


class _Boxes(HTMLParser):
    """The open elements above each ``<table>``, and the text of every element with an id."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, dict[str, str | None]]] = []
        self.above: list[list[dict[str, str | None]]] = []
        self.text: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self.above.append([x for _, x in self.open])
        if tag not in _VOID:
            self.open.append((tag, a))
            self.text.setdefault(a.get("id") or "", [])

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == tag:
                del self.open[i:]
                break

    def handle_data(self, data: str) -> None:
        for _, a in self.open:
            self.text[a.get("id") or ""].append(data)


def table_boxes(html: str, scroll_classes: set[str]) -> list[dict[str, str | None] | None]:
    """Per ``<table>``, in order: the attributes of the nearest element above it with one of
    ``scroll_classes`` (None: no such box), with ``name`` set to its aria-label or else the
    text of the elements its aria-labelledby names (spaces collapsed, "" when none)."""
    p = _Boxes()
    p.feed(html)
    out: list[dict[str, str | None] | None] = []
    for above in p.above:
        boxes = [a for a in above if scroll_classes & set((a.get("class") or "").split())]
        if not boxes:
            out.append(None)
            continue
        box = dict(boxes[-1])
        ids = (box.get("aria-labelledby") or "").split()
        named = " ".join("".join(p.text.get(i, [])) for i in ids if i)
        box["name"] = " ".join((box.get("aria-label") or named).split())
        out.append(box)
    return out
