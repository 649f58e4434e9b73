"""Incremental builds after the built site or the build cache was changed by hand (issue 19):
each must still leave what a clean build (no cache) of the same inputs gives. A first build,
then a second one, then the change, then the build under test; each build runs as if the
last were more than a second old (``_stats.RACY_NS`` = 0), so that the build under test
trusts the kept files' stats and keeps receipts whole (``Staging.reuse``)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from site_fixtures import REPO, scored_receipt
from site_fixtures import site_files as _files

from driftproof.receipt import write_receipt
from driftproof.site import build_site
from driftproof.site._cache import CACHE_DIR_NAME

CONFIG = REPO / "mkdocs.yml"


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    from driftproof.site import _stats

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")
    monkeypatch.setattr(_stats, "RACY_NS", 0)  # as if each build were a second old


def _mirror(cache: Path) -> Path:
    [mirror] = [p for p in cache.rglob("*.search") if p.is_dir()]
    return mirror


def _edit_site_page(out: Path, cache: Path) -> None:
    page = out / "receipts" / "alpha" / "index.html"  # a kept receipt's sheet
    page.write_bytes(page.read_bytes().replace(b"alpha", b"ALPHA"))


def _remove_site_file(out: Path, cache: Path) -> None:
    (out / "receipts" / "beta.json").unlink()


def _chmod_site_file(out: Path, cache: Path) -> None:
    os.chmod(out / "receipts" / "alpha" / "index.html", 0o600)


def _link_site_folder(out: Path, cache: Path) -> None:
    folder = out / "receipts" / "alpha"
    shutil.copytree(folder, out.parent / "elsewhere")
    shutil.rmtree(folder)
    folder.symlink_to(out.parent / "elsewhere", target_is_directory=True)


def _remove_mirror(out: Path, cache: Path) -> None:
    mirror = _mirror(cache)
    shutil.rmtree(mirror)


def _damage_mirror(out: Path, cache: Path) -> None:
    # a page's bytes changed with its size and times put back, and a stray page added
    page = _mirror(cache) / "method" / "index.html"
    st = page.stat()
    data = page.read_bytes()
    page.write_bytes(data.replace(b"<", b"[", 1))
    os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns))
    (_mirror(cache) / "stray.html").write_text("<p>stray</p>", encoding="utf-8")


def _damage_link_store(out: Path, cache: Path) -> None:
    [store] = cache.rglob("links.sqlite3")
    store.write_bytes(b"not a database")


def _remove_record(out: Path, cache: Path) -> None:
    mirror = _mirror(cache)
    mirror.with_name(mirror.name.removesuffix(".search")).unlink()


CHANGES: dict[str, Callable[[Path, Path], None]] = {
    "a kept page edited": _edit_site_page,
    "a site file removed": _remove_site_file,
    "a site file's mode changed": _chmod_site_file,
    "a site folder made a link": _link_site_folder,
    "the search mirror removed": _remove_mirror,
    "a mirror page edited and a stray one added": _damage_mirror,
    "the link store damaged": _damage_link_store,
    "the site record removed": _remove_record,
}


@pytest.mark.parametrize("inputs", ["unchanged", "changed"])
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_hand_change_is_put_right(
    tmp_path: Path, site_inputs: tuple[Path, Path], change: str, inputs: str
) -> None:
    receipts, reports = site_inputs
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME

    def build() -> None:
        build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)

    build()
    write_receipt(
        scored_receipt({"c1": ([0.2, 0.3, 0.25], [0.5, 0.55, 0.45])}, answer="second"),
        receipts / "tested.json",
    )
    build()
    CHANGES[change](out, cache)
    if inputs == "changed":
        write_receipt(
            scored_receipt({"c1": ([0.4, 0.3, 0.25], [0.5, 0.55, 0.45])}, answer="third"),
            receipts / "tested.json",
        )
    build()
    build_site(receipts, reports, tmp_path / "clean", config_file=CONFIG, cache_dir=None)
    clean = _files(tmp_path / "clean")
    got = _files(out)
    assert sorted(p for p in got.keys() | clean.keys() if got.get(p) != clean.get(p)) == []
    assert not (out / "receipts" / "alpha").is_symlink()
    mode = (tmp_path / "clean" / "receipts" / "alpha" / "index.html").stat().st_mode
    assert (out / "receipts" / "alpha" / "index.html").stat().st_mode == mode
