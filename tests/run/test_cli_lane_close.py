"""Closing a CLI lane (a second Ctrl-C, "press Ctrl-C again to stop now") ends the harness
processes in flight: each attempt ends as an unfinished draw (Halted: not journaled, drawn again
on resume) and no process is started after the close. Before, the close did nothing on the CLI
lanes: the run waited for every ``claude -p`` in flight to finish on its own (up to the answer
timeout, 300 s by default) before it exited, and each was billed to the end."""

from __future__ import annotations

import json
import threading
import time

import pytest

from driftproof.run.providers import make_provider
from driftproof.run.providers.base import Call, Halted


def _started(log) -> int:
    """Answering invocations the fake ``claude`` logged (not its ``--version``)."""
    if not log.exists():
        return 0
    return sum(json.loads(x)["argv"] != ["--version"] for x in log.read_text().splitlines())


def test_closing_a_cli_lane_ends_its_processes_in_flight(fake_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_SLEEP", "600")  # an answer that would take ten minutes
    log = tmp_path / "cli.log"
    lane = make_provider("anthropic", "cli")
    call = Call("claude-sonnet-4-6", None, "Say hi.", 64, timeout=900.0)
    ended: list[BaseException] = []

    def attempt() -> None:
        try:
            lane.attempt(call)
        except BaseException as exc:  # what the draw's thread receives
            ended.append(exc)

    t = threading.Thread(target=attempt, daemon=True)
    t.start()
    while _started(log) == 0:  # the harness is running
        time.sleep(0.01)
    lane.close()
    t.join(60)
    assert not t.is_alive() and [type(e) for e in ended] == [Halted]
    with pytest.raises(Halted):
        lane.attempt(call)
    assert _started(log) == 1
