"""Every bar of a light chart is edged in a colour of at least 3:1 against the page (WCAG
1.4.11): the baseline's orange fill alone is about 2.2:1 on white."""

from __future__ import annotations

import re

from driftproof.pages.chart_text import Series
from driftproof.site.charts import grouped_bars


def _luminance(hex_colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb``."""
    rgb = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_orange_fill_alone_is_under_3_to_1_on_white() -> None:
    assert 2.1 < _contrast("#e69f00", "#ffffff") < 2.3  # why the bars need an edge


def test_each_bar_of_a_light_chart_has_a_dark_edge() -> None:
    series = [Series("with skill", (0.5, 0.7)), Series("baseline", (0.3, 0.4))]
    svg = grouped_bars(["a", "b"], series, xlabel="x").decode()
    orange = re.findall(r'<pattern id="(\w+)".*?<rect[^>]*fill="#e69f00"', svg, re.S)
    assert len(orange) == 1  # the baseline's hatched fill
    bars = re.findall(r'style="fill: (#0072b2|url\(#\w+\)); stroke: (#\w+)', svg)
    # two bars per series and one legend swatch each
    assert sorted(f for f, _ in bars) == ["#0072b2"] * 3 + [f"url(#{orange[0]})"] * 3
    assert all(_contrast(edge, "#ffffff") >= 3 for _, edge in bars)
