"""On a phone a hand-written page's tables read as lists (site.css, ``article.prose
table.written``): each row's first cell on a line of its own, each further cell under it at the
full width, labelled by its column's head (``wrap_tables``). In columns the method's table of
terms ran 14 lines a row on average at 390 px and NVIDIA's interop mapping up to 40."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from driftproof.site.html import wrap_tables

#: Per row of the page's ``n``-th written table: each cell's left edge, width and top, and its
#: words as drawn (its ``::before`` label first); the table's box's inner left edge and width.
_CELLS = """n => { const t = document.querySelectorAll('table.written')[n];
  const box = t.closest('.table-wrap').getBoundingClientRect();
  const label = c => { const b = getComputedStyle(c, '::before').content;
    return b === 'none' ? '' : JSON.parse(b); };
  return [box.left, box.width, [...t.tBodies[0].rows].map(r => [...r.cells].map(c => {
    const b = c.getBoundingClientRect();
    return [b.left, b.width, b.top, label(c) + c.textContent.trim()]; }))]; }"""


def test_each_cell_after_a_rows_first_is_labelled_by_its_columns_head() -> None:
    md = "| term | what *it* is | in the schema |\n|---|---|--:|\n| **case** | one | `cases[]` |\n"
    html = wrap_tables(MarkdownIt("commonmark").enable("table").render(md))
    # the head's words without their markup; a right-aligned column's cell keeps its style
    assert "<td><strong>case</strong></td>" in html
    assert '<td data-label="what it is">one</td>' in html
    assert (
        '<td data-label="in the schema" style="text-align:right"><code>cases[]</code></td>' in html
    )


@pytest.mark.browser
def test_on_a_phone_the_methods_terms_read_as_a_list(browser: Any, built_site: Path) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto((built_site / "method.html").as_uri())
    n = page.evaluate("[...document.querySelectorAll('table.written')].findIndex(t => "
                      "t.tHead.textContent.includes('what it is'))")  # fmt: skip
    left, width, rows = page.evaluate(_CELLS, n)
    page.set_viewport_size({"width": 1280, "height": 900})
    wide = page.evaluate(_CELLS, n)[2]
    page.close()
    # the box: 390 px less main's padding, 16 px a side
    assert (left, width) == (16, 358)
    for cells in rows:
        assert [(c[0], c[1]) for c in cells] == [(16, 358)] * 3  # each at the full width
        assert cells[0][2] < cells[1][2] < cells[2][2]  # one under another
    # the method's first term, its meaning and where the receipt holds it, as the page says
    assert [c[3] for c in rows[0]] == [
        "case",
        "what it is: one item of the suite: its prompt (and rubric or criteria), put to every "
        "arm; the method calls it a task",
        "in the receipt's schema: cases[], each named by its id",
    ]
    # at 1280 px it stays a table: a row's cells side by side, no labels drawn
    assert all(len({c[2] for c in cells}) == 1 for cells in wide)
    assert wide[0][1][3].startswith("one item of the suite")


@pytest.mark.browser
def test_a_reports_written_table_of_figures_stays_a_table_on_a_phone(
    browser: Any, built_site: Path
) -> None:
    # report 003's table of tasks (with skill, without) is figures side by side: it scrolls
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto((built_site / "reports/003/index.html").as_uri())
    rows = page.evaluate(_CELLS, 0)[2]
    page.close()
    assert all(len({c[2] for c in cells}) == 1 for cells in rows)
