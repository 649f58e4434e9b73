"""``diff --format json``: a row carries a draw count only when it reads underpowered (D-5).

By hand, with-skill arms compared (earlier → later, one judge sample per draw, scale 0 to 1):
- c1: .50 .50 .50 → .90 .90 and one draw lost: apart on the measured draws (Δ .40, no spread),
  but with the lost draw at 0 the later band is .60 ± .52, not apart: inconclusive (D-9).
- c2: .50 .50 .50 → .60 .60 .60: apart, Δ .10 ≥ .05: improved (D-4).
- c3: .70 .71 .72 on both sides (.71 ± .01): Δ 0, resolution .02 + 2·sqrt(.0002/3) = .036 < .05:
  no separation detected.
- c4: .485 .50 .515 on both sides (.50 ± .015): resolution .03 + 2·sqrt(.00045/3) = .054 ≥ .05:
  underpowered; the smallest n ≥ 2 with .03 + 2·sqrt(.00045/n) < .05 is 5 (n = 4 gives .051).
D-5's count answers "could it have been separated": c1 to c3 carry none (null, and no "no draw
count reaches the floor"); the count worked out from c1's and c3's spreads (2) was printed there.
"""

from __future__ import annotations

import json

from factories import case, make_receipt

from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt
from driftproof.render.comparison import comparison_json

FLAT = [0.5, 0.5, 0.5]
EVEN = [0.70, 0.71, 0.72]
WIDE = [0.485, 0.50, 0.515]


def test_only_an_underpowered_row_carries_a_draw_count() -> None:
    earlier = [("c1", FLAT), ("c2", FLAT), ("c3", EVEN), ("c4", WIDE)]
    later = [("c1", [0.9, 0.9, None]), ("c2", [0.6, 0.6, 0.6]), ("c3", EVEN), ("c4", WIDE)]
    a, b = (
        Receipt.model_validate(make_receipt([case(c, x, FLAT) for c, x in r]))
        for r in (earlier, later)
    )
    rows = json.loads(comparison_json(compare_receipts(a, b)))["rows"]
    got = [(r["case_id"], r["verdict"], r["draws_needed"], r["no_draw_count"]) for r in rows]
    assert got == [
        ("c1", "inconclusive", None, False),
        ("c2", "improved", None, False),
        ("c3", "no separation", None, False),
        ("c4", "underpowered", 5, False),
    ]
