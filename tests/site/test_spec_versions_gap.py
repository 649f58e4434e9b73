"""The schema versions page skipped 0.4 to 0.9 and 0.12 without a word, where the receipt
specification says why; both say it now, in one sentence made from the frozen versions."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from driftproof.receipt import _spec_page

SAID = (
    "The numbers follow the method's own: a version not in the table (0.4 to 0.9, 0.12) was "
    "never published, so a receipt naming one is refused as an unknown version."
)


@pytest.mark.parametrize(
    ("versions", "gaps"),
    [
        (["0.3.1", "0.10", "0.11", "0.13", "0.16"], "0.4 to 0.9, 0.12, 0.14 to 0.15"),
        (["1.0", "1.2", "2.0"], "1.1"),  # a new major starts again: no gap across it
        (["0.1", "0.2", "0.2.1"], None),
    ],
)
def test_the_skipped_numbers_are_read_from_the_frozen_versions(
    monkeypatch: pytest.MonkeyPatch, versions: list[str], gaps: str | None
) -> None:
    monkeypatch.setattr(_spec_page, "known_versions", lambda: versions)
    said = _spec_page.unpublished_versions()
    assert said == ("" if gaps is None else SAID.replace("0.4 to 0.9, 0.12", gaps))


def test_the_versions_page_says_which_numbers_were_never_published(built_site: Path) -> None:
    def text(page: str) -> str:
        raw = (built_site / page).read_text(encoding="utf-8")
        return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", raw).split()))

    assert SAID in text("spec/versions/index.html")
    assert text("receipt-spec.html").count(SAID) == 1
