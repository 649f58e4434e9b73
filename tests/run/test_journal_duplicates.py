"""A draw recorded twice in a resumed journal (a hand edit, two journals pasted together): the
same record twice is read once; two different records of one draw are refused naming the file
and both lines, since which of them the run made cannot be told. Before, the first was kept
without a word, so a receipt could seal either record depending on the line order."""

from __future__ import annotations

import pytest

from driftproof.errors import RefusalError
from driftproof.receipt import build_draw
from driftproof.run.journal import Journal

ID = {"cases": ["c1"], "max_draws": 3}
T0, T1 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"


def _record(score: float, index: int = 0) -> dict:
    samples = [
        {"score": score, "reason": "graded", "reply_sha256": "0" * 64, "invalid_reason": None}
        | {"reported_model": None, "serving_model": None}
    ]
    draw = build_draw(index, answer="an answer", judge_samples=samples)
    return {"case": "c1", "arm": "with_skill", "index": index, "draw": draw.model_dump(mode="json")}


def _journal(tmp_path, *records: dict):
    p = tmp_path / "r.json.journal"
    j = Journal(p, ID, started_at=T0, harness_version=None)
    for r in records:
        j.draw(r)
    j.close()
    return p


def test_the_same_draw_record_twice_is_read_once(tmp_path):
    p = _journal(tmp_path, _record(0.5), _record(0.75, index=1), _record(0.5))
    j = Journal(p, ID, started_at=T1, harness_version=None)
    j.close()
    assert sorted(j.draws) == [("c1", "with_skill", 0), ("c1", "with_skill", 1)]
    assert j.draws[("c1", "with_skill", 0)]["draw"]["score"] == 0.5


@pytest.mark.parametrize("order", [(0.5, 0.25), (0.25, 0.5)])
def test_two_different_records_of_one_draw_are_refused_naming_both_lines(tmp_path, order):
    first, second = order
    p = _journal(tmp_path, _record(first), _record(0.75, index=1), _record(second))
    kept = p.read_bytes()
    # line 1 the header; draw 1 of c1 at line 2, draw 2 at line 3, draw 1 again at line 4
    want = (
        f"{p}: line 4 records draw 1 of case 'c1' (with-skill arm) a second time, differently "
        "from line 2; the journal is damaged"
    )
    with pytest.raises(RefusalError) as info:
        Journal(p, ID, started_at=T1, harness_version=None)
    assert str(info.value) == want
    assert p.read_bytes() == kept  # nothing is rewritten
