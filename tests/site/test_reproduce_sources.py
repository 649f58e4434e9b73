"""Reports 001, 002 and 005: beside their import commands, where the ../shared/data files come from.

The repository and commits are read from the data's own SOURCE.md files, not from the reports.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from site_fixtures import REPO


def _reproduce(report: str) -> str:
    """From the block of import commands to the next heading ("Reproduce it" in 001 and 005)."""
    text = (REPO / "reports" / report).read_text(encoding="utf-8")
    start = text.index("```\ndriftproof import")
    return " ".join(text[start:].split("\n## ", 1)[0].split())


def _upstream(source: Path) -> str:
    found = re.search(
        r"(?:Upstream repository|Repository): (https://github\.com/\S+)",
        source.read_text(encoding="utf-8"),
    )
    assert found is not None, source
    return found.group(1)


@pytest.mark.parametrize(
    ("report", "source", "commits"),
    [
        (
            "001-caveman-against-the-terse-control.md",
            "data/caveman/SOURCE.md",
            ["2b10489888fd433e31ac8f182a9b6c1e814906e1"],
        ),
        (
            "002-nvidia-skill-catalogue.md",
            "data/interop/nvidia/SOURCE.md",
            ["7149a886d50da8db72cdc1f20ff01cefeadfe6a9"],
        ),
        (
            "005-caveman-judged-fidelity.md",
            "data/caveman/SOURCE.md",
            [
                "902028f2aba2c642a49664cf2b68ad4ccf78497f",
                "5c7e19a099b7df86b9d8debac6b75784d80fe88c",
                "2b10489888fd433e31ac8f182a9b6c1e814906e1",
            ],
        ),
    ],
)
def test_reproduce_names_where_the_shared_data_comes_from(
    shared: Path, report: str, source: str, commits: list[str]
) -> None:
    text = _reproduce(report)
    assert "../shared/data/" in text  # the commands are unchanged
    url = _upstream(shared / source)
    assert url in ("https://github.com/JuliusBrussee/caveman", "https://github.com/NVIDIA/skills")
    sentence = text.split("```")[-1]  # the words after the commands
    assert f"({url})" in sentence and "public repository" in sentence
    named = (shared / source).read_text(encoding="utf-8")
    for commit in commits:
        assert commit[:7] in named and commit in sentence
