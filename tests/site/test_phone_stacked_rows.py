"""On a phone the results page's tables and the receipts index read as a list (site.css,
``table.stack``): each row the receipt's name, its headline figure at the box's full width under
it, then its short facts labelled, nothing sideways. In columns a row ran seven lines or more,
its figure in a column about 140 px wide and its level and model scrolled off the screen.
Marked ``browser`` (see test_browser.py)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import REPO

from driftproof.pages.results import FOLD_FROM, listed_receipt, results_rows
from driftproof.receipt import read_receipt
from driftproof.site.html import page, page_env, results_page_from_rows

pytestmark = pytest.mark.browser

#: Each stacked table: whether it is in a folded group, its box's inner left and right edges,
#: and per row the name's bottom, the figure cell's top, bottom, left and width, each labelled
#: cell's top, right and words as shown (its label drawn before it), and the shown width of
#: the file's sha256 cell (0: none).
_ROWS = """() => [...document.querySelectorAll('table.stack')].map(t => {
  const box = t.closest('.table-wrap').getBoundingClientRect();
  const rows = [...t.tBodies[0].rows].map(tr => {
    const name = tr.cells[0].getBoundingClientRect();
    const fig = [...tr.cells].find(c => c.tagName === 'TD' && !c.dataset.label
      && !c.classList.contains('hash')).getBoundingClientRect();
    const facts = [...tr.querySelectorAll('td[data-label]')].map(c => {
      const r = c.getBoundingClientRect(), before = getComputedStyle(c, '::before').content;
      return [r.top, r.right, (before === 'none' ? '' : JSON.parse(before)) + c.textContent];
    });
    const hash = tr.querySelector('td.hash');
    return [name.bottom, fig.top, fig.bottom, fig.left, fig.width, facts,
            hash ? hash.getBoundingClientRect().width : 0];
  });
  return [!!t.closest('details'), box.left, box.right, rows];
})"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results page and receipts index of caveman's imports and more NVIDIA imports than a
    group shows unfolded, with the site's style sheet and script."""
    site = tmp_path_factory.mktemp("phone")
    (site / "assets").mkdir()
    for name in ("site.css", "sort.js"):
        shutil.copy(REPO / "templates/theme/assets" / name, site / "assets" / name)
    files = sorted((REPO / "receipts").glob("caveman-*.json"))
    files += sorted((REPO / "receipts").glob("nvidia-*.json"))[: FOLD_FROM + 1]
    receipts = {p.stem: read_receipt(p) for p in files}
    rows = results_rows(receipts)
    env = page_env()
    for folder in ("results", "receipts"):
        (site / folder).mkdir()
    (site / "results/index.html").write_bytes(results_page_from_rows(rows, env))
    by_name = {x.receipt: x for x in rows}
    listing = [
        listed_receipt(p.stem, receipts[p.stem], hashlib.sha256(p.read_bytes()).hexdigest(),
                       by_name[p.stem])
        for p in files
    ]  # fmt: skip
    html = page(env, "receipts.html", "receipts/index.html", nav_current="", receipts=listing)
    (site / "receipts/index.html").write_bytes(html)
    return site


def _tables(browser: Any, pages: Path, width: int) -> tuple[list[Any], list[int]]:
    """Each page's stacked tables (:data:`_ROWS`), its folded groups open, at ``width`` px; and
    each page's scroll width."""
    p = browser.new_page(viewport={"width": width, "height": 844})
    tables, widths = [], []
    for path in ("results/index.html", "receipts/index.html"):
        p.goto((pages / path).as_uri())
        p.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        tables += p.evaluate(_ROWS)
        widths.append(p.evaluate("() => document.documentElement.scrollWidth"))
    p.close()
    return tables, widths


@pytest.mark.parametrize("width", (360, 375, 390))
def test_a_rows_figure_takes_the_full_width_under_its_name_and_its_facts_follow(
    browser: Any, pages: Path, width: int
) -> None:
    tables, widths = _tables(browser, pages, width)
    assert widths == [width, width]  # no page scrolls sideways
    assert [folded for folded, *_ in tables] == [False, True, False]  # caveman, NVIDIA, index
    for folded, left, right, rows in tables:
        # the box: the page less main's padding (1rem a side); in the folded group less the
        # details box's padding (.6rem a side) and border (1px a side) too
        inner = width - 32 - (2 * 9.6 + 2 if folded else 0)
        assert right - left == pytest.approx(inner, abs=0.5)
        for name_bottom, top, bottom, fig_left, fig_width, facts, _ in rows:
            assert name_bottom <= top + 0.5 and fig_left == pytest.approx(left, abs=0.5)
            assert fig_width == pytest.approx(inner, abs=0.5)
            assert facts and all(t >= bottom - 0.5 and r <= right + 0.5 for t, r, _ in facts)


def test_a_rows_short_facts_read_labelled_and_the_file_hash_is_left_to_wide_screens(
    browser: Any, pages: Path
) -> None:
    phone, _ = _tables(browser, pages, 390)
    wide, _ = _tables(browser, pages, 1280)
    caveman, index = phone[0][3][0], phone[2][3][0]  # each table's first row
    # caveman-2b10489-caveman-cn and caveman-2b10489-caveman: their receipts' skill, level
    # DECLARED (an import), model claude-opus-4-6, 10 cases; an import reads no verdict, and
    # caveman's evals recorded no judged score (no band)
    assert [w for *_, w in index[5]] == [
        "skill caveman-cn", "level DECLARED", "model claude-opus-4-6", "cases 10"]  # fmt: skip
    assert [w for *_, w in caveman[5]] == [
        "skill caveman", "model claude-opus-4-6", "level DECLARED", "reading no verdict",
        "band source none (no judged score)"]  # fmt: skip
    assert index[6] == 0 and wide[2][3][0][6] > 0
