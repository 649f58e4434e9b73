"""Quality at a declared margin for a token-saving receipt (issue 37, item 5): hand-worked.

Four cases; every draw of the skill arm reports 50 output tokens and every baseline draw 100,
so each case saves 1 − 50/100 = 50% and the median saving is 50%. Baseline draws score .60;
the skill arm's draws score .60 + d_i.

d = 0, −.02, .01, −.01: mean −.005; deviations .005 −.015 .015 −.005, squares sum .0005,
variance .0005/3 = .00016667, sd .012910, SE .012910/2 = .0064550; t(0.95, 3) = 2.3534, so
the 90% interval is −.005 ± .015191 = −.020191 to +.010191.
d = −.10, −.12, −.09, −.11: mean −.105, the same sd: −.120191 to −.089809.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof.cli import cli
from driftproof.receipt import parse_receipt
from driftproof.stats.noninferiority import Quality, quality_at_margin

SMALL = [0.0, -0.02, 0.01, -0.01]
LARGE = [-0.10, -0.12, -0.09, -0.11]


def _doc(diffs: list[float], margin: float | None = None, skill_tokens: int = 50) -> dict:
    cases = [case(f"c{i}", [round(0.60 + d, 2)] * 3, [0.60] * 3) for i, d in enumerate(diffs)]
    for c in cases:
        for name, out in (("with_skill", skill_tokens), ("baseline", 100)):
            for d in c["arms"][name]["draws"]:
                d["tokens"] = {"input": None, "output": out, "counted_by": "provider"}
    doc: dict[str, Any] = make_receipt(cases)
    doc = copy.deepcopy(doc)
    if margin is not None:
        doc["run"]["quality_margin"] = margin
    return seal_document(doc)


def _read(doc: dict):
    return parse_receipt(json.dumps(doc).encode(), "r.json")


def test_not_worse_by_more_than_the_margin() -> None:
    q = quality_at_margin(_read(_doc(SMALL, 0.05)))
    assert q.reading == Quality.NOT_WORSE
    assert q.saving == pytest.approx(0.5) and q.cases == 4 and q.reference == "baseline"
    assert q.mean == pytest.approx(-0.005)
    assert (q.low, q.high) == pytest.approx((-0.020191, 0.010191), abs=1e-6)
    assert q.margin is not None and q.margin.declared == "receipt"


def test_quality_not_shown_within_a_tighter_margin() -> None:
    # −.020191 < −.02 < +.010191: neither one-sided test rejects
    assert quality_at_margin(_read(_doc(SMALL, 0.02))).reading == Quality.NOT_SHOWN


def test_worse_by_more_than_the_margin() -> None:
    # the upper end −.089809 is below −.05
    assert quality_at_margin(_read(_doc(LARGE, 0.05))).reading == Quality.WORSE


def test_no_saving_no_reading() -> None:
    q = quality_at_margin(_read(_doc(SMALL, 0.05, skill_tokens=100)))
    assert q.reading is None and q.reason == "the skill arm saves no output tokens"


def test_no_margin_no_reading_and_a_margin_is_declared_once() -> None:
    r = _read(_doc(SMALL))
    assert quality_at_margin(r).reason == "no margin is declared"
    q = quality_at_margin(r, 0.05)
    assert q.reading == Quality.NOT_WORSE and q.margin is not None
    assert q.margin.declared == "reading"
    with pytest.raises(ValueError, match="declared once"):
        quality_at_margin(_read(_doc(SMALL, 0.05)), 0.02)


def test_view_words(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_doc(SMALL, 0.05)))
    text = CliRunner().invoke(cli, ["view", str(path)]).output
    assert (
        "saves 50% of output tokens and is not worse by more than 0.05 (judge score, skill arm "
        "minus the baseline arm over 4 cases: mean −0.005, 90% interval −0.020 to +0.010; two "
        "one-sided tests at 5% each; margin declared before the run)"
    ) in text
    res = CliRunner().invoke(cli, ["view", str(path), "--margin", "0.02"])
    assert res.exit_code != 0 and "declared once" in res.output
    path.write_text(json.dumps(_doc(SMALL)))
    text = CliRunner().invoke(cli, ["view", str(path), "--margin", "0.02"]).output
    assert "saves 50% but quality not shown within 0.02" in text
    assert "margin declared when reading, not before the run" in text
