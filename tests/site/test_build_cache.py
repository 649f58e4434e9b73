"""The build cache and incremental builds (issue 19).

A build through the cache gives the bytes of a clean build, file for file; a receipt whose
bytes were already checked and rendered under the same product version is neither checked
nor rendered again; a chart already drawn is not drawn again; a damaged cache entry is
ignored. The clean builds here use no cache at all, so the comparison cannot be fooled by it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from site_fixtures import REPO, scored_receipt
from site_fixtures import site_files as _files

from driftproof.receipt import write_receipt
from driftproof.site import build_site
from driftproof.site._cache import CACHE_DIR_NAME, BuildCache, pack, unpack

CONFIG = REPO / "mkdocs.yml"


def _same(a: Path, b: Path) -> None:
    fa, fb = _files(a), _files(b)
    assert sorted(fa) == sorted(fb)
    assert [p for p in fa if fa[p] != fb[p]] == []


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")


def test_cached_and_incremental_builds_are_byte_identical_to_clean_builds(
    tmp_path: Path, site_inputs: tuple[Path, Path], env: None
) -> None:
    receipts, reports = site_inputs
    cache = tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, tmp_path / "cold", config_file=CONFIG, cache_dir=cache)
    assert any(cache.rglob("valid/*/*")) and any(cache.rglob("pages/*/*"))
    build_site(receipts, reports, tmp_path / "warm", config_file=CONFIG, cache_dir=cache)
    build_site(receipts, reports, tmp_path / "clean", config_file=CONFIG, cache_dir=None)
    _same(tmp_path / "cold", tmp_path / "clean")
    _same(tmp_path / "warm", tmp_path / "clean")
    # the case pages come out of the sheet rendering the cache keeps (issue 15): they are in it
    assert any("/cases/" in p and p.endswith("/index.html") for p in _files(tmp_path / "warm"))
    # one receipt changes: the incremental build equals a clean build of the new inputs
    write_receipt(
        scored_receipt({"c1": ([0.2, 0.3, 0.25], [0.5, 0.55, 0.45])}, answer="changed"),
        receipts / "tested.json",
    )
    build_site(receipts, reports, tmp_path / "warm", config_file=CONFIG, cache_dir=cache)
    build_site(receipts, reports, tmp_path / "clean2", config_file=CONFIG, cache_dir=None)
    _same(tmp_path / "warm", tmp_path / "clean2")
    assert _files(tmp_path / "clean2") != _files(tmp_path / "clean")
    # removing the cache changes no byte
    shutil.rmtree(cache)
    build_site(receipts, reports, tmp_path / "after", config_file=CONFIG, cache_dir=cache)
    _same(tmp_path / "after", tmp_path / "clean2")


def _built_once(
    tmp_path: Path, site_inputs: tuple[Path, Path], name: str
) -> tuple[Path, Path, Path]:
    """The inputs' receipts and reports folders, and the cache of a first build into ``name``."""
    receipts, reports = site_inputs
    cache = tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, tmp_path / name, config_file=CONFIG, cache_dir=cache)
    return receipts, reports, cache


