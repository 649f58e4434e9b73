"""A stop (Ctrl-C, SIGTERM) after the run's journal is opened but outside the draws (while the
draw maker is built, or as sealing begins) stops the run as one during the draws does: the
journal is closed and kept, the command says how many finished draws it keeps, and the same
call resumes it. Found by a stress of random stops to in-process runs (13 in about 500): the
interrupt escaped with the journal still open and locked, so the command printed a bare
"interrupted" with no way to resume, and the same call in that process was refused ("another
run is writing this journal").
"""

from __future__ import annotations

import json
import signal

import pytest
from run_helpers import SKILL_TEXT, SUITE

from driftproof.receipt import read_receipt
from driftproof.run import engine
from driftproof.run.config import RunConfig, RunInterrupted
from driftproof.run.providers.simulated import StubProvider
from driftproof.run.suite import load_suite


def _run(tmp_path, out, progress=None, keep=False):  # type: ignore[no-untyped-def]
    suite_file = tmp_path / "suite.json"
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    return engine.run_suite(
        load_suite(suite_file),
        skill_text=SKILL_TEXT,
        skill_name="commit-helper",
        cfg=RunConfig(model="m", judge_model="j", min_draws=3, max_draws=3, keep_transcripts=keep),
        provider=StubProvider(),
        judge=StubProvider(),
        out=out,
        progress=progress,
    )


def _draws(path):  # type: ignore[no-untyped-def]
    r = read_receipt(path)
    arms = [(a, getattr(r.cases[0].arms, a).draws) for a in ("with_skill", "baseline")]
    return [(a, d.index, d.score, d.answer_sha256) for a, draws in arms for d in draws]


@pytest.mark.parametrize("at", ["draw maker", "sealing"])
def test_a_stop_outside_the_draws_keeps_the_journal_and_the_same_call_resumes(
    tmp_path, monkeypatch, at
):
    whole = tmp_path / "whole.json"
    _run(tmp_path, whole)
    made = engine._drawer

    def stopped_as_built(*args):  # type: ignore[no-untyped-def]
        made(*args)
        raise KeyboardInterrupt  # as the tokenizer the draw maker counts with loads

    def progress(done, total, spend, phase="draws"):  # type: ignore[no-untyped-def]
        if phase == "sealing":
            raise KeyboardInterrupt

    if at == "draw maker":
        monkeypatch.setattr(engine, "_drawer", stopped_as_built)
    out = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt) as stop:
        _run(tmp_path, out, progress)
    assert isinstance(stop.value, RunInterrupted)
    # 2 arms x 3 draws were finished when sealing began, none before the draws
    assert (stop.value.kept, stop.value.journal) == (
        6 if at == "sealing" else 0,
        tmp_path / "r.json.journal",
    )
    monkeypatch.undo()
    _run(tmp_path, out)  # not refused as another run's journal
    assert _draws(out) == _draws(whole)


def test_a_stop_as_stale_files_are_removed_on_resume_keeps_the_journal_and_says_so(
    tmp_path, monkeypatch
):
    # the resumed journal is open before its run's leftovers are removed; a stop there escaped
    # as a bare interrupt, the journal open and locked: the same call in that process was refused
    whole, out = tmp_path / "whole.json", tmp_path / "r.json"
    _run(tmp_path, whole)

    def progress(done, total, spend, phase="draws"):  # type: ignore[no-untyped-def]
        if phase == "sealing":
            raise KeyboardInterrupt

    with pytest.raises(RunInterrupted):
        _run(tmp_path, out, progress)  # 6 finished draws journaled

    def stopped(_out):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(engine, "_remove_stale_receipt_files", stopped)
    with pytest.raises(KeyboardInterrupt) as stop:
        _run(tmp_path, out)
    assert isinstance(stop.value, RunInterrupted)
    assert (stop.value.kept, stop.value.journal) == (6, tmp_path / "r.json.journal")
    monkeypatch.undo()
    _run(tmp_path, out)
    assert _draws(out) == _draws(whole)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_once_the_receipt_is_written_waits_for_its_journal_to_go(tmp_path, sig):
    # the receipt was written and the stop came as the progress bar was told so: it left the
    # journal beside the receipt (open and locked in that process), and the same command was
    # refused until --force wrote the receipt again; the stop now takes effect once it is gone
    whole, out = tmp_path / "whole.json", tmp_path / "r.json"
    _run(tmp_path, whole)

    def progress(done, total, spend, phase="draws"):  # type: ignore[no-untyped-def]
        if phase == "done":
            signal.raise_signal(sig)

    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)  # as the command's does
    try:
        with pytest.raises(KeyboardInterrupt):
            _run(tmp_path, out, progress)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert not (tmp_path / "r.json.journal").exists()
    assert _draws(out) == _draws(whole)


def test_a_stop_between_sealing_and_the_hold_on_stops_never_leaves_the_journal_beside_it(
    tmp_path, monkeypatch
):
    # the stop comes as the hold on stops that guards the journal's removal is set up: it was
    # set up once the receipt was written, so the stop escaped with the receipt written and the
    # journal beside it; set up before the receipt is written, the stop keeps the journal alone
    whole, out = tmp_path / "whole.json", tmp_path / "r.json"
    _run(tmp_path, whole)

    class StoppedAsMade(engine.HeldStops):
        def __init__(self) -> None:
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(engine, "HeldStops", StoppedAsMade)
    with pytest.raises(KeyboardInterrupt) as stop:
        _run(tmp_path, out)
    assert isinstance(stop.value, RunInterrupted) and stop.value.kept == 6
    assert not out.exists()
    monkeypatch.undo()
    _run(tmp_path, out)
    assert _draws(out) == _draws(whole)


def test_a_stop_once_the_receipt_is_in_place_keeps_the_transcripts_it_names(tmp_path, monkeypatch):
    # the stop came inside the receipt's writer after the file was in place: the run removed
    # the transcripts file the receipt names and said no receipt was written yet; now the stop
    # waits until the journal is gone and the receipt and its transcripts are both kept
    out = tmp_path / "r.json"
    written = engine.write_receipt

    def stopped_once_in_place(*args, **kwargs):  # type: ignore[no-untyped-def]
        receipt = written(*args, **kwargs)
        signal.raise_signal(signal.SIGINT)
        return receipt

    monkeypatch.setattr(engine, "write_receipt", stopped_once_in_place)
    with pytest.raises(KeyboardInterrupt) as stop:
        _run(tmp_path, out, keep=True)
    assert not isinstance(stop.value, RunInterrupted)
    named = read_receipt(out).run.transcripts
    assert named is not None and named.draws == 6  # 2 arms x 3 draws, one line each
    assert len((tmp_path / named.file).read_text().splitlines()) == 6
    assert not (tmp_path / "r.json.journal").exists()
