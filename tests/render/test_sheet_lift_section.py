"""The sheet's "What the skill adds" gives the lift unless the headline says it word for word,
and the token-saving reference arm's words (surviving mutants of render/sheet.py and
pages/sheet_facts.py)."""

from __future__ import annotations

from factories import case, make_receipt

from driftproof.pages.sheet import sheet
from driftproof.pages.sheet_facts import _reference
from driftproof.receipt import Receipt
from driftproof.render.sheet import sheet_text


def test_what_the_skill_adds_gives_the_lift_the_headline_gives_with_its_value_per_token() -> None:
    # 0.5 and 0.7 against 0.4 and 0.6: lift 0.6 - 0.5 = +0.100; the headline says the lift and
    # its value per 1,000 tokens together, so the lift is said again on its own, not "n/a"
    s = sheet(Receipt.model_validate(make_receipt([case("c1", [0.5, 0.7], [0.4, 0.6])])))
    text = sheet_text(s)
    section = text[text.index("What the skill adds") :]
    assert section.splitlines()[1].split() == ["lift", "+0.100"]
    assert "n/a (see Headline)" not in section


def test_the_reference_arm_in_words() -> None:
    # no label, or a label that only repeats the arm: the arm; caveman's __terse__: the terse
    # control (D-16); another arm's own label in brackets
    assert _reference("control", None) == "the control arm"
    assert _reference("baseline", "__baseline__") == "the baseline arm"
    assert _reference("control", "__terse__") == "the terse control"
    assert _reference("baseline", "plain_run") == "the baseline arm (plain run)"
