"""Many short jobs: worker processes that take no Ctrl-C and end with their maker; less cycle GC."""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing import get_context, parent_process
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes.

    Ctrl-C is the caller's to handle (a worker ignores it, so none prints a traceback), and a
    worker whose maker was killed (SIGKILL: it never reaps them) ends itself: it would
    otherwise wait on its job pipe for ever, holding the caller's output streams open. The
    semaphores such a kill leaves are removed without a word (:data:`_QUIET_TRACKER`).
    """
    sys.warnoptions.append(_QUIET_TRACKER)  # read as the pool's queues start the tracker
    try:
        return ProcessPoolExecutor(workers, get_context("spawn"), _worker_start)
    finally:
        sys.warnoptions.remove(_QUIET_TRACKER)


#: The warnings filter multiprocessing's resource tracker starts with. When the pool's maker
#: is killed (SIGKILL), the tracker removes the pool's semaphores itself; its warning that it
#: does so would come on the killed command's stderr after the shell said the command ended.
_QUIET_TRACKER = "ignore::UserWarning:multiprocessing.resource_tracker"


#: Seconds :func:`stop_workers` waits for a pool's running jobs before it ends their workers.
STOP_GRACE = 5.0


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Cancel ``pool``'s queued jobs and wait for its running ones, even through a further stop.

    Its workers may write into the caller's staging folder: one still running when the caller
    removes that folder would make it again, half-built. Jobs still running after
    :data:`STOP_GRACE` seconds (a stuck one) have their workers ended (SIGTERM), then waited
    for. A SIGINT or SIGTERM during the wait is raised once the workers have ended
    (:func:`stops_held`): raised inside it, it would leave the pool's managing thread counted
    as ended while it runs (``Thread.join`` interrupted so, Python 3.11), its queues closed
    under it and its workers never stopped.
    """
    with stops_held():
        workers = list((pool._processes or {}).values())  # shutdown forgets them
        ender = threading.Thread(target=pool.shutdown, kwargs={"cancel_futures": True})
        ender.start()
        ender.join(STOP_GRACE)
        for worker in workers if ender.is_alive() else ():
            worker.terminate()  # the pool, broken, ends the others; its shutdown then returns
        ender.join()


@contextmanager
def stops_held() -> Iterator[None]:
    """A SIGINT or SIGTERM arriving in the block handed to its handler after it, not inside.

    On the main thread, for a signal whose handler is a Python callable; the first one that
    came is handed over (its handler raises, as Ctrl-C's does), once the block ended normally.
    """
    held: dict[int, Any] = {}
    came: list[tuple[int, FrameType | None]] = []
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            if callable(was := signal.getsignal(sig)):
                held[sig] = was
                signal.signal(sig, lambda signum, frame: came.append((signum, frame)))
    try:
        yield
    finally:
        for signum, handler in held.items():
            signal.signal(signum, handler)
    if came:
        signum, frame = came[0]
        held[signum](signum, frame)


def _worker_start() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent,), daemon=True).start()


def _end_with(parent: BaseProcess) -> None:
    parent.join()  # returns when the parent's sentinel closes: it has ended
    os._exit(1)


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused for a job, or the loop over the jobs; then as it was.

    A job's short-lived objects are freed by their reference counts; a collection would walk
    every live object (models, templates, the build's index) and find next to nothing.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextmanager
def live_objects_frozen() -> Iterator[None]:
    """Every object alive now left out of cycle collections for a job, then put back.

    A job that makes short-lived cycles (the standard library's indented JSON encoder makes
    some at each call) beside a large live heap (a receipt's models) would walk that heap at
    each full collection; the job's own cycles are still collected. Nothing else here freezes.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