def test_a_receipt_already_checked_and_rendered_is_neither_checked_nor_rendered_again(
    tmp_path: Path, site_inputs: tuple[Path, Path], env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.receipt import _load
    from driftproof.site import _receipt_files as site_build

    receipts, reports, cache = _built_once(tmp_path, site_inputs, "first")
    checked: list[str] = []
    rendered: list[str] = []
    real_check, real_sheet = _load._check_schema, site_build._sheet_page
    monkeypatch.setattr(
        _load,
        "_check_schema",
        lambda doc, v, file: (checked.append(Path(file).name), real_check(doc, v, file))[1],
    )
    monkeypatch.setattr(
        site_build, "_sheet_page", lambda lr, *a: (rendered.append(lr.name), real_sheet(lr, *a))[1]
    )
    build_site(receipts, reports, tmp_path / "second", config_file=CONFIG, cache_dir=cache)
    assert checked == [] and rendered == []
    _same(tmp_path / "first", tmp_path / "second")
    # one receipt changes: only it is checked and rendered
    write_receipt(
        scored_receipt({"c1": ([0.2, 0.3, 0.25], [0.5, 0.55, 0.45])}, answer="changed"),
        receipts / "tested.json",
    )
    build_site(receipts, reports, tmp_path / "third", config_file=CONFIG, cache_dir=cache)
    assert checked == ["tested.json"] and rendered == ["tested"]


def test_a_chart_already_drawn_is_not_drawn_again(
    tmp_path: Path, site_inputs: tuple[Path, Path], env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import matplotlib.figure

    receipts, reports = site_inputs
    cache = tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, tmp_path / "first", config_file=CONFIG, cache_dir=cache)

    def no_drawing(*a: object, **k: object) -> None:
        raise AssertionError("a chart was drawn again")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", no_drawing)
    build_site(receipts, reports, tmp_path / "second", config_file=CONFIG, cache_dir=cache)
    _same(tmp_path / "first", tmp_path / "second")
    svgs = [p.name for p in (tmp_path / "second" / "reports").rglob("*.svg")]
    # every variant was drawn once and taken from the cache: wide and narrow, light and dark
    assert any(n.endswith("-narrow.svg") for n in svgs) and any(
        n.endswith("-narrow-dark.svg") for n in svgs
    )
    assert any(not n.endswith(("-narrow.svg", "-dark.svg")) for n in svgs)


def test_a_report_is_drawn_again_only_when_one_of_its_inputs_changed(
    tmp_path: Path, site_inputs: tuple[Path, Path], env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Report 001 cites alpha and beta; Report 002 cites tested (make_site_inputs)
    from driftproof.site import _report_files

    receipts, reports, cache = _built_once(tmp_path, site_inputs, "site")
    drawn: list[int] = []
    real = _report_files.report_files
    monkeypatch.setattr(
        _report_files, "report_files", lambda r, *a: drawn.append(r.number) or real(r, *a)
    )
    write_receipt(
        scored_receipt({"c1": ([0.2, 0.3, 0.25], [0.5, 0.55, 0.45])}, answer="changed"),
        receipts / "tested.json",
    )
    build_site(receipts, reports, tmp_path / "site", config_file=CONFIG, cache_dir=cache)
    assert drawn == [2]  # Report 001's inputs did not change: taken from the cache
    text = (reports / "001-savings.md").read_text(encoding="utf-8")
    (reports / "001-savings.md").write_text(text.replace("First.", "Changed."), encoding="utf-8")
    build_site(receipts, reports, tmp_path / "site", config_file=CONFIG, cache_dir=cache)
    assert drawn == [2, 1]
    build_site(receipts, reports, tmp_path / "clean", config_file=CONFIG, cache_dir=None)
    _same(tmp_path / "site", tmp_path / "clean")


def test_a_damaged_cache_entry_is_ignored(
    tmp_path: Path, site_inputs: tuple[Path, Path], env: None
) -> None:
    receipts, reports = site_inputs
    cache = tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, tmp_path / "first", config_file=CONFIG, cache_dir=cache)
    for entry in cache.rglob("pages/*/*"):
        entry.write_bytes(entry.read_bytes()[:-7])  # truncated
    build_site(receipts, reports, tmp_path / "second", config_file=CONFIG, cache_dir=cache)
    _same(tmp_path / "first", tmp_path / "second")


def test_a_failed_build_records_nothing_as_valid(
    tmp_path: Path, site_inputs: tuple[Path, Path], env: None
) -> None:
    from driftproof.errors import SiteBuildError

    receipts, reports = site_inputs
    (reports / "003-broken.md").write_text("---\nnumber: 3\n---\n", encoding="utf-8")
    with pytest.raises(SiteBuildError):
        build_site(
            receipts, reports, tmp_path / "site", config_file=CONFIG, cache_dir=tmp_path / "c"
        )
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(
    "files", [{}, {"a": b""}, {"x/y.svg": b"<svg/>", "é": "ü".encode(), "b": bytes(range(256))}]
)
def test_pack_round_trips(files: dict[str, bytes]) -> None:
    assert unpack(pack(files)) == files


@pytest.mark.parametrize(
    "bad", [b"", b"garbage", pack({"a": b"xyz"})[:-1], pack({"a": b"xyz"}) + b"!"]
)
def test_unpack_refuses_what_is_not_a_whole_entry(bad: bytes) -> None:
    assert unpack(bad) is None


def test_entries_live_under_the_product_key(tmp_path: Path) -> None:
    from driftproof.site._cache import product_key

    c = BuildCache(tmp_path)
    c.mark_valid(["ab" * 32])
    assert c.is_valid("ab" * 32) and not c.is_valid("cd" * 32)
    assert (tmp_path / product_key()[:32] / "valid" / "ab" / ("ab" * 32)).is_file()


def test_reports_build_progress_counts_every_phase(
    tmp_path: Path, site_inputs: tuple[Path, Path], env: None
) -> None:
    import io

    from rich.console import Console

    from driftproof.cli.reports import build_progress

    receipts, reports = site_inputs
    buf = io.StringIO()
    seen: list[tuple[str, int, int]] = []
    with build_progress(Console(file=buf, force_terminal=True, width=100)) as progress:

        def spy(phase: str, done: int, total: int) -> None:
            seen.append((phase, done, total))
            progress(phase, done, total)

        build_site(
            receipts, reports, tmp_path / "site", config_file=CONFIG, cache_dir=None, progress=spy
        )
    # the three receipts of site_inputs are read, validated and rendered, in that order
    assert [s for s in seen if s[0] != "write"] == [
        (ph, i, 3) for ph in ("read", "validate", "render") for i in (1, 2, 3)
    ]
    generated = sum(1 for p in (tmp_path / "site").rglob("*") if p.is_file())
    (_, first, total), (_, last, total2) = [s for s in seen if s[0] == "write"]
    assert first == 0 and last == total == total2 and 0 < total < generated
    out = buf.getvalue()
    assert all(ph in out for ph in ("read", "validate", "render", "write")) and "3/3" in out


def test_an_entry_is_compressed() -> None:
    # issue 19: one entry per receipt; a receipt's 51 pages share their layout, so one
    # Zstandard frame takes a fraction of their bytes (642,333 bytes took 16,251 here)
    page = b"<!doctype html><nav>" + b"<a href='../x/'>Receipts</a>" * 200 + b"</nav><main>"
    files = {f"cases/q{i}/index.html": page + f"case {i}".encode() + b"</main>" for i in range(50)}
    entry = pack(files)
    assert len(entry) * 10 < sum(len(v) for v in files.values())
    assert unpack(entry) == files


def test_an_entry_claiming_more_than_the_bound_is_refused_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import zstandard

    from driftproof.site import _cache

    body = b"2\n[]"
    frame = zstandard.ZstdCompressor(write_content_size=True).compress(body)
    assert unpack(_cache._MAGIC + frame) == {}
    # a frame whose header says it holds more than the bound: refused before it is inflated
    monkeypatch.setattr(_cache, "MAX_ENTRY_BYTES", len(body) - 1)
    assert unpack(_cache._MAGIC + frame) is None
    monkeypatch.setattr(_cache, "MAX_ENTRY_BYTES", len(body))
    assert unpack(_cache._MAGIC + frame) == {}
    no_size = zstandard.ZstdCompressor(write_content_size=False).compress(body)
    assert unpack(_cache._MAGIC + no_size) is None  # a frame that does not say its size
