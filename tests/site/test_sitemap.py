"""The site map of the built site: each page's address, hand-written and generated, and no date."""

from __future__ import annotations

import gzip
import xml.etree.ElementTree as ET
from pathlib import Path

from site_fixtures import REPO, docs_config

from driftproof.site import build_site

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def test_the_sitemap_names_each_page_and_dates_none(built_site: Path) -> None:
    data = (built_site / "sitemap.xml").read_bytes()
    root = ET.fromstring(data)
    # The build's one date is SOURCE_DATE_EPOCH (or the day it ran), the same for every page
    # and not the day any page changed; a sitemap may omit lastmod, and so it does.
    assert [
        e.tag for e in root.iter() if e.tag not in {f"{NS}urlset", f"{NS}url", f"{NS}loc"}
    ] == []
    # the seven hand-written pages of site_src/ first, at site_url (https://driftproof.dev/)
    assert [e.text for e in root.iter(f"{NS}loc")][:7] == [
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


def test_the_sitemap_names_every_page_built_once_in_a_stable_order(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    receipts, reports = site_inputs
    out = tmp_path / "site"
    build_site(receipts, reports, out, config_file=REPO / "mkdocs.yml")
    locs = [e.text for e in ET.fromstring((out / "sitemap.xml").read_bytes()).iter(f"{NS}loc")]
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*.html")}
    # the folder pages and the newest report's alias only send the reader on: a site map names
    # the page they lead to, not them; 404.html is no page of the site's
    aliases = {"404.html", "reports/index.html", "reports/latest/index.html", "spec/index.html"}
    assert aliases <= on_disk
    assert len(locs) == len(set(locs))
    assert set(locs) == {f"https://driftproof.dev/{p}" for p in on_disk - aliases}
    # every page kind of the two reports and three receipts, named by hand
    for path in (
        "reports/001/index.html",
        "reports/002/index.html",
        "receipts/index.html",
        "receipts/alpha/index.html",
        "receipts/tested/index.html",
        "results/index.html",
        "spec/versions/index.html",
        "method.html",
    ):
        assert f"https://driftproof.dev/{path}" in locs
    assert any("/receipts/tested/cases/" in loc for loc in locs)
    # the hand-written pages first, then the generated ones sorted (the same bytes each build)
    top = [loc for loc in locs if loc.count("/") == 3]  # https://driftproof.dev/method.html
    assert locs == top + sorted(set(locs) - set(top))


def test_without_a_site_url_the_sitemap_names_no_page(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    # mkdocs leaves a page's address unknown without site_url; a generated page's is unknown too
    _, config = docs_config(tmp_path)
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("site_url: https://driftproof.dev/\n", ""), encoding="utf-8")
    build_site(*site_inputs, tmp_path / "site", config_file=config)
    assert list(ET.fromstring((tmp_path / "site" / "sitemap.xml").read_bytes())) == []
