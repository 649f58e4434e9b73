"""Fixtures for ``driftproof run`` tests; the machinery lives in run_helpers.py."""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from batch_fake import BatchLoopback
from batch_runs import serving
from run_helpers import FAKE_CLAUDE, FAKE_CODEX, SKILL_TEXT, SUITE, Loopback, point_sdks_at


@pytest.fixture
def loopback(monkeypatch: pytest.MonkeyPatch) -> Iterator[Loopback]:
    """A fresh loopback server; the SDKs' keys are dummies and their base URLs point at it."""
    srv = Loopback()
    point_sdks_at(monkeypatch, srv.url)
    yield srv
    srv.close()


@pytest.fixture
def fake_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fake ``claude`` and ``codex`` first on PATH; their calls are logged to ``FAKE_LOG``."""
    d = tmp_path / "bin"
    d.mkdir()
    for name, src in (("claude", FAKE_CLAUDE), ("codex", FAKE_CODEX)):
        p = d / name
        p.write_text(f"#!{sys.executable}\n{src}")
        p.chmod(p.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    monkeypatch.setenv("PATH", f"{d}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "cli.log"))
    return d


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    p = tmp_path / "suite.json"
    p.write_text(json.dumps(SUITE))
    return p


@pytest.fixture
def skill_file(tmp_path: Path) -> Path:
    p = tmp_path / "SKILL.md"
    p.write_text(SKILL_TEXT)
    return p


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[BatchLoopback]:
    """The loopback fake of both batch APIs, the SDKs pointed at it."""
    yield from serving(monkeypatch)


def _close_in_flight(lane: Any, call: Any, started: Callable[[], bool], wait: float) -> None:
    """Start ``lane.attempt(call)`` in a thread, close the lane once ``started()``, and assert
    the attempt ended Halted within ``wait`` seconds and a later attempt is refused Halted."""
    from driftproof.run.providers.base import Halted

    ended: list[BaseException] = []

    def attempt() -> None:
        try:
            lane.attempt(call)
        except BaseException as exc:  # what the draw's thread receives
            ended.append(exc)

    t = threading.Thread(target=attempt, daemon=True)
    t.start()
    while not started():
        time.sleep(0.01)
    lane.close()
    t.join(wait)
    assert not t.is_alive() and [type(e) for e in ended] == [Halted]
    with pytest.raises(Halted):
        lane.attempt(call)


@pytest.fixture
def close_in_flight() -> Callable[[Any, Any, Callable[[], bool], float], None]:
    """Close a lane with an attempt in flight; it must end Halted (:func:`_close_in_flight`)."""
    return _close_in_flight
