"""The "Lost draws" part of ``driftproof view`` and of the site's receipt page: draws of one
case and arm lost for the same reason are said once with their count, every distinct reason kept
word for word (the per-draw list stays in the JSON sheet)."""

from __future__ import annotations

import json
from typing import Any

from factories import case, make_receipt

from driftproof.pages.lost_groups import lost_groups
from driftproof.pages.receipt_tables import receipt_tables
from driftproof.pages.sheet import sheet
from driftproof.receipt import parse_receipt
from driftproof.render.sheet import sheet_json, sheet_markdown, sheet_text

TIMEOUT = "timeout after 2 retries"  # the factory's reason for a lost draw
OVERLOADED = "HTTP 529: overloaded: the provider's servers are busy — try again later"


def _receipt() -> Any:
    # c1: nine with-skill draws, every one lost to the same timeout; c2: with skill loses draws
    # 2 and 5 to the timeout and draw 3 to another reason, the baseline draws 1 and 3
    c1 = case("c1", [None] * 9, [0.5] * 9)
    c2 = case("c2", [0.8, None, None, 0.8, None, 0.8], [None, 0.5, None, 0.5, 0.5, 0.5])
    c2["arms"]["with_skill"]["draws"][2]["lost"] = {"reason": OVERLOADED}
    doc = make_receipt([c1, c2])
    return parse_receipt(json.dumps(doc).encode(), "t.json")


# by hand from the draws above, counting from 1, in the receipt's order
EXPECTED = [
    ("c1", "with skill", "9 draws (1–9)", TIMEOUT),
    ("c2", "with skill", "2 draws (2, 5)", TIMEOUT),
    ("c2", "with skill", "draw 3", OVERLOADED),
    ("c2", "baseline", "2 draws (1, 3)", TIMEOUT),
]


def test_view_says_each_reason_once_per_case_and_arm_with_its_count() -> None:
    s = sheet(_receipt())
    text = sheet_text(s)
    part = text.split("\nLost draws\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert part == [f"  {c}, {a}, {d}: {why}" for c, a, d, why in EXPECTED]
    markdown = sheet_markdown(s)
    for c, a, d, _why in EXPECTED:
        assert f"- {c}, {a}, {d}: " in markdown
    # the JSON sheet keeps one entry per lost draw: 9 + 3 + 2
    assert len(json.loads(sheet_json(s))["lost_draws"]) == 14


def test_site_receipt_page_groups_the_lost_draws_as_view_does() -> None:
    t = receipt_tables("t", _receipt())
    assert t.lost is not None
    assert [c.label for c in t.lost.columns] == ["case", "arm", "draw numbers", "reason"]
    # the table's draw numbers column holds the draws' numbers alone (its CSV and JSON are data)
    numbers = ["1–9", "2, 5", "3", "1, 3"]
    assert [tuple(c.text for c in row.cells) for row in t.lost.rows] == [
        (c, a, n, why) for (c, a, _d, why), n in zip(EXPECTED, numbers, strict=True)
    ]


def test_the_sheet_reads_whether_draws_are_judged_once_not_once_per_draw(monkeypatch) -> None:
    # found: 10,000 lost draws took 30 s in view; each draw asked has_bands, which scans every
    # draw before a judged one, so the work grew with the square of the draws
    from driftproof.pages import sheet as sheet_module

    calls = []
    real = sheet_module.has_bands
    monkeypatch.setattr(sheet_module, "has_bands", lambda r: calls.append(1) or real(r))
    asked = []
    for n in (3, 300):
        calls.clear()
        doc = make_receipt([case("c1", [None] * n, [None] * n), case("c2", [0.5], [0.4])])
        lost = sheet(parse_receipt(json.dumps(doc).encode(), "t.json")).lost_draws
        assert len(lost) == 2 * n
        asked.append(len(calls))
    assert asked[0] == asked[1] <= 2  # as often for 600 lost draws as for 6


def test_a_case_cell_counts_its_lost_draws_and_the_groups_keep_each_reason() -> None:
    # found: a case whose 1,000 draws were lost to 1,000 distinct reasons listed them all in
    # its one cell of the case table (a 2.8 MB page); the cell counts, the "Lost draws" part
    # keeps each reason whole: errors 0-6, error 0 twice (draws 1 and 8)
    c = case("c1", [None] * 8, [0.5] * 8)
    for i, d in enumerate(c["arms"]["with_skill"]["draws"]):
        d["lost"] = {"reason": f"HTTP 500: error {i}" if i < 7 else "HTTP 500: error 0"}
    s = sheet(parse_receipt(json.dumps(make_receipt([c])).encode(), "t.json"))
    assert s.cases[0].lost == "with skill 8 of 8"
    groups = lost_groups(s.lost_draws)
    assert [(g.numbers, g.reason) for g in groups[:2]] == [
        ("1, 8", "HTTP 500: error 0"),
        ("2", "HTTP 500: error 1"),
    ]
    assert len(groups) == 7
