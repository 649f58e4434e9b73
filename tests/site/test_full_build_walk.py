"""The end of a full build (issue 19): the new site is walked once, and that walk gives the
link check its listing and the site record its digests, stats and tree key; the search
mirror hashes no page a worker wrote (their digests are known from the bytes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from site_fixtures import REPO, late_navigation_entry
from site_fixtures import site_files as _files

from driftproof.site import _stats, build_site
from driftproof.site import links as links_module
from driftproof.site._cache import CACHE_DIR_NAME
from driftproof.site._stats import site_state

CONFIG = REPO / "mkdocs.yml"


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")


def test_the_walks_listing_is_what_os_walk_lists(tmp_path: Path) -> None:
    # every kind of entry: files, an empty folder, links to a folder, to a file and to nothing
    for rel in ("a/b/c.html", "a/d.css", "e.html"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x", encoding="utf-8")
    (tmp_path / "a/empty").mkdir()
    os.symlink(tmp_path / "a/b", tmp_path / "to-folder")
    os.symlink(tmp_path / "e.html", tmp_path / "a/to-file")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    listing: tuple[set[str], set[str]] = (set(), set())
    site_state(tmp_path, hash_files=False, listing=listing)
    assert listing == (
        {"a/b/c.html", "a/d.css", "e.html", "a/to-file", "dangling"},
        {"a", "a/b", "a/empty", "to-folder"},
    )
    assert listing == links_module._listing(tmp_path)


def _plain_then_in_workers(
    tmp_path: Path, inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A site built in one process, without a cache (``tmp_path / "plain"``), to compare
    with; from then on, the receipts' pages are rendered in worker processes. The site to
    build (``tmp_path / "site"``)."""
    from driftproof.site import publish

    build_site(*inputs, tmp_path / "plain", config_file=CONFIG, cache_dir=None)
    monkeypatch.setattr(publish, "PARALLEL_FROM_BYTES", 0)
    monkeypatch.setattr(publish.os, "cpu_count", lambda: 2)
    return tmp_path / "site"


def _build(tmp_path: Path, inputs: tuple[Path, Path], out: Path) -> None:
    build_site(*inputs, out, config_file=CONFIG, cache_dir=tmp_path / CACHE_DIR_NAME)
    assert _files(out) == _files(tmp_path / "plain")  # the search index included


