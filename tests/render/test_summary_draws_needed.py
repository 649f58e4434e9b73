"""The Action's per-case table gives an underpowered case's draw count, and says "no count"'s
legend only when some row reads no count (surviving mutants of render/summary_cases.py)."""

from __future__ import annotations

import json
from pathlib import Path

from factories import case, make_receipt

from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import read_receipt
from driftproof.render.cut_words import CutWords
from driftproof.render.summary_cases import with_cases


def test_an_underpowered_case_with_a_count_gets_the_count_and_no_legend(tmp_path: Path) -> None:
    # Each run's with-skill arm: 0.5 four times and 0.55 once: mean 0.51, sd sqrt((4 * 0.01² +
    # 0.04²) / 4) = sqrt(0.0005) = 0.02236. Same bands: no separation. Resolution (D-5) at 5
    # draws: 0.04472 + 2 * sqrt(0.001 / 5) = 0.0730 >= 0.05, so underpowered; with the spreads
    # held, 0.04472 + 2 * sqrt(0.001 / n) < 0.05 needs n > 143.6: 144 draws per arm.
    paths = []
    for name, ws in (("a", [0.5, 0.5, 0.5, 0.5, 0.55]), ("b", [0.55, 0.5, 0.5, 0.5, 0.5])):
        paths.append(tmp_path / f"{name}.json")
        doc = make_receipt([case("c1", ws, [0.3] * 5)])
        paths[-1].write_text(json.dumps(doc), encoding="utf-8")
    c = compare_receipts(*(read_receipt(p) for p in paths), a_name="a", b_name="b")
    table = with_cases("", c, 60_000, CutWords())
    row = next(x for x in table.splitlines() if x.startswith("| c1 |"))
    assert row.endswith("| 144 |")
    assert "no count" not in table
