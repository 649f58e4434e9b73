"""``driftproof run --batch``: the run's rounds as provider batches, a transport only.

A round is every request the run can make now, one batch per lane. Draws are made by the
engine's draw maker fed replay lanes and requests built by the real lanes' builders, so a batch
request is the interactive request; a failed one is retried in a follow-up batch by the rule of
:func:`~driftproof.run.scheduler.with_retries`.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from driftproof.errors import RefusalError
from driftproof.run.batch import BatchJournal, BatchLane, Outcome, outcome_from_doc
from driftproof.run.batch_io import BatchIO
from driftproof.run.providers.base import AttemptError, Provider, Reply
from driftproof.run.scheduler import DrawPlan

#: Threads that make draws from their results (their journal writes share fsyncs).
REPLAY_THREADS = 8


class _NeedCall(Exception):
    """A replay lane ran out of outcomes: the draw maker wants this call (``args[0]``, keywords)."""


#: What a replay lane reports as its real lane does.
_LANE_FACTS = "name surface capture service harness_name keep_raw channel sends_budget".split()


class _Replay(Provider):
    """A real lane's stand-in: this thread's queued outcomes, then :class:`_NeedCall`."""

    makes_endpoint_attempts = False

    def __init__(self, real: Provider) -> None:
        self.real = real
        for name in _LANE_FACTS:
            setattr(self, name, getattr(real, name))
        self.local = threading.local()

    def sampling(self, max_tokens: int) -> dict[str, Any]:
        return self.real.sampling(max_tokens)

    def call(self, **kw: Any) -> Reply:
        q: deque[Outcome] = self.local.queue
        if not q:
            raise _NeedCall(kw)
        o = q.popleft()
        if isinstance(o, AttemptError):
            raise o
        return o


def _resolved(outs: Sequence[Outcome], budget: int) -> bool:
    """Whether a call's attempts are over: success, an unretryable failure, or the budget used."""
    if not outs:
        return False
    last = outs[-1]
    return isinstance(last, Reply) or not last.retryable or last.fatal or len(outs) >= budget


Key = tuple[str, str, int]


