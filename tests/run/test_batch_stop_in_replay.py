"""A SIGINT or SIGTERM reaching ``run --batch`` while it makes draws from a batch's results (its
replay threads) is raised only where the main thread waits for a draw, as during interactive
draws; raised inside the main thread's own bookkeeping (the pool's, a future's or the progress
bar's lock), it could leave a lock held, and every replay thread waiting on it for ever.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

import pytest
from batch_runs import batched, draws

from driftproof.receipt import read_receipt
from driftproof.run import batch_engine


def test_a_stop_in_the_replays_bookkeeping_waits_for_the_next_wait(fake, tmp_path, monkeypatch):
    # the progress update runs on the main thread while the replays are made; its lock, taken
    # and given back without a `with` block, stands for one of the pool's. The stop arrives in
    # the first update; the update goes on to its end, and the run stops after it
    lock, updates = threading.Lock(), []
    made = batch_engine.BatchRounds.__init__

    def with_updates(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        made(self, *args, **kwargs)

        def on_done(n: int, total: int) -> None:
            lock.acquire()
            if not updates:
                signal.raise_signal(signal.SIGTERM)
            updates.append(n)
            lock.release()

        self.on_done = on_done

    monkeypatch.setattr(batch_engine.BatchRounds, "__init__", with_updates)
    with _stopped_by_sigterm():
        batched(tmp_path, cases=1)
    assert not lock.locked() and len(updates) == 1
    monkeypatch.setattr(batch_engine.BatchRounds, "__init__", made)
    batched(tmp_path, cases=1)  # the same call resumes
    r = read_receipt(tmp_path / "receipt.json")
    assert [d.index for _, d in draws(r, "with_skill")] == [0, 1, 2]
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


def test_a_stop_while_the_replays_are_made_makes_no_draw_not_yet_begun(fake, tmp_path, monkeypatch):
    # the stop arrives as the first of the round's six draws is made, on one replay thread: the
    # run stops once that draw ends, not once every draw queued behind it is made too
    import time

    drawn, made = [], batch_engine.BatchRounds._draw

    def stopped_in_first(self, c, i):  # type: ignore[no-untyped-def]
        drawn.append((c, i))
        if len(drawn) == 1:
            signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)  # as it waits
            time.sleep(0.5)
        return made(self, c, i)

    monkeypatch.setattr(batch_engine, "REPLAY_THREADS", 1)
    monkeypatch.setattr(batch_engine.BatchRounds, "_draw", stopped_in_first)
    with _stopped_by_sigterm():
        batched(tmp_path, cases=1)
    assert len(drawn) == 1


@contextlib.contextmanager
def _stopped_by_sigterm() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt, as the command's handler does; the block must stop."""
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            yield
    finally:
        signal.signal(signal.SIGTERM, previous)
