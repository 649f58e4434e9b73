"""A draw that finishes after its run closed the journal (a second Ctrl-C closes it while draws
in flight still run) writes nothing anywhere: the draw is not finished, and is drawn again on
resume. Before, its line went to the closed descriptor's number, which the process may have
given to another file or socket meanwhile."""

from __future__ import annotations

import fcntl
import os

import pytest
from test_journal_short_write import ID, T0, _record

from driftproof.run.journal import Journal


def test_a_draw_after_the_journal_is_closed_writes_nothing_anywhere(tmp_path):
    j = Journal(tmp_path / "r.json.journal", ID, started_at=T0, harness_version=None)
    fd = j.fd
    j.close()
    other = os.open(tmp_path / "other", os.O_WRONLY | os.O_CREAT, 0o600)
    assert other == fd  # the lowest free number: the journal's, given to another file
    with pytest.raises(OSError):
        j.draw(_record(0))
    with pytest.raises(OSError):
        j.attempt()
    j.close()  # a second close closes nothing else
    os.write(other, b"still open")
    os.close(other)
    assert (tmp_path / "other").read_bytes() == b"still open" and j.draws == {}


def test_a_stop_as_a_new_journals_header_is_synced_leaves_it_unlocked(tmp_path, monkeypatch):
    # found by random stops to in-process runs (1 in 200): the stop came as the header was
    # synced, the journal's descriptor stayed open and locked, and the same run in that process
    # was refused ("another run is writing this journal"); it resumes
    write = Journal._write

    def stopped(self, obj, *, sync):  # type: ignore[no-untyped-def]
        write(self, obj, sync=sync)
        raise KeyboardInterrupt

    monkeypatch.setattr(Journal, "_write", stopped)
    _stopped_then_resumed(tmp_path, monkeypatch)


def test_a_stop_as_a_resumed_journals_mark_is_made_leaves_it_unlocked(tmp_path, monkeypatch):
    # a stop (or failure) anywhere between the journal's locking and its header, here as the
    # run's mark is made on resume, leaves its descriptor closed: the same run resumes
    import driftproof.run.journal as journal

    Journal(tmp_path / "r.json.journal", ID, started_at=T0, harness_version=None).close()

    def stopped(*_args):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(journal, "run_mark", stopped)
    _stopped_then_resumed(tmp_path, monkeypatch)


def _stopped_then_resumed(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The stop patched in ends the journal's opening; unpatched, the same run opens it again."""
    with pytest.raises(KeyboardInterrupt):
        Journal(tmp_path / "r.json.journal", ID, started_at=T0, harness_version=None)
    monkeypatch.undo()
    j = Journal(tmp_path / "r.json.journal", ID, started_at=T0, harness_version=None)
    assert j.resumed and j.draws == {}
    j.close()


def test_a_stop_as_the_journal_is_locked_leaves_it_unlocked(tmp_path, monkeypatch):
    # found by a stop sent at each line of a run's opening in turn: the stop came as the lock
    # was taken, before the name was checked to still be the file locked; the descriptor stayed
    # open and locked, and the same run in that process was refused ("another run is writing")
    import driftproof.run.journal as journal

    Journal(tmp_path / "r.json.journal", ID, started_at=T0, harness_version=None).close()
    real = fcntl.flock

    def locked_then_stopped(fd: int, op: int) -> None:
        real(fd, op)
        raise KeyboardInterrupt

    monkeypatch.setattr(journal.fcntl, "flock", locked_then_stopped)
    _stopped_then_resumed(tmp_path, monkeypatch)
