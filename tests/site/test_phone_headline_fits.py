"""On a phone the headline tables (the results page's imports, the receipts index) show their
receipt, skill and headline figure whole in the table's box: in a folded group (NVIDIA's 343
receipts, inside a ``<details>`` box narrower by its padding and border) at 390 px, and in every
table at 360 px, the figure's line ends were under the box's right edge. Marked ``browser``."""

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

#: Each headline table: how far its headline cells reach past its box's right edge (px), and
#: whether the box is inside a folded group.
_REACH = """() => [...document.querySelectorAll('table.headline3')].map(t => {
  const box = t.closest('.table-wrap'), edge = box.getBoundingClientRect().left + box.clientWidth;
  const cells = [...t.tBodies[0].rows].map(r => r.cells[2].getBoundingClientRect().right);
  const right = Math.max(...cells);
  return [right - edge, !!t.closest('details')];
})"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results page and receipts index of caveman's imports and more NVIDIA imports than a
    group shows unfolded, with the site's style sheet."""
    site = tmp_path_factory.mktemp("phone")
    (site / "assets").mkdir()
    shutil.copy(REPO / "templates/theme/assets/site.css", site / "assets/site.css")
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


@pytest.mark.parametrize("width", (360, 375, 390))
def test_the_headline_figure_is_whole_in_its_box(browser: Any, pages: Path, width: int) -> None:
    p = browser.new_page(viewport={"width": width, "height": 844})
    reach = []
    for path in ("results/index.html", "receipts/index.html"):
        p.goto((pages / path).as_uri())
        p.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        reach += p.evaluate(_REACH)
    p.close()
    assert any(folded for _, folded in reach)  # NVIDIA's group, folded
    assert len(reach) == 3  # caveman's group, NVIDIA's, the receipts index
    assert all(past <= 0 for past, _ in reach), reach
