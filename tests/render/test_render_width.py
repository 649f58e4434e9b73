"""Text output at a terminal's width: a wider table as a list, a longer line wrapped.

Found: ``driftproof view`` printed lines of 326 characters (the case table padded every row to
its longest note), ``diff`` of 173, ``plan`` and ``stale`` paragraphs of several hundred. At a
terminal (the CLI passes its width) a table wider than it is laid out as one block per row and a
longer line is wrapped at spaces, its indent kept; off a terminal (``width=None``: pipes, files,
the demo's diff.txt) every line is as before, trailing spaces dropped. Every expected line below
is worked out by hand, each line's length counted.
"""

from __future__ import annotations

import json
from pathlib import Path

from factories import case, make_receipt, small_plan

from driftproof.cli.regrade import summary
from driftproof.pages.comparison import compare_receipts
from driftproof.pages.sheet import sheet
from driftproof.pages.stale import ArmStaleness, Finding, StaleReport
from driftproof.receipt import Receipt, parse_receipt
from driftproof.regrade.rubric import RegradeResult
from driftproof.render.comparison import comparison_text
from driftproof.render.escape import fit_text, text_table
from driftproof.render.plan import plan_text
from driftproof.render.sheet import sheet_text
from driftproof.render.stale import stale_text

HEAD = ("case", "with skill", "note")
ROWS = (("a", "0.500", ""), ("b", "0.600", "one lost"))
# widths 4, 10 and 8, two spaces apart, indent 2: "  b     0.600       one lost" is 28 long
TABLE = ["  case  with skill  note", "  a     0.500", "  b     0.600       one lost"]


def test_a_table_as_wide_as_the_terminal_stays_a_table() -> None:
    assert text_table(HEAD, ROWS) == TABLE
    assert text_table(HEAD, ROWS, width=28) == TABLE


def test_a_table_wider_than_the_terminal_is_a_list_of_blocks() -> None:
    # per row its first cell, then "column: value" two spaces further in; an empty cell left out
    assert text_table(HEAD, ROWS, width=27) == [
        "  a",
        "    with skill: 0.500",
        "  b",
        "    with skill: 0.600",
        "    note: one lost",
    ]


def test_a_table_with_no_row_keeps_its_header_when_too_wide() -> None:
    # "  case  with skill  baseline  note" is 34 long: at 30 columns it is a list of its rows,
    # which has none, so the header line stays (it was dropped: view of an aggregates-only
    # import at 80 columns printed "Cases" over nothing); fit_text breaks it before "note"
    # ("  case  with skill  baseline" is 28 long, with " note" 33), which goes under the
    # column after "case  " (8 in; 8 + 20 characters fit 30)
    head = ("case", "with skill", "baseline", "note")
    assert text_table(head, [], width=30) == ["  case  with skill  baseline  note"]
    assert fit_text("\n".join(text_table(head, [], width=30)), 30) == (
        "  case  with skill  baseline\n        note"
    )


def test_a_long_line_wraps_at_spaces_keeping_its_indent() -> None:
    # "  label  one two three" is 22 long; " four" would make 27, past 24; under the value
    # (9 in) 20 characters do not fit 24, so the rest goes four further in than the line
    assert fit_text("  label  one two three four\nend  ", 24) == (
        "  label  one two three\n      four\nend"
    )
    # a word is never broken: a hash longer than the width stands alone on its line
    assert fit_text("x " + "h" * 30, 24) == "x\n    " + "h" * 30
    # off a terminal nothing is wrapped; trailing spaces are dropped all the same
    assert fit_text("  label  one two three four\nend  ") == "  label  one two three four\nend"


def _receipt(name: str, scores: list[float | None]) -> Receipt:
    doc = make_receipt([case("c1", scores, [0.50, 0.52, 0.54])])
    return parse_receipt(json.dumps(doc).encode(), name)


def test_view_at_80_columns_lists_the_cases_and_wraps_the_prose() -> None:
    page = sheet(_receipt("t.json", [0.80, 0.82, 0.84]))
    wide = sheet_text(page)
    # off a terminal: the case table as today, one line per case (means .82 and .52, sd .02)
    assert "  c1    0.820 ± 0.020 (n = 3)  0.520 ± 0.020 (n = 3)  +0.300  helps" in wide
    lines = sheet_text(page, 80).splitlines()
    # with skill .82 ± .02, baseline .52 ± .02 (each: deviations .02, 0, .02 over 2), lift .30
    at = lines.index("Cases")
    assert lines[at + 1 : at + 5] == [
        "  c1",
        "    with skill: 0.820 ± 0.020 (n = 3)",
        "    baseline: 0.520 ± 0.020 (n = 3)",
        "    lift: +0.300",
    ]
    assert all(len(x) <= 80 for x in lines), max(lines, key=len)
    assert [x for x in lines if x != x.rstrip()] == []
    # the headline fact (98 characters wide) breaks at the last space within 80
    assert lines[3:5] == [
        "  lift  +0.300; value per 1,000 skill tokens +0.750 (400 skill tokens:",
        "        characters ÷ 4, rounded up)",
    ]


