"""The receipt specification page's tables in headless Chromium (marked ``browser``, see
test_browser.py): at desktop widths the fields table fits the page without a sideways scroll;
on a phone the versions, fields and limits tables read as lists."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

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
