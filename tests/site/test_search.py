"""Search (issue 10): a static Pagefind index built with the site, readable-without-JS fallback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest


def test_the_index_covers_every_page_with_content(built_site: Path) -> None:
    entry = json.loads((built_site / "pagefind/pagefind-entry.json").read_text(encoding="utf-8"))
    pages = [
        p
        for p in built_site.rglob("*.html")
        if "data-pagefind-body" in p.read_text(encoding="utf-8")
    ]
    indexed = sum(lang["page_count"] for lang in entry["languages"].values())
    assert indexed == len(pages) > 350  # reports, receipt sheets, results, method, spec, ...


def test_the_search_page_works_without_javascript_as_a_list_of_ways_in(built_site: Path) -> None:
    html = (built_site / "search.html").read_text(encoding="utf-8")
    assert '<script src="pagefind/pagefind-ui.js"></script>' in html
    assert "<noscript>" in html and 'href="receipts/index.html"' in html
    assert (built_site / "pagefind/pagefind-ui.js").is_file()


def test_the_search_page_says_once_that_a_folder_on_disk_needs_a_server(built_site: Path) -> None:
    # opened from a folder on disk it said so twice: its notice, then its closing paragraph
    html = (built_site / "search.html").read_text(encoding="utf-8")
    text = " ".join(re.sub(r"<[^>]+>", " ", html[html.index("<main") :]).split())
    assert text.count("folder on disk") == 1
    assert "Search cannot read its index from a folder on disk: serve the site" in text


def test_folder_addresses_lead_somewhere(built_site: Path) -> None:
    # /reports/ and /spec/ would 404 on a static host without an index page
    reports = (built_site / "reports/index.html").read_text(encoding="utf-8")
    spec = (built_site / "spec/index.html").read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="0; url=../index.html">' in reports
    assert '<meta http-equiv="refresh" content="0; url=versions/index.html">' in spec


def test_case_pages_are_left_out_of_the_index_and_their_sheet_is_in(built_site: Path) -> None:
    cases = sorted(built_site.glob("receipts/*/cases/*/index.html"))
    assert cases
    for page in cases:
        assert "data-pagefind-body" not in page.read_text(encoding="utf-8")
        sheet = (page.parents[2] / "index.html").read_text(encoding="utf-8")
        assert (
            "data-pagefind-body" in sheet and f'href="cases/{page.parent.name}/index.html"' in sheet
        )


def test_the_index_takes_every_folder_but_case_pages_whatever_the_names(tmp_path: Path) -> None:
    from driftproof.site.links import index_for_search

    body = '<!doctype html><html lang="en"><body data-pagefind-body><p>{}</p></body></html>'
    pages = [
        "index.html",
        "a,b{c}$(d):e/index.html",
        "x[1]*?/deep/er/index.html",
        "back\\slash/index.html",
        "receipts/r1/index.html",
        "receipts/team/probe/index.html",  # a receipt in a subfolder of receipts/
        "receipts/index.html",
        "receipts/r1/cases/c1/index.html",  # left out
        "receipts/team/probe/cases/c1/index.html",  # left out
    ]
    for i, rel in enumerate(pages):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(body.format(f"page number {i}"), encoding="utf-8")
    index_for_search(tmp_path, tmp_path / "mkdocs.yml")
    entry = json.loads((tmp_path / "pagefind/pagefind-entry.json").read_text(encoding="utf-8"))
    assert sum(lang["page_count"] for lang in entry["languages"].values()) == 7
    assert not [p for p in tmp_path.parent.iterdir() if p.name.startswith(".driftproof-search-")]


def test_searchable_leaves_out_case_pages_only() -> None:
    from driftproof.site.links import searchable

    assert searchable("index.html") and searchable("reports/001/index.html")
    assert searchable("receipts/r1/index.html") and searchable("receipts/team/r1/index.html")
    assert not searchable("receipts/r1/cases/c1/index.html")
    assert not searchable("receipts/team/r1/cases/c1/index.html")
    assert not searchable("receipts/r1.json") and not searchable("pagefind/x.html")


def test_tables_of_figures_stay_out_of_the_index_and_the_headline_is_in(
    built_site: Path,
) -> None:
    # Pagefind reads what is inside data-pagefind-body and not inside data-pagefind-ignore
    from selectolax.lexbor import LexborHTMLParser

    sheets = [p for p in built_site.glob("receipts/*/index.html") if "/cases/" not in str(p)]
    assert sheets
    for page in sheets:
        tree = LexborHTMLParser(page.read_text(encoding="utf-8"))
        assert tree.css_first("main[data-pagefind-body] h1") is not None
        for table in tree.css("main table"):
            node, ignored = table, False
            while node is not None and not ignored:
                ignored = "data-pagefind-ignore" in node.attributes
                node = node.parent
            assert ignored, f"{page}: a table of figures is indexed"
        for h1 in tree.css("h1"):
            node = h1
            while node is not None:
                assert "data-pagefind-ignore" not in node.attributes
                node = node.parent


# The service is fed by a thread while its answers are read: a service that stops or refuses a
# page mid-way fails the build with its own words, and nothing waits forever.
_FAKE_SERVICE = r"""#!{python}
import base64, json, os, sys
stop_at = int(os.environ["FAKE_STOP_AT"])
mode = os.environ["FAKE_MODE"]
buf = b""
while True:
    chunk = os.read(0, 1 << 16)
    if not chunk:
        sys.exit(0)
    buf += chunk
    while b"," in buf:
        raw, buf = buf.split(b",", 1)
        msg = json.loads(base64.b64decode(raw))
        mid, payload = msg["message_id"], msg["payload"]
        if payload["type"] == "NewIndex":
            answer = {{"type": "NewIndex", "index_id": 7}}
        elif mid == stop_at and mode == "die":
            os._exit(3)
        elif mid == stop_at:
            answer = {{"type": "Error", "message": "cannot read " + payload["file_path"]}}
        else:
            answer = {{"type": "IndexedFile", "page_word_count": 1, "page_url": "/"}}
        out = base64.b64encode(json.dumps({{"message_id": mid, "payload": answer}}).encode())
        os.write(1, out + b",")
"""


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("die", "pagefind ended without answering"), ("error", "cannot read p003.html")],
)
def test_a_service_that_stops_or_refuses_mid_way_fails_the_build_in_its_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, expected: str
) -> None:
    import sys

    import pagefind.service

    from driftproof.errors import SiteBuildError
    from driftproof.site.links import index_for_search

    fake = tmp_path / "fake-pagefind"
    fake.write_text(_FAKE_SERVICE.format(python=sys.executable), encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setattr(pagefind.service, "get_executable", lambda: fake)
    monkeypatch.setenv("FAKE_MODE", mode)
    monkeypatch.setenv("FAKE_STOP_AT", "5")  # message 1 opens the index; 5 is the fourth page
    site = tmp_path / "site"
    site.mkdir()
    body = "<html><body data-pagefind-body><p>{}</p>" + "x" * 200_000 + "</body></html>"
    for i in range(40):  # more than a pipe holds, so the sender is mid-write when it stops
        (site / f"p{i:03d}.html").write_text(body.format(i), encoding="utf-8")
    with pytest.raises(SiteBuildError) as caught:
        index_for_search(site, tmp_path / "mkdocs.yml")
    assert expected in str(caught.value)
    assert caught.value.problems[0].file == str(tmp_path / "mkdocs.yml")
    assert not (site / "pagefind").exists()
