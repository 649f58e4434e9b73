"""A stop during a site build waits for the render workers before the stage is removed.

Found: Ctrl-C during `reports build` left a half-built `.site.build-XXXX` beside --out: a
worker still rendering when the build removed its stage made the folder again. Then: a second
SIGTERM arriving while the build waited for its workers hung it for ever (1 time in 30-40); and
two SIGTERMs late in a build left its stage about 1 time in 4: the second cut short the removal
of the stage the first had begun; and a worker stuck in a page held a stopped build for ever.
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


def _child(code: str, tmp_path: Path, arg: Path) -> tuple[int, str, str]:
    """Run ``code`` as a script (its workers import it) with ``arg``; the guard only ends a hang."""
    script = tmp_path / "child.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(arg)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def test_a_second_stop_while_the_build_waits_for_its_workers_does_not_hang(
    tmp_path: Path,
) -> None:
    # Found: the second SIGTERM's handler raised inside the wait for the pool's management
    # thread, which then counted as ended while it ran; the pool closed its queues under it
    # ("OSError: handle is closed"), the workers never got their stop, and the build hung at
    # exit joining them. The guard below only ends a hang; no time is measured.
    # the job ran to its end, then the second stop was raised: SIGTERM, 15
    expected = "stopped once the workers ended: ran [15]\n"
    assert _child(_CHILD, tmp_path, tmp_path / "stopping") == (0, expected, "")


#: The build stopped (the first stop, as mkdocs builds), the second as the stage is removed.
_STAGE_CHILD = """
import os, shutil, signal, sys
from pathlib import Path
from driftproof import cli
from driftproof.site import publish
from driftproof.site._paths import default_config

def build(cfg):
    raise KeyboardInterrupt  # the first stop

real = shutil.rmtree

def rmtree(path, *args, **kwargs):
    if ".build-" in str(path):
        os.kill(os.getpid(), signal.SIGTERM)  # the second stop
    real(path, *args, **kwargs)

publish.build, shutil.rmtree = build, rmtree
top = Path(sys.argv[1])
for name in ("receipts", "reports"):
    (top / name).mkdir()
with cli._stops_interrupt():
    try:
        publish.build_site(
            top / "receipts", top / "reports", top / "site", config_file=default_config(),
            cache_dir=False,
        )
    except KeyboardInterrupt:
        print(sorted(p.name for p in top.iterdir()), cli._STOPPED)
"""


def test_a_second_stop_as_the_stage_is_removed_leaves_no_stage(tmp_path: Path) -> None:
    # nothing but the inputs; the second stop (SIGTERM, 15) was raised after the removal
    (top := tmp_path / "top").mkdir()
    assert _child(_STAGE_CHILD, tmp_path, top) == (0, "['receipts', 'reports'] [15]\n", "")


#: ``reports build`` whose render never ends: its first worker stops the build twice.
_STUCK_CHILD = """
import os, signal, sys, time
from driftproof.site import receipt_jobs

def stuck(self, job):
    try:
        os.close(os.open(sys.argv[1] + "/stopping", os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        pass  # another worker stops the build
    else:
        os.kill(os.getppid(), signal.SIGTERM)  # the first stop, as the build waits for a page
        time.sleep(0.3)  # the build is in stop_workers, waiting for this job
        os.kill(os.getppid(), signal.SIGTERM)  # the second stop
    while True:  # a render that never ends
        time.sleep(60)

if __name__ == "__mp_main__":  # a worker, which runs this file under that name
    receipt_jobs.Renderer.__call__ = stuck

if __name__ == "__main__":
    from driftproof import cli
    from driftproof.site._paths import default_config
    receipt_jobs.POOL_FROM, os.cpu_count = 1, lambda: 2  # two workers for the three receipts
    top = sys.argv[1]
    cli.main(
        ["reports", "build", "--receipts", top + "/receipts", "--reports", top + "/reports"]
        + ["--out", top + "/site", "--config", str(default_config()), "--no-cache"]
    )
"""


def test_a_build_stopped_twice_ends_its_stuck_render_workers(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    # Found: the wait for the render workers had no bound; a worker stuck in a page held the
    # stopped build for ever, a second stop held until it ended. Now their workers are ended
    # after the grace period: the stage is removed, and the build says "interrupted" once,
    # exit status 130. The guard in _child only ends a hang; no time is measured.
    said = _child(_STUCK_CHILD, tmp_path, tmp_path)
    assert said == (130, "", "\ninterrupted\n")  # click ends the line it was on first
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "child.py",
        "receipts",
        "reports",
        "stopping",
    ]
