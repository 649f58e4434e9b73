"""Retries, concurrency and the stopping rule of ``driftproof run``; lost draws stay lost (D-9)."""

from __future__ import annotations

import dataclasses
import itertools
import queue
import signal
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from driftproof.run.providers.base import AttemptError, DrawId, Halted, Provider, Reply
from driftproof.wording import MIN_DRAWS_PER_ARM


@dataclass(frozen=True)
class RetryPolicy:
    """How a call is retried (receipt ``run.retry``).

    ``max_attempts`` counts the first; waits are in seconds: ``initial_s`` doubles each retry,
    ``max_wait_s`` caps every wait, ``retry-after`` included; ``delays``, a fixed schedule (the
    hidden ``--retry-delays``), makes ``max_attempts`` ``len(delays) + 1``.
    """

    max_attempts: int = 4
    initial_s: float = 2.0
    max_wait_s: float = 120.0
    delays: tuple[float, ...] | None = None

    @classmethod
    def fixed(cls, delays: Sequence[float]) -> RetryPolicy:
        """Waits exactly ``delays`` (still lengthened to a ``retry-after``, up to the cap)."""
        d = tuple(float(x) for x in delays)
        return cls(max_attempts=len(d) + 1, max_wait_s=max([120.0, *d]), delays=d)

    def doc(self) -> dict[str, Any]:
        """The receipt's ``run.retry``: ``{max_attempts, max_wait_s, backoff}``."""
        backoff = (
            f"fixed waits {', '.join(f'{d:g} s' for d in self.delays)}; at least retry-after"
            if self.delays is not None
            else f"jittered exponential: {self.initial_s:g} s x 2^k + up to {self.initial_s:g} s "
            "jitter; at least retry-after / retry-after-ms"
        )
        return {
            "max_attempts": self.max_attempts,
            "max_wait_s": self.max_wait_s,
            "backoff": backoff,
        }


MIN_DRAWS = MIN_DRAWS_PER_ARM
MAX_DRAWS = 10
SETTLE = 0.01

T = TypeVar("T")


class LostDraw(Exception):
    """The attempts failed; ``reason`` goes on the lost draw or invalid judge sample."""

    def __init__(self, reason: str, *, error_class: str | None, status: int | None) -> None:
        """The last attempt's ``reason``, error class and HTTP status (``None`` without one)."""
        super().__init__(reason)
        self.reason, self.error_class, self.status = reason, error_class, status


class FatalRun(Exception):
    """Every further call would fail too (a bad key, no credit, an unknown model: HTTP 400-422).

    ``status``: the failed attempt's HTTP status (``None`` without one); ``lane``: ``"answer"``
    or ``"judge"``: the lane whose call failed (``None`` for a batch's own failure).
    """

    def __init__(self, reason: str, *, status: int | None = None, lane: str | None = None) -> None:
        """Keep the reason, the status and the lane."""
        super().__init__(reason)
        self.status, self.lane = status, lane


class StopRun(Exception):
    """The run stops after this draw was journaled (another model gave the answer)."""


class Counter:
    """A thread-safe count of endpoint attempts, with an optional hook per attempt."""

    def __init__(self, start: int = 0, hook: Callable[[], None] | None = None) -> None:
        """Start at ``start``; ``hook`` is called on each count."""
        self.value = start
        self._lock = threading.Lock()
        self._hook = hook

    def add(self) -> None:
        """Count one attempt (thread-safe)."""
        with self._lock:
            self.value += 1
        if self._hook:
            self._hook()


def attempts(lane: Provider, draw: DrawId, **call: Any) -> Callable[[], Reply]:
    """Attempts of ``lane.call(**call)``, each identified by ``draw`` and its number from 0."""
    tries = itertools.count()
    return lambda: lane.call(**call, draw=dataclasses.replace(draw, attempt=next(tries)))


def with_retries(
    fn: Callable[[], T],
    *,
    policy: RetryPolicy | None = None,
    sleep: Callable[[float], None] = time.sleep,
    on_attempt: Callable[[], None] | None = None,
    attempts: list[dict[str, Any]] | None = None,
    lane: str | None = None,
) -> T:
    """Call ``fn`` (one attempt each), retrying transient :class:`AttemptError` s through tenacity.

    ``policy`` defaults to :class:`RetryPolicy`; ``on_attempt`` runs before every attempt (may
    raise to halt); ``attempts`` receives every failed attempt ``{error, error_class, status,
    wait_s}`` (``wait_s``: the wait that followed, seconds; ``None`` after the last); ``lane``
    (``"answer"`` or ``"judge"``) is named on a :class:`FatalRun`.

    Raises:
        LostDraw: every attempt failed, or one failed in a way a retry cannot fix.
        FatalRun: an attempt failed fatally.
    """
    from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

    pol = policy or RetryPolicy()
    log: list[dict[str, Any]] = attempts if attempts is not None else []
    first = len(log)
    expo = wait_exponential_jitter(
        multiplier=pol.initial_s, max=pol.max_wait_s, jitter=pol.initial_s
    )

    def wait(state: Any) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        k = state.attempt_number
        if k >= pol.max_attempts:  # tenacity asks for the wait before it checks the stop
            return 0.0
        base = pol.delays[k - 1] if pol.delays is not None else expo(state)
        ra = getattr(exc, "retry_after", None)
        w = round(min(max(base, ra or 0.0), pol.max_wait_s), 3)
        if len(log) > first:
            log[-1]["wait_s"] = w
        return w

    def one() -> T:
        if on_attempt:
            on_attempt()
        try:
            return fn()
        except AttemptError as exc:
            if len(log) < 100:
                said = {"error": exc.reason[:2000], "error_class": exc.error_class}
                log.append(said | {"status": exc.status, "wait_s": None})
            raise

    retrying = Retrying(
        stop=stop_after_attempt(max(1, pol.max_attempts)),
        wait=wait,
        sleep=sleep,
        reraise=True,
        retry=retry_if_exception(lambda e: isinstance(e, AttemptError) and e.retryable),
    )
    try:
        return retrying(one)
    except AttemptError as exc:
        if exc.fatal:
            raise FatalRun(exc.reason, status=exc.status, lane=lane) from exc
        raise _lost(exc, log[first:]) from exc


