"""The receipt specification page: one name wherever a link names it; in headless Chromium
(marked ``browser``, see test_browser.py) its fields table fits the page at desktop widths
without a sideways scroll, and on a phone its versions, fields and limits tables read as
lists."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

#: A table's box, found by the heading and paragraph before it: the box's scrolled width, its
#: width, and per column of the first row, the column's left and right edges.
_BOX = """(sel) => {
  const box = document.querySelector(sel), b = box.getBoundingClientRect();
  const row = box.querySelector('tbody tr');
  return [box.scrollWidth, box.clientWidth, Math.round(b.left), Math.round(b.right),
          [...row.cells].map(c => { const r = c.getBoundingClientRect();
                                    return [Math.round(r.left), Math.round(r.right)]; })];
}"""

FIELDS = "#fields + p + .table-wrap"


@pytest.mark.browser
@pytest.mark.parametrize("width", (768, 1024, 1280))
def test_at_desktop_widths_the_fields_table_fits_without_a_sideways_scroll(
    browser: Any, built_site: Any, width: int
) -> None:
    # at 1280 px the fields table was 911 px wide in its 736 px box (the prose measure, 46rem):
    # its widest paths (run.judge_samples_per_generation, 244 px of code) and types
    # (passed_with_observations) set its columns, and its Meaning column was cut off until
    # scrolled. Its box now takes the page's width (1280 less 2 × 80 px of margin and
    # 2 × 16 px of padding: 1120 px) and a path breaks at its underscores.
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto((built_site / "receipt-spec.html").as_uri())
    scrolled, box_width, left, right, cells = page.evaluate(_BOX, FIELDS)
    page.close()
    assert scrolled == box_width, (scrolled, box_width)
    assert all(left <= a and b <= right + 1 for a, b in cells), (left, right, cells)
    if width == 1280:
        assert box_width == 1120
        meaning = cells[4][1] - cells[4][0]
        assert meaning >= 400, meaning  # a sentence of some 50 characters a line, not 4 words


#: Per row of a table's box: its cells' tops and widths, and the number of lines each cell's
#: code runs over (0 for a cell holding none).
_ROWS = """(sel) => [...document.querySelector(sel).querySelectorAll('tbody tr')].map(r =>
  [...r.cells].map(c => { const k = c.querySelector('code'), b = c.getBoundingClientRect();
    const lines = k ? new Set([...k.getClientRects()].map(x => Math.round(x.top))).size : 0;
    return [Math.round(b.top), Math.round(b.width), lines]; }))"""

VERSIONS = "#versions-and-where-the-schemas-are-served + p + .table-wrap"
LIMITS = "#limits + p + .table-wrap"


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ("light", "dark"))
def test_on_a_phone_the_versions_and_limits_tables_read_as_lists(
    browser: Any, built_site: Any, scheme: str
) -> None:
    # at 390 px (a 358 px box) the limits table was 407 px wide: its "What it bounds" column
    # 115 px, a word or two a line and cut off, its names broken as RECEIPT / _MAX / _BYTES;
    # the versions table's "Served at" column (112 px) ran each address over 6 or 7 lines. Each
    # row now heads a block as wide as the box: the name or version, then (labelled) its value
    # or address, its text under them.
    page = browser.new_page(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    page.goto((built_site / "receipt-spec.html").as_uri())
    boxes = {sel: page.evaluate(_BOX, sel)[:2] for sel in (VERSIONS, LIMITS)}
    versions, limits = page.evaluate(_ROWS, VERSIONS), page.evaluate(_ROWS, LIMITS)
    page.close()
    assert boxes == {VERSIONS: [358, 358], LIMITS: [358, 358]}
    assert len(versions) == 8 and len(limits) >= 10
    for row in versions + limits:
        (top1, w1, _), (top2, w2, _), (top3, w3, _) = row
        assert top1 < top2 < top3 and w1 == w2 == w3 == 358, row
    # a limit's name on one line; a version's address (some 52 characters) on two at most
    assert [row[0][2] for row in limits] == [1] * len(limits)
    assert all(1 <= row[2][2] <= 2 for row in versions), [row[2][2] for row in versions]


#: The phone list's line under each field: its type, unit and first version as drawn, labels
#: (the cells' ::before) included, cells not drawn left out.
_LABELS = """() => [...document.querySelectorAll('#fields + p + .table-wrap tbody tr')].map(r =>
  [r.cells[0].textContent, [...r.cells].slice(1, 4)
    .filter(c => getComputedStyle(c).display !== 'none')
    .map(c => getComputedStyle(c, '::before').content.slice(1, -1) + c.textContent).join('')])"""


@pytest.mark.browser
def test_on_a_phone_the_fields_list_says_what_the_table_says(spec_on_a_phone: Any) -> None:
    # the list read "Type: object · Unit: object" (the table gave an object its type again as
    # its unit) and "Type: 0.16" for schema_version (the newest version's own value, on a row
    # dated 0.3.1); an object has no unit, so its line names none
    lines = dict(spec_on_a_phone.evaluate(_LABELS))
    assert lines["schema_version"] == "Type: string · Unit: version · Since 0.3.1"
    assert lines["run"] == "Type: object · Since 0.3.1"
    assert lines["run.harness"] == "Type: object or null · Since 0.10"
    assert lines["cases"] == "Type: array · Since 0.3.1"
    assert lines["run.model"] == "Type: string or null · Unit: id · Since 0.3.1"
    assert not [f for f, line in lines.items() if "Unit:  ·" in line or "Unit: object" in line]


def _links(html: str, href_end: str) -> set[str]:
    """The texts of the links of ``html`` whose address ends with ``href_end``."""
    found = re.findall(r'<a href="([^"]*)"[^>]*>(.*?)</a>', html, re.S)
    return {" ".join(re.sub("<[^>]+>", "", t).split()) for h, t in found if h.endswith(href_end)}


def test_the_specification_page_has_one_name_and_the_schema_list_its_own(
    built_site: Path,
) -> None:
    # the page titled "Receipt specification" was "Schema" in the menu, and the footer named
    # the list of served schema files ("Receipt schema versions") "Receipt schema"
    def h1(path: str) -> str:
        html = (built_site / path).read_text(encoding="utf-8")
        return re.sub("<[^>]+>", "", re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S)[1]).strip()

    assert h1("receipt-spec.html") == "Receipt specification"
    assert h1("spec/versions/index.html") == "Receipt schema versions"
    for path in ("index.html", "method.html", "receipts/index.html", "reports/001/index.html"):
        html = (built_site / path).read_text(encoding="utf-8")
        nav, footer = html.split("</header>")[0], html.split('<footer class="site-footer">')[1]
        assert _links(nav, "receipt-spec.html") == {"Receipt spec"}, path
        assert _links(footer, "spec/versions/index.html") == {"Receipt schema versions"}, path
    # the home page names the page too, and keeps "published schema" for the served files
    home = (built_site / "index.html").read_text(encoding="utf-8")
    home = home.split("</header>")[1].split("<footer")[0]
    assert _links(home, "receipt-spec.html") == {"receipt specification"}
    assert _links(home, "spec/versions/index.html") == {"published schema"}


@pytest.mark.browser
def test_on_a_phone_the_menu_naming_the_specification_keeps_to_two_lines(
    spec_on_a_phone: Any,
) -> None:
    # "Receipt spec" is 6 characters longer than "Schema": at 390 px, the links 0.95rem high
    # and 0.7rem apart, Search went to a third line (the header 89 px, not 64) on every page;
    # at 0.9rem and 0.5rem apart they keep to two lines from 376 px up
    tops = spec_on_a_phone.evaluate(
        "[...document.querySelectorAll('header nav ul li')].slice(1)"
        ".map(li => Math.round(li.getBoundingClientRect().top))"
    )
    assert len(tops) == 8 and len(set(tops)) == 2, tops


@pytest.mark.browser
def test_on_a_phone_the_schema_versions_table_keeps_its_addresses_readable(
    browser: Any, built_site: Path
) -> None:
    # at 390 px the $id column (https://driftproof.dev/spec/0.16/receipt.schema.json, 52
    # characters) was 45 px wide, three characters a line, and each row 441 px tall; the
    # table scrolls sideways, so each hash cell keeps room for 20 characters or more a line
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto((built_site / "spec/versions/index.html").as_uri())
    sizes = page.evaluate(
        "[...document.querySelectorAll('tbody td.hash')].map(td => {"
        " const r = td.getBoundingClientRect(); return [r.width, r.height]; })"
    )
    page.close()
    assert len(sizes) >= 14  # $id and sha256 of each of 7 versions
    assert all(w >= 180 and h <= 110 for w, h in sizes), sizes
