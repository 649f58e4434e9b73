"""A regrade refuses a revised task it cannot grade (no rubric and no criteria) before any call.

The refusal names the suite file and the case's JSON pointer, exits 2 and writes nothing.
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
