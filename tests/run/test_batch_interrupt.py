"""Ctrl-C while a batch is being created (``driftproof run --batch``): the provider holds the
batch once the request reached it, so the run waits for the reply and journals the batch's id
before it stops; the same command then polls that batch and sends none of its requests again.
Before, the Ctrl-C abandoned the call: the batch ran on at the provider unjournaled and the
resumed run sent (and paid for) the same requests in a second batch."""

from __future__ import annotations

import signal
import subprocess
from collections import Counter

import pytest
from batch_runs import creating_slowly, draws

from driftproof.receipt import read_receipt


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_ctrl_c_during_a_batch_create_journals_the_batch_and_sends_nothing_twice(
    fake, suite_file, skill_file, tmp_path, provider
):
    argv, out, proc = creating_slowly(fake, suite_file, skill_file, tmp_path, provider)
    s = fake.script
    # Ctrl-C while the reply is on its way
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    s.trickle = set()
    res = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    # one case: 2 arms x 3 draws answered (6), each judged 5 times (30), every one sent once
    sent = Counter(s.submitted)
    assert len(sent) == 36 and max(sent.values()) == 1, sent.most_common(3)
    assert s.calls["create"] == 2  # the answers' batch, polled on resume, then the judges'
    r = read_receipt(out)
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


def _stopped_as_its_thread_starts(monkeypatch, send):
    """``to_its_end`` run with ``send()`` (a stop) made right as the call's thread is started."""
    import _thread
    import threading

    from driftproof.run import batch_create

    started, calls = _thread.start_new_thread, []

    def start_then_stop(fn, args):
        ident = started(fn, args)
        send()
        return ident

    monkeypatch.setattr(_thread, "start_new_thread", start_then_stop)
    monkeypatch.setattr(threading, "_start_new_thread", start_then_stop)  # what Thread.start calls
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in before:  # the CLI raises KeyboardInterrupt on SIGTERM as on SIGINT
        signal.signal(s, signal.default_int_handler)
    try:
        value, stop = batch_create.to_its_end(lambda: calls.append(1) or "batch-1")
    except KeyboardInterrupt:
        pytest.fail("the stop ended the wait: the batch's id would not be journaled")
    finally:
        for s, was in before.items():
            signal.signal(s, was)
    assert (value, calls) == ("batch-1", [1]) and isinstance(stop, KeyboardInterrupt)


# on a loaded machine the request went out (and the provider made the batch) before the main
# thread came back from starting the call's thread: a stop then ended the run there, with the
# batch's id never journaled, and the resumed run refused as if it was lost


def test_ctrl_c_while_the_creating_thread_starts_still_waits_for_the_reply(monkeypatch):
    _stopped_as_its_thread_starts(monkeypatch, lambda: signal.raise_signal(signal.SIGINT))


def test_sigterm_while_the_creating_thread_starts_still_waits_for_the_reply(monkeypatch):
    # SIGTERM stops a run as Ctrl-C does (a cancelled CI job); holding back SIGINT alone
    # let it through
    _stopped_as_its_thread_starts(monkeypatch, lambda: signal.raise_signal(signal.SIGTERM))


def test_ctrl_c_taken_by_another_thread_as_the_creating_thread_starts_waits(monkeypatch):
    # a Ctrl-C is sent to the process: held back on the main thread, the kernel hands it to a
    # thread that does not hold it (numpy's BLAS threads, an API lane's event loop), and Python
    # raises it on the main thread all the same
    import os
    import threading
    import time

    idle = threading.Event()
    threading.Thread(target=idle.wait, daemon=True).start()
    try:
        _stopped_as_its_thread_starts(
            monkeypatch, lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(0.3))
        )
    finally:
        idle.set()