class BatchRounds:
    """The rounds of ``driftproof run --batch``; :meth:`run` draws every cell."""

    def __init__(
        self,
        cells: Sequence[tuple[str, str]],
        done: dict[Key, float | None],
        drawer: Any,
        *,
        lanes: dict[str, BatchLane],
        journal: BatchJournal,
        on_done: Callable[[int, int], None] | None = None,
    ) -> None:
        """Set up the rounds over ``cells`` (case id, arm); ``done`` (resumed scores) is updated.

        ``drawer`` is the engine's draw maker, whose lanes are replaced by replay lanes here; its
        settings give the batch options, judge samples, attempts per call and stopping rule;
        ``lanes`` is ``{"answer", "judge"}``.
        """
        cfg, budget = drawer.cfg, drawer.cfg.policy().max_attempts
        self.cells, self.done, self.drawer, self.lanes = cells, done, drawer, lanes
        self.io = BatchIO(lanes, journal, cfg.batch, budget, self._keep)
        self.cell_no = {c: i for i, c in enumerate(cells)}
        self.n, self.budget, self.on_done = cfg.judge_samples, budget, on_done
        self.plan = DrawPlan(done, cfg.min_draws, cfg.max_draws, cfg.settle)
        # outcomes of unfinished draws:
        # (cell no, index, sample or -1 for the answer) → attempt → outcome
        self.outs: dict[tuple[int, int, int], dict[int, Outcome]] = {}
        self.answer, self.judge = _Replay(drawer.provider), _Replay(drawer.judge)
        drawer.provider, drawer.judge = self.answer, self.judge
        drawer.sleep = lambda s: None
        # the same number of attempts, with no wait: the follow-up batch is the retry
        drawer.cfg = dataclasses.replace(drawer.cfg, retry_delays=(0.0,) * (budget - 1))
        in_run_journal = set(done)  # the draws the run journal holds
        for bid, cid, doc in journal.outs:
            self._keep(bid, cid, outcome_from_doc(doc), in_run_journal)
        journal.outs.clear()

    @staticmethod
    def _cid(cell: int, index: int, sample: int, attempt: int) -> str:
        """``a<cell>-<draw>-<attempt>``, or ``j<cell>-<draw>-<sample>-<attempt>`` for a judge."""
        return f"a{cell}-{index}-{attempt}" if sample < 0 else f"j{cell}-{index}-{sample}-{attempt}"

    def _parse(self, cid: str) -> tuple[int, int, int, int] | None:
        try:
            parts = [int(x) for x in cid[1:].split("-")]
        except ValueError:
            return None
        if cid[:1] == "a" and len(parts) == 3:
            return parts[0], parts[1], -1, parts[2]
        if cid[:1] == "j" and len(parts) == 4:
            return parts[0], parts[1], parts[2], parts[3]
        return None

    def _key(self, cell: int, index: int) -> Key:
        case_id, arm = self.cells[cell]
        return case_id, arm, index

    def _keep(self, bid: str, cid: str, outcome: Outcome, finished: set[Key] | None = None) -> bool:
        p = self._parse(cid)
        if p is None or not 0 <= p[0] < len(self.cells):
            raise RefusalError(
                f"batch {bid} returned custom id {cid[:80]!r}, which this run did not send"
            )
        cell, index, sample, attempt = p
        if self._key(cell, index) in (finished if finished is not None else self.done):
            return False
        slot = self.outs.setdefault((cell, index, sample), {})
        if attempt in slot:
            return False
        slot[attempt] = outcome
        if finished is None and sample >= 0:
            self._draw_if_complete(cell, index)
        return True

    def _draw_if_complete(self, cell: int, index: int) -> None:
        """Make a draw once all its calls resolved, so results never wait for a whole batch."""
        if not _resolved(self._list(cell, index, -1), self.budget):
            return
        if all(_resolved(self._list(cell, index, k), self.budget) for k in range(self.n)):
            self._draw(cell, index, self._key(cell, index))

    def _list(self, cell: int, index: int, sample: int) -> list[Outcome]:
        slot = self.outs.get((cell, index, sample), {})
        return [slot[a] for a in range(len(slot)) if a in slot]

    def run(self) -> None:
        """Draw every cell through batches until the stopping rule is met.

        Raises:
            FatalRun: a request failed fatally, or the provider refused a batch.
            RefusalError: the batch journal is damaged or holds ids this run cannot read.
        """
        while True:
            self.io.finish_open()
            wanted = self._settle()
            if not any(wanted.values()):
                return
            for stage, reqs in wanted.items():
                if reqs:
                    self.io.submit(stage, reqs)

    def _settle(self) -> dict[str, list[tuple[str, dict[str, Any]]]]:
        """Make every draw whose results are all in; return the requests the next round needs."""
        wanted: dict[str, list[tuple[str, dict[str, Any]]]] = {"answer": [], "judge": []}
        changed = True
        # draws are made on a few threads so that their journal lines share fsyncs (the run
        # journal's group commit); the requests are gathered in draw order
        with ThreadPoolExecutor(max_workers=REPLAY_THREADS, thread_name_prefix="replay") as pool:
            while changed:
                wanted = {"answer": [], "judge": []}
                todo: list[tuple[int, int, Key]] = []
                for cell in self.cells:
                    self.plan.extend(cell)
                    todo.extend((self.cell_no[cell], k[2], k) for k in self.plan.missing(cell))
                made = list(pool.map(lambda t: self._draw(*t), todo))
                changed = any(m is None for m in made)
                for m in made:
                    for stage, reqs in (m or {}).items():
                        wanted[stage].extend(reqs)
                if self.on_done:
                    self.on_done(*self.plan.counts())
        return wanted

    def _draw(self, c: int, i: int, key: Key) -> dict[str, list[tuple[str, dict[str, Any]]]] | None:
        """Make draw ``key`` from its outcomes (``None``), or return the requests it still needs."""
        answer = self._list(c, i, -1)
        self.answer.local.queue = deque(answer)
        flat: list[Outcome] = []
        if _resolved(answer, self.budget):
            for k in range(self.n):
                outs = self._list(c, i, k)
                flat.extend(outs)
                if not _resolved(outs, self.budget):
                    break
        self.judge.local.queue = deque(flat)
        try:
            self.done[key] = self.drawer(*key)
        except _NeedCall as need:
            body = {k: v for k, v in need.args[0].items() if k != "timeout"}
            if not _resolved(answer, self.budget):
                cid = self._cid(c, i, -1, len(answer))
                return {"answer": [(cid, self.lanes["answer"].request(body))]}
            req = self.lanes["judge"].request(body)  # one body, shared by the draw's samples
            return {
                "judge": [
                    (self._cid(c, i, k, len(outs)), req)
                    for k in range(self.n)
                    if not _resolved(outs := self._list(c, i, k), self.budget)
                ]
            }
        for s in range(-1, self.n):
            self.outs.pop((c, i, s), None)
        return None
