"""A receipt's judge scale must hold its scores, and run from worst up to best (D-9, D-18);
a scored draw holds the judge samples the run says each draw has (D-1, D-18).

Lost draws are completed between the scale's worst and best score (D-9), and helps and hurts
read a higher score as better (D-6). A scale that does not hold the recorded scores, or that is
upside down, would let a reader give a verdict from figures it cannot place; it is refused.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from factories import JUDGE, case, make_receipt, run_main
from receipt_docs import seal_document


def _judge(worst: float, best: float) -> dict[str, Any]:
    judge = copy.deepcopy(JUDGE)
    judge["scale"] = {"worst": worst, "best": best, "step": 0.05}
    return judge


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


# with skill 0.9, 0.9, 0.9 and one lost draw; baseline 0.5, 0.55, 0.6 (band 0.50 to 0.60).
# On a 0..1 scale the lost draw at 0 gives 0.675 ± 0.45 (down to 0.225): the bands overlap,
# so the case is inconclusive (D-9). Were the lost draw bounded at 0.85 it would read helps.
_CASE = [case("c1", [0.9, 0.9, 0.9, None], [0.5, 0.55, 0.6])]


def test_scores_below_the_recorded_worst_are_refused(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, make_receipt(_CASE, judge=_judge(0.85, 1.0), generations_per_arm=None))
    code, out, err = run_main(["view", str(path)], capsys)
    assert code == 2
    assert "passing" not in out
    assert (
        f"{path}: /cases/0/arms/baseline/draws/0/score: expected a score on the judge's scale, "
        "0.85 to 1 (/judge/scale), found 0.5"
    ) in err
    assert "Traceback" not in err


def test_the_same_scores_on_a_zero_to_one_scale_read_inconclusive(
    tmp_path: Path, capsys: Any
) -> None:
    path = _write(tmp_path, make_receipt(_CASE, judge=_judge(0.0, 1.0), generations_per_arm=None))
    code, out, _ = run_main(["view", str(path)], capsys)
    assert code == 0
    assert "inconclusive for lost draws: c1" in out


def test_an_upside_down_scale_is_refused(tmp_path: Path, capsys: Any) -> None:
    # worst 1, best 0: a with-skill mean of 0.85 against 0.55 would be the skill hurting,
    # not the +0.300 "passing" a reader reading higher as better would print.
    doc = make_receipt([case("c1", [0.9, 0.8, 0.85], [0.5, 0.6, 0.55])], judge=_judge(1.0, 0.0))
    path = _write(tmp_path, doc)
    code, out, err = run_main(["view", str(path)], capsys)
    assert code == 2
    assert out == ""
    assert (
        f"{path}: /judge/scale: expected the worst score below the best (a higher score is a "
        "better one), found worst 1 and best 0"
    ) in err


def _without_samples(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with every draw's judge samples taken away (its scores kept)."""
    for arm in doc["cases"][0]["arms"].values():
        for draw in arm["draws"]:
            draw["judge_samples"] = []
    return doc


def test_scored_draws_with_none_of_the_judge_samples_the_run_records_are_refused(
    tmp_path: Path, capsys: Any
) -> None:
    # the run records one judge sample per draw (/run/judge_samples_per_generation), but no
    # draw holds one: no score can be worked out again from its samples (D-1, D-18), and the
    # sheet read "passing" on scores it could not check
    doc = _without_samples(make_receipt([case("c1", [0.9, 0.8, 0.85], [0.5, 0.6, 0.55])]))
    assert doc["run"]["judge_samples_per_generation"] == 1
    path = _write(tmp_path, seal_document(doc))
    code, out, err = run_main(["view", str(path)], capsys)
    assert (code, out) == (2, "")
    assert (
        f"{path}: /cases/0/arms/with_skill/draws/0/judge_samples: expected 1 judge sample, "
        "the judge samples per draw in /run/judge_samples_per_generation; found 0"
    ) in err


def test_a_tested_run_with_no_judge_samples_and_no_count_is_refused(
    tmp_path: Path, capsys: Any
) -> None:
    # the same receipt with the count unrecorded: a TESTED run's scores still come from its
    # judge's samples, and there are none to work them out from
    doc = _without_samples(
        make_receipt(
            [case("c1", [0.9, 0.8, 0.85], [0.5, 0.6, 0.55])], judge_samples_per_generation=None
        )
    )
    path = _write(tmp_path, seal_document(doc))
    code, out, err = run_main(["view", str(path)], capsys)
    assert (code, out) == (2, "")
    assert f"{path}: /cases/0/arms/baseline/draws/2/judge_samples: expected the judge" in err
    doc["verification_level"] = "DECLARED"  # an import's per-run scores stand as recorded
    path = _write(tmp_path, seal_document(doc))
    code, out, _ = run_main(["view", str(path)], capsys)
    assert code == 0 and "no verdict: verification level DECLARED is below TESTED" in out


def test_a_grid_step_wider_than_the_scale_is_refused(tmp_path: Path, capsys: Any) -> None:
    # Found: a re-sealed receipt whose judge steps 1e308 on a 0-to-1 scale read at `validate`,
    # and `diff` and the Action stopped on a traceback (an overflow) simulating scores rounded
    # to that step. Its scores, 0 to 1, can sit on no grid of it but its two ends.
    judge = _judge(0.0, 1.0)
    judge["scale"]["step"] = 1e308
    doc = make_receipt([case("c1", [0.5, 0.6, 0.55], [0.3, 0.35, 0.3])], judge=judge)
    path = _write(tmp_path, doc)
    code, out, err = run_main(["diff", str(path), str(path)], capsys)
    assert (code, out) == (2, "")
    assert (
        f"{path}: /judge/scale/step: expected a grid step no wider than the scale, 0 to 1, "
        "found 1e+308"
    ) in err
    assert "Traceback" not in err
