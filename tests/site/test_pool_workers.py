"""The site build's worker processes take no Ctrl-C of their own and end when the build ends,
even when it is killed (SIGKILL): orphans would hold its output streams open for ever."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

_HOLDER = """
import os, sys, time
from driftproof.site.receipt_jobs import job_pool
with job_pool(1000) as submit:
    for _ in range(os.cpu_count() or 1):
        submit(time.sleep, 120)  # each worker busy, as in a long render
    time.sleep(3)  # the workers started
    print("ready", flush=True)
    time.sleep(120)
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie no reaper collected counts as ended)."""
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


def _workers_of(parent: int) -> list[int]:
    """The pool workers (``spawn_main`` processes) whose parent is ``parent``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"spawn_main" in cmdline:
            found.append(int(stat.parent.name))
    return found


def test_workers_ignore_ctrl_c_and_end_when_the_build_is_killed() -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "ready\n"
        pids = _workers_of(holder.pid)
        assert len(pids) >= 2
        for pid in pids:
            os.kill(pid, signal.SIGINT)
        time.sleep(1)
        assert all(map(_running, pids)), "a worker ended on Ctrl-C"
        holder.kill()
        holder.wait()
        deadline = time.monotonic() + 20
        while any(map(_running, pids)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(map(_running, pids)), "a worker outlived the killed build"
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(holder.pid, signal.SIGKILL)  # what the old code left, gone
