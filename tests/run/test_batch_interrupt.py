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


def test_ctrl_c_while_the_creating_thread_starts_still_waits_for_the_reply(monkeypatch):
    # on a loaded machine the request went out (and the provider made the batch) before this
    # thread came back from starting the call's thread: a Ctrl-C then stopped the run there,
    # with the batch's id never journaled, and the resumed run refused as if it was lost
    import threading

    from driftproof.run import batch_create

    started, calls = threading.Thread.start, []

    def start_then_ctrl_c(self):
        started(self)
        signal.raise_signal(signal.SIGINT)  # Ctrl-C right as the thread is started

    monkeypatch.setattr(threading.Thread, "start", start_then_ctrl_c)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        value, stop = batch_create.to_its_end(lambda: calls.append(1) or "batch-1")
    except KeyboardInterrupt:
        pytest.fail("the Ctrl-C stopped the wait: the batch's id would not be journaled")
    finally:
        signal.signal(signal.SIGINT, before)
    assert (value, calls) == ("batch-1", [1]) and isinstance(stop, KeyboardInterrupt)
