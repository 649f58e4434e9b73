"""The site in headless Chromium (issue 10): zero axe-core violations in light and dark, and a
reader's path home → report → case anchor → raw receipt. Marked ``browser``: the set-up
installs Debian's chromium when it is missing and skips, with the reason, when it cannot.
Playwright drives /usr/bin/chromium; it never downloads a browser."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from site_check import serve

from driftproof.receipt import compute_seal

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# One page of each kind. The receipts index (one row per committed receipt, 349 today) takes
# axe about 8 s per scheme; it shares its markup with the tables checked here and is left out.
PAGES = ["", "reports/001/", "reports/999/", "method/", "neutrality/", "spec/versions/", "interop/",
         "receipts/scored/", "receipts/caveman-2b10489-caveman/", "search/"]


def _ensure_chromium() -> str:
    if Path(CHROMIUM).exists():
        return CHROMIUM
    if shutil.which("apt-get"):
        install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
        if subprocess.run(install, capture_output=True, timeout=900, check=False).returncode != 0:
            # a fresh machine has no package lists yet
            subprocess.run(["apt-get", "update"], capture_output=True, timeout=900, check=False)
            subprocess.run(install, capture_output=True, timeout=900, check=False)
    if not Path(CHROMIUM).exists():
        pytest.skip("headless Chromium is not installed and `apt-get install chromium` did not install it")
    return CHROMIUM


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    exe = _ensure_chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=ARGS)
        yield b
        b.close()


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
    page.goto(base_url + "method/")
    page.evaluate("document.querySelector('main').insertAdjacentHTML('beforeend', '<img src=\"x.png\">')")
    ids = {v["id"] for v in Axe().run(page).response["violations"]}
    page.close()
    assert "image-alt" in ids


def test_home_to_report_to_case_to_raw_receipt(browser: Any, base_url: str, built_site: Path) -> None:
    page = browser.new_page()
    page.emulate_media(color_scheme="light")
    page.goto(base_url)
    page.get_by_role("link", name="Caveman's skills against a terse control").click()
    page.wait_for_url("**/reports/001/")
    assert page.get_by_role("heading", level=1).inner_text() == "Caveman's skills against a terse control"
    page.locator("#case-p01 th a").click()
    assert page.url.endswith("/reports/001/#case-p01")
    assert page.locator("tr:target th").inner_text() == "p01"
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
    assert page.locator("#table-output-tokens-per-case tbody tr").first.get_attribute("id") == "case-p02"  # 330 tokens
    page.close()


def test_an_answer_holding_script_shows_as_text(browser: Any, base_url: str, built_site: Path) -> None:
    html = (built_site / "receipts/scored/index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;x&lt;/script&gt;" in html and "<script>x" not in html
    page = browser.new_page()
    page.goto(base_url + "receipts/scored/")
    page.locator("details summary", has_text="Case c1").click()
    assert "<script>x</script> 0" in page.locator("details[open]").inner_text()
    # the only script on the page is the site's own sort.js
    assert page.evaluate("Array.from(document.scripts).map(s => s.src.split('/').pop())") == ["sort.js"]
    page.close()


def test_search_finds_a_report_and_is_accessible_with_results(browser: Any, base_url: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    for scheme in ("light", "dark"):
        page = browser.new_page()
        page.emulate_media(color_scheme=scheme)
        page.goto(base_url + "search/")
        page.get_by_role("textbox", name="Search this site").fill("terse control")
        result = page.locator(".pagefind-ui__result-link", has_text="Caveman's skills against a terse control")
        result.first.wait_for(timeout=10_000)
        assert Axe().run(page).response["violations"] == []
        page.close()
