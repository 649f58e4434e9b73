"""The receipt tables' words, worked out by hand from the receipts (surviving mutants of
driftproof/pages/receipt_tables.py)."""

from __future__ import annotations

from pathlib import Path

from factories import case, make_receipt

from driftproof.pages.receipt_tables import receipt_tables
from driftproof.receipt import Receipt, read_receipt

ROOT = Path(__file__).resolve().parents[2]


def test_the_level_is_said_in_words_only_where_the_receipt_is_below_tested() -> None:
    # A TESTED full run's verdict line needs no level; an import is DECLARED, and says why it
    # gets no verdict in the level's own words.
    tested = Receipt.model_validate(make_receipt([case("c1", [0.5, 0.7], [0.4, 0.6])]))
    assert receipt_tables("t", tested).level == ""
    name = "claude-plugin-eval-probe-plugin-8955eb63"
    declared = read_receipt(ROOT / "receipts" / f"{name}.json")
    assert receipt_tables(name, declared).level == (
        "DECLARED: imported from another tool's results, recorded faithfully; never given a verdict"
    )


def test_the_lift_facts_say_what_the_headline_does_not() -> None:
    # c1: with the skill 0.5 and 0.7 (mean 0.6), without 0.4 and 0.6 (mean 0.5): lift +0.100;
    # the skill is 1,600 characters, ceil(1600 / 4) = 400 tokens, so +0.100 / 0.4 = +0.250 per
    # 1,000 skill tokens (D-14). The headline says both, so the facts under it repeat neither.
    r = Receipt.model_validate(make_receipt([case("c1", [0.5, 0.7], [0.4, 0.6])]))
    t = receipt_tables("t", r)
    assert t.model.headline.value == (
        "+0.100; value per 1,000 skill tokens +0.250 (400 skill tokens: characters ÷ 4, rounded up)"
    )
    assert t.lift_facts == ()
    # caveman's headline is its output-token saving: the lift and its value per 1,000 tokens
    # are said under it, each once
    name = "caveman-2b10489-caveman"
    t = receipt_tables(name, read_receipt(ROOT / "receipts" / f"{name}.json"))
    assert t.model.headline.label == "output-token saving"
    assert [f.label for f in t.lift_facts] == ["suite lift", "value per 1,000 skill tokens"]


def test_a_lost_draws_table_of_a_receipt_in_a_folder_has_the_id_its_link_names() -> None:
    from driftproof.pages.receipt_tables import sheet_lost_link

    r = Receipt.model_validate(make_receipt([case("c1", [0.5, 0.7, None], [0.4, 0.6, 0.5])]))
    t = receipt_tables("runs/x", r)
    assert t.lost is not None and t.lost.element_id == "table-lost-runs-x"
    assert sheet_lost_link("runs/x") == "#table-lost-runs-x"


def test_a_run_that_lost_every_draw_says_its_table_holds_no_tokens_either() -> None:
    # Every draw lost (timed out): no judged score, and no draw records output tokens; both
    # arms are recorded, so only the tokens are named as missing.
    r = Receipt.model_validate(make_receipt([case("c1", [None, None], [None, None])]))
    assert receipt_tables("t", r).cases.caption == (
        "Cases of demo-skill: the receipt holds no judged score, so no case has a band or a lift; "
        "the source recorded no output tokens; each row shows the case's checks and lost draws"
    )
