"""A second stop arriving as a stopped site build removes its stage still leaves no stage.

Found: `reports build` sent two SIGTERMs close together left its `.site.build-XXXX` folder
beside --out (until the next build) about 1 time in 4 when they came late in the build: the
second one cut short the removal of the stage the first one had begun.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

#: The build stopped (the first stop, as mkdocs builds), the second as the stage is removed.
_CHILD = """
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
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # nothing but the inputs; the second stop (SIGTERM, 15) was raised after the removal
    expected = "['receipts', 'reports'] [15]\n"
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")
