"""stale and regrade agree: "regrade only" is said only of a receipt a regrade can grade again.

A run without --keep-transcripts keeps no answers, and regrade refuses it (the original kept no
answer); stale must then say "run again", not "regrade only".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from day_one_helpers import run_args, write_files
from factories import run_main


@pytest.mark.parametrize("keep", [False, True])
def test_stale_says_regrade_only_only_where_regrade_can_grade(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], keep: bool
) -> None:
    suite, skill = write_files(tmp_path)
    first = tmp_path / "first.json"
    extra = ("--keep-transcripts",) if keep else ()
    assert run_main(run_args(suite, skill, first, *extra), capsys)[0] == 0
    stale = ["stale", str(first), "--model", "m", "--skill", str(skill), "--suite", str(suite)]
    template = ["--judge-model", "another-judge", "--judge-template", str(suite)]
    status, said, _ = run_main([*stale, *template], capsys)
    assert status == 1
    regrade = ["regrade", str(first), "--rubric", str(suite), "--judge-provider", "stub"]
    out = ["--judge-model", "another-judge", "--out", str(tmp_path / "r.json")]
    code, said_regrade, err = run_main([*regrade, *out], capsys)
    if keep:
        assert said.startswith("with skill: regrade only") and code == 0
        # 2 cases × 2 arms × 3 draws = 12 answers, 5 judge samples each (run's default): 60
        # grades, none of them a request over the network
        assert said_regrade.rstrip().endswith(
            "60 grades asked of the judge, none sent over the network (the stub judge answers "
            "offline)"
        )
    else:
        assert said.startswith("with skill: run again")
        assert (
            "judge prompt template: the judge's instructions changed, but the receipt kept no "
            "answers to grade again (the first missing: case a, with skill, draw 1)"
        ) in said
        assert (
            code == 2
            and "error: regrade refused: case a, with skill, draw 1: the original kept no answer"
            in err
        )
