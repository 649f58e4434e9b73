"""The site's readings page says every binding reading, as DECISIONS.md words it (D-1 … D-19)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readings(text: str) -> dict[str, str]:
    """Each ``- **D-N …`` bullet's id → its text with white space folded."""
    found = re.finditer(r"^- \*\*(D-\d+)(.*?)(?=^- \*\*D-|^#|\Z)", text, re.S | re.M)
    return {m.group(1): " ".join(m.group(2).split()) for m in found}


def test_every_reading_and_each_of_its_sentences_is_on_the_page(shared: Path) -> None:
    binding = _readings((shared / "DECISIONS.md").read_text(encoding="utf-8"))
    page = _readings((ROOT / "site_src" / "decisions.md").read_text(encoding="utf-8"))
    assert len(binding) >= 19  # D-1 … D-19 at least
    assert sorted(page) == sorted(binding)
    for rid, text in binding.items():
        # a dated revision note and a pointer into the seed are not for the public page;
        # what a revision says is, as its own sentence
        text = re.sub(r"\s*\((?:revised|seed:)[^)]*\)", "", text)
        for sentence in re.split(r"(?<=[.;:])\s+", text):
            assert sentence in page[rid], (rid, sentence)


def test_a_revision_is_said_on_the_page() -> None:
    page = _readings((ROOT / "site_src" / "decisions.md").read_text(encoding="utf-8"))
    assert "one that breaks separation" in page["D-9"]
    assert "dispatches on `schema_version`" in page["D-11"]
