"""Fixtures for the site tests: small receipts and reports written in tmp_path."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from receipt_docs import body_of
from site_fixtures import REPO, hostile_receipt, savings_receipt, scored_receipt, write_report

from driftproof.receipt import write_receipt
from driftproof.site import build_site


@pytest.fixture
def site_inputs(tmp_path: Path) -> tuple[Path, Path]:
    """See :func:`make_site_inputs` (fresh files per test)."""
    return make_site_inputs(tmp_path)


@pytest.fixture(scope="module")
def shared_site_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """:func:`make_site_inputs` once per module, for tests that only read them."""
    return make_site_inputs(tmp_path_factory.mktemp("inputs"))


def make_site_inputs(tmp_path: Path) -> tuple[Path, Path]:
    """receipts/ with two savings receipts and one TESTED receipt whose answers hold <script>;
    reports/ with Report 001 (token_savings) and Report 002 (receipt_sheets)."""
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    # skill, control, baseline output tokens per case, chosen by hand:
    # alpha vs control: 1-50/100 = 0.50, 1-30/60 = 0.50, 1-90/60 = -0.50 → median +50%, mean +17%
    write_receipt(
        body_of(
            savings_receipt("alpha", {"q1": (50, 100, 80), "q2": (30, 60, 40), "q3": (90, 60, 100)})
        ),
        receipts / "alpha.json",
    )
    # beta vs control: 1-25/100 = 0.75, 1-45/60 = 0.25, 1-30/60 = 0.50
    #   → median +50%, min +25%, max +75%
    write_receipt(
        body_of(
            savings_receipt("beta", {"q1": (25, 100, 80), "q2": (45, 60, 40), "q3": (30, 60, 100)})
        ),
        receipts / "beta.json",
    )
    write_receipt(
        body_of(
            scored_receipt(
                {"c1": ([0.9, 0.8, 0.85], [0.5, 0.55, 0.45])}, answer="<script>alert('x')</script>"
            )
        ),
        receipts / "tested.json",
    )
    write_report(
        reports,
        "001-savings.md",
        """
        number: 1
        slug: savings
        title: Savings <b>test</b>
        date: 2026-01-02
        summary: First.
        receipts: [alpha, beta.json]
        sections:
          - type: token_savings
        """,
        body="## Prose\n\nSome <script>alert(1)</script> text.\n",
    )
    write_report(
        reports,
        "002-sheets.md",
        """
        number: 2
        slug: sheets
        title: Sheets
        date: 2026-02-03
        receipts: [tested]
        sections:
          - type: receipt_sheets
        """,
    )
    return receipts, reports


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as `make reports` builds it from every committed receipt and report, plus a
    scored receipt (answers holding ``<script>``) in a report numbered 999, so every page
    kind is present, and a receipt holding the hostile-answer corpus (its sheet and case page).

    Built once per run: pytest-xdist's workers share the run's folder, and the first to get
    there builds while the others wait on the lock."""
    base = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" in os.environ:
        base = base.parent  # the run's folder; each worker's own is inside it
    with open(base / "sitecheck.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        out = base / "sitecheck" / "site"
        if not out.exists():
            _build_checked_site(base / "sitecheck")
    return out


def _build_checked_site(base: Path) -> None:
    """:func:`built_site`'s build, into ``base/site``."""
    receipts, reports = base / "receipts", base / "reports"
    shutil.copytree(REPO / "receipts", receipts)
    shutil.copytree(REPO / "reports", reports)
    write_receipt(
        body_of(
            scored_receipt(
                {
                    "c1": ([0.9, 0.8, 0.85], [0.5, 0.55, 0.45]),
                    "c2": ([0.6, 0.7, 0.65], [0.62, 0.66, 0.7]),
                },
                answer="<script>x</script>",
            )
        ),
        receipts / "scored.json",
    )
    write_receipt(body_of(hostile_receipt()), receipts / "hostile.json")
    write_report(
        reports,
        "999-scored.md",
        """
        number: 999
        slug: scored
        title: A scored receipt
        date: 2099-12-31
        receipts: [scored]
        sections:
          - type: receipt_sheets
        """,
    )
    build_site(receipts, reports, base / "site", config_file=REPO / "mkdocs.yml")


@pytest.fixture
def existing_site(tmp_path: Path) -> Path:
    out = tmp_path / "site"
    out.mkdir()
    (out / ".driftproof-site").write_text("built before\n", encoding="utf-8")
    (out / "marker.txt").write_text("the previous site", encoding="utf-8")
    return out


# ---- headless Chromium, for the browser tests ----------------------------------------

#: Where the browser tests expect Chromium (installed with apt-get when missing).
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def ensure_chromium() -> str:
    """The Chromium executable, installed when missing; the test is skipped when none can be."""
    if Path(CHROMIUM).exists():
        return CHROMIUM
    if shutil.which("apt-get"):
        install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
        if subprocess.run(install, capture_output=True, timeout=900, check=False).returncode != 0:
            # a fresh machine has no package lists yet
            subprocess.run(["apt-get", "update"], capture_output=True, timeout=900, check=False)
            subprocess.run(install, capture_output=True, timeout=900, check=False)
    if not Path(CHROMIUM).exists():
        pytest.skip(
            "headless Chromium is not installed and `apt-get install chromium` did not install it"
        )
    return CHROMIUM


@pytest.fixture(scope="session")
def chromium() -> str:
    """The Chromium executable (:func:`ensure_chromium`)."""
    return ensure_chromium()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module."""
    exe = ensure_chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def spec_on_a_phone(browser: Any, built_site: Path) -> Iterator[Any]:
    """The built site's receipt specification open in ``browser`` at 390 × 844 px (a phone)."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto((built_site / "receipt-spec.html").as_uri())
    yield page
    page.close()
