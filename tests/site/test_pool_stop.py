"""A stop during a site build waits for the render workers before the stage is removed.

Found: Ctrl-C during `reports build` left a half-built `.site.build-XXXX` beside --out: a
worker still rendering when the build removed its stage made the folder again. Then: a second
SIGTERM arriving while the build waited for its workers hung it for ever (1 time in 30-40).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

#: The build's stop, then a second one sent by the running job while the first waits for it.
_CHILD = """
import os, signal, sys, time
from pathlib import Path
from driftproof import cli
from driftproof._pool import process_pool, stop_workers

def job(flag):
    while not os.path.exists(flag):
        time.sleep(0.01)
    time.sleep(0.3)  # the maker is in stop_workers, waiting for this job
    os.kill(os.getppid(), signal.SIGTERM)  # the second stop
    time.sleep(0.3)  # the job goes on rendering
    return "ran"

if __name__ == "__main__":
    flag = sys.argv[1]
    with cli._stops_interrupt():
        pool = process_pool(2)
        done = pool.submit(job, flag)
        try:
            raise KeyboardInterrupt  # the first stop, as the build waits for a page
        except KeyboardInterrupt:
            Path(flag).touch()
            try:
                stop_workers(pool)
            except KeyboardInterrupt:
                print("stopped once the workers ended:", done.result(), cli._STOPPED)
"""


def test_a_second_stop_while_the_build_waits_for_its_workers_does_not_hang(
    tmp_path: Path,
) -> None:
    # Found: the second SIGTERM's handler raised inside the wait for the pool's management
    # thread, which then counted as ended while it ran; the pool closed its queues under it
    # ("OSError: handle is closed"), the workers never got their stop, and the build hung at
    # exit joining them. The guard below only ends a hang; no time is measured.
    script = tmp_path / "child.py"
    script.write_text(_CHILD, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "stopping")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # the job ran to its end, then the second stop was raised: SIGTERM, 15
    expected = "stopped once the workers ended: ran [15]\n"
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")
