"""The internal link check (issues 15 and 19) on small hand-made sites: what counts as a link
and an id, how targets resolve, and that the build cache never changes the answer."""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from driftproof.site import links as links_module
from driftproof.site._cache import BuildCache
from driftproof.site.links import LinkSummary, Since, broken_links, check_links, page_anchors


def _site(root: Path, pages: dict[str, str]) -> Path:
    for rel, body in pages.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"<!doctype html><title>t</title>{body}", encoding="utf-8")
    return root


def test_page_anchors_reads_ids_names_and_every_kind_of_link_in_order() -> None:
    html = (
        b'<p id="top"><a href>no value</a><a name="old" href="b/?x=1&amp;y=2#f">y</a>'
        b'<img srcset="a.png 1x, b.png 2x" src="c.png">'
        b'<script>var s = "<a href=\\"in-a-script\\">";</script><span id="">empty id</span>'
    )
    ids, links = page_anchors(html)
    assert ids == ["top", "old"]
    # href before src before srcset on one element; the entity decoded; script text is not HTML
    assert links == ["b/?x=1&y=2#f", "c.png", "a.png", "b.png"]


def test_page_anchors_reads_bytes_that_are_not_utf8() -> None:
    assert page_anchors(b'<a id="caf\xe9" href="x/">') == (["caf\ufffd"], ["x/"])


def test_targets_resolve_as_a_browser_would_and_never_leave_the_site(tmp_path: Path) -> None:
    site = _site(
        tmp_path / "site",
        {
            "index.html": '<h1 id="h">x</h1>',
            "a/index.html": (
                '<a href="../">root</a><a href="/#h">abs</a><a href="?q=1">query</a>'
                '<a href="#missing">frag</a><a href="../b/">no folder</a>'
                '<a href="/../../etc/passwd">climbs out</a><a href="../../x">out</a>'
                '<a href="https://example.org/">ext</a><a href="//cdn.example/x">ext2</a>'
                '<a href="mailto:x@example.org">mail</a><a href="../index.html#%68">encoded</a>'
            ),
        },
    )
    assert broken_links(site) == [
        "a/index.html: #missing (no element with id 'missing')",
        "a/index.html: ../b/ (no such file)",
        # "/.." is the site's root on a web server: outside it there is nothing to reach
        "a/index.html: /../../etc/passwd (no such file)",
        "a/index.html: ../../x (no such file)",
    ]


def _rows(cache: BuildCache) -> list[tuple[str, str]]:
    with closing(sqlite3.connect(cache.base / "links.sqlite3")) as db:
        return list(db.execute("SELECT key, held FROM page"))


def test_the_cache_keys_pages_by_their_bytes_not_their_path(tmp_path: Path) -> None:
    site = _site(tmp_path / "site", {"index.html": '<a id="x" href="#x">ok</a>'})
    cache = BuildCache(tmp_path / "cache")
    assert broken_links(site, cache) == [] == broken_links(site, cache)
    assert len(_rows(cache)) == 1, "the page's anchors were cached"
    (site / "index.html").write_text('<a id="y" href="#x">now broken</a>', encoding="utf-8")
    assert broken_links(site, cache) == ["index.html: #x (no element with id 'x')"]
    assert broken_links(site) == broken_links(site, cache)
    assert len(_rows(cache)) == 2


def test_a_corrupt_cache_entry_or_file_is_ignored(tmp_path: Path) -> None:
    site = _site(tmp_path / "site", {"index.html": '<a href="#gone">x</a>'})
    cache = BuildCache(tmp_path / "cache")
    expected = ["index.html: #gone (no element with id 'gone')"]
    assert broken_links(site, cache) == expected
    with closing(sqlite3.connect(cache.base / "links.sqlite3")) as db, db:
        db.execute("UPDATE page SET held = '{not json'")
    assert broken_links(site, cache) == expected
    (cache.base / "links.sqlite3").write_bytes(b"not a database at all" * 100)
    assert broken_links(site, cache) == expected
    assert len(_rows(cache)) == 1, "the damaged file was started again"


