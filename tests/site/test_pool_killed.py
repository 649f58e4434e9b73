"""A build killed (SIGKILL) while its workers render writes nothing more on its error stream.

Found: after `kill -KILL` of `reports build`, multiprocessing's resource tracker (the process
that removes the semaphores of a pool whose maker died) printed "UserWarning: resource_tracker:
There appear to be 5 leaked semaphore objects to clean up at shutdown" once the shell had
reported the kill, into the stderr of the command (or a file the next command wrote again).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

#: A pool whose first job kills its maker, as `kill -KILL` ends a build that is rendering.
_KILLED = """
import os, signal
from driftproof._pool import process_pool

def job(_):
    os.kill(os.getppid(), signal.SIGKILL)

if __name__ == "__main__":
    process_pool(2).submit(job, 0).result()
"""


def test_a_build_killed_while_its_workers_render_prints_nothing_after(tmp_path: Path) -> None:
    # the streams close once the maker, its workers (they end with it) and its resource tracker
    # have all ended: what they printed is all there; the guard only ends a hang
    script = tmp_path / "child.py"
    script.write_text(_KILLED, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (-signal.SIGKILL, "", "")
