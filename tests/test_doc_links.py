"""The README and its reference page, docs/reference.md, link to each other and to the method
page: every relative link names a file that exists and, with a fragment, a heading of that file
(its anchor made as GitHub makes it, where these pages are read)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _prose(path: Path) -> str:
    """The file's text without its fenced code blocks."""
    return re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)


def _anchors(path: Path) -> set[str]:
    """GitHub's anchor of each heading: lower case, punctuation but ``-`` dropped, spaces ``-``."""
    headings = re.findall(r"^#+ (.+)$", _prose(path), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_github_anchors_are_made_as_github_makes_them(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("# Batched runs (`--batch`)\n## What `make reports` refuses\n", "utf-8")
    assert _anchors(page) == {"batched-runs---batch", "what-make-reports-refuses"}


@pytest.mark.parametrize("name", ["README.md", "docs/reference.md"])
def test_every_relative_link_and_its_anchor_exists(name: str) -> None:
    doc = ROOT / name
    links = [t for t in LINK.findall(_prose(doc)) if not t.startswith(("http:", "https:"))]
    assert links
    for target in links:
        file, _, fragment = target.partition("#")
        path = (doc.parent / file).resolve() if file else doc
        assert path.is_file(), (name, target)
        assert not fragment or fragment in _anchors(path), (name, target)
