"""A chart's legend stays inside the chart, drawn in headless Chromium, however long its names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from driftproof.pages.chart_text import MISSING_LABEL, Series
from driftproof.site import charts

pytestmark = pytest.mark.browser

#: The legend's lines, in order, and the texts of the chart drawn past its right or left edge.
LEGEND = """() => {
  const box = document.documentElement.getBoundingClientRect();
  const out = [...document.querySelectorAll('text')].filter(t => {
    const r = t.getBoundingClientRect();
    return r.right > box.right + 0.5 || r.left < box.left - 0.5;
  });
  const lines = [...document.querySelectorAll('#legend_1 text')].map(t => t.textContent);
  return [lines, out.map(t => t.textContent)];
}"""


@pytest.mark.parametrize("width", [charts.NARROW_IN, charts.WIDE_IN])
def test_a_comparison_of_two_long_receipt_names_keeps_its_legend_whole(
    browser: Any, tmp_path: Path, width: float
) -> None:
    # two snapshots of one skill, labelled by their receipt names as a comparison section does
    # by default: the names differ only in the middle and at the end
    a = "caveman-5c7e19a-judged-fidelity-caveman (earlier)"
    b = "caveman-902028f-judged-fidelity-caveman (later)"
    series = [Series(a, (0.85, None)), Series(b, (0.72, 0.92))]
    svg = tmp_path / "chart.svg"
    svg.write_bytes(charts.grouped_bars(["retry-429", "c2"], series, xlabel="score", width=width))
    page = browser.new_page()
    page.goto(svg.as_uri())
    lines, outside = page.evaluate(LEGEND)
    page.close()
    # before, a phone showed some 19 characters of each name, the rest past the chart's edge
    assert outside == []
    # every word of each name is drawn, on as many lines as it takes
    assert " ".join(lines).replace("- ", "-") == f"{a} {b} {MISSING_LABEL}"
