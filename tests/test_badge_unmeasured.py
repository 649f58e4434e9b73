"""A receipt whose verdict stands on some cases while another measured nothing in an arm: the
badge keeps its verdict (D-7) and its sentence names that case in the sheet's lift's words."""

from __future__ import annotations

import json

from factories import case, make_receipt, view_formats

from driftproof.pages.badge import badge_reading
from driftproof.pages.sheet import sheet
from driftproof.receipt import parse_receipt

# alpha: .50 .52 .54 in both arms, no separation; beta: .80 .82 .84 vs .50 .52 .54, lift +.30
# separates upward (helps); gamma: every with-skill draw lost, so no lift of its own.
CASES = [
    case("alpha", [0.50, 0.52, 0.54], [0.50, 0.52, 0.54]),
    case("beta", [0.80, 0.82, 0.84], [0.50, 0.52, 0.54]),
    case("gamma", [None, None, None], [0.50, 0.52, 0.54]),
]


def test_badge_and_headline_name_the_case_left_out_of_the_lift() -> None:
    r = parse_receipt(json.dumps(make_receipt(CASES)).encode(), "new.json")
    b = badge_reading(r)
    assert (b.message, b.sentence) == (
        "passing",
        "helps: beta (lift over 2 of 3 cases: case gamma has no measured draw in an arm)",
    )
    # lift over alpha and beta: (0 + .30) / 2 = +.150
    assert sheet(r).lift == "+0.150 (over 2 of 3 cases: case gamma has no measured draw in an arm)"
    whole = parse_receipt(json.dumps(make_receipt(CASES[:2])).encode(), "all.json")
    assert badge_reading(whole).sentence == "helps: beta"


def test_many_cases_are_named_ten_at_most(tmp_path, capsys) -> None:
    # 30 cases that help and 15 with every with-skill draw lost: the sentence named all 30
    # (20,000 characters at 128-character ids) and the breakdown all 15
    helps = [case(f"h{i:02d}", [0.80, 0.82, 0.84], [0.50, 0.52, 0.54]) for i in range(30)]
    gone = [case(f"g{i:02d}", [None, None, None], [0.50, 0.52, 0.54]) for i in range(15)]
    path = tmp_path / "many.json"
    path.write_text(json.dumps(make_receipt(helps + gone)))
    r = parse_receipt(path.read_bytes(), "many.json")
    first = ", ".join(f"h{i:02d}" for i in range(10))
    left = ", ".join(f"g{i:02d}" for i in range(10))
    assert badge_reading(r).sentence == (
        f"helps: {first} and 20 more (lift over 30 of 45 cases: cases {left} and 5 more "
        "have no measured draw in an arm)"
    )
    text = view_formats(path, capsys)["text"]
    assert f"Excluded with both arms (an arm failed): cases {left} and 5 more\n" in text