def test_diff_at_60_columns_lists_the_cases() -> None:
    a, b = _receipt("a.json", [0.80, 0.82, 0.84]), _receipt("b.json", [0.60, 0.62, 0.64])
    c = compare_receipts(a, b, a_name="a.json", b_name="b.json")
    assert "c1    0.820 ± 0.020         0.620 ± 0.020" in comparison_text(c)
    lines = comparison_text(c, 60).splitlines()
    # .82 → .62: Δ −.200, the bands .02 wide apart by far: regressed; no note, so no note line
    at = lines.index("c1")
    assert lines[at : at + 6] == [
        "c1",
        "  earlier (generation): 0.820 ± 0.020",
        "  later (generation): 0.620 ± 0.020",
        "  Δ: −0.200",
        "  verdict: regressed",
        "",
    ]
    assert all(len(x) <= 60 for x in lines), max(lines, key=len)


def test_plan_at_40_columns_wraps_each_long_line() -> None:
    # "To draw each arm 7 times, give" is 30, " driftproof" would make 41
    assert plan_text(small_plan(), 40) == (
        "Run 7 draws per arm.\n"
        "To draw each arm 7 times, give\n"
        "    driftproof run --draws 7.\n"
        "Each run draws every arm from the start\n"  # 39; " (this" would make 45
        "    (this pilot's draws do not count\n"
        "    towards it): give it a new --out, or\n"  # 40
        "    --force to replace the receipt\n"
        "    there.\n"
        "Calls for a run of 7 draws per arm: 14\n"
        "    answers over 1 case × 2 arms; judge\n"
        "    calls 42.\n"
        "Estimated grading cost of a run of 7\n"
        "    draws per arm: $0.50 (by hand).\n"
        "  c1: 7 (pilot measured 3 with skill, 3\n"
        "      baseline)\n"
    )


def test_stale_at_40_columns_wraps_each_long_line() -> None:
    report = StaleReport(
        arms=(ArmStaleness("with_skill", "still stands", ()),),
        findings=(
            Finding("skill", "a" * 8, "a" * 8, "still stands", ("with_skill",), "unchanged"),
        ),
    )
    # "- skill: unchanged (aaaaaaaa): the" is 34, " receipt" would make 42
    assert stale_text(report, 40) == (
        "with skill: still stands\n"
        "\n"
        "- skill: unchanged (aaaaaaaa): the\n"
        "    receipt still stands on this"
    )


def test_regrade_summary_at_60_columns() -> None:
    result = RegradeResult(Path("r.json"), 18, 15, 3, 15, 15)
    line = (
        "r.json: 18 draws read: 15 graded, 3 draws lost in the original receipt, carried over "
        "as lost; 15 grades asked of the judge, 15 requests sent (retries included)"
    )
    assert summary(result, "anthropic") == line
    # the first line stops before "original" (53 + 9 > 60); the second, 4 in, before "of"
    # (4 + 55 = 59, with " of" 62)
    assert summary(result, "anthropic", 60) == (
        "r.json: 18 draws read: 15 graded, 3 draws lost in the\n"
        "    original receipt, carried over as lost; 15 grades asked\n"
        "    of the judge, 15 requests sent (retries included)"
    )
    one = RegradeResult(Path("r.json"), 18, 17, 1, 17, 17)
    assert "17 graded, 1 draw lost in the original receipt" in summary(one, "anthropic")


def test_a_wrapped_line_never_continues_at_the_next_items_indent() -> None:
    # plan printed a paragraph continuing 2 in, then its list items 2 in: they ran together.
    # A paragraph (indent 0) continues 4 in, an item (indent 2) 6 in; a label and its value
    # two spaces apart continue under the value ("  key    " is 9 long; 9 + 20 fit 30).
    text = (
        "one two three four five six seven eight\n"
        "  a: one two three four five six seven\n"
        "  key    one two three four five six"
    )
    # 27, 28 and 27 characters, each next word making 33, 32 and 32
    assert fit_text(text, 30).splitlines() == [
        "one two three four five six",
        "    seven eight",
        "  a: one two three four five",
        "      six seven",
        "  key    one two three four",
        "         five six",
    ]
    assert fit_text(text) == text  # off a terminal: unchanged
