"""Hostile sources: an integer no float holds, a named pipe: one line at the place, no hang.

Probe (round 4): 1 followed by 400 zeros as a score raised OverflowError (a traceback) in four
importers. A float holds integers exactly only up to 2**53 (D-12's numbers).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import run_main

from driftproof.errors import ImportError_
from driftproof.importers._common import Where, unit_score

HUGE = 10**400


def test_unit_score_names_the_digits_of_an_integer_no_float_holds() -> None:
    with pytest.raises(ImportError_) as e:
        unit_score(HUGE, Where("f.json") / "score")
    assert "/score: expected a score between 0 and 1, found an integer of 401 digits" in str(
        e.value
    )
    assert unit_score(1, Where("f.json")) == 1.0


def test_claude_plugin_eval_refuses_a_huge_score_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shared: Path
) -> None:
    src = shared / "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"
    text = src.read_text(encoding="utf-8").replace('"score": 1,', f'"score": {HUGE},', 1)
    assert str(HUGE) in text
    bad = tmp_path / "huge.json"
    bad.write_text(text, encoding="utf-8")
    code, out, err = run_main(
        ["import", "claude-plugin-eval", str(bad), "--out-dir", str(tmp_path / "o")], capsys
    )
    assert code == 2
    assert "found an integer of 401 digits" in err and "Traceback" not in err + out
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())
    json.loads(src.read_text(encoding="utf-8"))  # the shared file itself is untouched


def test_a_named_pipe_is_refused_not_waited_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Probe (round 4): `import skill-eval-harness` on a FIFO blocked until killed.
    import os
    import signal

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)

    def hung(*_: object) -> None:
        raise AssertionError("the import waited on the pipe")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        code, _, err = run_main(
            ["import", "skill-eval-harness", str(fifo), "--out-dir", str(tmp_path / "o")], capsys
        )
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert code == 2
    assert f"{fifo}: expected a file, found a named pipe or socket" in err


@pytest.mark.parametrize(
    ("importer", "source", "old", "new", "extra"),
    [
        (
            "claude-plugin-eval",
            "claude-plugin-eval/aggregate-result.two-arm.json",
            '"costUsd": 0.045988999999999995',
            f'"costUsd": {HUGE}',
            [],
        ),
        (
            "openai-evals",
            "openai-evals/promptfoo-fixture-openai-evals-items.jsonl",
            '"Tool called":1',
            f'"Tool called":{HUGE}',
            ["--skill-name", "s", "--grader", "Tool called"],
        ),
    ],
    ids=["claude-plugin-eval costUsd", "openai-evals grade"],
)
def test_a_huge_cost_or_grade_is_refused_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    shared: Path,
    importer: str,
    source: str,
    old: str,
    new: str,
    extra: list[str],
) -> None:
    # Probe (this round): a cost or a grade of 401 digits raised OverflowError in two importers
    src = shared / "data/interop" / source
    text = src.read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / src.name
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    args = ["import", importer, str(bad), *extra, "--out-dir", str(tmp_path / "o")]
    code, out, err = run_main(args, capsys)
    assert code == 2
    assert "in size, found one of 401 digits" in err and "Traceback" not in err + out
