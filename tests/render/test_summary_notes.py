"""The Action's notes under its per-case table: 50 at most, then one line counting the rest."""

from __future__ import annotations

from factories import case, make_receipt

from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt
from driftproof.render.cut_words import CutWords
from driftproof.render.summary_cases import with_cases


def _notes(n: int) -> list[str]:
    """The note lines of the table comparing ``n`` cases, each losing one of 2 draws later."""
    earlier = [case(f"c{i}", [0.6, 0.6], [0.5, 0.5]) for i in range(n)]
    later = [case(f"c{i}", [0.6, None], [0.5, 0.5]) for i in range(n)]
    a, b = (Receipt.model_validate(make_receipt(x)) for x in (earlier, later))
    text = with_cases("", compare_receipts(a, b, a_name="a", b_name="b"), 600_000, CutWords())
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_fifty_notes_are_all_shown_and_the_fifty_first_is_counted_in_the_singular() -> None:
    # one note per case (its lost draw): 50 notes fit the 50 shown, with no "more" line
    fifty = _notes(50)
    assert len(fifty) == 50
    assert (
        fifty[-1] == "- c49: a: 0 of 2 draws lost; b: 1 of 2 draws lost (timeout after 2 retries)"
    )
    # 51 notes: the first 50 (c0 to c49), then 51 - 50 = 1 more, one note
    fifty_one = _notes(51)
    assert fifty_one[:50] == fifty
    assert fifty_one[50:] == ["- … 1 more note not shown."]
