"""Each case page's title names its receipt. Two receipts of one skill (the three caveman
receipts of Report 001 and Report 005) gave their case pages the same title, "Case p01 ·
caveman", so a reader's tabs, history and bookmarks could not tell the pages apart."""

from __future__ import annotations

import re
from pathlib import Path

from receipt_docs import body_of
from site_fixtures import load_inputs, scored_receipt

from driftproof.receipt import write_receipt
from driftproof.site import build_site_files


def test_case_pages_of_two_receipts_of_one_skill_have_their_own_titles(tmp_path: Path) -> None:
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    reports.mkdir()
    for name, first in (("first-run", 0.9), ("second-run", 0.7)):  # two runs: two measurements
        doc = scored_receipt({"c1": ([first, 0.8, 0.85], [0.5, 0.55, 0.45])}, skill="same-skill")
        write_receipt(body_of(doc), receipts / f"{name}.json")
    inputs = load_inputs(receipts, reports)
    files = build_site_files(inputs.receipts, inputs.reports, nav=[], site_name="Site")

    def title(path: str) -> str:
        found = re.search(r"<title>(.*?)</title>", files[path].decode())
        assert found is not None
        return found.group(1)

    # the case, its skill as the heading says it, then its receipt as the receipt's page names it
    assert title("receipts/first-run/cases/c1/index.html") == (
        "Case c1 of same-skill · Receipt first-run · Site"
    )
    assert title("receipts/second-run/cases/c1/index.html") == (
        "Case c1 of same-skill · Receipt second-run · Site"
    )
    assert title("receipts/first-run/index.html") == "Receipt first-run · Site"