def _lost(exc: AttemptError, mine: list[dict[str, Any]]) -> LostDraw:
    """The lost draw: the last error, its class, attempts, waits and earlier errors.

    Its reason has no brackets of its own (``HTTP 400: bad request; not retryable, 1 attempt``):
    ``view`` and ``diff`` show it inside brackets.
    """
    waits = [a["wait_s"] for a in mine if a["wait_s"] is not None]
    n = len(mine)
    retried = "" if not waits else ", retried after " + " and ".join(f"{w:g} s" for w in waits)
    earlier = [e for e in dict.fromkeys(a["error"] for a in mine[:-1]) if e != exc.reason]
    more = f"; earlier: {'; '.join(earlier)}" if earlier else ""
    kind = "transient" if exc.retryable else "not retryable"  # "fatal" is for a run that stops
    return LostDraw(
        f"{exc.reason}; {kind}, {n} attempt{'s' if n > 1 else ''}{retried}{more}",
        error_class=exc.error_class,
        status=exc.status,
    )


def needs_more(
    scores: Sequence[float | None],
    *,
    min_draws: int = MIN_DRAWS,
    max_draws: int = MAX_DRAWS,
    settle: float = SETTLE,
) -> bool:
    """Whether an arm with these per-draw scores (draw order, ``None`` lost) gets another.

    ``min_draws`` at least, then one more at a time while the sample sd of the measured scores
    moves by ``settle`` or more, up to ``max_draws``.
    """
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
Key = tuple[str, str, int]


class DrawPlan:
    """How many draws each cell (case id, arm) gets, the stopping rule read as scores arrive.

    ``done`` holds finished scores keyed (case, arm, index); ``planned`` the draws per cell.
    """

    def __init__(
        self, done: dict[Key, float | None], min_draws: int, max_draws: int, settle: float
    ) -> None:
        """Plan over ``done`` with the stopping rule's ``min_draws``, ``max_draws``, ``settle``."""
        self.done, self.min_draws, self.max_draws, self.settle = done, min_draws, max_draws, settle
        self.planned: dict[Cell, int] = {}

    def extend(self, cell: Cell) -> int:
        """Plan more draws of ``cell`` while the stopping rule asks; return how many."""
        before = self.planned.setdefault(cell, self.min_draws)
        while all((*cell, i) in self.done for i in range(self.planned[cell])):
            scores = [self.done[(*cell, i)] for i in range(self.planned[cell])]
            if not needs_more(
                scores, min_draws=self.min_draws, max_draws=self.max_draws, settle=self.settle
            ):
                break
            self.planned[cell] += 1
        return self.planned[cell] - before

    def missing(self, cell: Cell) -> list[Key]:
        """The planned draws of ``cell`` not finished yet."""
        return [(*cell, i) for i in range(self.planned[cell]) if (*cell, i) not in self.done]

    def counts(self) -> tuple[int, int]:
        """(draws finished among those planned, draws planned)."""
        n = sum(1 for k in self.done if k[2] < self.planned.get((k[0], k[1]), 0))
        return n, sum(self.planned.values())


def _first_error(kept: BaseException | None, new: BaseException) -> BaseException:
    """The error to raise: the first real one (a draw that saw the halt only echoes it)."""
    if kept is None or (isinstance(kept, Halted) and not isinstance(new, Halted)):
        return new
    return kept


def _guarded(
    task: Callable[[str, str, int], float | None], halt: threading.Event, stopping: threading.Event
) -> Callable[[str, str, int], float | None]:
    """``task``, refused (:class:`Halted`) once ``halt`` or ``stopping`` is set.

    A :class:`StopRun` sets ``stopping``: no draw starts after it, and the draws in flight
    finish, so a stopped run's receipt holds each cell's first draws, none missing before
    another. Any other error sets ``halt``: the draws in flight end at their next attempt.
    """

    def run(case_id: str, arm: str, index: int) -> float | None:
        if halt.is_set() or stopping.is_set():
            raise Halted()
        try:
            return task(case_id, arm, index)
        except StopRun:
            stopping.set()
            raise
        except BaseException:
            halt.set()
            raise

    return run


