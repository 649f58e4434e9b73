"""sort.js: a row with no figure ("–") sorts last, ascending and descending (Report 001's
savings table put its terse-control row first when sorted by median descending; Report 002's
skills with no results came first ascending)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import REPO

from driftproof.pages.printed_figures import NOT_PRINTED
from driftproof.pages.words import fmt

pytestmark = pytest.mark.browser

SORT_JS = REPO / "templates/theme/assets/sort.js"

# rows a to e, in published order: a column of figures with data-sort (as Report 001's), and a
# column of text only (as Report 002's "92.0 (12.0)")
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body>
<table class="sortable" id="t"><thead><tr><th>row</th><th>figure</th><th>printed</th></tr></thead>
<tbody>
<tr><th>a</th><td data-sort="0.5">+50%</td><td>92.0 (12.0)</td></tr>
<tr><th>b</th><td>–</td><td>–</td></tr>
<tr><th>c</th><td data-sort="-0.2">−20%</td><td>100.0 (0.0)</td></tr>
<tr><th>d</th><td>–</td><td>–</td></tr>
<tr><th>e</th><td data-sort="0.9">+90%</td><td>43.0 (22.0)</td></tr>
</tbody></table><script src="sort.js"></script></body></html>"""


def test_the_site_marks_no_figure_as_sort_js_reads_it() -> None:
    assert NOT_PRINTED == fmt(None) == "\u2013"
    assert 'var NO_FIGURE = "\\u2013";' in SORT_JS.read_text(encoding="utf-8")


def test_rows_with_no_figure_sort_last_both_ways(browser: Any, tmp_path: Path) -> None:
    (tmp_path / "t.html").write_text(PAGE, encoding="utf-8")
    shutil.copy(SORT_JS, tmp_path / "sort.js")
    page = browser.new_page()
    page.goto((tmp_path / "t.html").as_uri())
    order = "() => [...document.querySelectorAll('#t tbody th')].map(th => th.textContent).join('')"
    seen = []
    for col in (1, 2):
        button = page.locator("#t thead th").nth(col).locator("button")
        button.click()
        seen.append(page.evaluate(order))
        button.click()
        seen.append(page.evaluate(order))
    page.close()
    # by hand: figures −0.2 < 0.5 < 0.9; text 43.0 < 92.0 < 100.0 (numeric compare); b and d
    # (no figure) after them in published order, both ways
    assert seen == ["caebd", "eacbd", "eacbd", "caebd"]
