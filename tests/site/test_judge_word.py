"""One word for the model that scores answers: the method's *judge* (its judge samples, the
judge's scale), as the README and the command line say it; the home page said "grader". A
source's own grader (an imported check's, caveman's) keeps the source's word, and a sentence
quoted from the method keeps the method's."""

from __future__ import annotations

from pathlib import Path

from driftproof.pages.cross_family import GRADER_NOTE

HOME = Path(__file__).parents[2] / "site_src" / "index.md"


def test_the_home_page_says_judge_not_grader() -> None:
    home = HOME.read_text(encoding="utf-8")
    assert "grader" not in home.lower()
    assert "a fixed judge\nscores every answer several times" in home
    assert "at least 0.05 on the judge's scale" in home


def test_the_cross_family_note_keeps_the_methods_own_words() -> None:
    # the note quotes the method word for word, its "grader" included (the method's text, by hand)
    assert GRADER_NOTE == (
        "Because one grader from one model family scores every answer, a report comparing model "
        "families leads with what the skill adds to each model. That reduces a grader's taste "
        "for its own family's writing, but does not remove it, and no report has measured how "
        "much is left. Raw scores across families are background, never a ranking."
    )
