"""A case page's draw says its tokens in words: a count the receipt does not record is said to be
not recorded (it printed an en dash, "– in, 93 out"), and how the tokens were counted is said
in plain words, not by the receipt's field value. A row of answers, side by side, folds whole."""

from __future__ import annotations

import json
from pathlib import Path

from driftproof.pages.case import case_draws
from driftproof.receipt import read_receipt

RECEIPT = Path(__file__).parents[2] / "receipts" / "caveman-2b10489-caveman.json"


def test_a_count_not_recorded_is_said_so_and_the_counting_in_words() -> None:
    doc = json.loads(RECEIPT.read_text(encoding="utf-8"))
    first = doc["cases"][0]
    tokens = first["arms"]["with_skill"]["draws"][0]["tokens"]
    # the caveman snapshot records output tokens counted offline, and no input tokens
    assert (tokens["input"], tokens["counted_by"]) == (None, "o200k_base")
    r = read_receipt(RECEIPT)
    draw = case_draws(r, r.cases[0])["rows"][0][0]
    assert draw["tokens"] == (
        f"input not recorded, {tokens['output']:,} out "
        "(counted offline with the o200k_base encoding)"
    )


def test_the_receipt_page_and_results_say_how_tokens_were_counted_in_the_same_words() -> None:
    # the caveman snapshot's token saving, on its receipt page's headline and its results row:
    # they said "counted by o200k_base", the receipt's field value, where the case page says it
    # in words
    from driftproof.pages.results import headline as results_headline
    from driftproof.pages.sheet_facts import headline as sheet_headline

    r = read_receipt(RECEIPT)
    said = "counted offline with the o200k_base encoding"
    for text in (sheet_headline(r, "n/a", "n/a").value, results_headline(r)):
        assert said in text and "counted by" not in text, text


def test_a_row_of_answers_folds_whole_when_one_of_them_is_long() -> None:
    # caveman's p04: the skill's answer runs to more lines than a page shows open (24), the
    # baseline's to fewer lines and characters (1,200); side by side, the skill's was folded
    # behind "Show the answer" beside the baseline's and the control's shown in full
    doc = json.loads(RECEIPT.read_text(encoding="utf-8"))
    arms = next(c for c in doc["cases"] if c["id"] == "p04")["arms"]
    skill, base = (arms[k]["draws"][0]["answer"] for k in ("with_skill", "baseline"))
    assert skill.count("\n") + 1 > 24 and base.count("\n") + 1 <= 24 and len(base) <= 1200
    r = read_receipt(RECEIPT)
    row = case_draws(r, next(c for c in r.cases if c.id == "p04"))["rows"][0]
    assert [d["fold"] for d in row] == [True, True, True]