# A plain relative path is joined without URL parsing (issue 19); every other link is parsed.
# Both must name the same target: checked on links picked to sit on the edge between the two.
_EDGE_LINKS = [
    "",
    "#",
    "#top",
    "#a%20b",
    "#a#b",
    "a.html",
    "../a.html",
    "../../../../escape.html",
    "./a/./b/../c/",
    "a b.html",
    " a.html",
    "a.html ",
    "a\tb.html",
    "a\nb.html",
    "\x01a.html",
    "a%20b.html",
    "a.html?x=1",
    "a.html#f",
    "a:b.html",
    "mailto:x@example.com",
    "//example.com/a",
    "/a/b.html",
    "/",
    "a\\b.html",
    "ü/ß.html",
    "a//b.html",
    "a/",
    ".",
    "..",
]


@pytest.mark.parametrize("folder", ["", "receipts", "receipts/r1/case-01"])
@pytest.mark.parametrize("link", _EDGE_LINKS)
def test_plain_path_fast_path_resolves_as_url_parsing_does(folder: str, link: str) -> None:
    assert links_module._resolve_in(folder, link) == links_module._parsed(folder, link)


@given(
    folder=st.sampled_from(["", "a", "a/b/c"]),
    link=st.text(alphabet=st.sampled_from(list("ab./:?#%\\ \t\n\x00ü-_")), max_size=12),
)
def test_fast_path_agrees_with_url_parsing_on_any_link(folder: str, link: str) -> None:
    assert links_module._resolve_in(folder, link) == links_module._parsed(folder, link)


@pytest.mark.parametrize("with_cache", [False, True])
def test_a_large_site_is_checked_on_all_cores_with_the_same_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_cache: bool
) -> None:
    # Problems in path order and links in document order, however the pages are split: a page
    # whose fragment points into a page of another worker's share, a page that points at
    # itself, a missing page, and pages kept from an earlier site (read there).
    pages = {
        f"p{i:02d}/index.html": (
            f'<h2 id="own{i}">x</h2><a href="#own{i}">self</a><a href="#gone{i}">bad</a>'
            f'<a href="../p{(i + 7) % 12:02d}/#own{(i + 7) % 12}">far</a>'
            f'<a href="../p{(i + 3) % 12:02d}/#nope">far, missing</a><a href="../none/">x</a>'
        )
        for i in range(12)
    }
    site = _site(tmp_path / "site", pages)
    old = _site(tmp_path / "old", {"kept/index.html": '<a id="k" href="../p00/#own0">k</a>'})
    kept = (
        old,
        {"kept/index.html": hashlib.sha256((old / "kept/index.html").read_bytes()).hexdigest()},
    )
    cache = BuildCache(tmp_path / "cache") if with_cache else None
    serial = broken_links(site, cache, kept=kept)
    assert len(serial) == 12 * 3 and serial[0].startswith("p00/index.html: #gone0")
    monkeypatch.setattr(links_module, "PARALLEL_FROM_PAGES", 1)
    monkeypatch.setattr(links_module.os, "cpu_count", lambda: 2)
    here: list[int] = []  # pages checked in this process (none: the workers check them)
    real = links_module._check_pages
    monkeypatch.setattr(
        links_module, "_check_pages", lambda p, *a: here.append(len(p)) or real(p, *a)
    )
    assert broken_links(site, None, kept=kept) == serial
    assert here == []
    if cache is not None:
        assert broken_links(site, cache, kept=kept) == serial  # every page now from the cache


# The incremental check (issue 19): only the pages whose bytes changed since the last check
# that found the site whole are read, and the answer is that of checking every page.


def _state(site: Path) -> dict[str, str]:
    return {
        p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in site.rglob("*")
        if p.is_file()
    }


def _parsed_pages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = links_module._held
    monkeypatch.setattr(
        links_module, "_held", lambda path, rel, *a: seen.append(rel) or real(path, rel, *a)
    )
    return seen


