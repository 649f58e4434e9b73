"""The site map of the built site: each hand-written page's address and no date."""

from __future__ import annotations

import gzip
import xml.etree.ElementTree as ET
from pathlib import Path

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def test_the_sitemap_names_each_page_and_dates_none(built_site: Path) -> None:
    data = (built_site / "sitemap.xml").read_bytes()
    root = ET.fromstring(data)
    # The build's one date is SOURCE_DATE_EPOCH (or the day it ran), the same for every page
    # and not the day any page changed; a sitemap may omit lastmod, and so it does.
    assert [
        e.tag for e in root.iter() if e.tag not in {f"{NS}urlset", f"{NS}url", f"{NS}loc"}
    ] == []
    # the seven hand-written pages of site_src/, at site_url (https://driftproof.dev/)
    assert [e.text for e in root.iter(f"{NS}loc")] == [
        f"https://driftproof.dev/{name}.html"
        for name in (
            "index",
            "decisions",
            "interop",
            "method",
            "neutrality",
            "receipt-spec",
            "search",
        )
    ]
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset')
    assert gzip.decompress((built_site / "sitemap.xml.gz").read_bytes()) == data
