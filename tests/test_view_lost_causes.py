"""A receipt whose draws were lost to errors: the Cases table counts them, the Lost draws list
keeps each reason whole, and the reading says "not measured" once (newcomers' findings)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factories import case, make_receipt, run_main

from driftproof.pages.sheet import sheet
from driftproof.receipt import Receipt, parse_receipt
from driftproof.render.sheet import sheet_text

REFUSED = "connection failed: Connection error."
OVERLOADED = "HTTP 529: overloaded"


def _lost_to(d: dict[str, Any], error: str, waits: list[float]) -> None:
    """``d`` lost to ``error`` after ``len(waits) + 1`` attempts, as a run records it."""
    tail = " and ".join(f"{w:g} s" for w in waits)
    d["lost"] = {
        "reason": f"{error}; transient, {len(waits) + 1} attempts, retried after {tail}",
        "kind": "error",
        "error_class": "transient",
    }
    d["attempts"] = [
        {"error": error, "error_class": "transient", "status": None, "wait_s": w}
        for w in [*waits, None]
    ]


def _dead_receipt() -> dict[str, Any]:
    """Every draw lost: with skill 3 to refused connections, baseline 2 overloaded and 1 refused,
    each draw with its own jittered waits, as a run against a dead server writes them."""
    c = case("c1", [None, None, None], [None, None, None])
    ws, base = c["arms"]["with_skill"]["draws"], c["arms"]["baseline"]["draws"]
    _lost_to(ws[0], REFUSED, [2.386, 4.865, 9.032])
    _lost_to(ws[1], REFUSED, [3.022, 5.964, 8.867])
    _lost_to(ws[2], REFUSED, [3.433, 5.37, 8.141])
    _lost_to(base[0], OVERLOADED, [2.333, 4.183])
    _lost_to(base[1], REFUSED, [2.482, 4.551, 9.606])
    _lost_to(base[2], OVERLOADED, [3.717, 5.14])
    return make_receipt([c], level="UNVERIFIED")


def _read(doc: dict[str, Any]) -> Receipt:
    return parse_receipt(json.dumps(doc).encode(), "t.json")


def test_the_cases_table_counts_lost_draws_and_the_list_keeps_each_reason() -> None:
    # the cell repeated every draw's whole reason with its retry waits (over 700 characters),
    # then each cause with its count, which the Lost draws list below it gives whole: a column
    # of one word per line on a phone
    s = sheet(_read(_dead_receipt()))
    (row,) = s.cases
    assert row.lost == "with skill 3 of 3 · baseline 3 of 3"
    # the Lost draws list keeps each draw's whole reason, waits and all
    reasons = [(x.arm, x.draw, x.reason) for x in s.lost_draws]
    assert reasons[0] == (
        "with skill",
        "1",
        "connection failed: Connection error.; transient, 4 attempts, "
        "retried after 2.386 s and 4.865 s and 9.032 s",
    )
    assert len(reasons) == 6 and "retried after 3.717 s and 5.14 s" in reasons[5][2]


def test_a_receipt_that_measured_nothing_says_not_measured_once() -> None:
    # "no verdict: not measured. Why: not measured: 6 of 6 …" said the words twice
    text = sheet_text(sheet(_read(_dead_receipt())))
    line = next(x.strip() for x in text.splitlines() if x.strip().startswith("verdict "))
    assert " ".join(line.split()).startswith("verdict no verdict: not measured: 6 of 6 draws lost")
    assert "Why:" not in line and line.count("not measured") == 1
    # the Cases row fits a terminal: the case, two "–" bands, the lift, verdict, counts, tokens
    row = next(x for x in text.splitlines() if x.startswith("  c1 "))
    assert len(row.rstrip()) < 250


def test_the_badge_says_not_measured_once(tmp_path: Path, capsys: Any) -> None:
    # badge printed "not measured: not measured: 6 of 6 draws lost …"
    path = tmp_path / "dead.json"
    path.write_text(json.dumps(_dead_receipt()))
    code, out, _ = run_main(["badge", str(path), "--out-dir", str(tmp_path / "b")], capsys)
    first = out.splitlines()[0]
    assert code == 0 and first.startswith("not measured: 6 of 6 draws lost")
    assert first.count("not measured") == 1


def test_a_lift_with_no_case_measured_says_not_measured() -> None:
    # every with-skill draw lost: no case has a score in both arms, so no lift (D-17)
    doc = make_receipt([case("a", [None, None, None], [0.5, 0.6, 0.55])])
    s = sheet(parse_receipt(json.dumps(doc).encode(), "r.json"))
    assert s.lift == "n/a (not measured)"