def _whole(root: Path, pages: dict[str, str]) -> tuple[Path, dict[str, str], LinkSummary]:
    """A site of ``pages``, its files' sha256 and the summary of a check that found it whole."""
    site = _site(root, pages)
    problems, summary = check_links(site)
    assert problems == []
    return site, _state(site), summary


def test_an_incremental_check_reads_only_the_pages_that_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site, before, summary = _whole(
        tmp_path / "site",
        {
            "a.html": '<a href="b.html#x">a</a>',
            "b.html": '<h2 id="x">b</h2>',
            "c.html": '<a href="a.html">c</a>',
        },
    )
    assert summary.targets == {"a.html", "b.html"} and summary.fragments == {"b.html": {"x"}}
    (site / "c.html").write_text('<a href="b.html">c, changed</a>', encoding="utf-8")
    seen = _parsed_pages(monkeypatch)
    got = check_links(site, since=Since(before, summary, _state(site)))
    assert seen == ["c.html"]
    assert got[0] == [] and got[1].targets == {"a.html", "b.html"}


@pytest.mark.parametrize("change", ["target removed", "id removed", "folder page removed"])
def test_a_link_broken_by_a_change_to_another_page_is_still_found(
    tmp_path: Path, change: str
) -> None:
    # a.html does not change; what it points at does
    site, before, summary = _whole(
        tmp_path / "site",
        {
            "a.html": '<a href="b.html#x">to b</a><a href="d/">to d</a>',
            "b.html": '<h2 id="x">b</h2>',
            "d/index.html": "<p>d</p>",
        },
    )
    if change == "target removed":
        (site / "b.html").unlink()
        expected = ["a.html: b.html#x (no such file)"]
    elif change == "id removed":
        (site / "b.html").write_text('<h2 id="y">b</h2>', encoding="utf-8")
        expected = ["a.html: b.html#x (no element with id 'x')"]
    else:
        (site / "d/index.html").unlink()
        expected = ["a.html: d/ (no such file)"]
    got = check_links(site, since=Since(before, summary, _state(site)))[0]
    assert got == expected == broken_links(site)


_PAGES = [f"p{i}.html" for i in range(5)]
_IDS = ["i0", "i1", "i2"]


def _page(ids: list[str], links: list[str]) -> str:
    return "".join(f'<h2 id="{i}">x</h2>' for i in ids) + "".join(
        f'<a href="{link}">l</a>' for link in links
    )


@given(data=st.data())
def test_an_incremental_check_answers_as_a_whole_one_over_successive_changes(
    data: st.DataObject,
) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        # a whole site to start from: every link names a page there and an id it has
        have = data.draw(st.sets(st.sampled_from(_PAGES), min_size=1))
        ids = {p: data.draw(st.lists(st.sampled_from(_IDS), unique=True)) for p in have}
        good = sorted(have) + [f"{p}#{i}" for p in sorted(have) for i in ids[p]]
        _site(site, {p: _page(ids[p], data.draw(st.lists(st.sampled_from(good)))) for p in have})
        before = _state(site)
        problems, summary = check_links(site)
        assert problems == []
        for _round in range(data.draw(st.integers(1, 3))):
            any_link = _PAGES + [f"{p}#{i}" for p in _PAGES for i in _IDS]
            for p in _PAGES:
                what = data.draw(st.sampled_from(["keep", "keep", "rewrite", "remove"]))
                if what == "rewrite":
                    body = _page(
                        data.draw(st.lists(st.sampled_from(_IDS), unique=True)),
                        data.draw(st.lists(st.sampled_from(any_link), max_size=4)),
                    )
                    _site(site, {p: body})
                elif what == "remove" and (site / p).exists():
                    (site / p).unlink()
            whole, truth = check_links(site)
            got, summary = check_links(site, since=Since(before, summary, _state(site)))
            assert got == whole
            if got:
                break  # a build stops here: no record of this site is kept
            # what the next check relies on: every target and fragment of the site, or more
            assert summary.targets >= truth.targets
            assert all(summary.fragments.get(p, set()) >= f for p, f in truth.fragments.items())
            before = _state(site)