class HeldStops:
    """While draws are in flight, SIGINT and SIGTERM take effect only where :meth:`wait` waits.

    Raised anywhere else in the main thread (inside the thread pool's, a future's or the progress
    bar's lock, or the import system), a stop could leave a lock held and the run waiting on it
    for ever: there the handler only records it, and the next :meth:`wait`, or the end of the
    block, hands it to the handler it stands in for, which raises it. Off the main thread, and
    for a signal whose handler is not a Python callable (the default, ignored), nothing changes.
    """

    def __init__(self) -> None:
        """No stop recorded; not waiting."""
        self.waiting = False
        self.pending: int | None = None
        self.held: dict[int, Callable[[int, Any], Any]] = {}

    def __enter__(self) -> HeldStops:
        """Stand in for the handlers of SIGINT and SIGTERM (on the main thread)."""
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                if callable(was := signal.getsignal(sig)):
                    self.held[sig] = was
                    signal.signal(sig, self._handle)
        return self

    def __exit__(self, *_exc: object) -> None:
        """Give the handlers back, then hand over a stop recorded since the last wait.

        From here a stop is raised at once, also one arriving before its handler is back.
        """
        self.waiting = True
        for sig, was in self.held.items():
            signal.signal(sig, was)
        self._hand_over()

    def _handle(self, signum: int, frame: Any) -> None:
        if self.waiting:
            self.held[signum](signum, frame)
        elif self.pending is None:
            self.pending = signum

    def _hand_over(self) -> None:
        signum, self.pending = self.pending, None
        if signum is not None:
            self.held[signum](signum, None)

    def wait(self, get: Callable[[], T]) -> T:
        """``get()``, a stop recorded before it or arriving during it handed over (raised)."""
        self.waiting = True
        try:
            self._hand_over()
            return get()
        finally:
            self.waiting = False


def run_cells(
    cells: Sequence[Cell],
    done: dict[Key, float | None],
    task: Callable[[str, str, int], float | None],
    *,
    concurrency: int,
    min_draws: int,
    max_draws: int,
    settle: float = SETTLE,
    on_done: Callable[[int, int], None] | None = None,
    halt: threading.Event | None = None,
    on_stop: Callable[[int], None] | None = None,
) -> None:
    """Draw every cell (case id, arm) until the stopping rule is met, ``concurrency`` at a time.

    ``done`` (resumed scores keyed (case, arm, index)) is updated; ``task`` makes, judges and
    journals one draw and returns its score (``None`` if lost); ``on_done(finished, planned)``
    follows each draw; ``halt`` is set as soon as a draw raises (but for :class:`StopRun`), so
    that nothing further starts; ``on_stop(n)`` is told at a Ctrl-C (raised where the main
    thread waits for a draw: :class:`HeldStops`) that ``n`` draws (over 0) finish their attempt.

    Raises:
        StopRun: pending draws are cancelled and running ones finish (and are journaled) first.
        FatalRun: a fatal attempt error; like any other task error, pending draws are cancelled
            and running ones end at their next attempt (``halt``), unfinished.
    """
    plan = DrawPlan(done, min_draws, max_draws, settle)
    halt = halt if halt is not None else threading.Event()
    futures: dict[Future[float | None], Key] = {}
    finished: queue.SimpleQueue[Future[float | None]] = queue.SimpleQueue()
    guarded = _guarded(task, halt, threading.Event())

    def cancel(halting: bool = True) -> None:
        if halting:
            halt.set()
        for fut in futures:
            fut.cancel()

    def submit(pool: ThreadPoolExecutor, cell: Cell) -> None:
        in_flight = set(futures.values())
        for key in plan.missing(cell):
            if key not in in_flight:
                fut = pool.submit(guarded, *key)
                futures[fut] = key
                fut.add_done_callback(finished.put)

    error: BaseException | None = None
    workers = max(1, concurrency)
    with ThreadPoolExecutor(workers, thread_name_prefix="draw") as pool, HeldStops() as stops:
        for cell in cells:
            plan.extend(cell)
            submit(pool, cell)
        n_done, n_planned = plan.counts()
        if on_done:
            on_done(n_done, n_planned)
        try:
            while futures:
                fut = stops.wait(finished.get)
                case_id, arm, index = futures.pop(fut)
                if fut.cancelled():
                    continue
                if (exc := fut.exception()) is not None:
                    error = _first_error(error, exc)
                    cancel(halting=not isinstance(error, StopRun))
                    continue
                plan.done[(case_id, arm, index)] = fut.result()
                n_done += 1
                if error is None:
                    n_planned += plan.extend((case_id, arm))
                    submit(pool, (case_id, arm))
                if on_done:
                    on_done(n_done, n_planned)
        except BaseException as stop:
            cancel()
            running = sum(1 for f in futures if f.running())
            if on_stop and running and isinstance(stop, KeyboardInterrupt):
                on_stop(running)
            raise
    if error is not None:
        raise error
