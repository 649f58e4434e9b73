"""Builds that scale (issue 19): a rebuild with nothing changed does nothing beyond hashing;
receipts are held as summaries, their bytes read back from their files when large, and such
a build gives the bytes of one that holds them; generated files are staged, not held."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from site_fixtures import REPO, late_navigation_entry
from test_build_cache import _files

from driftproof.errors import ReceiptError
from driftproof.site import build_site
from driftproof.site._cache import CACHE_DIR_NAME
from driftproof.site._loaded import LoadedReceipt, ReceiptSummary, Spool

CONFIG = REPO / "mkdocs.yml"


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")


def _no_loading(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from driftproof.site import publish

    calls: list[str] = []
    real = publish.load_inputs

    def spy(*a: object, **k: object) -> object:
        calls.append("load")
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(publish, "load_inputs", spy)
    return calls


def _first_build(tmp_path: Path, site_inputs: tuple[Path, Path]) -> tuple[Path, Path, Path, Path]:
    """The receipts and reports folders, and the site and cache of a first build of them."""
    receipts, reports = site_inputs
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    return receipts, reports, out, cache


def test_a_rebuild_with_nothing_changed_checks_renders_and_writes_nothing(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    receipts, reports, out, cache = _first_build(tmp_path, site_inputs)
    before = _files(out)
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    calls = _no_loading(monkeypatch)
    inputs = build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    assert calls == []  # nothing read beyond hashing
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == stamps
    assert _files(out) == before
    # what the command reports is still right: the three receipts and two reports
    assert sorted(inputs.receipts) == ["alpha", "beta", "tested"]
    assert [r.number for r in inputs.reports] == [2, 1]


@pytest.mark.parametrize("change", ["site file", "report", "receipt", "no cache"])
def test_any_change_builds_again(
    tmp_path: Path,
    site_inputs: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    change: str,
) -> None:
    receipts, reports, out, cache = _first_build(tmp_path, site_inputs)
    before = _files(out)
    page = out / "receipts" / "index.html"
    if change == "site file":
        page.write_bytes(page.read_bytes() + b"<!-- edited -->")
    elif change == "report":
        src = reports / "001-savings.md"
        src.write_text(src.read_text(encoding="utf-8").replace("First.", "Once."), "utf-8")
    elif change == "receipt":
        (receipts / "alpha.json").write_bytes((receipts / "alpha.json").read_bytes() + b"\n")
    calls = _no_loading(monkeypatch)
    again_cache = None if change == "no cache" else cache
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=again_cache)
    assert calls == ["load"]
    if change in ("site file", "no cache"):
        assert _files(out) == before  # the edited page is built again, byte for byte
    else:
        assert _files(out) != before


def test_receipts_read_back_from_their_files_build_the_same_site_as_held_ones(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # not held, the receipts' pages are rendered in worker processes (two here)
    from driftproof.site import _parallel_render, publish

    monkeypatch.setattr(_parallel_render, "PARALLEL_RENDER_FROM", 1)
    monkeypatch.setattr(_parallel_render.os, "cpu_count", lambda: 2)
    in_workers: list[bool] = []
    real = _parallel_render.render_in_workers

    def spy(*a: object, **k: object) -> object:
        rows = real(*a, **k)  # type: ignore[arg-type]
        in_workers.append(rows is not None)
        return rows

    monkeypatch.setattr(_parallel_render, "render_in_workers", spy)

    receipts, reports = site_inputs
    build_site(receipts, reports, tmp_path / "held", config_file=CONFIG, cache_dir=None)
    monkeypatch.setattr(publish, "HOLD_BYTES", 0)  # no receipt's bytes held: read back
    inputs = publish.load_inputs(receipts, reports)
    assert all(lr._raw is None and lr._receipt is None for lr in inputs.receipts.values())
    assert inputs.receipts["alpha"].raw == (receipts / "alpha.json").read_bytes()
    del inputs
    build_site(receipts, reports, tmp_path / "read-back", config_file=CONFIG, cache_dir=None)
    assert _files(tmp_path / "read-back") == _files(tmp_path / "held")
    assert in_workers == [False, True]  # held: one process; read back: the workers
    # nothing of the build is left beside the site: no spool, no staging folder
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_spool_entry_changed_after_it_was_read_is_refused(tmp_path: Path) -> None:
    data = b'{"a": 1}'
    sha = hashlib.sha256(data).hexdigest()
    source = tmp_path / "r.json"
    source.write_bytes(data)
    spool = Spool(tmp_path / "spool")
    spool.put(sha, data, source=source)
    assert spool.get(sha, "r.json") == data
    source.write_bytes(b'{"a": 2}')  # changed in place: the spool's hard link sees it
    if spool.path(sha).read_bytes() != data:
        with pytest.raises(ReceiptError, match="changed"):
            spool.get(sha, "r.json")
    lr = LoadedReceipt("r", None, None, source, sha256=sha)
    with pytest.raises(ReceiptError, match="unchanged"):
        lr.raw  # noqa: B018 - reading it is the test


def test_a_summary_round_trips_and_a_damaged_one_is_none() -> None:
    s = ReceiptSummary("skill", "TESTED", "model-x", 50, "ab" * 32, False)
    assert ReceiptSummary.from_json(s.to_json()) == s
    assert ReceiptSummary.from_json(b"{") is None
    assert ReceiptSummary.from_json(b'{"skill": "x"}') is None


def _checked_in_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    from driftproof.site import publish

    monkeypatch.setattr(publish, "PARALLEL_FROM_BYTES", 0)
    monkeypatch.setattr(publish.os, "cpu_count", lambda: 2)


def test_receipts_checked_in_workers_are_rendered_there_from_the_one_parse(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each receipt is parsed once per build: the worker that checked it renders its pages.
    from driftproof.site import build as build_module

    real_report_files = build_module.cached_report_files
    receipts, reports = site_inputs
    build_site(receipts, reports, tmp_path / "one-process", config_file=CONFIG, cache_dir=None)
    _checked_in_workers(monkeypatch)

    def not_here(*a: object, **k: object) -> object:
        raise AssertionError("a receipt's pages were rendered again in the build process")

    monkeypatch.setattr(build_module, "receipt_files", not_here)
    monkeypatch.setattr(build_module, "cached_report_files", not_here)  # drawn while they checked
    out = tmp_path / "checked-in-workers"
    inputs = build_site(receipts, reports, out, config_file=CONFIG, cache_dir=None)
    assert sorted(inputs.rendered or {}) == ["alpha", "beta", "tested"]
    assert inputs.reports_rendered is not None
    assert _files(out) == _files(tmp_path / "one-process")
    # a report that cannot be drawn ahead is drawn by the build as usual: the same site
    from driftproof.site import _parallel_render

    monkeypatch.setattr(build_module, "cached_report_files", real_report_files)
    monkeypatch.setattr(_parallel_render, "render_reports", lambda *a: None)
    again = tmp_path / "reports-drawn-late"
    inputs = build_site(receipts, reports, again, config_file=CONFIG, cache_dir=None)
    assert inputs.reports_rendered is None
    assert _files(again) == _files(tmp_path / "one-process")
    # nothing of the build is left beside the site: no spool, no staging folder
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_pages_rendered_ahead_with_another_navigation_are_rendered_again(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The navigation is read from the config before mkdocs runs; should mkdocs's files give
    # another (here: one entry more), the pages made ahead are not used.
    receipts, reports = site_inputs
    _checked_in_workers(monkeypatch)
    calls = late_navigation_entry(monkeypatch)
    out = tmp_path / "site"
    inputs = build_site(receipts, reports, out, config_file=CONFIG, cache_dir=None)
    assert len(calls) == 2 and inputs.rendered  # rendered ahead with the first navigation
    for name in ("alpha", "beta", "tested"):  # … and rendered again with the second
        assert b"Late entry" in (out / "receipts" / name / "index.html").read_bytes()


def _hashed(monkeypatch: pytest.MonkeyPatch, *, whole: bool = False) -> list[str]:
    """The files hashed from now on: their names (``whole``: their paths)."""
    from driftproof.site import _stats

    read: list[str] = []
    real = _stats.file_sha

    def spy(p: Path) -> str:
        read.append(str(p) if whole else Path(p).name)
        return real(p)

    monkeypatch.setattr(_stats, "file_sha", spy)
    return read


def test_a_rebuild_with_nothing_changed_reads_no_file_its_stat_vouches_for(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.site import _stats, publish

    # large inputs: no receipt's bytes held, nothing linked to the files (which would move
    # their change times and make every stat untrusted)
    monkeypatch.setattr(publish, "HOLD_BYTES", 0)
    receipts, reports, out, cache = _first_build(tmp_path, site_inputs)
    read = _hashed(monkeypatch)
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    # just written: within RACY_NS of the record, so every file was read all the same
    assert "alpha.json" in read and "index.html" in read
    monkeypatch.setattr(_stats, "RACY_NS", 0)  # as if the record were a second older
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)  # records anew
    read.clear()
    calls = _no_loading(monkeypatch)
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    assert calls == [] and read == []  # neither a receipt nor a page was read


@pytest.mark.parametrize("where", ["site page", "receipt", "receipt's sheet", "published receipt"])
def test_an_edit_that_keeps_size_and_modification_time_is_still_seen(
    tmp_path: Path,
    site_inputs: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    # The change time moves with any write, and cannot be set back by hand.
    from driftproof.site import _stats

    monkeypatch.setattr(_stats, "RACY_NS", 0)
    receipts, reports, out, cache = _first_build(tmp_path, site_inputs)
    before = _files(out)
    target = {
        "site page": out / "receipts" / "index.html",
        "receipt": receipts / "beta.json",
        # a receipt's own files, which an incremental build keeps whole when their stats hold
        "receipt's sheet": out / "receipts" / "beta" / "index.html",
        "published receipt": out / "receipts" / "beta.json",
    }[where]
    st = target.stat()
    data = target.read_bytes()
    changed = data[:-1] + (b" " if data[-1:] != b" " else b"\n")
    assert changed != data and len(changed) == len(data)
    target.write_bytes(changed)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # size and mtime as they were
    assert (target.stat().st_size, target.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    calls = _no_loading(monkeypatch)
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    assert calls == ["load"]  # not taken as unchanged
    if where == "receipt":
        assert (out / "receipts" / "beta.json").read_bytes() == changed
    else:
        assert _files(out) == before  # the edited file is built again, byte for byte


def test_a_rebuild_after_one_receipt_changed_reads_that_receipt_alone(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.site import _stats, publish

    monkeypatch.setattr(publish, "HOLD_BYTES", 0)  # large inputs: bytes read where needed
    monkeypatch.setattr(_stats, "RACY_NS", 0)
    receipts, reports, out, cache = _first_build(tmp_path, site_inputs)
    changed = receipts / "beta.json"
    changed.write_bytes(changed.read_bytes() + b"\n")
    read: list[str] = []
    real = publish._read_bounded
    monkeypatch.setattr(publish, "_read_bounded", lambda p: read.append(p.name) or real(p))
    hashed_paths = _hashed(monkeypatch, whole=True)
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    assert read == ["beta.json"]  # the changed receipt alone is read here, to be checked
    sources = [Path(p) for p in hashed_paths if Path(p).parent == receipts]
    assert sources == [changed]  # and alone hashed among the inputs
    assert (out / "receipts" / "beta.json").read_bytes() == changed.read_bytes()
