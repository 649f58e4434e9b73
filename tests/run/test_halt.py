"""A stop (Ctrl-C sets the run's halt) cuts a draw's wait between retries short: the wait slept
with time.sleep, deaf to the stop, for up to 120 s before the draw noticed (an adversary's
finding: one Ctrl-C took 58 s to exit against a server answering 429 with retry-after)."""

from __future__ import annotations

import threading
import time

import pytest

from driftproof.run.config import RunConfig, Spend
from driftproof.run.drawer import Drawer
from driftproof.run.providers.base import AttemptError, Halted, Provider


class Busy(Provider):
    """Every attempt is a transient failure, as a 429 is."""

    name, surface, makes_endpoint_attempts = "anthropic", "api", False

    def attempt(self, call):  # type: ignore[no-untyped-def]
        raise AttemptError("HTTP 429")


def test_a_stop_cuts_the_wait_between_retries_short() -> None:
    cfg = RunConfig(model="m", judge_model="j", retry_delays=(60.0,))  # a minute's wait
    d = Drawer({}, {}, cfg, Busy(), Busy(), None, None, time.sleep, Spend(None))  # type: ignore[arg-type]
    threading.Timer(0.2, d.halt.set).start()
    started = time.monotonic()
    with pytest.raises(Halted):  # the retry after the wait sees the stop: not a lost draw
        d.retried(d.provider, lambda: d.provider.attempt(None))  # type: ignore[arg-type]
    assert time.monotonic() - started < 30  # not the minute's wait
