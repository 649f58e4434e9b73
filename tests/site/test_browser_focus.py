"""Keyboard focus in the built site's wide tables, in headless Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

#: For the focused element: its words, and whether a point just inside each of its two ends
#: (mid-height) shows that element itself, not the box's edge nor the first column over it.
ENDS_SHOWN = """() => {
  const b = document.activeElement, r = b.getBoundingClientRect(), y = (r.top + r.bottom) / 2;
  const at = x => { const e = document.elementFromPoint(x, y); return !!e && b.contains(e); };
  return [b.textContent.trim(), at(r.left + 2) && at(r.right - 2)];
}"""


def test_a_sort_head_reached_by_tab_shows_whole_on_a_phone(browser: Any, built_site: Path) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto((built_site / "reports/001/index.html").as_uri())
    # Report 001's savings table: 11 columns, about twice as wide as its box at 390 px, its
    # first column (the skill) staying put as it scrolls
    buttons = page.locator("#table-token-savings button.sort")
    names = buttons.evaluate_all("bs => bs.map(b => b.textContent.trim())")
    assert len(names) == 11
    buttons.first.focus()
    seen = [page.evaluate(ENDS_SHOWN)]
    for key in ["Tab"] * 10 + ["Shift+Tab"] * 10:  # to the last head, and back to the first
        page.keyboard.press(key)
        seen.append(page.evaluate(ENDS_SHOWN))
    page.close()
    # every head, both ways; "min" was cut at the box's edge and, back from the last,
    # "against" and the heads after it lay under the skill column
    assert seen == [[n, True] for n in names + names[-2::-1]]
