"""The Action's job summary never cuts a refusal or a case's lost-draw reasons short in silence:
the cut says so, and the whole words are in a fold at the summary's end (as far as GitHub's size
limit allows; past it, the fold says where they are whole)."""

from __future__ import annotations

from typing import Any

from factories import case, make_receipt

from driftproof import action
from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt
from driftproof.render.cut_words import CutWords, closers

# two provider messages over 500 characters together, with a third, short reason after them
R1 = (
    "HTTP 529: Overloaded: the provider's servers are busy handling other requests at the "
    "moment, so this request was not processed; please wait a little and retry, and if the "
    "problem persists contact support with the request id req_0123456789abcdef"
)
R2 = (
    "HTTP 400: the prompt is too long for this model's context window: 212,345 tokens were "
    "sent where the model takes at most 200,000 including the output budget; shorten the "
    "prompt or pick a model with a longer context window, then run again"
)
MARK = "… (cut short: whole under “In full: the words cut short above” at the end)"
# the lost-draw words open "(" before the reasons; a cut inside them closes it before the mark
SHUT = MARK.replace("…", "…)", 1)
FOLD = "<details><summary>In full: the words cut short above</summary>\n\n"


def _receipt(with_skill: list[float | None], lost: dict[int, str], **kw: Any) -> Receipt:
    c = case("c1", with_skill, [0.2, 0.21, 0.22])
    for i, reason in lost.items():
        c["arms"]["with_skill"]["draws"][i]["lost"] = {"reason": reason}
    return Receipt.model_validate(make_receipt([c], **kw))


EARLIER = _receipt([0.8, 0.81, 0.82], {})
LATER = [0.3, None, None, 0.31, 0.32, None]
LOST = {1: R1, 2: R2, 5: "timeout after 2 retries"}
# by hand: 3 of 6 later draws lost, each reason once, in draw order; "_" escaped in Markdown
WHOLE = f"a: 0 of 3 draws lost; b: 3 of 6 draws lost ({R1}, {R2}, timeout after 2 retries)"
WHOLE_MD = WHOLE.replace("_", "\\_")


def _summary(b: Receipt, **kw: Any) -> str:
    return action.summary_markdown(
        EARLIER, b, compare_receipts(EARLIER, b, a_name="a", b_name="b"), **kw
    )


def test_an_inconclusive_cases_reasons_cut_under_the_table_are_whole_in_the_fold() -> None:
    text = _summary(_receipt(LATER, LOST))
    assert "| c1 | inconclusive |" in text
    note = next(x for x in text.splitlines() if x.startswith("- c1: "))
    # cut at a clause within 500 characters: R2's last clause and the timeout were lost unsaid
    assert note.endswith(f"including the output budget; {SHUT}") and "timeout" not in note
    fold = text[text.index(FOLD) :]
    assert fold == f"{FOLD}- c1: {WHOLE_MD}\n\n</details>\n"


def test_a_no_verdict_tables_lost_draws_cut_under_it_are_whole_in_the_fold() -> None:
    # the table's note points under it, where the reasons are cut as a verdict table's are
    text = _summary(_receipt(LATER, LOST, level="DECLARED"))
    row = next(x for x in text.splitlines() if x.startswith("| c1 |"))
    assert row.endswith("| 3/6 | draws lost (reasons below) |")
    note = next(x for x in text.splitlines() if x.startswith("- c1: "))
    assert note.endswith(f"including the output budget; {SHUT}") and "timeout" not in note
    assert text[text.index(FOLD) :] == f"{FOLD}- c1: {WHOLE_MD}\n\n</details>\n"


def test_a_refusal_cut_at_500_says_so_and_is_whole_in_the_fold() -> None:
    c = case("c1", [None] * 3, [None] * 3)
    for arm in ("with_skill", "baseline"):
        for d in c["arms"][arm]["draws"]:
            d["lost"] = {"reason": f"{R1} {R2}"}
    text = _summary(Receipt.model_validate(make_receipt([c])))
    refusal = next(x for x in text.splitlines() if x.startswith("- b: not measured"))
    assert refusal.endswith(MARK)
    whole = f"b: not measured: 6 of 6 draws lost to {R1} {R2}".replace("_", "\\_")
    assert f"- why no verdict: {whole}\n" in text[text.index(FOLD) :]


def test_past_the_size_limit_the_fold_says_where_the_words_are_whole() -> None:
    b = _receipt(LATER, LOST)
    full = _summary(b)
    cut_at = len(full.encode()) - 200  # room for the table and notes, not for the fold's text
    text = _summary(b, max_bytes=cut_at)
    assert len(text.encode()) <= cut_at and WHOLE_MD not in text
    assert text.endswith(
        f"{FOLD}- 1 more not shown: a job summary is limited to 1 MiB. driftproof diff, given "
        "the two receipts, prints each whole.\n\n</details>\n"
    )


def test_words_that_fit_are_not_marked_and_no_fold_is_added() -> None:
    text = _summary(_receipt(LATER, {1: "timeout after 2 retries"}))
    assert "- c1: a: 0 of 3 draws lost; b: 3 of 6 draws lost (timeout after 2 retries ×3)\n" in text
    assert "cut short" not in text and "<details>" not in text


def test_a_cut_inside_quote_marks_and_brackets_closes_them_before_the_mark() -> None:
    # by hand: "guess," ends at character 136, past 120; the last ", " within 120 ends "give,";
    # left open there: "(" then "“" then "[", so "]”)" closes them, innermost first
    said = (
        "the model refused (its reply: “I cannot help with [that request because it asks for "
        "content I cannot give, and I would rather not guess, so please rephrase] it”), twice"
    )
    cut = CutWords()
    shown = cut.md("c1", said, 120)
    assert shown == (
        "the model refused (its reply: “I cannot help with \\[that request because it asks for "
        f"content I cannot give, …\\]”) {MARK[2:]}"
    )
    assert cut.cut == [("c1", said)]  # whole in the fold


def test_closers_leave_closed_pairs_apostrophes_and_stray_closers_alone() -> None:
    assert closers("the provider's (busy) “queue” [a] {b} …") == ""
    assert closers('stray ) and ” closers, then “open (and "straight …') == '")”'
    assert closers("a (b [c) …") == ""  # ")" closes "(" and the "[" opened inside it
