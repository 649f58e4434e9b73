"""Sequences of incremental builds against the link check's shortcut (issue 19,
:class:`driftproof.site.links.Since`): hand-written pages whose links, fragments and targets
change, move or vanish over several builds. After every step the incremental build must
succeed or fail exactly as a clean build (no cache) of the same inputs does, with the same
problems, and leave the same files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from site_fixtures import REPO
from site_fixtures import site_files as _files

from driftproof.errors import SiteBuildError
from driftproof.site import build_site
from driftproof.site._cache import CACHE_DIR_NAME

CONFIG = REPO / "mkdocs.yml"

Step = dict[str, str | None]  # docs path: new text (None: removed)


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")


def _outcome(
    receipts: Path, reports: Path, out: Path, config: Path, cache: Path | None
) -> tuple[str, object]:
    try:
        build_site(receipts, reports, out, config_file=config, cache_dir=cache)
    except SiteBuildError as exc:
        return ("failed", exc.lines())
    return ("built", _files(out))


def _run(tmp_path: Path, site_inputs: tuple[Path, Path], steps: list[Step], outcomes: str) -> None:
    """Apply each step to a copy of the docs and build; ``outcomes``: for each step, ``b``
    (builds) or ``f`` (fails), worked out by hand from the pages."""
    receipts, reports = site_inputs
    docs = tmp_path / "docs"
    shutil.copytree(REPO / "site_src", docs)
    text = CONFIG.read_text(encoding="utf-8").replace("docs_dir: site_src", f"docs_dir: {docs}")
    text = text.replace("custom_dir: templates/theme", f"custom_dir: {REPO / 'templates/theme'}")
    config = tmp_path / "mkdocs.yml"
    config.write_text(text, encoding="utf-8")
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    for i, step in enumerate(steps):
        for rel, body in step.items():
            path = docs / rel
            if body is None:
                if path.is_dir():
                    shutil.rmtree(path)
                else:
                    path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(body, encoding="utf-8")
        got = _outcome(receipts, reports, out, config, cache)
        clean = tmp_path / f"clean-{i}"
        want = _outcome(receipts, reports, clean, config, None)
        assert got == want, f"step {i}: {step}"
        assert got[0] == {"b": "built", "f": "failed"}[outcomes[i]], f"step {i}: {got}"
        shutil.rmtree(clean, ignore_errors=True)


def _md(title: str, html: str) -> str:
    return f"# {title}\n\n{html}\n"


def test_a_chain_of_fragments_moved_then_taken_away(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    _run(
        tmp_path,
        site_inputs,
        [
            {
                "linker.md": _md("Linker", '<a href="../target/#x">x</a>'),
                "target.md": _md("Target", '<span id="x">x</span>'),
                "other.md": _md("Other", '<span id="y">y</span>'),
            },
            {"linker.md": _md("Linker", '<a href="../other/#y">y</a>')},  # target still has x
            {"target.md": _md("Target", "no ids now")},  # nobody names x: builds
            {"other.md": _md("Other", "no ids now")},  # linker names y: fails
            {"other.md": _md("Other", '<span id="y">y</span>')},
        ],
        "bbbfb",
    )


def test_a_raw_page_becomes_a_folder_and_back(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    _run(
        tmp_path,
        site_inputs,
        [
            {
                "linker.md": _md("Linker", '<a href="../thing.html#t">t</a>'),
                "thing.html": '<p id="t">a raw page</p>',
            },
            {"thing.html": None, "thing.html/index.html": '<p id="t">now a folder</p>'},
            {"thing.html/index.html": '<p id="u">its id changed</p>'},  # fails
            {"thing.html": None, "other.md": _md("Other", "unrelated")},  # still fails
            {"thing.html": '<p id="t">a raw page again</p>'},
        ],
        "bbffb",
    )


def test_a_failed_build_between_two_good_ones(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    _run(
        tmp_path,
        site_inputs,
        [
            {
                "a.md": _md("A", '<a href="../b/#one">1</a> <span id="two">2</span>'),
                "b.md": _md("B", '<a href="../a/#two">2</a> <span id="one">1</span>'),
            },
            {"b.md": _md("B", '<a href="../a/#two">2</a>')},  # fails: a names b#one
            {"a.md": _md("A", '<span id="two">2</span>')},  # a names nothing now: builds
            {"a.md": _md("A", "no ids")},  # b names a#two: fails
            {"b.md": None},
        ],
        "bfbfb",
    )


def test_links_into_generated_pages_and_assets(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    _run(
        tmp_path,
        site_inputs,
        [
            {
                "raw.html": '<a href="receipts/tested/#case-c1">c</a> <img src="pic.png">'
                ' <a href="reports/002/#receipt-tested">r</a>',
                "pic.png": "not really a png",
            },
            {"pic.png": None},  # fails: raw.html unchanged, its image gone
            {"pic.png": "back", "other.md": _md("Other", "x")},
            {"pic.png": None, "pic.png/index.html": "<p>a folder now</p>"},
        ],
        "bfbb",
    )


def test_a_build_that_mkdocs_refuses_between_two_good_ones(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    _run(
        tmp_path,
        site_inputs,
        [
            {"x.md": _md("X", '<a href="../results/">results</a>')},
            {"results.md": _md("Results", "a page where a generated one goes")},  # refused
            {"results.md": None, "x.md": _md("X", '<a href="../results/#nothing">r</a>')},
            {"x.md": _md("X", "no links")},
        ],
        "bffb",
    )
