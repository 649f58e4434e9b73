"""A receipt page's case table on a phone (390 px, headless Chromium): the sticky first column's
lines between rows meet the rows' lines. Marked ``browser`` (see test_browser.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import REPO

from driftproof.receipt import read_receipt
from driftproof.site.html import page_env, receipt_files

pytestmark = pytest.mark.browser

#: skill-creator's import: nine cases, each row two text lines tall at 390 px
NEBIUS = REPO / "receipts" / "skill-creator-nebius-skills-iteration-1-12a0aae8.json"

#: The case table's rows: the middle of the first and second cells, each cell's top and bottom.
_ROWS = """() => [...document.querySelectorAll('table[id^="table-cases-"] tr')].map(tr => {
  const box = el => { const r = el.getBoundingClientRect();
    return [r.left + r.width / 2, r.top, r.bottom]; };
  return [box(tr.children[0]), box(tr.children[1])];
})"""

#: The colour of a table's lines in the light scheme (site.css ``--line``).
LINE = (0xD0, 0xD0, 0xD0)


def _rules_at(shot: Any, x: float, top: float, bottom: float) -> list[int]:
    """The pixel rows between ``top`` and ``bottom`` where a table line crosses column ``x``
    (nine pixels side by side in the line's colour; no glyph draws such a run)."""
    return [
        y
        for y in range(int(top), int(bottom))
        if all(shot.getpixel((int(x) + dx, y)) == LINE for dx in range(-4, 5))
    ]


def test_the_case_tables_sticky_column_keeps_every_rows_line(
    browser: Any, tmp_path: Path, chromium: str
) -> None:
    # at 390 px each row was 57.72 px tall (two lines of 23.56 px, 4.8 px padding above and
    # below): the case column's lines sat a pixel off the rows' or were not drawn at all
    from PIL import Image

    files = receipt_files("t", read_receipt(NEBIUS), NEBIUS.read_bytes(), [], page_env())
    index = tmp_path / "receipts/t/index.html"
    index.parent.mkdir(parents=True)
    index.write_bytes(files["receipts/t/index.html"])
    (tmp_path / "assets").mkdir()
    shutil.copy(REPO / "templates/theme/assets/site.css", tmp_path / "assets/site.css")
    p = browser.new_page(viewport={"width": 390, "height": 2400})
    p.goto(index.as_uri())
    rows = p.evaluate(_ROWS)
    p.close()
    assert len(rows) == 10  # the header and nine cases
    png = tmp_path / "shot.png"
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--window-size=390,2400", f"--screenshot={png}", index.as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    shot = Image.open(png).convert("RGB")
    top, bottom = rows[0][0][1] - 2, rows[-1][0][2] + 2
    assert bottom < shot.height
    ours = _rules_at(shot, rows[0][0][0], top, bottom)
    theirs = _rules_at(shot, rows[0][1][0], top, bottom)
    assert len(theirs) >= len(rows) + 1  # the header's top, and each row's bottom
    assert ours == theirs
