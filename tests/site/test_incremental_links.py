"""The link check of an incremental build (issue 19): it reads only the pages whose bytes
changed, and still finds a link that a change elsewhere broke, as a clean build does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from site_fixtures import REPO, scored_receipt
from site_fixtures import site_files as _files

from driftproof.errors import SiteBuildError
from driftproof.receipt import write_receipt
from driftproof.site import build_site
from driftproof.site import links as links_module
from driftproof.site._cache import CACHE_DIR_NAME

CONFIG = REPO / "mkdocs.yml"


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")


def _config(tmp_path: Path, page: str | None = None) -> Path:
    """The repository's mkdocs config, with its pages copied; ``page``: one more hand-written
    page, ``linker.md`` (published at ``linker/``)."""
    docs = tmp_path / "docs"
    shutil.copytree(REPO / "site_src", docs)
    if page is not None:
        (docs / "linker.md").write_text(f"# Linker\n\n{page}\n", encoding="utf-8")
    text = CONFIG.read_text(encoding="utf-8").replace("docs_dir: site_src", f"docs_dir: {docs}")
    text = text.replace("custom_dir: templates/theme", f"custom_dir: {REPO / 'templates/theme'}")
    config = tmp_path / "mkdocs.yml"
    config.write_text(text, encoding="utf-8")
    return config


def test_after_one_receipt_changed_only_the_changed_pages_are_checked(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    receipts, reports = site_inputs
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    before = _files(out)
    write_receipt(
        scored_receipt({"c1": ([0.2, 0.3, 0.25], [0.5, 0.55, 0.45])}, answer="changed"),
        receipts / "tested.json",
    )
    seen: list[str] = []
    real = links_module._held
    monkeypatch.setattr(
        links_module, "_held", lambda path, rel, *a: seen.append(rel) or real(path, rel, *a)
    )
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    after = _files(out)
    changed = {p for p in after if p.endswith(".html") and before.get(p) != after[p]}
    assert "receipts/tested/index.html" in changed
    assert set(seen) == changed  # every changed page, and none other
    assert len(seen) < sum(p.endswith(".html") for p in after) / 2


@pytest.mark.parametrize("change", ["case taken away", "receipt taken away"])
def test_a_hand_written_link_broken_by_a_receipt_change_fails_the_incremental_build(
    tmp_path: Path, site_inputs: tuple[Path, Path], change: str
) -> None:
    # linker/index.html does not change; the sheet it points into does, or goes
    receipts, reports = site_inputs
    (reports / "002-sheets.md").unlink()  # the only report that cites the TESTED receipt
    config = _config(tmp_path, '<a href="../receipts/tested/#case-c1">the first case</a>')
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, out, config_file=config, cache_dir=cache)
    before = _files(out)
    if change == "case taken away":
        write_receipt(
            scored_receipt({"c2": ([0.9, 0.8, 0.85], [0.5, 0.55, 0.45])}),
            receipts / "tested.json",
        )
        why = "(no element with id 'case-c1')"
    else:
        (receipts / "tested.json").unlink()
        why = "(no such file)"
    with pytest.raises(SiteBuildError) as err:
        build_site(receipts, reports, out, config_file=config, cache_dir=cache)
    expected = f"broken link: linker/index.html: ../receipts/tested/#case-c1 {why}"
    assert [p.message for p in err.value.problems] == [expected]
    assert _files(out) == before  # the site is left as it was
    with pytest.raises(SiteBuildError) as clean:  # and a clean build says the same
        build_site(receipts, reports, tmp_path / "clean", config_file=config, cache_dir=None)
    assert clean.value.lines() == err.value.lines()
