"""A stop (Ctrl-C sets the run's halt) cuts a draw's wait between retries short: the wait slept
with time.sleep, deaf to the stop, for up to 120 s before the draw noticed (an adversary's
finding: one Ctrl-C took 58 s to exit against a server answering 429 with retry-after)."""

from __future__ import annotations

import json
import threading
import time

import pytest
from run_helpers import SKILL_TEXT, SUITE

from driftproof.cli.run import stopping_line
from driftproof.run.config import RunConfig, RunInterrupted, Spend
from driftproof.run.drawer import Drawer
from driftproof.run.engine import run_suite
from driftproof.run.providers.base import AttemptError, Halted, Provider
from driftproof.run.providers.simulated import StubProvider
from driftproof.run.suite import load_suite


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


class Waits(StubProvider):
    """The stub answering four draws at once: one answers, the others wait for ``go``."""

    def __init__(self) -> None:
        self.all_in, self.go = threading.Barrier(4), threading.Event()

    def attempt(self, call):  # type: ignore[no-untyped-def]
        if self.all_in.wait(10) != 0:  # all four in flight; three wait until the stop is told
            self.go.wait(10)
        return super().attempt(call)


def test_a_first_ctrl_c_says_how_many_draws_it_waits_for_and_for_how_long(tmp_path) -> None:
    # A first Ctrl-C lets the draws in flight finish their attempt and printed nothing meanwhile.
    # Here it comes after the first of four draws (2 per arm, concurrency 4): 3 are in flight,
    # each within the longer of the answer (300 s) and judge (120 s) timeouts.
    suite_file = tmp_path / "suite.json"
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    lane, told = Waits(), []

    def progress(done, total, spend, phase="draws"):  # type: ignore[no-untyped-def]
        if done == 1:
            raise KeyboardInterrupt  # Ctrl-C arrives in the main thread, here after a draw

    def stopping(n, seconds):  # type: ignore[no-untyped-def]
        told.append((n, seconds))
        lane.go.set()

    progress.stopping = stopping  # type: ignore[attr-defined]
    cfg = RunConfig(model="m", judge_model="j", min_draws=2, max_draws=2, concurrency=4)
    with pytest.raises(RunInterrupted) as e:
        run_suite(
            load_suite(suite_file),
            skill_text=SKILL_TEXT,
            skill_name="commit-helper",
            cfg=cfg,
            provider=lane,
            judge=StubProvider(),
            out=tmp_path / "r.json",
            progress=progress,
        )
    assert told == [(3, 300.0)]
    assert e.value.kept == 1  # the three finished their answer; their judging saw the stop
    # so the line says they are not kept (it said they would "finish"; they were drawn again)
    assert stopping_line(3, 300.0) == (
        "Stopping: waiting for the calls of the 3 draws in flight to end (at most 300 s); "
        "a draw they do not finish is drawn again when you resume; "
        "press Ctrl-C again to stop now."
    )
    assert stopping_line(1, 120.0).startswith("Stopping: waiting for the calls of the draw in ")
    # a long --timeout in plain digits (it read "at most 1.23457e+06 s"), a short one as given
    assert "(at most 1,234,567 s)" in stopping_line(2, 1234567.0)
    assert "(at most 0.5 s)" in stopping_line(2, 0.5)
    assert "(at most 12,345,678,901 s)" in stopping_line(2, 12345678901.0)
