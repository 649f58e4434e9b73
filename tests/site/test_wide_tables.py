"""Wide and long tables keep the columns that matter on screen: column heads wrap (figures do
not), a dimension heads its agents' columns in a row of its own, and a long table scrolls in a
box no taller than the screen under a header that stays. The browser checks are marked
``browser`` (see test_browser.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from site_fixtures import REPO, section_html

from driftproof.pages.tables import Cell, Column, Row, Table, csv_bytes
from driftproof.site.html import LONG_TABLE_ROWS, table_box, wrap_tables

CSS = (REPO / "templates/theme/assets/site.css").read_text(encoding="utf-8")


def _rule(selector: str) -> str:
    """The declarations of the rule whose selector list is exactly ``selector``."""
    m = re.search(r"(?m)^" + re.escape(selector) + r"\s*\{([^}]*)\}", CSS)
    assert m, selector
    return " ".join(m[1].split())


def test_a_long_tables_box_is_bounded_and_keeps_its_header_on_screen() -> None:
    # report 002 (343 rows) and the receipts index (351) ran 36,000 and 96,000 px down the page,
    # their only sideways scroll bar at the bottom; 40 rows and fewer stay in the page
    assert LONG_TABLE_ROWS == 40
    assert 'class="table-wrap long"' in table_box("caption-x", rows=41)
    assert 'class="table-wrap"' in table_box("caption-x", rows=40)
    assert 'class="table-wrap"' in table_box(label="Table 1")
    box = _rule(".table-wrap.long")
    assert "max-height: 85vh" in box and "overflow-y: auto" in box
    assert "position: sticky; top: 0" in _rule(".table-wrap.long thead")
    row_heads = ".table-wrap tbody th:first-child, .table-wrap thead tr:first-child th:first-child"
    assert "position: sticky; left: 0" in _rule(row_heads)
    # a column head wraps; a figure never does
    assert _rule("thead th.num") == "white-space: normal;"
    assert "white-space: nowrap" in _rule("td.num, th.num")


def test_a_dimension_heads_its_agents_columns_and_the_csv_keeps_full_names() -> None:
    # the committed aiq-deploy import prints 5 dimensions × 2 agents for one skill; report
    # 002's heads read "Discoverability, claude-code" and the like, 11 columns too wide for 1280
    html = section_html("source_figures", "nvidia-7149a88-aiq-deploy")
    table = html[html.index('id="table-source-figures-by-skill"') :]
    head = table[table.index("<thead>") : table.index("</thead>")]
    upper, lower = re.findall(r"<tr>(.*?)</tr>", head)
    assert re.findall(r"<th ([^>]*)>([^<]*)</th>", upper) == [
        ('scope="col" rowspan="2"', "Skill"),
        *(
            ('scope="colgroup" colspan="2"', d)
            for d in ("Security", "Correctness", "Discoverability", "Effectiveness", "Efficiency")
        ),
    ]
    assert re.findall(r"<th [^>]*>([^<]*)</th>", lower) == ["claude-code", "codex"] * 5
    assert table.count('<colgroup span="2"></colgroup>') == 5
    row = table[table.index("<tbody>") :].split("</tr>")[0]
    assert row.count("<td") == 10 and row.count('<th scope="row">') == 1
    # a download names a grouped column in full
    t = Table(
        "t",
        "c",
        (Column("Skill"), Column("codex", group="Security")),
        (Row((Cell("a"), Cell("1"))),),
    )
    assert csv_bytes(t).decode().splitlines() == ['Skill,"Security, codex"', "a,1"]
    assert t.groups == (("", 1, t.columns[0]), ("Security", 1, None))


# ---- in the browser ----------------------------------------------------------------------


#: Per table: its head cells' texts that are not wholly inside the table's box.
_OFF_SCREEN = """(id) => {
  const t = document.getElementById(id), box = t.closest('.table-wrap').getBoundingClientRect();
  return [...t.querySelectorAll('thead th')].filter(th => {
    const r = th.getBoundingClientRect();
    return r.left < box.left - 1 || r.right > box.right + 1;
  }).map(th => th.textContent.trim());
}"""

#: Tables whose last columns were off screen at 1280 px: the judged caveman receipt's output
#: tokens, report 001's four savings against the control, report 002's two Efficiency columns.
WIDE = [
    (
        "receipts/caveman-5c7e19a-judged-fidelity-caveman/",
        "table-cases-caveman-5c7e19a-judged-fidelity-caveman",
    ),
    ("reports/001/", "table-output-tokens-per-case"),
    ("reports/002/", "table-source-figures-by-skill"),
]


@pytest.mark.browser
def test_at_1280_px_every_column_of_the_wide_tables_is_on_screen(
    browser: Any, built_site: Any
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    off = {}
    for path, table in WIDE:
        page.goto((built_site / path / "index.html").as_uri())
        off[table] = page.evaluate(_OFF_SCREEN, table)
    page.close()
    assert off == {t: [] for _, t in WIDE}


@pytest.mark.browser
@pytest.mark.parametrize("width", (390, 1280))
def test_a_long_tables_scroll_bar_is_in_reach_and_its_header_stays(
    browser: Any, built_site: Any, width: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": 844})
    # on a phone the receipts index reads as a list, nothing sideways (test_phone_stacked_rows)
    for path in ("reports/002/", "receipts/")[: 1 if width < 720 else 2]:
        page.goto((built_site / path / "index.html").as_uri())
        box = page.locator(".table-wrap.long").first
        box.scroll_into_view_if_needed()
        # the box (so its sideways scroll bar) fits the screen; the page is no longer 36,000
        # (report 002) or 96,782 px (the receipts index at 390 px) tall
        assert box.bounding_box()["height"] <= 844, path
        box.evaluate("b => { b.scrollTop = 3000; }")
        tops = box.evaluate(
            "b => [b, b.querySelector('thead')].map(e => e.getBoundingClientRect().top)"
        )
        assert abs(tops[0] - tops[1]) <= 1, (path, tops)
        # scrolled sideways, a row keeps its head (the receipt, the skill) at the box's left
        box.evaluate("b => { b.scrollLeft = 300; }")
        lefts = box.evaluate(
            "b => [b, b.querySelector('tbody th')].map(e => e.getBoundingClientRect().left)"
        )
        assert abs(lefts[0] - lefts[1]) <= 1, (path, lefts)
    page.close()


@pytest.mark.browser
def test_a_column_under_a_group_heading_sorts(browser: Any, built_site: Any) -> None:
    # the sort buttons count columns across both header rows: "codex" under Efficiency is the
    # 11th column, not the 3rd cell of its row
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto((built_site / "reports/002/index.html").as_uri())
    heads = page.locator("#table-source-figures-by-skill thead tr").nth(1).locator("th")
    assert heads.count() == 10
    heads.nth(9).locator("button").click()
    assert heads.nth(9).get_attribute("aria-sort") == "ascending"
    cells = page.locator("#table-source-figures-by-skill tbody tr td:nth-child(11)")
    scores = [float(t.split()[0]) for t in cells.all_inner_texts() if t[:1].isdigit()]
    page.close()
    assert len(scores) > 300 and scores == sorted(scores)


#: Per table of a page: its width, its box's, its first column's, the cells whose text runs
#: past their edge, and (its box scrolled to the end) how far its first column is from the box's
#: left edge and whether its last column is wholly in the box.
_WRITTEN = """() => [...document.querySelectorAll('main table')].map(t => {
  const box = t.closest('.table-wrap'), first = t.rows[0].cells[0];
  const width = e => Math.round(e.getBoundingClientRect().width);
  const cut = [...t.querySelectorAll('td, th')].filter(c => c.scrollWidth > c.clientWidth + 1
    || [...c.querySelectorAll('code')].some(k =>
      k.getBoundingClientRect().right > c.getBoundingClientRect().right + 1));
  box.scrollLeft = box.scrollWidth;
  const b = box.getBoundingClientRect(), row = t.tBodies[0].rows[0];
  const last = row.cells[row.cells.length - 1].getBoundingClientRect();
  return [width(t), width(box), width(first), cut.map(c => c.textContent.trim()),
          Math.round(row.cells[0].getBoundingClientRect().left - b.left),
          last.left >= b.left - 1 && last.right <= b.right + 1];
})"""


@pytest.mark.browser
def test_on_a_phone_the_receipt_specifications_tables_show_a_field_beside_its_meaning(
    spec_on_a_phone: Any,
) -> None:
    # at 390 px the box of a table is 358 px (390 less the page's 2 × 16 px). The versions table
    # was 974 px, its "Served at" column of addresses 464; the fields table 1,104 px, its column
    # of dotted paths 457: a phone showed a field and never its meaning. An address and a path
    # now break at their dots, slashes and underscores, and the field stays at the box's left
    # edge while the meaning is scrolled to.
    versions, fields, levels, limits = spec_on_a_phone.evaluate(_WRITTEN)
    assert versions[:2] == [358, 358] and versions[3] == []
    assert fields[1] == 358 and fields[2] <= 160 and fields[3] == [] and levels[3] == []
    assert limits[3] == []
    # scrolled to its end, the fields table still shows the field, and the meaning beside it
    assert fields[4] == 0 and fields[5] is True


#: The fields table of the receipt specification: its box's scrolled width and width, and per
#: row the tops of its field, its type and its meaning.
_FIELDS = """() => {
  const box = document.querySelector('#fields + p + .table-wrap');
  const top = c => Math.round(c.getBoundingClientRect().top);
  return [box.scrollWidth, box.clientWidth,
          [...box.querySelectorAll('tbody tr')].map(r => [...r.cells].map(top))];
}"""


@pytest.mark.browser
def test_on_a_phone_the_fields_table_reads_as_a_list_and_never_scrolls_sideways(
    spec_on_a_phone: Any,
) -> None:
    # at 390 px the fields table was 563 px in its 358 px box (390 less the page's 2 × 16 px):
    # five columns a phone cannot hold side by side; each field now heads its type, unit and
    # first version (one line) and its meaning under them
    page = spec_on_a_phone
    scrolled, width, rows = page.evaluate(_FIELDS)
    assert (scrolled, width) == (358, 358) and len(rows) > 250
    for field, kind, unit, since, meaning in rows:
        # an object's or an array's unit cell is empty and not drawn (its top reads 0)
        assert field < kind <= since < meaning and (unit == 0 or kind <= unit <= since)
    # at 1280 px it stays a table: a row's cells side by side
    page.set_viewport_size({"width": 1280, "height": 900})
    assert all(len(set(r)) == 1 for r in page.evaluate(_FIELDS)[2])


def test_a_written_tables_names_and_addresses_break_at_their_dots_slashes_and_underscores() -> None:
    html = wrap_tables(
        "<p>run.model</p><table><tr><td><code>cases[].arms.&lt;arm&gt;.input_tokens</code></td>"
        "<td>0.16, e.g. 5/5 (A/A) https://driftproof.dev/spec/0.16/receipt.json</td></tr></table><p>z</p>"
    )
    u = '<wbr class="u">'  # an underscore breaks on a phone only (site.css)
    assert html == (
        "<p>run.model</p>"
        '<div class="table-wrap" tabindex="0" role="region" aria-label="Table 1, scrolls '
        'sideways when wider than the screen"><table class="written"><tr>'
        f"<td><code>cases[]<wbr>.arms<wbr>.&lt;arm&gt;<wbr>.input{u}_tokens</code></td>"
        "<td>0.16, e.g. 5/5 (A/A) https://<wbr>driftproof<wbr>.dev/<wbr>spec/0.16/<wbr>receipt<wbr>.json"
        "</td></tr></table></div>"
        "<p>z</p>"
    )
    assert "table.written wbr.u { display: none; }" in CSS


#: The lines of text in each cell of the first body row of a receipt's arms table.
_ARM_LINES = """() => [...document.querySelector('table[id^="table-arms-"]').tBodies[0]
  .rows[0].cells].map(c => { const r = document.createRange(); r.selectNodeContents(c);
              return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; })"""


@pytest.mark.browser
def test_on_a_phone_the_arms_tables_sentences_take_two_lines(browser: Any, built_site: Any) -> None:
    # at 390 px caveman's "10 drawn over 10 cases, 0 scored" ran seven lines in a 70 px column,
    # the plugin probe's "1 of 1 observed draw (100%)" four; the phone rule (site.css) holds the
    # draws and skill-fired columns to two lines, and 1280 px keeps every cell on one
    from driftproof.pages.sheet_facts import ARM_COLUMNS

    assert [ARM_COLUMNS[i][0] for i in (1, 4)] == ["draws", "skill fired"]  # nth-child 2, 5
    pages = ("caveman-2b10489-caveman", "claude-plugin-eval-probe-plugin-8955eb63")
    lines = {}
    for width in (390, 1280):
        page = browser.new_page(viewport={"width": width, "height": 900})
        for name in pages:
            page.goto((built_site / "receipts" / name / "index.html").as_uri())
            lines[width, name] = page.evaluate(_ARM_LINES)
        page.close()
    assert all(cells[1] <= 2 and cells[4] <= 2 for (w, _), cells in lines.items() if w == 390)
    assert all(max(cells) == 1 for (w, _), cells in lines.items() if w == 1280)
