"""A verification level (UNVERIFIED, DECLARED, TESTED) was shown with no word on what it means:
a sheet says it in plain words (the receipt specification's table of levels, shortened) and links
the method page's section on levels, which names every level; so does a report's list of its
receipts."""

from __future__ import annotations

import re
from pathlib import Path

from driftproof.wording import LEVELS

LINK = (
    '<a href="../../method.html#receipts-and-verification-levels">'
    "What the verification levels mean</a>"
)
DECLARED = (
    "DECLARED: imported from another tool&#39;s results, recorded faithfully; never given a verdict"
)


def _read(site: Path, page: str) -> str:
    return (site / page).read_text(encoding="utf-8")


def test_the_method_section_the_sheets_link_names_every_level(built_site: Path) -> None:
    method = _read(built_site, "method.html")
    start = method.index('id="receipts-and-verification-levels"')
    section = method[start : method.index("<h2", start)]
    # UNVERIFIED, the demo's and a smoke run's level, was not in it
    assert [lv for lv in LEVELS if f"<strong>{lv}</strong>" not in section] == []


def test_an_imported_sheet_says_its_level_in_words_under_its_verdict(built_site: Path) -> None:
    page = _read(built_site, "receipts/claude-plugin-eval-probe-plugin-8955eb63/index.html")
    verdict = '<p class="verdict">no verdict: verification level DECLARED is below TESTED</p>'
    assert f'{verdict}\n<p class="meta">Verification level {DECLARED}. {LINK}.</p>' in page
    # and where its provenance gives the level
    assert f"<dt>verification level</dt><dd>{DECLARED}. {LINK}.</dd>" in page


def test_a_tested_sheet_gives_its_level_where_its_provenance_does(built_site: Path) -> None:
    page = _read(built_site, "receipts/scored/index.html")
    tested = (
        "TESTED: run by Driftproof against the real model under the full method, graded by the "
        "fixed judge; the only level that can earn a verdict"
    )
    assert f"<dt>verification level</dt><dd>{tested}. {LINK}.</dd>" in page
    # its verdict names no level: nothing is said under it
    assert "Verification level TESTED" not in page


def test_a_reports_list_of_receipts_links_the_levels(built_site: Path) -> None:
    data = _read(built_site, "reports/002/index.html").split('id="downloads-h"')[1]
    assert "is listed with its skill and its verification level. " + LINK in data
    assert re.search(r"\(aiq-deploy, DECLARED\)", data)
