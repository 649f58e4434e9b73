"""A stop (Ctrl-C, SIGTERM) once ``driftproof run`` has written its receipt says the run is
complete and where its receipt is, and exits as the finished run does (0 here: every arm
measured, no other model answered). Found by a stop checker: a stop as the summary printed, or
inside the receipt's writer once the file was in place, read "interrupted" (exit status 130)
or "no receipt was written yet", though the receipt was complete; the same command was then
refused because --out exists, and a user took the run for lost.
"""

from __future__ import annotations

import dataclasses
import signal

import pytest
from factories import run_main

from driftproof.receipt import read_receipt
from driftproof.render import run_summary
from driftproof.run import engine

#: What a stop once the receipt is written says, ``{}`` the receipt's path.
COMPLETE = "stopped: the run is complete and its receipt is written to {}; there is nothing to "
COMPLETE += "resume"


def _argv(suite_file, skill_file, out):  # type: ignore[no-untyped-def]
    return ["run", str(suite_file), "--skill", str(skill_file), "--model", "m"] + [
        "--provider", "simulated", "--out", str(out), "--keep-transcripts",
    ]  # fmt: skip


@pytest.mark.parametrize("at", ["summary", "writer"])
def test_a_stop_once_the_receipt_is_written_says_where_it_is(
    suite_file, skill_file, tmp_path, monkeypatch, capsys, at
):
    whole = tmp_path / "whole.json"
    assert run_main(_argv(suite_file, skill_file, whole), capsys)[0] == 0  # unstopped: 0
    written = engine.write_receipt

    def stopped_in_writer(*args, **kwargs):  # type: ignore[no-untyped-def]
        receipt = written(*args, **kwargs)
        signal.raise_signal(signal.SIGINT)  # the file in place, the call not yet returned
        return receipt

    def stopped_in_summary(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    if at == "writer":
        monkeypatch.setattr(engine, "write_receipt", stopped_in_writer)
    else:
        monkeypatch.setattr(run_summary, "print_result", stopped_in_summary)
    out = tmp_path / "r.json"
    code, _, err = run_main(_argv(suite_file, skill_file, out), capsys)
    assert (code, err.strip().splitlines()[-1]) == (0, COMPLETE.format(out))
    assert not (tmp_path / "r.json.journal").exists()
    named = read_receipt(out).run.transcripts
    assert named is not None and (tmp_path / named.file).is_file()  # what it names, kept


def test_a_stop_as_the_finished_run_is_handed_back_says_where_it_is(
    suite_file, skill_file, tmp_path, monkeypatch, capsys
):
    # a stop given back by the hold once the journal is gone lands as run_suite makes its
    # result, past the hold: it read "interrupted", exit status 130, the receipt complete
    made = engine.RunResult
    calls: list[int] = []

    def stopped_once(*args):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return made(*args)

    monkeypatch.setattr(engine, "RunResult", stopped_once)
    out = tmp_path / "r.json"
    code, _, err = run_main(_argv(suite_file, skill_file, out), capsys)
    assert (code, err.strip().splitlines()[-1]) == (0, COMPLETE.format(out))
    assert read_receipt(out).cases and not (tmp_path / "r.json.journal").exists()


def test_a_stop_in_the_summary_of_a_run_that_ended_early_says_why(
    suite_file, skill_file, tmp_path, monkeypatch, capsys
):
    # a run that ended early (another model answered: exit status 3) stopped as its summary
    # printed said "the run is complete" and never why it ended, the summary's last line
    made = engine.RunResult
    why = "another model answered (claude-opus-4-7); the receipt reads UNVERIFIED"

    def ended_early(*args):  # type: ignore[no-untyped-def]
        return dataclasses.replace(made(*args), stopped=why)

    def stopped_in_summary(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(engine, "RunResult", ended_early)
    monkeypatch.setattr(run_summary, "print_result", stopped_in_summary)
    out = tmp_path / "r.json"
    code, _, err = run_main(_argv(suite_file, skill_file, out), capsys)
    assert (code, err.strip().splitlines()[-2:]) == (
        3,
        [
            f"stopped: the run ended early and its receipt is written to {out}; there is "
            "nothing to resume",
            f"stopped: {why}",
        ],
    )
