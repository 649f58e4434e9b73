"""The Action's per-case table words each band as ``driftproof diff`` does: one wording."""

from __future__ import annotations

import json
from pathlib import Path

from factories import case, make_receipt

from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import read_receipt
from driftproof.render.comparison import comparison_text
from driftproof.render.cut_words import CutWords
from driftproof.render.summary_cases import with_cases


def test_a_one_draw_band_and_an_unmeasured_band_read_as_diff_reads_them(tmp_path: Path) -> None:
    # c1: earlier with skill one draw scored 0.8 (no spread); later two draws 0.5 and 0.7:
    # mean 0.6, sd sqrt((0.01 + 0.01) / 1) = 0.1414. c2: later with skill both lost (no mean).
    docs = (
        [case("c1", [0.8], [0.5, 0.5]), case("c2", [0.6, 0.6], [0.5, 0.5])],
        [case("c1", [0.5, 0.7], [0.5, 0.5]), case("c2", [None, None], [0.5, 0.5])],
    )
    paths = []
    for name, cases in zip(("a", "b"), docs, strict=True):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(make_receipt(cases)), encoding="utf-8")
    c = compare_receipts(*(read_receipt(p) for p in paths), a_name="a", b_name="b")
    table = with_cases("", c, 60_000, CutWords())
    diff = comparison_text(c)
    for words in ("0.800 (one draw, no spread)", "0.600 ± 0.141", "not measured"):
        assert words in diff
        assert f"| {words} (n=" in table
    assert "no spread)" not in table.replace("(one draw, no spread)", "")
    assert "no measured draw" not in table
