"""Charts (issue 15, item 3): literal text (never mathtext), case ids as labels, whiskers only
where a band has a spread, unknown values distinct from 0.0, captions from what was drawn, and
a narrow variant whose text is at least 10 CSS px on a 390 px screen."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from site_fixtures import load_inputs

from driftproof.pages import chart_text
from driftproof.site import charts

SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: bytes) -> list[str]:
    return ["".join(t.itertext()) for t in ET.fromstring(svg).iter(SVG + "text")]


def test_dollar_signs_are_drawn_literally() -> None:
    # "Ba$$in" made mathtext fail the build; "$0.02 per $1k" lost its dollars (issue 15)
    s = [chart_text.Series("$0.02 per $1k", (0.5, 0.25))]
    svg = charts.grouped_bars(["Ba$$in", "c$1"], s, xlabel="cost in $ per 1k $")
    texts = _texts(svg)
    assert "Ba$$in" in texts and "c$1" in texts and "cost in $ per 1k $" in texts


def test_case_ids_are_the_labels_and_long_ones_wrap_without_changing_text() -> None:
    ids = ["0", "observability-prometheus-config", "p01"]
    svg = charts.grouped_bars(
        ids,
        [chart_text.Series("with skill", (1.0, 0.8, 0.4))],
        xlabel="score",
        width=charts.NARROW_IN,
    )
    texts = _texts(svg)
    assert "0" in texts and "p01" in texts
    # wrapped after a hyphen: the two lines together are the id
    assert any(t.replace("\n", "") == "observability-prometheus-config" for t in texts) or (
        "observability-" in texts and "prometheus-config" in texts
    )


def test_what_is_drawn_decides_whiskers_markers_and_caption() -> None:
    spread = chart_text.Series(
        "with skill", (0.8, 0.5), (0.7, 0.5), (0.9, 0.5)
    )  # 0.8 ± 0.1; 0.5 with no spread
    assert chart_text.drawn([spread]) == chart_text.Drawn(whiskers=True, missing=False, zeros=False)
    none = chart_text.Series(
        "baseline", (1.0, 0.4), (None, None), (None, None)
    )  # one draw per arm: no spread
    assert chart_text.drawn([none]) == chart_text.Drawn(whiskers=False, missing=False, zeros=False)
    cap = chart_text.caption("Scores", [none], "the band")
    assert "No whisker is drawn" in cap and "Whiskers:" not in cap
    cap = chart_text.caption("Scores", [spread], "the band")
    assert cap.startswith("Scores. Whiskers: the band;")


def test_an_unknown_value_is_not_drawn_like_zero() -> None:
    s = [chart_text.Series("with skill", (0.0, None, 0.6))]
    what = chart_text.drawn(s)
    assert what.missing and what.zeros
    svg = charts.grouped_bars(["a", "b", "c"], s, xlabel="score")
    assert chart_text.MISSING_LABEL in _texts(svg)  # its legend entry
    cap = chart_text.caption("Scores", s, None)
    assert (
        "cross at zero marks a value that is unknown" in cap
        and "dot at zero is a value of exactly 0" in cap
    )
    assert chart_text.ZERO_LABEL in _texts(svg)
    alt = chart_text.alt_text("Scores", ["a", "b", "c"], s, lambda v: f"{v:.3f}", None)
    assert "a: with skill 0.000." in alt and f"b: with skill {chart_text.MISSING_LABEL}." in alt


def _font_px_at(svg: bytes, shown_px: float) -> float:
    """The smallest text size, in CSS px, when the SVG is shown ``shown_px`` wide."""
    root = ET.fromstring(svg)
    view_w = float(root.get("viewBox", "0 0 0 0").split()[2])
    sizes = [float(m) for m in re.findall(rb"font(?:-size)?:\s*(?:[a-z]+\s+)*([0-9.]+)px", svg)]
    return min(sizes) * shown_px / view_w


def test_the_narrow_chart_text_is_at_least_10_css_px_on_a_phone() -> None:
    info, files = charts.figure(
        "c",
        ["p01", "p02"],
        [chart_text.Series("a", (0.5, 0.7)), chart_text.Series("b", (0.2, 0.9))],
        subject="S",
        xlabel="x",
        fmt=str,
        whiskers=None,
    )
    narrow = files["c-narrow.svg"]
    # A 390 px screen less the page's 1 rem padding each side shows at most 358 px; the chart's
    # natural width (3.6 in at 96 px per inch) is 345.6 px, so it is shown at that size.
    assert _font_px_at(narrow, min(358, charts.NARROW_IN * 96)) >= 10
    # the wide chart squeezed into the same space would not be readable: the layout, not a
    # smaller font, is what fits
    assert _font_px_at(files["c.svg"], 358) < 10
    assert set(files) == {"c.svg", "c-dark.svg", "c-narrow.svg", "c-narrow-dark.svg"}
    assert info["media"] == charts.NARROW_MEDIA


def _tick_numbers(svg: bytes) -> list[float]:
    """The x tick labels' numbers (matplotlib writes a minus as U+2212)."""
    return [
        float(t.replace("\u2212", "-"))
        for t in _texts(svg)
        if re.fullmatch(r"\u2212?\d+(\.\d+)?", t)
    ]


