"""What a newcomer saw at 390 and 1280 px, in headless Chromium (marked ``browser``, as
test_browser.py): a lost-draws cell that repeated its reasons (the column one word per line, the
demo receipt's row 388 px tall and its output tokens cut off at 1280 px; the demo diff's row
623 px tall), a report's date broken across lines ("· 2026-" / "11-30"), and sort buttons that
showed a dotted underline and no tooltip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

#: How many lines of text a row is tall: its height over its first cell's line height.
_LINES = """row => row.getBoundingClientRect().height
  / parseFloat(getComputedStyle(row.cells[0]).lineHeight)"""


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from driftproof.demo import run_demo

    out = tmp_path_factory.mktemp("demo") / "demo"
    run_demo(out)
    return out / "site"


@pytest.mark.parametrize("width", (390, 1280))
def test_the_demos_lost_draw_rows_are_a_few_lines_tall(
    browser: Any, demo_site: Path, width: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto((demo_site / "receipts/v2-run1/index.html").as_uri())
    receipt_row = page.locator("#case-rename-flag").evaluate(_LINES)
    box = page.locator("#table-cases-v2-run1").evaluate(
        "t => { const b = t.closest('.table-wrap'); return [b.scrollWidth, b.clientWidth]; }"
    )
    page.goto((demo_site / "index.html").as_uri())
    diff_row = page.locator("section.diff tbody tr", has_text="rename-flag").evaluate(_LINES)
    page.close()
    # the case name and "with skill 1 of 3" wrap to 3 lines at most; the diff's note to 4
    assert receipt_row < 4.5 and diff_row < 5.5, (receipt_row, diff_row)
    if width == 1280:  # every column of the case table on screen, output tokens included
        assert box[0] <= box[1]


def test_a_reports_date_stays_on_one_line(browser: Any, built_site: Path) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 900})
    found = {}
    for path in ("index.html", "reports/004/index.html"):
        page.goto((built_site / path).as_uri())
        dates = page.locator("time").evaluate_all(
            "ts => ts.map(t => [t.textContent, t.getClientRects().length])"
        )
        assert dates, path
        found[path] = [d for d, lines in dates if lines != 1]
    page.close()
    assert found == {p: [] for p in found}


def test_a_sort_button_says_what_it_sorts_and_shows_an_arrow(
    browser: Any, built_site: Path
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto((built_site / "reports/002/index.html").as_uri())
    table = page.locator("#table-source-figures-by-skill")
    heads = table.locator("button.sort").evaluate_all(
        "bs => bs.map(b => [b.title, getComputedStyle(b.lastChild, '::before').content])"
    )
    # a column under a group's heading is named with it, as its CSV header names it
    assert heads[:3] == [
        ["Sort by Skill", '" ↕"'],
        ["Sort by Security, claude-code", '" ↕"'],
        ["Sort by Security, codex", '" ↕"'],
    ]
    assert len(heads) == 11
    # the arrow is for the eye; a screen reader reads the head's name and its aria-sort
    hidden = table.locator("button.sort .sort-mark").evaluate_all(
        "ms => ms.map(m => m.getAttribute('aria-hidden'))"
    )
    assert hidden == ["true"] * 11
    button = table.locator("button.sort").first
    button.click()
    mark = "b => getComputedStyle(b.lastChild, '::before').content"
    ascending = button.evaluate(mark)
    button.click()
    descending = button.evaluate(mark)
    page.close()
    assert (ascending, descending) == ('" ▲"', '" ▼"')


def test_a_lost_draws_reason_of_json_wraps_in_its_cell_on_a_phone(
    browser: Any, tmp_path: Path
) -> None:
    import shutil

    from factories import arm, case, make_receipt
    from site_fixtures import REPO

    from driftproof.receipt import Receipt
    from driftproof.site.html import page_env, receipt_files

    # claude -p's words for an overloaded API (tests/run/fake_bins/claude.py), with no space
    # in the 130 characters of its JSON body
    body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},'
    body += '"request_id":"req_011CUm9w3x5vHqL2p8Zz7aBc"}'
    c = case("c1", [0.8, 0.9, None], [0.4, 0.5, 0.6])
    c["arms"]["with_skill"] = arm([0.8, 0.9, None], lost_reason=f"API Error: 529 {body}")
    files = receipt_files("t", Receipt.model_validate(make_receipt([c])), b"", [], page_env())
    for path, data in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    shutil.copytree(REPO / "templates" / "theme" / "assets", tmp_path / "assets")
    page = browser.new_page(viewport={"width": 390, "height": 900})
    page.goto((tmp_path / "receipts/t/index.html").as_uri())
    cell = page.locator("#table-lost-t td", has_text="API Error").evaluate(
        "c => c.getBoundingClientRect().width"
    )
    box = page.locator("#table-lost-t").evaluate(
        "t => { const b = t.closest('.table-wrap'); return [b.scrollWidth, b.clientWidth]; }"
    )
    page.close()
    assert cell < 390 and box[0] <= box[1], (cell, box)  # the reason held it 833 px wide
