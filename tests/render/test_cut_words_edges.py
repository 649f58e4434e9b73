"""The Action's cut words at their edges: a text of exactly its limit is whole, a fold line of
exactly its room is shown, and a quote closed before a bracket leaves only the bracket open."""

from __future__ import annotations

from driftproof.render.cut_words import FOLD_RESERVE, CutWords, closers


def test_a_text_exactly_at_its_limit_is_not_cut() -> None:
    # "HTTP 529" is 8 characters: at a limit of 8 it is shown whole, with no mark and no fold
    cut = CutWords()
    assert cut.md("c1", "HTTP 529", 8) == "HTTP 529"
    assert cut.cut == []
    assert cut.fold(10_000, "the job log") == ""


def test_a_fold_line_exactly_filling_its_room_is_shown() -> None:
    # the fold line "- c1: HTTP 529 overloaded\n" is 26 bytes; a fold given the reserve plus 26
    # shows it, and with one byte less it is counted instead ("1 more not shown")
    cut = CutWords()
    cut.md("c1", "HTTP 529 overloaded", 4)
    line = "- c1: HTTP 529 overloaded\n"
    assert len(line.encode()) == 26
    assert line in cut.fold(FOLD_RESERVE + 26, "the job log")
    less = cut.fold(FOLD_RESERVE + 25, "the job log")
    assert line not in less and "- 1 more not shown" in less


def test_a_straight_quote_closed_before_a_bracket_leaves_the_bracket_to_close() -> None:
    # 'a "b" (c': the first " opens, the second closes it (it is the innermost), then "(" opens:
    # only ")" is left to close
    assert closers('a "b" (c') == ")"
    # '(a "b': "(" then an open quote, the innermost: the quote closes first, then the bracket
    assert closers('(a "b') == '")'