def test_the_narrow_chart_labels_a_negative_tick_when_a_whisker_goes_below_zero() -> None:
    # report 001's savings in percent: bars of 50, 54, 48, 21 whose whiskers reach -14 and -18;
    # at 390 px the narrow chart labelled only 0 and 50, so nothing said the whiskers were negative
    low, high = (0.0, 10.0, -14.0, -18.0), (88.0, 93.0, 72.0, 57.0)
    s = [chart_text.Series("vs terse control", (50.0, 54.0, 48.0, 21.0), low, high)]
    cats = ["caveman", "caveman-cn", "caveman-es", "compress"]
    ticks = _tick_numbers(charts.grouped_bars(cats, s, xlabel="saving", width=charts.NARROW_IN))
    assert min(ticks) < 0 and max(ticks) > 0 and len(ticks) <= 7
    # a whisker just below 0 gets a labelled negative tick too (the axis grows to reach one)
    s = [chart_text.Series("x", (50.0, 90.0), (-0.5, 80.0), (60.0, 95.0))]
    ticks = _tick_numbers(charts.grouped_bars(["a", "b"], s, xlabel="x", width=charts.NARROW_IN))
    assert min(ticks) < 0
    # nothing below 0: no negative label
    s = [chart_text.Series("x", (50.0, 90.0), (10.0, 80.0), (60.0, 95.0))]
    ticks = _tick_numbers(charts.grouped_bars(["a", "b"], s, xlabel="x", width=charts.NARROW_IN))
    assert min(ticks) >= 0


def test_a_chart_calls_its_scores_judge_scores_only_where_a_judge_model_is_named() -> None:
    # report 004's receipt is scored by the plugin eval's regular expression and records no
    # grader model (its judge is "unrecorded:claude-plugin-eval/graders"); its chart read "mean
    # judge score". The 0.3.1 fixture names its judge, claude-haiku-4-5-20251001.
    from driftproof.pages.sheet import sheet
    from driftproof.pages.words import score_name
    from driftproof.receipt import read_receipt
    from driftproof.site.sections.receipt_sections import band_chart

    root = Path(__file__).parents[2]
    probe = read_receipt(root / "receipts" / "claude-plugin-eval-probe-plugin-8955eb63.json")
    judged = read_receipt(root / "tests" / "receipt" / "fixtures" / "0.3.1" / "valid-basic.json")
    for r, said in ((probe, "score"), (judged, "judge score")):
        info, files = band_chart("c")(sheet(r), lambda base: base)
        assert info is not None
        assert info["caption"].startswith(f"Each case's mean {said} with the skill and without")
        assert f"mean {said}" in _texts(files["c.svg"])
    # two receipts compared: a judge score only if both name their judge's model
    assert score_name(judged, probe) == "score" and score_name(judged, judged) == "judge score"


def test_a_sheets_chart_sits_right_above_the_cases_table_that_holds_its_numbers(
    shared_site_inputs: tuple[Path, Path],
) -> None:
    # its caption ends "The table below holds the same numbers.": the case means it draws are
    # in the cases table; the arms table (draws, lost, skill fired) stood between them
    from driftproof.site import build_site_files

    inputs = load_inputs(*shared_site_inputs)
    html = build_site_files(inputs.receipts, inputs.reports, nav=[])["reports/002/index.html"]
    after = html.decode().split("</figure>", 1)[1]
    first = re.search(r"<table[^>]*>", after)
    assert first is not None
    assert first.group(0).startswith('<table class="sortable" id="table-cases-')
