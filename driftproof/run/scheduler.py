"""Concurrency, retries, timeouts and the stopping rule of ``driftproof run``.

Retries (caveman evals README; issue 5): a failed or timed-out attempt is retried twice,
after 5 s and then 20 s (:data:`RETRY_DELAYS`, injectable). Every attempt is counted when it
is made, retries and timeouts included. An attempt that still fails makes the draw lost,
with its reason; an attempt error marked fatal (bad key, unknown model) stops the run.

Stopping rule (method, "Where a band comes from": "at least three times, and more until the
across-draw spread settles"): every arm of every case is drawn :data:`MIN_DRAWS` = 3 times.
Then, arm by arm, one more draw is made while the spread has not settled, up to a cap of
:data:`MAX_DRAWS` = 10 draws per arm (Report 006 probed ten draws). The spread has settled
when the sample standard deviation of the arm's measured per-draw scores moves by less than
:data:`SETTLE` = 0.01 (a fifth of the 0.05 effect floor) when its latest measured draw is
added. Lost draws are not replaced: an arm with fewer than three measured draws stops
extending (its spread cannot be read), and the receipt names its lost draws (D-9).
"""

from __future__ import annotations

import queue
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from driftproof.run.providers.base import AttemptError

__all__ = ["Counter", "FatalRun", "Halted", "LostDraw", "MAX_DRAWS", "MIN_DRAWS", "RETRY_DELAYS", "SETTLE", "StopRun",
           "needs_more", "run_cells", "with_retries"]

RETRY_DELAYS: tuple[float, ...] = (5.0, 20.0)
MIN_DRAWS = 3
MAX_DRAWS = 10
SETTLE = 0.01

T = TypeVar("T")


class LostDraw(Exception):
    """The attempts failed; ``reason`` goes on the lost draw or the invalid judge sample."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class FatalRun(Exception):
    """Every further call would fail too (bad key, unknown model, missing binary): stop the run."""


class StopRun(Exception):
    """The run stops after this draw was journaled (another model gave the answer)."""


class Halted(Exception):
    """Raised in a draw when the run is stopping: the draw is not finished, so not journaled."""


class Counter:
    """A thread-safe count of endpoint attempts, with an optional hook per attempt."""

    def __init__(self, start: int = 0, hook: Callable[[], None] | None = None) -> None:
        self.value = start
        self._lock = threading.Lock()
        self._hook = hook

    def add(self) -> None:
        with self._lock:
            self.value += 1
        if self._hook:
            self._hook()


def with_retries(fn: Callable[[], T], *, delays: Sequence[float] = RETRY_DELAYS,
                 sleep: Callable[[float], None] = time.sleep, on_attempt: Callable[[], None] | None = None) -> T:
    """Call ``fn`` (one attempt each), retrying per ``delays``.

    Raises:
        LostDraw: every attempt failed, or one failed in a way a retry cannot fix.
        FatalRun: an attempt failed fatally.
    """
    reasons: list[str] = []
    for k in range(len(delays) + 1):
        if k:
            sleep(delays[k - 1])
        if on_attempt:
            on_attempt()
        try:
            return fn()
        except AttemptError as exc:
            if exc.fatal:
                raise FatalRun(exc.reason) from exc
            reasons.append(exc.reason)
            if not exc.retryable:
                break
    retried = "" if len(reasons) == 1 else ", retried after " + " and ".join(f"{d:g} s" for d in delays[:len(reasons) - 1])
    last = reasons[-1]
    earlier = [r for r in reasons[:-1] if r != last]
    more = f"; earlier: {'; '.join(earlier)}" if earlier else ""
    raise LostDraw(f"{last} ({len(reasons)} attempt{'s' if len(reasons) > 1 else ''}{retried}){more}")


def needs_more(scores: Sequence[float | None], *, min_draws: int = MIN_DRAWS, max_draws: int = MAX_DRAWS,
               settle: float = SETTLE) -> bool:
    """Whether an arm with these per-draw scores (in draw order; ``None`` = lost) gets another draw."""
    drawn = len(scores)
    if drawn < min_draws:
        return True
    if drawn >= max_draws:
        return False
    measured = [s for s in scores if s is not None]
    if len(measured) < 3:
        return False
    return abs(statistics.stdev(measured) - statistics.stdev(measured[:-1])) >= settle


Cell = tuple[str, str]


def run_cells(cells: Sequence[Cell], done: dict[tuple[str, str, int], float | None],
              task: Callable[[str, str, int], float | None], *, concurrency: int, min_draws: int, max_draws: int,
              settle: float = SETTLE, on_done: Callable[[int, int], None] | None = None,
              halt: threading.Event | None = None) -> None:
    """Draw every cell (case id, arm) until the stopping rule is met.

    Args:
        done: scores of draws already finished (resume), keyed (case, arm, index); updated.
        task: makes, judges and journals one draw; returns its score (``None`` if lost).
        on_done: called with (draws finished, draws planned so far) after each draw.
        halt: set (by the worker itself) as soon as a draw raises, so that no further draw
            starts and no further attempt is made.

    Raises:
        FatalRun / StopRun / any task error: pending draws are cancelled, running ones finish
        (and are journaled) first.
    """
    planned: dict[Cell, int] = {}
    futures: dict[Future, tuple[str, str, int]] = {}
    in_flight: set[tuple[str, str, int]] = set()
    finished_q: queue.SimpleQueue[Future] = queue.SimpleQueue()
    halt = halt if halt is not None else threading.Event()

    def guarded(case_id: str, arm: str, index: int) -> float | None:
        if halt.is_set():
            raise Halted()
        try:
            return task(case_id, arm, index)
        except BaseException:
            halt.set()
            raise

    def scores(cell: Cell) -> list[float | None]:
        return [done[(cell[0], cell[1], i)] for i in range(planned[cell])]

    def plan(cell: Cell) -> None:
        while all((cell[0], cell[1], i) in done for i in range(planned[cell])):
            if not needs_more(scores(cell), min_draws=min_draws, max_draws=max_draws, settle=settle):
                return
            planned[cell] += 1

    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="draw") as pool:
        def submit_missing(cell: Cell) -> None:
            for i in range(planned[cell]):
                key = (cell[0], cell[1], i)
                if key not in done and key not in in_flight:
                    fut = pool.submit(guarded, *key)
                    futures[fut] = key
                    in_flight.add(key)
                    fut.add_done_callback(finished_q.put)

        for cell in cells:
            planned[cell] = min_draws
            plan(cell)
            submit_missing(cell)
        n_done = sum(1 for k in done if (k[0], k[1]) in planned and k[2] < planned[(k[0], k[1])])
        n_planned = sum(planned.values())
        if on_done:
            on_done(n_done, n_planned)
        error: BaseException | None = None
        try:
            while futures:
                fut = finished_q.get()
                key = futures.pop(fut)
                in_flight.discard(key)
                if fut.cancelled():
                    continue
                exc = fut.exception()
                if exc is not None:
                    # keep the first real error; a draw that saw the halt only echoes it
                    if error is None or (isinstance(error, Halted) and not isinstance(exc, Halted)):
                        error = exc
                    halt.set()
                    for other in futures:
                        other.cancel()
                    continue
                done[key] = fut.result()
                n_done += 1
                if error is None:
                    cell = (key[0], key[1])
                    before = planned[cell]
                    plan(cell)
                    n_planned += planned[cell] - before
                    submit_missing(cell)
                if on_done:
                    on_done(n_done, n_planned)
        except BaseException:
            halt.set()
            for fut in futures:
                fut.cancel()
            raise
        if error is not None:
            raise error