def _hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the files hashed from now on."""
    hashed: list[str] = []
    real = _stats.file_sha

    def file_sha(p: Path) -> str:
        hashed.append(Path(p).as_posix())
        return real(p)

    monkeypatch.setattr(_stats, "file_sha", file_sha)
    return hashed


def _assert_the_record_is_what_a_walk_finds(tmp_path: Path, out: Path) -> None:
    from driftproof.site._build_site import _read_record, _record_path
    from driftproof.site._cache import BuildCache

    doc = _read_record(_record_path(BuildCache(tmp_path / CACHE_DIR_NAME), out.resolve()))
    stats: dict[str, list[int]] = {}
    files, tree = site_state(out, stats=stats)
    assert any(rel.startswith("receipts/alpha/cases/") for rel in stats)
    assert doc["files"] == files and doc["tree"] == tree
    assert doc["stats"]["files"] == stats


def test_a_full_build_walks_its_site_once_and_records_what_a_walk_finds(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _plain_then_in_workers(tmp_path, site_inputs, monkeypatch)

    def no_second_walk(root: Path) -> None:
        raise AssertionError(f"the link check walked {root} again")

    monkeypatch.setattr(links_module, "_listing", no_second_walk)
    hashed = _hashed(monkeypatch)
    _build(tmp_path, site_inputs, out)
    # the sheets the workers wrote are searchable, yet neither the mirror nor the record
    # read them to hash them; the pages mkdocs wrote were hashed
    assert not [h for h in hashed if "/receipts/alpha/" in h]
    assert any(h.endswith("/method/index.html") for h in hashed)
    _assert_the_record_is_what_a_walk_finds(tmp_path, out)


def test_the_end_of_a_full_build_walks_no_folder_only_workers_wrote_into(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 19: at 10,000 receipts a walk of the case pages' folders took 224.9 s cold; the
    # workers' own lstats stand in for it, and the site and its record are the same
    out = _plain_then_in_workers(tmp_path, site_inputs, monkeypatch)
    scanned: list[str] = []
    real_scandir = os.scandir

    def scandir(path: str | int = ".") -> object:
        scanned.append(os.fsdecode(path) if not isinstance(path, int) else f"fd {path}")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    build_site(*site_inputs, out, config_file=CONFIG, cache_dir=tmp_path / CACHE_DIR_NAME)
    monkeypatch.setattr(os, "scandir", real_scandir)
    assert _files(out) == _files(tmp_path / "plain")
    # the walks went into the site's folders, but not into a receipt's own folder (the
    # search mirror, which holds its sheet alone, is walked)
    assert any(p.endswith("/receipts") for p in scanned)
    assert not [p for p in scanned if "/receipts/alpha" in p and ".search/" not in p]
    _assert_the_record_is_what_a_walk_finds(tmp_path, out)


def _mirror_of(
    tmp_path: Path, out: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, list[str]]:
    """The search mirror of ``out`` (its cache: tmp_path's), with a link planted in it where
    alpha's sheet goes and a stale page; and the files copied into it from now on."""
    import shutil

    from driftproof.site._build_site import _mirror_path, _record_path
    from driftproof.site._cache import BuildCache

    mirror = _mirror_path(_record_path(BuildCache(tmp_path / CACHE_DIR_NAME), out.resolve()))
    (mirror / "receipts/alpha").mkdir(parents=True)
    (tmp_path / "outside.html").write_bytes(b"outside")
    os.symlink(tmp_path / "outside.html", mirror / "receipts/alpha/index.html")
    (mirror / "stale.html").write_bytes(b"stale")
    copied: list[str] = []
    real = shutil.copyfile

    def copyfile(src: Path, dest: Path) -> object:
        copied.append(Path(src).as_posix())
        return real(src, dest)

    monkeypatch.setattr(shutil, "copyfile", copyfile)
    return mirror, copied


def _searchable_pages(site: Path) -> dict[str, bytes]:
    from driftproof.site._site_dir import searchable

    pages = {p.relative_to(site).as_posix(): p for p in site.rglob("*.html")}
    return {rel: p.read_bytes() for rel, p in sorted(pages.items()) if searchable(rel)}


def test_a_full_builds_workers_copy_the_searchable_pages_into_the_search_mirror(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 19: the end of the build neither reads back the sheets the workers wrote nor
    # copies them; the mirror holds exactly the site's searchable pages all the same
    out = _plain_then_in_workers(tmp_path, site_inputs, monkeypatch)
    mirror, copied = _mirror_of(tmp_path, out, monkeypatch)
    hashed = _hashed(monkeypatch)
    _build(tmp_path, site_inputs, out)
    pages = _searchable_pages(out)
    assert "receipts/alpha/index.html" in pages and "method/index.html" in pages
    assert {p.relative_to(mirror).as_posix(): p.read_bytes() for p in mirror.rglob("*.html")} == (
        pages
    )
    assert (tmp_path / "outside.html").read_bytes() == b"outside"
    assert not [c for c in copied if c.endswith("/receipts/alpha/index.html")]
    assert any(c.endswith("/method/index.html") for c in copied)  # written by mkdocs
    assert not [h for h in hashed if "/receipts/alpha/" in h]


def test_pages_copied_into_the_mirror_ahead_with_another_navigation_are_replaced(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.site import publish

    monkeypatch.setattr(publish, "PARALLEL_FROM_BYTES", 0)
    monkeypatch.setattr(publish.os, "cpu_count", lambda: 2)
    calls = late_navigation_entry(monkeypatch)
    out = tmp_path / "site"
    mirror, _copied = _mirror_of(tmp_path, out, monkeypatch)
    build_site(*site_inputs, out, config_file=CONFIG, cache_dir=tmp_path / CACHE_DIR_NAME)
    assert len(calls) == 2
    pages = _searchable_pages(out)
    assert b"Late entry" in pages["receipts/alpha/index.html"]
    assert {p.relative_to(mirror).as_posix(): p.read_bytes() for p in mirror.rglob("*.html")} == (
        pages
    )
