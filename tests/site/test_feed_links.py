"""The Atom feed links each report at its page's own address, ``reports/NNN/index.html``, as
the page's canonical link and the sitemap do; it linked the folder ``reports/NNN/``, which a
site read from files (or a host serving no folder index) does not open."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from site_fixtures import load_inputs

from driftproof.site import build_site_files

ATOM = {"a": "http://www.w3.org/2005/Atom"}


def test_each_feed_entry_links_the_report_page_itself(
    shared_site_inputs: tuple[Path, Path],
) -> None:
    inputs = load_inputs(*shared_site_inputs)
    files = build_site_files(inputs.receipts, inputs.reports, nav=[], site_url="https://x.test/")
    feed = ET.fromstring(files["feed.xml"])
    links = [link.get("href", "") for link in feed.findall("a:entry/a:link", ATOM)]
    # the fixture's two reports, newest first, each at the file its page is written to
    assert links == [
        "https://x.test/reports/002/index.html",
        "https://x.test/reports/001/index.html",
    ]
    assert all(link.removeprefix("https://x.test/") in files for link in links)
    # the ids stay as they were: a reader that has seen an entry keeps it
    ids = [e.findtext("a:id", namespaces=ATOM) for e in feed.findall("a:entry", ATOM)]
    assert ids == ["tag:x.test,2026:report-002", "tag:x.test,2026:report-001"]
