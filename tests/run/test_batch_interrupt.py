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
