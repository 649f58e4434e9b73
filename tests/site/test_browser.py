"""The site in headless Chromium (issue 10): zero axe-core violations in light and dark, and a
reader's path home → report → case anchor → raw receipt. Marked ``browser``: the set-up
installs Debian's chromium when it is missing and skips, with the reason, when it cannot.
Playwright drives /usr/bin/chromium; it never downloads a browser."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from site_check import serve

from driftproof.receipt import compute_seal

pytestmark = pytest.mark.browser

# One page of each kind (a case page: the one holding the hostile-answer corpus). The receipts
# index (one row per committed receipt, 349 today) takes axe about 8 s per scheme; it shares its
# markup with the tables checked here and is left out.
PAGES = [
    "",
    "reports/001/",
    "reports/999/",
    "method.html",
    "neutrality.html",
    "spec/versions/",
    "interop.html",
    "receipts/scored/",
    "receipts/caveman-2b10489-caveman/",
    "search.html",
    "receipts/hostile/cases/h1/",
    "results/",
]
#: Every page type, for the phone and desktop checks (issue 15): the pages above, plus the
#: long ones (Report 002, the receipts index) and the aggregates-only sheet and case-less pages.
LAYOUT_PAGES = PAGES + [
    "reports/002/",
    "reports/003/",
    "receipt-spec.html",
    "receipts/scored/cases/c1/",
    "receipts/",
    "decisions.html",
    "receipts/nvidia-7149a88-doca-flow/",
    "receipts/skill-creator-nebius-skills-iteration-1-12a0aae8/",
    "receipts/skill-creator-nebius-skills-iteration-1-12a0aae8/cases/2/",
    "receipts/caveman-2b10489-caveman/cases/p01/",
    "receipts/hostile/",
    "404.html",
]
WIDTHS = (390, 1280)


@pytest.fixture(scope="module")
def base_url(built_site: Path) -> Iterator[str]:
    with serve(built_site) as url:
        yield url


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_accessibility_violations(browser: Any, base_url: str, scheme: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    page = browser.new_page()
    page.emulate_media(color_scheme=scheme)
    found = {}
    for path in PAGES:
        page.goto(base_url + path)
        violations = axe.run(page).response["violations"]
        if violations:
            found[path] = [(v["id"], v["impact"], len(v["nodes"])) for v in violations]
    page.close()
    assert found == {}


def test_the_accessibility_check_finds_a_violation(browser: Any, base_url: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    page = browser.new_page()
    page.goto(base_url + "method.html")
    page.evaluate(
        "document.querySelector('main').insertAdjacentHTML('beforeend', '<img src=\"x.png\">')"
    )
    ids = {v["id"] for v in Axe().run(page).response["violations"]}
    page.close()
    assert "image-alt" in ids


def test_home_to_report_to_case_to_raw_receipt(
    browser: Any, base_url: str, built_site: Path
) -> None:
    page = browser.new_page()
    page.emulate_media(color_scheme="light")
    page.goto(base_url)
    page.get_by_role("link", name="Caveman's skills against a terse control").click()
    page.wait_for_url("**/reports/001/index.html")
    assert (
        page.get_by_role("heading", level=1).inner_text()
        == "Caveman's skills against a terse control"
    )
    page.goto(base_url + "reports/001/#case-p01")
    assert page.locator("tr:target th").inner_text() == "p01"
    # the case id leads to the case's evidence page: the prompt and both arms' answers
    page.locator("#case-p01 th a").click()
    page.wait_for_url("**/receipts/caveman-2b10489-caveman/cases/p01/index.html")
    assert page.get_by_role("heading", level=2, name="Prompt").is_visible()
    page.goto(base_url + "reports/001/")
    with page.expect_navigation():
        page.get_by_role("link", name="caveman-2b10489-caveman.json").click()
    doc = json.loads(page.locator("body").inner_text())
    raw = (built_site / "receipts/caveman-2b10489-caveman.json").read_bytes()
    assert doc == json.loads(raw) and compute_seal(doc) == doc["seal"]["sha256"]
    page.close()


def test_sorting_is_a_progressive_enhancement(browser: Any, base_url: str) -> None:
    page = browser.new_page()
    page.goto(base_url + "reports/001/")
    first = page.locator("#table-output-tokens-per-case tbody tr th").first
    assert first.inner_text() == "p01"  # published order without JavaScript
    header = page.locator("#table-output-tokens-per-case thead th").nth(1)  # baseline tokens
    header.locator("button").click()
    header.locator("button").click()  # descending
    assert header.get_attribute("aria-sort") == "descending"
    assert (
        page.locator("#table-output-tokens-per-case tbody tr").first.get_attribute("id")
        == "case-p02"
    )  # 330 tokens
    page.close()


def test_an_answer_holding_script_shows_as_text(
    browser: Any, base_url: str, built_site: Path
) -> None:
    html = (built_site / "receipts/scored/cases/c1/index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;x&lt;/script&gt;" in html and "<script>x" not in html
    page = browser.new_page()
    page.goto(base_url + "receipts/scored/cases/c1/")
    assert "<script>x</script> 0" in page.locator("pre.answer").nth(1).inner_text()
    # the only script on the page is the site's own sort.js
    assert page.evaluate("Array.from(document.scripts).map(s => s.src.split('/').pop())") == [
        "sort.js"
    ]
    page.close()


def test_search_finds_a_report_and_is_accessible_with_results(browser: Any, base_url: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    for scheme in ("light", "dark"):
        page = browser.new_page()
        page.emulate_media(color_scheme=scheme)
        page.goto(base_url + "search.html")
        page.get_by_role("textbox", name="Search this site").fill("terse control")
        result = page.locator(
            ".pagefind-ui__result-link", has_text="Caveman's skills against a terse control"
        )
        result.first.wait_for(timeout=10_000)
        assert Axe().run(page).response["violations"] == []
        page.close()


def test_search_from_a_folder_on_disk_says_it_needs_a_server(
    browser: Any, built_site: Path
) -> None:
    # from file:// the browser refuses Pagefind's index module: a search box there took a query
    # and never answered
    page = browser.new_page()
    page.goto((built_site / "search.html").as_uri())
    said = page.locator("#search-from-disk")
    said.wait_for(state="visible", timeout=10_000)
    assert "python -m http.server" in said.inner_text()
    assert page.locator("#site-search input").count() == 0
    page.close()


#: The head cells of every table that cannot be brought on screen: each cell is scrolled to the
#: left edge of the nearest box that scrolls sideways (none: the cell stays where it is), and is
#: reachable when its left edge is then on screen and its right edge too, unless it is wider
#: than the box. A table a phone reads as a list keeps its heads for screen readers only (clipped
#: to nothing; each cell shows its column's head as its label): they are not counted.
_UNREACHABLE_COLUMNS = """() => {
  const out = [];
  for (const row of document.querySelectorAll('table tr:first-child')) {
    const head = row.closest('thead');
    if (head && getComputedStyle(head).clipPath !== 'none') continue;
    for (const cell of row.children) {
      let box = cell.parentElement;
      while (box && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) {
        box = box.parentElement;
      }
      const r0 = cell.getBoundingClientRect();
      if (box) box.scrollLeft += r0.left - box.getBoundingClientRect().left;
      const r = cell.getBoundingClientRect();
      const right = box && r.width > box.clientWidth ? r.left : r.right;
      if (r.left < 0 || right > window.innerWidth) out.push(cell.textContent.trim());
    }
  }
  return out;
}"""


#: Every box around a table that scrolls sideways but a keyboard cannot focus (so cannot scroll)
#: or a screen reader gets no name for: its first 40 characters of text.
_UNNAMED_SCROLLERS = """() => [...document.querySelectorAll('*')].filter(box =>
  ['auto', 'scroll'].includes(getComputedStyle(box).overflowX) && box.querySelector('table')
  && !(box.tabIndex >= 0 && box.getAttribute('role') === 'region' && (
    box.getAttribute('aria-label') || (box.getAttribute('aria-labelledby') || '').split(' ')
      .map(id => document.getElementById(id)?.textContent.trim() || '').join('')))
).map(box => box.textContent.trim().slice(0, 40))"""


def _layout_faults(page: Any, url: str, width: int) -> dict[str, Any]:
    """The page at ``url`` with every fold open: its width past ``width``, unreachable columns,
    table boxes a keyboard cannot scroll or that have no name."""
    page.goto(url)
    # open every fold: an answer or a table inside <details> must fit too
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    faults: dict[str, Any] = {}
    if (scroll := page.evaluate("document.documentElement.scrollWidth")) > width:
        faults["scroll width"] = scroll
    if hidden := page.evaluate(_UNREACHABLE_COLUMNS):
        faults["columns off screen"] = hidden
    if unnamed := page.evaluate(_UNNAMED_SCROLLERS):
        faults["table box not focusable or unnamed"] = unnamed
    return faults


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways(browser: Any, base_url: str, width: int) -> None:
    # only a table scrolls sideways, inside its own box a keyboard can focus, and every column
    # can be reached there
    page = browser.new_page(viewport={"width": width, "height": 900})
    faults = {p: f for p in LAYOUT_PAGES if (f := _layout_faults(page, base_url + p, width))}
    page.close()
    assert faults == {}


def test_the_demo_sites_pages_have_no_accessibility_violations(
    browser: Any, tmp_path: Path
) -> None:
    # the red SIMULATED banner each demo page opens with sat outside every landmark (axe's
    # "region" rule, one node on each page)
    from axe_playwright_python.sync_playwright import Axe

    from driftproof.demo import run_demo

    run_demo(tmp_path / "demo")
    site = tmp_path / "demo" / "site"
    axe, found = Axe(), {}
    page = browser.new_page()
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for path in ("index.html", "results/index.html", "receipts/v1-run1/index.html"):
            page.goto((site / path).as_uri())
            if violations := axe.run(page).response["violations"]:
                found[scheme, path] = [(v["id"], len(v["nodes"])) for v in violations]
    page.close()
    assert found == {}


@pytest.mark.parametrize("width", (390, 1200, 1280))
def test_no_page_of_the_demo_site_scrolls_sideways(
    browser: Any, tmp_path: Path, width: int
) -> None:
    from driftproof.demo import run_demo

    run_demo(tmp_path / "demo")
    site = tmp_path / "demo" / "site"
    # every page but the two that only send the reader on (reports/ and spec/ to their targets)
    pages = [
        p for p in sorted(site.rglob("*.html")) if b'http-equiv="refresh"' not in p.read_bytes()
    ]
    assert len(pages) == 22  # index, method, decisions, 4 receipts with 3 cases each, 3 lists
    page = browser.new_page(viewport={"width": width, "height": 900})
    faults = {
        p.relative_to(site).as_posix(): f
        for p in pages
        if (f := _layout_faults(page, p.as_uri(), width))
    }
    # the receipt's case table: its checks column, scrolled to, is on screen
    page.goto((site / "receipts/v1-run1/index.html").as_uri())
    checks = page.locator("#table-cases-v1-run1 thead th", has_text="checks")
    checks.evaluate("th => th.closest('.table-wrap').scrollLeft = th.offsetLeft")
    box = checks.bounding_box()
    # the walkthrough's diff is a table (a block of text columns was cut at the prose's 736 px
    # and scrolled sideways even at 1280): on a desktop it fits, no sideways scrolling
    page.goto((site / "index.html").as_uri())
    heads = page.locator("section.diff table thead th").all_inner_texts()
    diff_box = page.evaluate(
        "(() => { const b = document.querySelector('section.diff .table-wrap');"
        " return [b.scrollWidth, b.clientWidth]; })()"
    )
    page.close()
    assert faults == {}
    assert 0 <= box["x"] and box["x"] + box["width"] <= width
    assert [" ".join(h.split()) for h in heads][:5] == [
        "case",
        "earlier (generation)",
        "later (generation)",
        "Δ",
        "verdict",
    ]
    if width >= 1200:
        assert diff_box[0] <= diff_box[1]


_FONT_PX = """async () => {
  const out = [];
  for (const img of document.querySelectorAll('figure img')) {
    const text = await (await fetch(img.currentSrc)).text();
    const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
    const viewW = parseFloat(svg.getAttribute('viewBox').split(/\\s+/)[2]);
    const sizes = [...text.matchAll(/font(?:-size)?:\\s*(?:[a-z]+\\s+)*([0-9.]+)px/g)]
      .map(m => parseFloat(m[1]));
    out.push({
      src: img.currentSrc.split('/').pop(),
      px: Math.min(...sizes) * img.clientWidth / viewW,
    });
  }
  return out;
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_chart_text_is_at_least_10_css_px(browser: Any, base_url: str, width: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    seen = []
    for path in ("reports/001/", "reports/999/", "reports/003/"):
        page.goto(base_url + path)
        page.wait_for_load_state("load")
        for chart in page.evaluate(_FONT_PX):
            seen.append(chart["src"])
            assert chart["px"] >= 10, (path, chart)
    page.close()
    # the phone is shown the narrow chart, the desktop the wide one
    assert seen and all(("-narrow" in s) == (width == 390) for s in seen)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_case_permalink_shows_the_prompt_and_both_answers(
    browser: Any, base_url: str, width: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(base_url + "receipts/scored/cases/c1/")
    assert page.locator("#prompt-h + pre").inner_text() == "prompt c1"
    first = page.locator("#draw-0 .draw")
    assert first.count() == 2
    with_skill, baseline = first.nth(0), first.nth(1)
    assert with_skill.get_by_role("heading").inner_text() == "with skill, draw 1"
    assert baseline.get_by_role("heading").inner_text() == "baseline, draw 1"
    assert with_skill.locator("pre.answer").inner_text() == "<script>x</script> 0"
    assert baseline.locator("pre.answer").inner_text() == "an answer 0"
    a, b = with_skill.bounding_box(), baseline.bounding_box()
    if width == 1280:  # side by side
        assert a["y"] == b["y"] and a["x"] < b["x"]
    else:  # one above the other, each as wide as the screen allows
        assert b["y"] > a["y"] and a["width"] <= width
    # the band and the verdict in the method's words
    assert (
        "0.850 ± 0.050 (n = 3)" in page.locator("#bands-h + dl, #bands-h ~ dl").first.inner_text()
    )
    assert page.locator("#bands-h .verdict").inner_text() == "helps"
    page.close()


def test_the_hostile_answer_corpus_renders_as_text(browser: Any, base_url: str) -> None:
    from site_fixtures import HOSTILE_ANSWERS

    from driftproof.site.html import printable

    page = browser.new_page(viewport={"width": 390, "height": 900})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(base_url + "receipts/hostile/cases/h1/")
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    assert (
        page.locator("#draw-0 .draw").first.locator("pre.answer").inner_text() == HOSTILE_ANSWERS[0]
    )
    answers = page.locator("pre.answer")
    texts = [answers.nth(i).inner_text() for i in range(answers.count())]
    # the prompt, then each draw's answer in each arm: every one exactly the text, nothing run
    for answer in HOSTILE_ANSWERS:
        expected = str(printable(answer))
        assert any(t == expected or t == expected.rstrip("\n") for t in texts), expected[:40]
    assert page.evaluate("window.__pwned") is None and dialogs == []
    assert page.locator("h1").count() == 1  # the injected heading stayed text
    assert page.evaluate("Array.from(document.scripts).map(s => s.src.split('/').pop())") == [
        "sort.js"
    ]
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert (
        "<b>refused</b>" in page.locator("main").inner_text()
        and "<i>I can't</i>" in page.locator("main").inner_text()
    )
    page.close()
