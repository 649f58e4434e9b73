"""A stop (Ctrl-C, SIGTERM) as ``run --batch`` journals that it is about to create a batch: the
run creates it and journals its id before it stops, and the same call resumes by polling it.
Found by a stress of random stops to in-process batch runs (21 in 231 stops near a round): the
stop, raised on the main thread between the journaled intent and the call, ended the run with no
batch made, and every later run was refused ("may have been made and not recorded"), asking the
user to find a batch that did not exist or to send the requests again with an option.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter

import pytest
from batch_runs import batched, draws, journal_lines

from driftproof.errors import ProviderError
from driftproof.receipt import read_receipt
from driftproof.run.batch import BatchJournal, batch_journal_path
from driftproof.run.config import RunInterrupted


def test_a_stop_as_the_creation_is_journaled_creates_and_journals_the_batch(
    fake, tmp_path, monkeypatch
):
    _stopped_at_intent(tmp_path, monkeypatch, RunInterrupted)
    s = fake.script
    assert s.calls["create"] == 1  # the answers' batch was made before the run stopped
    batched(tmp_path, cases=1)  # not refused: its id was journaled, and it is polled
    # one case: 2 arms x 3 draws answered (6), each judged 5 times (30), every one sent once
    sent = Counter(s.submitted)
    assert len(sent) == 36 and max(sent.values()) == 1, sent.most_common(3)
    r = read_receipt(tmp_path / "receipt.json")
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


def test_a_creation_journaled_after_a_second_stop_closed_the_journal_writes_nowhere(tmp_path):
    # a second stop closes the batch journal while the creation's own thread still runs; its
    # batch line, journaled after, must not go to the number given meanwhile to another file
    bj = BatchJournal(tmp_path / "b.journal", resumed_run=False, mark="m")
    fd = bj.fd
    bj.close()
    other = os.open(tmp_path / "other", os.O_WRONLY | os.O_CREAT, 0o600)
    assert other == fd  # the lowest free number: the journal's
    with pytest.raises(OSError):
        bj.record("named", "d")
    os.write(other, b"still open")
    os.close(other)
    assert (tmp_path / "other").read_bytes() == b"still open"


def test_a_creation_refused_after_a_stop_is_journaled_as_making_no_batch(
    fake, tmp_path, monkeypatch
):
    # a stop comes as the creation is asked for, and the provider refuses it (HTTP 400): no
    # batch was made. The stop was raised in place of the refusal, and the creation stayed
    # journaled as begun and never ended: every later run was refused, asking the user to find
    # and cancel a batch that does not exist. The run stops on the refusal, the creation
    # journaled as having made none, and the same command makes the batch and ends
    s = fake.script
    s.fail_create = "400"
    said = str(_stopped_at_intent(tmp_path, monkeypatch, ProviderError).value)
    assert "the anthropic batch API refused a batch: HTTP 400" in said, said
    assert "requests: too many" in said and s.calls["create"] == 0
    assert journal_lines(batch_journal_path(tmp_path / "receipt.json"), "dropped") == 1
    s.fail_create = None
    r = read_receipt(batched(tmp_path, cases=1))
    assert len(s.submitted) == len(set(s.submitted)) == 36 == r.run.endpoint_attempts


def _stopped_at_intent(tmp_path, monkeypatch, raised):  # type: ignore[no-untyped-def]
    """A run of one case stopped by SIGTERM as its first creation is journaled: what it raised."""
    record, stops = BatchJournal.record, []

    def stopped_once(self, kind, rec):  # type: ignore[no-untyped-def]
        record(self, kind, rec)
        if kind == "creating" and not stops:
            stops.append(kind)
            # as the intent's line is synced; the main thread takes it before the call is made
            signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)
            time.sleep(0.3)

    monkeypatch.setattr(BatchJournal, "record", stopped_once)
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)  # as the command's does
    try:
        with pytest.raises(raised) as e:
            batched(tmp_path, cases=1)
    finally:
        signal.signal(signal.SIGTERM, previous)
    return e
