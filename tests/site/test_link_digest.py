"""The link check done by the worker processes that write the pages (issue 19,
:mod:`driftproof.site._link_digest`): what a worker finds of its own files, worked out by
hand; that the build's check then reads only the pages no worker checked; and that its
answer is a whole check's, on random sites and on built ones."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from site_fixtures import REPO, write_report
from site_fixtures import site_files as _files

from driftproof.errors import SiteBuildError
from driftproof.site import build_site
from driftproof.site import links as links_module
from driftproof.site._link_digest import PagesChecked, check_own
from driftproof.site.links import check_links

CONFIG = REPO / "mkdocs.yml"

# One receipt's files as a worker writes them: its sheet and one case page.
_OWN = {
    "receipts/x/index.html": (
        '<h2 id="top">x</h2><a href="#top">self</a><a href="cases/a/">a</a>'
        '<a href="cases/a/#q">a, q</a><a href="../../method/">method</a>'
        '<a href="../../assets/s.css">css</a><a href="../../reports/001/#r1">report</a>'
    ),
    "receipts/x/cases/a/index.html": (
        '<h2 id="q">q</h2><a href="../../#top">up</a><a href="../../../../method/">m</a>'
    ),
}
# The rest of the site, which no worker wrote.
_REST = {
    "index.html": '<a href="receipts/x/">x</a><a href="method/">m</a>',
    "method/index.html": '<a href="../receipts/x/cases/a/">a case</a>',
    "assets/s.css": "",
    "reports/001/index.html": '<h2 id="r1">r</h2><a href="../../receipts/x/">x</a>',
}


def _html(body: str) -> bytes:
    return f"<!doctype html><title>t</title>{body}".encode()


def _write(root: Path, pages: dict[str, str]) -> dict[str, bytes]:
    files = {
        rel: (_html(body) if rel.endswith(".html") else body.encode())
        for rel, body in pages.items()
    }
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return files


def test_a_worker_checks_links_among_its_own_files_and_hands_on_the_rest() -> None:
    got = check_own({**{rel: _html(b) for rel, b in _OWN.items()}, "receipts/x.json": b"{}"})
    assert got.pages == ["receipts/x/cases/a/index.html", "receipts/x/index.html"]
    assert got.whole
    # method/ and reports/001 are not folders of these files: left for the site to resolve
    assert got.outside == {("method", ""), ("assets/s.css", ""), ("reports/001", "r1")}
    # the links within: each page's own folder as its index.html, fragments named elsewhere
    assert got.summary.targets == {"receipts/x/index.html", "receipts/x/cases/a/index.html"}
    assert got.summary.fragments == {
        "receipts/x/cases/a/index.html": {"q"},
        "receipts/x/index.html": {"top"},
    }


@pytest.mark.parametrize(
    "link", ["cases/a/#nope", "#nope", "../../../up.html", "cases/b/"], ids=str
)
def test_a_link_among_a_workers_own_files_that_points_nowhere_is_not_whole(link: str) -> None:
    # cases/b/ is not a folder of these files: it goes on to the site, which may hold it
    pages = {
        **_OWN,
        "receipts/x/index.html": _OWN["receipts/x/index.html"] + f'<a href="{link}">l</a>',
    }
    got = check_own({rel: _html(b) for rel, b in pages.items()})
    assert got.whole is (link == "cases/b/")
    assert (("receipts/x/cases/b", "") in got.outside) is (link == "cases/b/")


def _parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = links_module._held

    def held(path: Path, rel: str, *a: Any) -> Any:
        seen.append(rel)
        return real(path, rel, *a)

    monkeypatch.setattr(links_module, "_held", held)
    return seen


def test_the_build_check_reads_only_pages_no_worker_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = _write(tmp_path, _OWN)
    _write(tmp_path, _REST)
    whole = check_links(tmp_path)
    assert whole[0] == []
    seen = _parsed(monkeypatch)
    got = check_links(tmp_path, checked=[check_own(own)])
    assert got[0] == [] and got[1].to_json() == whole[1].to_json()
    # the worker's pages are not read; the page a handed-on fragment names is
    assert set(seen) == {"index.html", "method/index.html", "reports/001/index.html"}
    # a fragment into a worker's page: that page is read for its ids
    _write(tmp_path, {"method/index.html": '<a href="../receipts/x/cases/a/#q">a case</a>'})
    seen.clear()
    assert check_links(tmp_path, checked=[check_own(own)])[0] == []
    assert "receipts/x/cases/a/index.html" in seen and "receipts/x/index.html" not in seen


@pytest.mark.parametrize(
    "broken",
    [
        ("reports/001/index.html", "<h2>no id</h2>"),  # a fragment the workers handed on
        ("method/index.html", '<a href="../receipts/x/cases/a/#gone">x</a>'),  # into theirs
        ("assets/s.css", None),  # a file their pages need
    ],
    ids=["outside fragment", "fragment into a worker's page", "file removed"],
)
def test_a_problem_anywhere_is_worded_as_a_whole_check_words_it(
    tmp_path: Path, broken: tuple[str, str | None]
) -> None:
    own = _write(tmp_path, _OWN)
    _write(tmp_path, _REST)
    rel, body = broken
    if body is None:
        (tmp_path / rel).unlink()
    else:
        _write(tmp_path, {rel: body})
    whole = check_links(tmp_path)[0]
    assert len(whole) >= 1
    assert check_links(tmp_path, checked=[check_own(own)])[0] == whole


def test_a_worker_whose_own_links_fail_sends_the_build_to_check_every_page(
    tmp_path: Path,
) -> None:
    pages = {**_OWN, "receipts/x/index.html": '<a href="cases/a/#gone">gone</a>'}
    own = _write(tmp_path, pages)
    _write(tmp_path, _REST)
    checked = check_own(own)
    assert not checked.whole
    got = check_links(tmp_path, checked=[checked])[0]
    assert got == [  # the new sheet also lost the id "top" its case page names
        "receipts/x/cases/a/index.html: ../../#top (no element with id 'top')",
        "receipts/x/index.html: cases/a/#gone (no element with id 'gone')",
    ]


_WORKERS = ["r0", "r1"]
_ALL = ["index.html", "a.html", "s/index.html", "r0/index.html", "r0/c/index.html", "r1/index.html"]
_LINKS = [
    "/index.html", "/a.html", "/s/", "/r0/", "/r0/c/", "/r1/", "/r1/c/", "/nowhere.html",
    "/r0/index.html#i0", "/r0/c/#i1", "/r1/#i0", "/a.html#i1", "/s/#i0", "/../out.html", "#i0",
]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_workers_checks_give_a_whole_checks_answer_on_any_site(data: st.DataObject) -> None:
    # a random site: pages in two workers' folders and pages of the build's own, each with
    # random ids and links (absolute, so that any page may name any other), some broken
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        have = data.draw(st.sets(st.sampled_from(_ALL), min_size=1))
        pages = {
            p: "".join(
                f'<h2 id="{i}">x</h2>' for i in data.draw(st.sets(st.sampled_from(["i0", "i1"])))
            )
            + "".join(
                f'<a href="{link}">l</a>'
                for link in data.draw(st.lists(st.sampled_from(_LINKS), max_size=5))
            )
            for p in sorted(have)
        }
        files = _write(root, pages)
        checked = [
            check_own({rel: b for rel, b in files.items() if rel.startswith(f"{w}/")})
            for w in _WORKERS
        ]
        whole = check_links(root)
        got = check_links(root, checked=checked)
        assert got[0] == whole[0]
        if not got[0]:
            assert got[1].to_json() == whole[1].to_json()


def test_pages_checked_merge_as_one_check_of_all_their_files() -> None:
    a = check_own({"a/index.html": _html('<a href="../b/">b</a>')})
    b = check_own({"b/index.html": _html('<a href="#gone">x</a>')})
    a.update(b)
    assert a.pages == ["a/index.html", "b/index.html"] and not a.whole
    assert a.outside == {("b", "")}
    assert PagesChecked().whole and PagesChecked().pages == []


# At build level: the workers that render the receipts check their pages' links.


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")


def _in_workers(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    from driftproof.site import _parallel_render, publish

    if how == "checked and rendered":  # rendered by the workers that check the receipts
        monkeypatch.setattr(publish, "PARALLEL_FROM_BYTES", 0)
        monkeypatch.setattr(publish.os, "cpu_count", lambda: 2)
    else:  # rendered by workers of their own, from the files (no receipt held)
        monkeypatch.setattr(publish, "HOLD_BYTES", 0)
        monkeypatch.setattr(_parallel_render, "PARALLEL_RENDER_FROM", 1)
        monkeypatch.setattr(_parallel_render.os, "cpu_count", lambda: 2)


@pytest.mark.parametrize("how", ["checked and rendered", "rendered"])
def test_a_full_build_reads_no_page_a_worker_wrote_and_builds_the_same_site(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    receipts, reports = site_inputs
    build_site(receipts, reports, tmp_path / "one-process", config_file=CONFIG, cache_dir=None)
    _in_workers(monkeypatch, how)
    seen = _parsed(monkeypatch)
    out = tmp_path / "site"
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=None)
    assert _files(out) == _files(tmp_path / "one-process")
    in_workers: tuple[str, ...] = ("receipts/alpha/", "receipts/beta/", "receipts/tested/")
    if how == "checked and rendered":  # the reports are drawn there too
        in_workers += ("reports/00",)
    assert "method/index.html" in seen and "results/index.html" in seen
    assert [p for p in seen if p.startswith(in_workers)] == []
    # and that is the same check: every page of the site that is not the workers' was read
    pages = {p for p in _files(out) if p.endswith(".html")}
    unread = pages - set(seen)
    assert unread and all(p.startswith(in_workers) for p in unread)


@pytest.mark.parametrize("how", ["checked and rendered", "rendered"])
def test_a_broken_link_on_a_page_a_worker_wrote_fails_the_build_as_before(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    receipts, reports = site_inputs
    write_report(
        reports,
        "003-broken.md",
        "number: 3\nslug: broken\ntitle: Broken\ndate: 2026-03-04\nreceipts: [alpha]\n",
        "See [nowhere](../../nowhere/) and [a gone case](../../receipts/alpha/#gone).\n",
    )

    def problems(out: Path) -> list[str]:
        with pytest.raises(SiteBuildError) as err:
            build_site(receipts, reports, out, config_file=CONFIG, cache_dir=None)
        return [str(p) for p in err.value.lines()]

    want = problems(tmp_path / "one-process")
    assert any("nowhere" in p for p in want) and any("'gone'" in p for p in want)
    _in_workers(monkeypatch, how)
    assert problems(tmp_path / "site") == [w.replace("one-process", "site") for w in want]
