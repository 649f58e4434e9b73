"""The render cache serves an entry only as it was written (a probe's findings, kept as tests).

A cache entry is a zip of a receipt's rendered files. A name that climbs out of the site, an
absolute name, a member added or changed after the entry was written, or an entry moved to
another key must never reach the site: the cache answers ``None`` and the receipt is rendered
again.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from driftproof.site.receipt_jobs import RenderCache

KEY = "ab" + "0" * 62
FILES = {
    "receipts/r/index.html": b"<html>page</html>",
    "badge/r.svg": b"<svg/>",
}


def _entry(tmp_path: Path) -> tuple[RenderCache, Path]:
    cache = RenderCache(tmp_path / "cache")
    cache.put(KEY, FILES)
    (path,) = (tmp_path / "cache" / "render").rglob("*.zip")
    return cache, path


def _rewrite(path: Path, change: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members.update(change)
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)


def test_an_entry_reads_back_as_written(tmp_path: Path) -> None:
    cache, _ = _entry(tmp_path)
    assert RenderCache(cache.folder).get(KEY) == FILES


@pytest.mark.parametrize("name", ["../../../tmp/escaped.txt", "/tmp/escaped.txt", "index.html"])
def test_a_member_added_after_writing_is_never_served(tmp_path: Path, name: str) -> None:
    cache, path = _entry(tmp_path)
    with zipfile.ZipFile(path, "a") as z:
        z.writestr(name, b"x")
    assert RenderCache(cache.folder).get(KEY) is None


def test_a_member_changed_after_writing_is_never_served(tmp_path: Path) -> None:
    cache, path = _entry(tmp_path)
    _rewrite(path, {"receipts/r/index.html": b"<html>EVIL</html>"})
    assert RenderCache(cache.folder).get(KEY) is None


def test_an_entry_moved_to_another_key_is_never_served(tmp_path: Path) -> None:
    cache, path = _entry(tmp_path)
    other = "cd" + "1" * 62
    moved = cache.folder / "render" / other[:2] / f"{other}.zip"
    moved.parent.mkdir(parents=True)
    moved.write_bytes(path.read_bytes())
    assert RenderCache(cache.folder).get(other) is None


def test_an_entry_without_a_manifest_is_rendered_again(tmp_path: Path) -> None:
    cache, path = _entry(tmp_path)
    with zipfile.ZipFile(path, "w") as z:
        for name, data in FILES.items():
            z.writestr(name, data)
    assert RenderCache(cache.folder).get(KEY) is None


def test_an_unsafe_name_written_with_its_own_manifest_is_never_served(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "cache")
    cache.put(KEY, {**FILES, "../outside.txt": b"x"})
    assert RenderCache(cache.folder).get(KEY) is None
