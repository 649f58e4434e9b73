"""``diff --format json``'s context rows, by hand: a side with no verdict gets bands, no verdict.

Two receipts graded by different judges get no verdict together (the judge is the instrument), so
c1's two bands are shown as context. c1's with-skill draws are .50 .50 .50 in the first receipt and
.55 .55 .55 in the second: means .50 and .55, no spread (so each band is its mean), 3 of 3 draws
measured, Δ = .55 − .50 = .05. A context row carries no verdict, no separation and no draws
needed: any of them would read as the verdict the diff refuses to give.
"""

from __future__ import annotations

import copy
import json

from factories import JUDGE, case, make_receipt

from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt
from driftproof.render.comparison import comparison_json


def _receipt(with_skill: list[float], judge_model: str) -> Receipt:
    judge = copy.deepcopy(JUDGE) | {"model": judge_model}
    return Receipt.model_validate(
        make_receipt([case("c1", with_skill, [0.5, 0.5, 0.5])], judge=judge)
    )


def test_a_context_row_in_json_carries_the_two_bands_and_no_verdict() -> None:
    a = _receipt([0.5, 0.5, 0.5], JUDGE["model"])
    b = _receipt([0.55, 0.55, 0.55], "claude-opus-4")
    doc = json.loads(comparison_json(compare_receipts(a, b)))
    assert doc["rows"] == [] and doc["exit_status"] == 5
    (row,) = doc["context_rows"]
    assert sorted(row) == ["a", "b", "case_id", "delta", "lost_detail"]
    assert row["case_id"] == "c1" and round(row["delta"], 9) == 0.05
    for side, mean in (("a", 0.5), ("b", 0.55)):
        band = row[side]
        assert (band["mean"], band["low"], band["high"], band["sd"]) == (mean, mean, mean, 0.0)
        assert (band["n"], band["drawn"], band["lost"]) == (3, 3, 0)
