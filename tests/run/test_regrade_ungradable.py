"""A regrade refuses what it cannot grade before any call: a revised task with no rubric and no
criteria, or an original that kept no answer.

The refusal names the file (the suite, or the original receipt) and a JSON pointer in it, exits 2
and writes nothing.
"""

from __future__ import annotations

import json

import pytest
from factories import run_main
from run_helpers import SUITE, run_lane


@pytest.mark.parametrize(("index", "member"), [(0, "rubric"), (1, "criteria")])
def test_a_revised_task_with_neither_rubric_nor_criteria_is_refused(
    loopback, suite_file, tmp_path, capsys, index, member
):
    original = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    doc = json.loads(json.dumps(SUITE))
    del doc["cases"][index][member]
    revised = tmp_path / "revised.json"
    revised.write_text(json.dumps(doc))
    out = tmp_path / "regraded.json"
    argv = ["regrade", str(original), "--rubric", str(revised), "--out", str(out)]
    code, _, err = run_main(argv, capsys)
    case_id = SUITE["cases"][index]["id"]
    assert code == 2
    assert err == (
        f"error: rubric regrade refused: {revised}: /cases/{index}: expected a rubric or criteria "
        f"for case {case_id}, as a regrade grades every kept answer against one; the revised "
        "task has neither\n"
    )
    assert not out.exists()


def test_an_original_that_kept_no_answer_is_refused_naming_the_receipt_and_the_draw(
    loopback, suite_file, tmp_path, capsys
):
    # the receipt and where in it (its first case's with-skill arm, receipt index 0), then
    # the draw as people count it: draw 1
    original = run_lane(tmp_path, "anthropic", "api")
    revised = tmp_path / "revised.json"
    revised.write_text(json.dumps(SUITE))
    out = tmp_path / "regraded.json"
    argv = ["regrade", str(original), "--rubric", str(revised), "--out", str(out)]
    code, _, err = run_main(argv, capsys)
    assert code == 2
    assert err == (
        f"error: rubric regrade refused: {original}: /cases/0/arms/with_skill/draws/0/answer: "
        "case commit-429, with skill, draw 1: the original kept no answer (run with "
        "--keep-transcripts to regrade)\n"
    )
    assert not out.exists()
