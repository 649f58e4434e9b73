"""On a phone, a table whose rows two columns name keeps both on screen as it scrolls sideways:
Report 001's savings (skill, against: "caveman" twice once "against" scrolled away), an NVIDIA
receipt's printed figures (dimension, agent) and Report 004's skill-fired tables (receipt or
case, arm)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from driftproof.pages.tables import Column, Row, Table
from driftproof.pages.token_savings import savings_summary

#: Every body row's first two cells, after the box is scrolled to its right end: whether each is
#: wholly inside the box, the second starting where the first ends (neither under the other).
BOTH_KEYS_SHOWN = """id => {
  const t = document.getElementById(id), box = t.closest('.table-wrap');
  box.scrollLeft = box.scrollWidth;
  const b = box.getBoundingClientRect();
  return [box.scrollLeft > 0, [...t.tBodies[0].rows].every(row => {
    const [k1, k2] = [row.cells[0], row.cells[1]].map(c => c.getBoundingClientRect());
    return k1.left >= b.left - 1 && k2.right <= b.right + 1 && Math.abs(k2.left - k1.right) <= 1;
  })];
}"""

TWO_KEYS = [
    ("reports/001/index.html", "table-token-savings"),
    ("reports/004/index.html", "table-skill-fired-arms"),
    ("reports/004/index.html", "table-skill-fired-cases"),
    (
        "receipts/nvidia-7149a88-aiq-deploy/index.html",
        "table-figures-nvidia-7149a88-aiq-deploy",
    ),
]


def test_a_table_says_how_many_columns_name_its_rows() -> None:
    assert Table("t", "c", (Column("a"),), (Row(()),)).keys == 1
    assert savings_summary([]).keys == 2  # a skill, and what it is measured against


@pytest.mark.browser
def test_on_a_phone_both_keys_stay_as_the_table_scrolls(browser: Any, built_site: Path) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    seen = {}
    for path, table in TWO_KEYS:
        page.goto((built_site / path).as_uri())
        seen[table] = page.evaluate(BOTH_KEYS_SHOWN, table)
    page.close()
    assert seen == {t: [True, True] for _, t in TWO_KEYS}
