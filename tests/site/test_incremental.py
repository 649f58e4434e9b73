"""Incremental builds (issue 19): a build into a site built here before rewrites only the
files whose bytes change, removes what is no longer built, equals a clean build file for
file, and leaves the site untouched when it fails. The clean builds use no cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from site_fixtures import REPO, scored_receipt
from site_fixtures import site_files as _files

from driftproof.errors import SiteBuildError
from driftproof.receipt import write_receipt
from driftproof.site import build_site
from driftproof.site._cache import CACHE_DIR_NAME

CONFIG = REPO / "mkdocs.yml"


def _stamps(site: Path, *, ctime: bool = True) -> dict[str, tuple[int, ...]]:
    # the change time too: a build that hard-linked a kept file (to index it for search)
    # would move it, and the next build could not trust that file's stat (issue 19)
    return {
        p.relative_to(site).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
        + ((p.stat().st_ctime_ns,) if ctime else ())
        for p in site.rglob("*")
        if p.is_file()
    }


@pytest.fixture
def built(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Path, Path]:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")
    receipts, reports = site_inputs
    site = tmp_path / "site"
    build_site(receipts, reports, site, config_file=CONFIG, cache_dir=tmp_path / CACHE_DIR_NAME)
    return receipts, reports, site


def _build(receipts: Path, reports: Path, site: Path) -> None:
    build_site(receipts, reports, site, config_file=CONFIG, cache_dir=site.parent / CACHE_DIR_NAME)


def _change_tested(receipts: Path) -> None:
    """The TESTED receipt of the inputs gets other scores (a change of one receipt)."""
    write_receipt(
        scored_receipt({"c1": ([0.9, 0.8, 0.85], [0.1, 0.15, 0.2])}, answer="other"),
        receipts / "tested.json",
    )


def _clean(receipts: Path, reports: Path, where: Path) -> dict[str, bytes]:
    build_site(receipts, reports, where, config_file=CONFIG, cache_dir=None)
    return _files(where)


def test_only_the_files_whose_bytes_change_are_rewritten(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    receipts, reports, site = built
    before, stamps = _files(site), _stamps(site)
    write_receipt(
        scored_receipt({"c1": ([0.2, 0.3, 0.25], [0.5, 0.55, 0.45])}, answer="changed"),
        receipts / "tested.json",
    )
    _build(receipts, reports, site)
    after = _files(site)
    assert after == _clean(receipts, reports, tmp_path / "clean")
    changed = {p for p in after if before.get(p) != after[p]}
    # the changed receipt's own pages and the pages that list every receipt
    assert "receipts/tested.json" in changed and "receipts/tested/index.html" in changed
    assert "receipts/SHA256SUMS" in changed and "results/index.html" in changed
    unchanged = [p for p in after if p in before and p not in changed]
    assert len(unchanged) > len(changed)
    moved = [p for p in unchanged if _stamps(site)[p] != stamps[p]]
    assert moved == [], "files with unchanged bytes were written again"


def test_a_receipt_taken_away_takes_its_pages_with_it(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    receipts, reports, site = built
    gone = "extra"
    write_receipt(scored_receipt({"c1": ([0.4, 0.5], [0.3, 0.35])}), receipts / "extra.json")
    _build(receipts, reports, site)
    assert any(p.startswith(f"receipts/{gone}/cases/") for p in _files(site))
    (receipts / f"{gone}.json").unlink()
    _build(receipts, reports, site)
    files = _files(site)
    assert not any(p.startswith(f"receipts/{gone}") for p in files)
    assert not (site / "receipts" / gone).exists(), "its emptied folders are removed too"
    assert files == _clean(receipts, reports, tmp_path / "clean")


def test_a_failed_incremental_build_leaves_the_site_untouched(
    built: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    receipts, reports, site = built
    before, stamps = _files(site), _stamps(site)
    _change_tested(receipts)
    import driftproof.site.links as links

    broken = (["index.html: x (no such file)"], links.LinkSummary())
    monkeypatch.setattr(links, "check_links", lambda *a, **k: broken)
    with pytest.raises(SiteBuildError, match="broken internal link"):
        _build(receipts, reports, site)
    assert _files(site) == before and _stamps(site) == stamps
    assert not [p for p in site.parent.iterdir() if p.name.startswith(f".{site.name}.")]


def test_a_file_edited_in_the_site_by_hand_is_put_back(built: tuple[Path, Path, Path]) -> None:
    receipts, reports, site = built
    before = _files(site)
    page = next(p for p in sorted(before) if "/cases/" in p)
    (site / page).write_text("defaced", encoding="utf-8")
    (site / "stray.html").write_text("<p>not built</p>", encoding="utf-8")
    os.mkdir(site / "stray-folder")
    _build(receipts, reports, site)
    assert _files(site) == before


def test_a_folder_of_the_site_swapped_for_a_link_is_built_again_not_followed(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    receipts, reports, site = built
    before = _files(site)
    elsewhere = tmp_path / "elsewhere"
    (site / "receipts" / "tested").rename(elsewhere)
    (site / "receipts" / "tested").symlink_to(elsewhere, target_is_directory=True)
    _build(receipts, reports, site)
    assert not (site / "receipts" / "tested").is_symlink()
    after = _files(site)
    assert sorted(set(after) ^ set(before)) == []
    assert [p for p in after if after[p] != before[p]] == []


def test_a_receipt_whose_inputs_and_files_are_unchanged_is_kept_whole_unread(
    built: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import driftproof.site.build as site_build
    from driftproof.site import _stats

    # as if the last build were more than a second old: a stat recorded closer to its record
    # than that is not trusted (racily clean), and the receipt would be rendered again
    monkeypatch.setattr(_stats, "RACY_NS", 0)
    receipts, reports, site = built
    rendered: list[str] = []
    real = site_build.receipt_files

    def counting(lr, *args, **kwargs):  # type: ignore[no-untyped-def]
        rendered.append(lr.name)
        return real(lr, *args, **kwargs)

    monkeypatch.setattr(site_build, "receipt_files", counting)
    write_receipt(scored_receipt({"c1": ([0.4, 0.5], [0.3, 0.35])}), receipts / "extra.json")
    _build(receipts, reports, site)
    assert rendered == ["extra"], "only the new receipt is rendered; the others are kept whole"
    # a file of a kept receipt touched by hand: that receipt is read and its file put back
    sheet = site / "receipts" / "alpha" / "index.html"
    sheet.write_bytes(sheet.read_bytes())
    os.utime(sheet, ns=(1, 1))
    rendered.clear()
    write_receipt(scored_receipt({"c1": ([0.5, 0.5], [0.3, 0.35])}), receipts / "extra.json")
    _build(receipts, reports, site)
    assert sorted(rendered) == ["alpha", "extra"]
    assert _files(site) == _clean(receipts, reports, tmp_path / "clean")


def _tree(site: Path) -> dict[str, tuple[str, int, bytes]]:
    """Every entry under ``site``: kind, mode and (files) bytes."""
    out: dict[str, tuple[str, int, bytes]] = {}
    for p in sorted(site.rglob("*")):
        st = p.lstat()
        kind = "link" if p.is_symlink() else "dir" if p.is_dir() else "file"
        out[p.relative_to(site).as_posix()] = (
            kind,
            st.st_mode & 0o7777,
            p.read_bytes() if kind == "file" else b"",
        )
    return out


def test_a_failure_while_the_site_is_updated_undoes_every_change(
    built: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import driftproof.site._site_dir as site_dir

    receipts, reports, site = built
    _change_tested(receipts)
    (site / "stray-folder" / "inside").mkdir(parents=True)  # to be taken away, then put back
    before, stamps = _tree(site), _stamps(site)
    calls = {"n": 0}
    real = site_dir._Journal.place

    def failing(self, src, out, rel):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 4:
            raise OSError(28, "No space left on device")
        return real(self, src, out, rel)

    monkeypatch.setattr(site_dir._Journal, "place", failing)
    with pytest.raises(SiteBuildError, match="every change was undone"):
        _build(receipts, reports, site)
    assert calls["n"] == 4, "the failure came after three files were already moved"
    assert _tree(site) == before and _stamps(site) == stamps
    assert not [p for p in site.parent.iterdir() if p.name.startswith(f".{site.name}.")]


def test_folders_links_fifos_and_modes_changed_by_hand_are_put_right(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    receipts, reports, site = built
    clean = _clean(receipts, reports, tmp_path / "clean")
    assert clean == _files(site)
    (site / "hand" / "made").mkdir(parents=True)
    (site / "hand" / "f").write_text("x", encoding="utf-8")
    (site / "empty").mkdir()
    (site / "dangling").symlink_to(tmp_path / "nowhere")
    os.mkfifo(site / "fifo")
    page = next(p for p in sorted(site.rglob("index.html")) if "/cases/" in str(p))
    page.chmod(0o600)
    page.parent.chmod(0o700)
    _build(receipts, reports, site)  # no input changed: the site's own changes are seen
    assert _tree(site) == _tree(tmp_path / "clean")
    # and again after an input changed (the incremental path)
    (site / "hand").mkdir()
    page.chmod(0o600)
    write_receipt(scored_receipt({"c1": ([0.4, 0.5], [0.3, 0.35])}), receipts / "extra.json")
    _build(receipts, reports, site)
    _clean(receipts, reports, tmp_path / "clean2")
    assert _tree(site) == _tree(tmp_path / "clean2")


def test_a_cache_folder_that_became_a_file_costs_nothing_but_time(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    receipts, reports, site = built
    base = next((site.parent / CACHE_DIR_NAME).iterdir())
    for folder in ("sites", "valid"):
        import shutil

        shutil.rmtree(base / folder)
        (base / folder).write_text("not a folder", encoding="utf-8")
    write_receipt(scored_receipt({"c1": ([0.4, 0.5], [0.3, 0.35])}), receipts / "extra.json")
    _build(receipts, reports, site)
    assert _files(site) == _clean(receipts, reports, tmp_path / "clean")


def test_a_failure_while_taking_away_what_is_no_longer_built_undoes_the_moves_too(
    built: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import driftproof.site._site_dir as site_dir

    receipts, reports, site = built
    _change_tested(receipts)
    (site / "stray.html").write_text("<p>not built</p>", encoding="utf-8")
    # putting a file back moves its change time (the next build reads it again): not compared
    before, stamps = _tree(site), _stamps(site, ctime=False)
    moved: list[str] = []
    real_place = site_dir._Journal.place

    def place(self, src, out, rel):  # type: ignore[no-untyped-def]
        moved.append(rel)
        return real_place(self, src, out, rel)

    def refuse(self, path):  # type: ignore[no-untyped-def]
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(site_dir._Journal, "place", place)
    monkeypatch.setattr(site_dir._Journal, "set_aside", refuse)
    with pytest.raises(SiteBuildError, match="Permission denied"):
        _build(receipts, reports, site)
    assert "receipts/tested/index.html" in moved, "changed files had been moved in"
    assert _tree(site) == before and _stamps(site, ctime=False) == stamps


def test_without_source_date_epoch_the_day_of_the_build_is_an_input(
    site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # mkdocs dates the sitemap with the day of the build when SOURCE_DATE_EPOCH is not set
    import datetime as dt

    import driftproof.site._build_site as build_mod

    receipts, reports = site_inputs
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    keys = []
    for day in (
        dt.datetime(2026, 11, 30, 23, 59, tzinfo=dt.UTC),
        dt.datetime(2026, 12, 1, tzinfo=dt.UTC),
    ):

        class Frozen(dt.datetime):
            moment = day

            @classmethod
            def now(cls, tz=None):  # type: ignore[no-untyped-def, override]
                return cls.moment

        monkeypatch.setattr(build_mod, "datetime", Frozen)
        keys.append(build_mod.input_key(receipts, reports, CONFIG)[0])
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")
    fixed = build_mod.input_key(receipts, reports, CONFIG)[0]
    assert keys[0] != keys[1] and fixed not in keys


def test_the_record_of_an_incremental_build_is_what_a_walk_of_the_site_finds(
    built: tuple[Path, Path, Path],
) -> None:
    # the update's own walk gives the record (issue 19): the same files, digests, tree key
    # and stats as reading the site afresh, modes set by the update included
    from driftproof.site._build_site import _read_record, _record_path
    from driftproof.site._cache import BuildCache
    from driftproof.site._stats import site_state

    receipts, reports, site = built
    _change_tested(receipts)
    page = next(p for p in sorted(site.rglob("index.html")) if "/cases/" in str(p))
    page.chmod(0o600)  # put right by the update: its row and stat as they are after that
    (site / "receipts").chmod(0o700)
    _build(receipts, reports, site)
    doc = _read_record(_record_path(BuildCache(site.parent / CACHE_DIR_NAME), site.resolve()))
    stats: dict[str, list[int]] = {}
    files, tree = site_state(site, stats=stats)
    assert doc["files"] == files and doc["tree"] == tree
    assert doc["stats"]["files"] == stats
    assert (page.stat().st_mode & 0o777, (site / "receipts").stat().st_mode & 0o777) == (
        0o666 & ~_umask(),
        0o777 & ~_umask(),
    )


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
