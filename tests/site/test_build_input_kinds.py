"""What a build does with entries that are not plain files where it reads its inputs, and
with a hand-written page that would be written where the build writes a generated one
(issue 19: found by trying to break the stat-based rebuilds)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from site_fixtures import REPO, docs_config

from driftproof.errors import SiteBuildError
from driftproof.site import build_site
from driftproof.site.receipt_jobs import CACHE_DIR_NAME

CONFIG = REPO / "mkdocs.yml"


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")


@pytest.mark.parametrize("kind", ["fifo", "socket", "folder"])
def test_an_entry_that_is_not_a_file_is_refused_not_opened_with_a_cache(
    tmp_path: Path, site_inputs: tuple[Path, Path], kind: str
) -> None:
    # Refused by name, never opened: a FIFO would block the build forever, a socket raised.
    receipts, reports = site_inputs
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    entry = receipts / "x.json"
    held = None
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "socket":
        held = socket.socket(socket.AF_UNIX)
        held.bind(str(entry))
    else:
        entry.mkdir()
    try:
        with pytest.raises(SiteBuildError) as err:
            build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    finally:
        if held is not None:
            held.close()
    assert [ln for ln in err.value.lines() if "x.json" in ln], err.value.lines()
    with pytest.raises(SiteBuildError) as plain:  # the same answer as a build with no cache
        build_site(receipts, reports, tmp_path / "other", config_file=CONFIG, cache_dir=None)
    assert err.value.lines() == plain.value.lines()


def test_a_page_written_where_a_generated_page_goes_is_refused(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    # receipts/alpha/index.md is written to receipts/alpha/index.html: the receipt's sheet
    receipts, reports = site_inputs
    docs, config = docs_config(tmp_path)
    (docs / "receipts" / "alpha").mkdir(parents=True)
    (docs / "receipts" / "alpha" / "index.md").write_text("# Not the sheet\n", encoding="utf-8")
    out = tmp_path / "site"
    for cache in (None, tmp_path / CACHE_DIR_NAME):
        with pytest.raises(SiteBuildError) as err:
            build_site(receipts, reports, out, config_file=config, cache_dir=cache)
        assert err.value.problems, "one problem per page, naming it"
        (problem,) = err.value.problems
        assert problem.file.endswith("receipts/alpha/index.md")
        assert "receipts/alpha/index.html" in problem.message
        assert not out.exists()


def test_a_config_whose_theme_names_no_templates_folder_is_refused(tmp_path: Path) -> None:
    # a config of its own with the plugin but mkdocs's default theme: was a TypeError traceback
    for folder in ("docs", "receipts", "reports"):
        (tmp_path / folder).mkdir()
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\ndocs_dir: docs\nplugins: [driftproof]\n", encoding="utf-8")
    with pytest.raises(SiteBuildError) as err:
        build_site(
            tmp_path / "receipts", tmp_path / "reports", tmp_path / "site", config_file=config
        )
    assert [(p.file, p.pointer) for p in err.value.problems] == [(str(config), "/theme/custom_dir")]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "docs",
        "mkdocs.yml",
        "receipts",
        "reports",
    ]


@pytest.mark.parametrize("part", ["", "render", "trash"])
def test_a_cache_folder_that_is_a_link_is_refused_and_what_it_leads_to_stays(
    tmp_path: Path, site_inputs: tuple[Path, Path], part: str
) -> None:
    # a build cache committed as a link (.driftproof-cache/render -> a folder outside): the
    # build removed every file in that folder as a stale cache entry, or moved the old site there
    receipts, reports = site_inputs
    outside = tmp_path / "outside"
    (outside / "render" / "sub").mkdir(parents=True)
    (outside / "trash").mkdir()
    kept = {outside / "render" / "a.txt", outside / "render" / "sub" / "b.txt"}
    for f in kept:
        f.write_text("kept", encoding="utf-8")
    cache = tmp_path / CACHE_DIR_NAME
    link = cache / part if part else cache
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside / part if part else outside)
    out = tmp_path / "site"
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=None)  # an old site there
    with pytest.raises(SiteBuildError) as err:
        build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    assert [p.file for p in err.value.problems] == [str(link)]
    assert "is a symbolic link" in err.value.problems[0].message
    assert {p for p in outside.rglob("*") if p.is_file()} == kept
