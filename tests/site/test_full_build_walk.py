"""The end of a full build (issue 19): the new site is walked once, and that walk gives the
link check its listing and the site record its digests, stats and tree key; the search
mirror hashes no page a worker wrote (their digests are known from the bytes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from site_fixtures import REPO
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


def test_a_full_build_walks_its_site_once_and_records_what_a_walk_finds(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.site import publish
    from driftproof.site._build_site import _read_record, _record_path
    from driftproof.site._cache import BuildCache

    receipts, reports = site_inputs
    build_site(receipts, reports, tmp_path / "plain", config_file=CONFIG, cache_dir=None)
    monkeypatch.setattr(publish, "PARALLEL_FROM_BYTES", 0)  # the receipts' pages in workers
    monkeypatch.setattr(publish.os, "cpu_count", lambda: 2)

    def no_second_walk(root: Path) -> None:
        raise AssertionError(f"the link check walked {root} again")

    monkeypatch.setattr(links_module, "_listing", no_second_walk)
    hashed: list[str] = []
    real = _stats.file_sha

    def file_sha(p: Path) -> str:
        hashed.append(Path(p).as_posix())
        return real(p)

    monkeypatch.setattr(_stats, "file_sha", file_sha)
    out = tmp_path / "site"
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=tmp_path / CACHE_DIR_NAME)
    assert _files(out) == _files(tmp_path / "plain")
    # the sheets the workers wrote are searchable, yet neither the mirror nor the record
    # read them to hash them; the pages mkdocs wrote were hashed
    assert not [h for h in hashed if "/receipts/alpha/" in h]
    assert any(h.endswith("/method/index.html") for h in hashed)
    monkeypatch.setattr(_stats, "file_sha", real)
    doc = _read_record(_record_path(BuildCache(tmp_path / CACHE_DIR_NAME), out.resolve()))
    stats: dict[str, list[int]] = {}
    files, tree = site_state(out, stats=stats)
    assert doc["files"] == files and doc["tree"] == tree
    assert doc["stats"]["files"] == stats
