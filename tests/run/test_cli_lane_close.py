"""Closing a CLI lane (a second Ctrl-C, "press Ctrl-C again to stop now") ends the harness
processes in flight: each attempt ends as an unfinished draw (Halted: not journaled, drawn again
on resume) and no process is started after the close. Before, the close did nothing on the CLI
lanes: the run waited for every ``claude -p`` in flight to finish on its own (up to the answer
timeout, 300 s by default) before it exited, and each was billed to the end."""

from __future__ import annotations

import json

from driftproof.run.providers import make_provider
from driftproof.run.providers.base import Call


def _started(log) -> int:
    """Answering invocations the fake ``claude`` logged (not its ``--version``)."""
    if not log.exists():
        return 0
    return sum(json.loads(x)["argv"] != ["--version"] for x in log.read_text().splitlines())


def test_closing_a_cli_lane_ends_its_processes_in_flight(
    fake_bin, tmp_path, monkeypatch, close_in_flight
):
    monkeypatch.setenv("FAKE_SLEEP", "600")  # an answer that would take ten minutes
    log = tmp_path / "cli.log"
    lane = make_provider("anthropic", "cli")
    call = Call("claude-sonnet-4-6", None, "Say hi.", 64, timeout=900.0)
    close_in_flight(lane, call, lambda: _started(log) > 0, 60)  # the harness is running
    assert _started(log) == 1
