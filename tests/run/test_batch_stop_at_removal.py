"""A stop (Ctrl-C, SIGTERM) as ``run --batch`` removes its journals, once the receipt is written,
never leaves the batch journal without the run journal. Found by a stress of random stops to
in-process batch runs (4 in 231): the run journal went first, and a stop before the batch
journal went left it alone, so every later run to that receipt, even with --force, was refused
("a batch journal without its run journal").
"""

from __future__ import annotations

import signal

import pytest
from batch_runs import batched

from driftproof.receipt import read_receipt
from driftproof.run.batch import batch_journal_path
from driftproof.run.journal import Journal, journal_path


def test_a_stop_as_the_journals_are_removed_leaves_no_batch_journal_alone(
    fake, tmp_path, monkeypatch
):
    remove = Journal.remove

    def stopped_after(self):  # type: ignore[no-untyped-def]
        remove(self)
        raise KeyboardInterrupt  # right after the run journal is gone

    monkeypatch.setattr(Journal, "remove", stopped_after)
    out = tmp_path / "receipt.json"
    with pytest.raises(KeyboardInterrupt):
        batched(tmp_path, cases=1)
    assert out.exists() and not journal_path(out).exists()
    assert not batch_journal_path(out).exists()
    monkeypatch.setattr(Journal, "remove", remove)
    batched(tmp_path, cases=1)  # the same call (which replaces the receipt) is not refused


def test_a_stop_between_the_two_removals_waits_for_the_run_journal_to_go(
    fake, tmp_path, monkeypatch
):
    # the stop comes once the batch journal is gone, before the run journal goes; had it been
    # raised there, a run resumed from the run journal alone wrote the receipt again naming no
    # batch and counting none of its requests (only the batch journal held them)
    remove = Journal.remove

    def stopped_before(self):  # type: ignore[no-untyped-def]
        signal.raise_signal(signal.SIGTERM)
        remove(self)

    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)  # as the command's does
    monkeypatch.setattr(Journal, "remove", stopped_before)
    out = tmp_path / "receipt.json"
    try:
        with pytest.raises(KeyboardInterrupt):
            batched(tmp_path, cases=1)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert not journal_path(out).exists() and not batch_journal_path(out).exists()
    batch = read_receipt(out).run.batch
    assert batch is not None and len(batch.batch_ids) == 2  # the answers' and the judge's
