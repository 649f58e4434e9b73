"""summary-json import: what a draw with nothing in it, and a value past a schema limit, are
said to be (an adversary's findings)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from interop_helpers import write_json

from driftproof.importers.summary_json import import_summary_json


def _doc(**skill: Any) -> dict[str, Any]:
    return {
        "format": "driftproof-summary-json",
        "format_version": "1",
        "harness": {"name": "h", "version": "1"},
        "skill": {"name": "s", **skill},
        "model": "m",
        "judge": {"model": "j"},
        "cases": [
            {
                "id": "c1",
                "arms": {
                    "with_skill": [{"score": 0.8}, {}, {"skill_fired": True}],
                    "baseline": [{"score": 0.4}, {"score": 0.5}, {"score": None}],
                },
            }
        ],
    }


def test_a_draw_that_records_nothing_is_lost_saying_what_was_found(tmp_path: Path) -> None:
    # a draw of {} was lost as "no valid judge sample", though it has no judge sample at all
    (item,) = import_summary_json(write_json(tmp_path / "s.json", _doc()))
    arms = item.body.cases[0].arms
    said = "the file records no score for this draw: "
    assert [d.lost.reason if d.lost else d.score for d in arms.with_skill.draws] == [
        0.8,
        said + "the draw is empty",
        said + "it gives only whether the skill fired",
    ]
    assert arms.baseline.draws[2].lost is not None
    assert arms.baseline.draws[2].lost.reason == (
        said + "its score, judge scores, error and lost reason are null or empty"
    )


def test_a_file_with_no_score_keeps_its_draws_unscored_not_lost(tmp_path: Path) -> None:
    doc = _doc()
    doc["judge"] = None
    doc["cases"][0]["arms"] = {"with_skill": [{"skill_fired": True}], "baseline": [{}]}
    (item,) = import_summary_json(write_json(tmp_path / "s.json", doc))
    draws = [d for _, a in item.body.cases[0].arms.named() for d in a.draws]
    assert [(d.score, d.lost) for d in draws] == [(None, None), (None, None)]
