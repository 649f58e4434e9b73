"""One word for the model that scores answers: the method's *judge* (its judge samples, the
judge's scale), as the README and the command line say it; the home page said "grader". A
source's own grader (an imported check's, caveman's) keeps the source's word."""

from __future__ import annotations

from pathlib import Path

from driftproof.pages.cross_family import GRADER_NOTE

HOME = Path(__file__).parents[2] / "site_src" / "index.md"


def test_the_home_page_says_judge_not_grader() -> None:
    home = HOME.read_text(encoding="utf-8")
    assert "grader" not in home.lower()
    assert "a fixed judge\nscores every answer several times" in home
    assert "at least 0.05 on the judge's scale" in home


def test_the_cross_family_note_says_judge() -> None:
    assert "grader" not in GRADER_NOTE
    assert GRADER_NOTE.startswith("Because one judge from one model family scores every answer")
