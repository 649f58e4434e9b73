"""stale and regrade agree: "regrade only" is said only of a receipt a regrade can grade again.

A run without --keep-transcripts keeps no answers, and regrade refuses it (the original kept no
answer); stale must then say "run again", not "regrade only".
"""

from __future__ import annotations

import json
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
        assert said_regrade.splitlines()[-2].endswith(
            "60 grades asked of the judge, none sent over the network (the stub judge answers "
            "offline)"
        )
    else:
        assert said.startswith("with skill: run again")
        said_by_arm = dict(line.split(": ", 1) for line in said.splitlines()[:2])
        # each arm's line names the first answer missing in that arm (the baseline's read
        # "with skill, draw 1"); the finding below them, for the receipt, the first in it
        for arm in ("with skill", "baseline"):
            assert (
                "judge prompt template: the judge's instructions changed, but the receipt kept "
                f"no answers to grade again (the first missing: case a, {arm}, draw 1)"
            ) in said_by_arm[arm]
        assert "(the first missing: case a, with skill, draw 1)" in said.split("\n\n", 1)[1]
        # the refusal names the receipt and where in it the answer would be (case a is the
        # first case; with_skill the arm, its first draw)
        assert code == 2 and (
            f"error: regrade refused: {first}: /cases/0/arms/with_skill/draws/0/answer: case a, "
            "with skill, draw 1: the original kept no answer"
        ) in " ".join(err.split())


def test_a_receipt_whose_every_draw_was_lost_is_not_regrade_only() -> None:
    # Found: a receipt whose judge failed every call (every draw lost, the answers kept) read
    # "regrade only: a different judge: the saved answers can be graded again" for a new judge,
    # but a regrade carries each lost draw as it is: it would grade nothing.
    from factories import case, make_receipt
    from receipt_docs import seal_document

    from driftproof.pages.stale import Today, stale_report
    from driftproof.receipt import parse_receipt

    doc = make_receipt([case("c1", [None, None, None], [None, None, None])])
    r = parse_receipt(json.dumps(seal_document(doc)).encode())
    rep = stale_report(r, Today(judge_model="another-judge"))
    judge = next(f for f in rep.findings if f.field == "judge")
    assert judge.effect == "run again"
    assert judge.note == (
        "a different judge, but every draw of the receipt was lost, and a regrade keeps a lost "
        "draw lost"
    )
    assert {a.status for a in rep.arms} == {"run again"}


def test_an_aa_calibrations_draw_is_named_by_its_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # an A/A calibration's arms are its first and second runs wherever people read them; stale's
    # reason and regrade's refusal named its draws "with skill" (the receipt's key in words)
    suite, skill = write_files(tmp_path)
    first = tmp_path / "aa.json"
    assert run_main(run_args(suite, skill, first, "--aa"), capsys)[0] == 0
    stale = ["stale", str(first), "--model", "m", "--skill", str(skill), "--suite", str(suite)]
    template = ["--judge-model", "another-judge", "--judge-template", str(suite)]
    said = run_main([*stale, *template], capsys)[1]
    assert "(the first missing: case a, first run, draw 1)" in said
    regrade = ["regrade", str(first), "--rubric", str(suite), "--judge-provider", "stub"]
    out = ["--judge-model", "another-judge", "--out", str(tmp_path / "r.json")]
    code, _, err = run_main([*regrade, *out], capsys)
    assert code == 2 and (
        f"{first}: /cases/0/arms/with_skill/draws/0/answer: case a, first run, draw 1: the "
        "original kept no answer"
    ) in " ".join(err.split())
