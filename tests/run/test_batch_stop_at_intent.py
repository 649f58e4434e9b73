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
from collections import Counter

import pytest
from batch_runs import batched, draws

from driftproof.receipt import read_receipt
from driftproof.run.batch import BatchJournal
from driftproof.run.config import RunInterrupted


def test_a_stop_as_the_creation_is_journaled_creates_and_journals_the_batch(
    fake, tmp_path, monkeypatch
):
    record, stops = BatchJournal.record, []

    def stopped_once(self, kind, rec):  # type: ignore[no-untyped-def]
        record(self, kind, rec)
        if kind == "creating" and not stops:
            stops.append(kind)
            signal.raise_signal(signal.SIGTERM)  # as the intent's line is synced

    monkeypatch.setattr(BatchJournal, "record", stopped_once)
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)  # as the command's does
    try:
        with pytest.raises(RunInterrupted):
            batched(tmp_path, cases=1)
    finally:
        signal.signal(signal.SIGTERM, previous)
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
