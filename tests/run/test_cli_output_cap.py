"""A harness that prints without end is read up to a cap, then its group is killed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import driftproof.run.providers.cli as lane
from driftproof.run.providers.base import AttemptError
from driftproof.run.providers.cli import run_process


@pytest.mark.parametrize("where", ["stdout", "stderr"])
def test_a_harness_printing_endlessly_loses_the_call_at_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    # Found: run_process read a harness's whole output however long, as long as the timeout ran
    monkeypatch.setattr(lane, "OUTPUT_MAX_BYTES", 2**20)  # 1 MiB: the test stays small
    script = tmp_path / "claude"
    script.write_text(f"#!/bin/sh\nexec yes {'>&2' if where == 'stderr' else ''}\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    began = time.monotonic()
    with pytest.raises(AttemptError) as info:
        run_process(["claude", "-p"], stdin="the task", cwd=str(tmp_path), timeout=60)
    assert time.monotonic() - began < 20  # not the timeout: stopped at the cap
    assert info.value.reason == (
        "claude printed more than 1,048,576 bytes (1 MiB), the most one call may print; "
        "the rest unread"
    )
    assert not info.value.retryable and not info.value.fatal


def test_a_harness_reading_its_task_prints_it_back_whole(tmp_path: Path) -> None:
    # the task goes in whole (past a pipe's 64 KiB) while the answer comes out; CRLF reads as LF
    task = "x" * 300_000 + "\n"
    got = run_process(
        ["sh", "-c", "cat; printf 'a\\r\\nb' >&2"], stdin=task, cwd=str(tmp_path), timeout=60
    )
    assert got == (0, task, "a\nb")


def test_a_harness_whose_version_prints_endlessly_stops_the_lane_at_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: the lane's start read `claude --version` whole, however long, for up to 60 s
    from driftproof.errors import ProviderError
    from driftproof.run.providers.claude_cli import ClaudeCLI

    monkeypatch.setattr(lane, "OUTPUT_MAX_BYTES", 2**20)
    script = tmp_path / "claude"
    script.write_text("#!/bin/sh\nexec yes 2.1.288\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(ProviderError) as info:
        ClaudeCLI().start()
    assert str(info.value) == (
        f"cannot run {script} --version: {script} printed more than 1,048,576 bytes (1 MiB), "
        "the most one call may print; the rest unread"
    )


def test_a_timeout_of_months_waits_for_the_harness_as_given(tmp_path: Path) -> None:
    # Found: a --timeout past about 24 days (2**31 ms) overflowed the wait, and the call was
    # lost as "printed more than 67,108,864 bytes" though it printed three
    assert run_process(["sh", "-c", "echo hi"], stdin="", cwd=str(tmp_path), timeout=1e7) == (
        0,
        "hi\n",
        "",
    )
