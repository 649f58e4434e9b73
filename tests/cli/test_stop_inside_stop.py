"""A second stop arriving while the handler of the first one runs is taken, never waited on."""

from __future__ import annotations

import subprocess
import sys

#: The child: a second SIGINT's handler runs at every call made inside the first's handler.
CHILD = r"""
import signal, sys
from driftproof import cli

taken = []

def nested(frame, event, arg):
    if event not in ("call", "c_call") or frame.f_code.co_name == "nested":
        return
    chain, f = [], frame
    while f is not None:
        chain.append(f.f_code.co_name)
        f = f.f_back
    if "_stop" not in chain:
        return
    sys.setprofile(None)
    try:
        cli._stop(signal.SIGINT, None)
    except KeyboardInterrupt:
        taken.append(1)
    sys.setprofile(nested)

with cli._stops_interrupt():
    sys.setprofile(nested)
    try:
        cli._stop(signal.SIGINT, None)
    except KeyboardInterrupt:
        sys.setprofile(None)
        print("interrupted", bool(taken), bool(cli._STOPPED))
"""


def test_a_second_stop_inside_the_first_ones_handler_does_not_hang():
    # Found: `run` resumed and sent SIGINT then SIGTERM hung for ever, its threads asleep: the
    # handler set a threading.Event, whose lock the second signal's handler, run inside the
    # first's, waited on. The guard below only ends a hang; no time is measured
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "interrupted True True\n", "")
