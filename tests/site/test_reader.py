"""What a reader sees (issue 35), in headless Chromium at 390 and 1280 px: the headline figure
first on every sheet, the site and the demo's site navigable from ``file://``, the results
tables' first three columns on screen without sideways scrolling, and a navigation of at most
two lines. Marked ``browser`` (see test_browser.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from site_check import serve
from test_browser import WIDTHS

pytestmark = pytest.mark.browser

#: Sheets of every kind: an import with output tokens, a scored receipt, printed figures only,
#: a receipt in a report, a hostile one.
SHEETS = [
    "caveman-2b10489-caveman",
    "scored",
    "nvidia-7149a88-doca-flow",
    "skill-creator-nebius-skills-iteration-1-12a0aae8",
    "hostile",
]


def test_every_sheet_leads_with_its_headline_figure(built_site: Path) -> None:
    sheets = [p for p in built_site.glob("receipts/**/index.html") if "/cases/" not in str(p)]
    sheets = [p for p in sheets if p.parent != built_site / "receipts"]
    assert len(sheets) > 350
    for p in sheets:
        html = p.read_text(encoding="utf-8")
        notice = html.index('<div class="notice">')
        # the headline comes first in the box, before the verdict line and the other facts
        assert html.index('<p class="headline">', notice) < html.index(
            '<p class="verdict">', notice
        )
    # caveman's saving, as `driftproof view` and the issue that asked for it give it: +50%
    caveman = (built_site / "receipts/caveman-2b10489-caveman/index.html").read_text("utf-8")
    headline = caveman.split('<p class="headline">', 1)[1].split("</p>", 1)[0]
    assert "output-token saving" in headline and "median +50%" in headline
    # one line for the reading: never the "reading" / "sentence" pair
    assert "<dt>sentence</dt>" not in caveman and "<dt>reading</dt>" not in caveman
    assert '<p class="verdict">no verdict: verification level DECLARED is below TESTED</p>' in (
        caveman
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_the_headline_figure_is_on_the_first_screen(
    browser: Any, built_site: Path, width: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": 800})
    for name in SHEETS:
        page.goto((built_site / "receipts" / name / "index.html").as_uri())
        box = page.locator(".notice .headline").bounding_box()
        assert box is not None and box["y"] + box["height"] <= 800, (name, box)
        assert page.locator(".notice .headline strong").inner_text().strip(), name
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_site_is_navigable_from_file_urls(browser: Any, built_site: Path, width: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.goto((built_site / "index.html").as_uri())
    for label, heading in (("Results", "Results"), ("Receipts", "Receipts"), ("Method", "Method")):
        page.locator("header nav").get_by_role("link", name=label, exact=True).click()
        page.wait_for_load_state()
        assert page.url.endswith(".html"), page.url  # a file, never a folder listing
        assert page.get_by_role("heading", level=1).first.inner_text() == heading
    page.locator("header nav").get_by_role("link", name="Receipts", exact=True).click()
    page.get_by_role("link", name="caveman-2b10489-caveman", exact=True).click()
    page.wait_for_load_state()
    assert page.url.endswith("receipts/caveman-2b10489-caveman/index.html")
    page.locator("#case-p01 th a").click()
    page.wait_for_load_state()
    assert page.url.endswith("cases/p01/index.html")
    assert page.get_by_role("heading", level=2, name="Prompt").is_visible()
    page.goto((built_site / "index.html").as_uri())
    page.get_by_role("link", name="Latest report", exact=True).click()
    page.wait_for_url("**/reports/999/index.html")  # the alias's redirect names a file too
    page.close()


#: True where the site's stylesheet applies (its navigation list is a flex box).
_STYLED = "getComputedStyle(document.querySelector('.site-header ul')).display === 'flex'"


def test_the_404_page_works_from_file_urls_and_served(browser: Any, built_site: Path) -> None:
    # a host serves 404.html at any missing address: its links start at the root ("/"), which
    # from a folder on disk is the disk's root; there they lead into the site all the same
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []  # it asked for /assets/site.css and /assets/sort.js: two errors
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("requestfailed", lambda r: errors.append(r.url))
    page.goto((built_site / "404.html").as_uri())
    page.wait_for_load_state()
    assert page.evaluate(_STYLED)  # the site's stylesheet is loaded
    assert errors == []
    page.get_by_role("link", name="list of reports", exact=True).click()
    page.wait_for_load_state()
    assert page.url == (built_site / "index.html").as_uri()
    page.goto((built_site / "404.html").as_uri())
    page.locator("header nav").get_by_role("link", name="Receipts", exact=True).click()
    page.wait_for_load_state()
    assert page.url == (built_site / "receipts/index.html").as_uri()
    assert page.get_by_role("heading", level=1).first.inner_text() == "Receipts"
    with serve(built_site) as url:  # served, at an address two folders down
        page.route("**/a/b/missing.html", lambda route: route.fulfill(
            status=404, path=built_site / "404.html", content_type="text/html"
        ))  # fmt: skip
        page.goto(url + "a/b/missing.html")
        assert page.evaluate(_STYLED)
        page.locator("header nav").get_by_role("link", name="Receipts", exact=True).click()
        page.wait_for_load_state()
        assert page.url == url + "receipts/index.html"
    page.close()


def test_the_demo_site_is_navigable_from_file_urls_and_has_the_theme(
    browser: Any, tmp_path: Path
) -> None:
    from driftproof.demo import run_demo

    run_demo(tmp_path / "demo")
    site = tmp_path / "demo" / "site"
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto((site / "index.html").as_uri())
    # styled by the site's own stylesheet, and the walkthrough fits the page
    assert page.evaluate("document.styleSheets.length") == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    page.locator("header nav").get_by_role("link", name="Method", exact=True).click()
    page.wait_for_load_state()
    assert page.url == (site / "method.html").as_uri()
    assert page.get_by_role("heading", level=1).inner_text() == "Method"
    page.locator("header nav").get_by_role("link", name="Results", exact=True).click()
    page.wait_for_load_state()
    assert page.url == (site / "results/index.html").as_uri()
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_table_captions_wrap_on_screen(browser: Any, built_site: Path, width: int) -> None:
    # a caption sat inside its table's scroll box, as wide as the table: on a phone it ran off
    # the screen mid-sentence ("each band is mean ± o"); one in a details box (the lift by case,
    # the results' NVSkills-Eval) ran 21 px past its box at 390 px ("each case weighted equall")
    page = browser.new_page(viewport={"width": width, "height": 800})
    for sheet in (
        "receipts/caveman-2b10489-caveman/index.html",
        "reports/001/index.html",
        "receipts/claude-plugin-eval-probe-plugin-8955eb63/index.html",
        "results/index.html",
    ):
        page.goto((built_site / sheet).as_uri())
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        past = page.evaluate(
            """() => [...document.querySelectorAll('caption')].map(c => {
              const box = c.closest('.table-wrap');
              const edge = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
              return c.getBoundingClientRect().right - edge;
            })"""
        )
        assert past and max(past) <= 0.5, (sheet, max(past))
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_results_tables_show_their_first_three_columns_without_scrolling(
    browser: Any, built_site: Path, width: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.goto((built_site / "results/index.html").as_uri())
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    rights = page.evaluate(
        """() => [...document.querySelectorAll('table.stack tr')].map(tr => {
          const third = tr.children[2];
          return third ? third.getBoundingClientRect().right : 0;
        })"""
    )
    assert rights and max(rights) <= width
    # ... and those three are the receipt, the skill and the headline figure (lift when measured)
    heads = page.evaluate(
        """() => [...document.querySelectorAll('main table')].map(t =>
          [...t.querySelectorAll('thead th')].slice(0, 3).map(th => th.textContent.trim()))"""
    )
    assert heads and all(h[:2] == ["receipt", "skill"] for h in heads), heads
    assert all(h[2] in ("headline figure", "lift") for h in heads), heads
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_navigation_takes_at_most_two_lines(browser: Any, built_site: Path, width: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": 800})
    for path in ("index.html", "results/index.html", "receipts/caveman-2b10489-caveman/index.html"):
        page.goto((built_site / path).as_uri())
        tops = sorted(
            page.evaluate(
                "[...document.querySelectorAll('header nav li')]"
                ".map(li => li.getBoundingClientRect().top)"
            )
        )
        # a new line starts where an item sits lower than the one before by more than a few px
        lines = 1 + sum(b - a > 8 for a, b in zip(tops, tops[1:], strict=False))
        assert lines <= 2, (path, tops)
    page.close()


def test_reports_name_no_receipt_field_and_no_reading_number(built_site: Path) -> None:
    # reader-facing words: a report says what a field holds, never its name or a D-number
    import html
    import re

    internal = re.compile(
        r"schema_version|provenance\.\w|skill_fired|uncertainty_unavailable|arms\.[<\w]|\bD-\d+"
    )
    found = {}
    for page in sorted(built_site.glob("reports/[0-9][0-9][0-9]/index.html")):
        text = html.unescape(re.sub(r"<[^>]*>", " ", page.read_text(encoding="utf-8")))
        found.update({page.parent.name: internal.findall(text)} if internal.search(text) else {})
    assert found == {}
