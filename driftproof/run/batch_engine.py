"""``driftproof run --batch``: the run's rounds as provider batches, a transport only.

A round is every request the run can make now, one batch per lane. Draws are made by the
engine's draw maker fed replay lanes and requests built by the real lanes' builders, so a batch
request is the interactive request; a failed one is retried in a follow-up batch by the rule of
:func:`~driftproof.run.scheduler.with_retries`.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
from collections import Counter, deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from driftproof.errors import RefusalError
from driftproof.run.batch import BatchJournal, BatchLane, BatchStatus, Outcome, Spool, ids_digest
from driftproof.run.batch_create import maybe_made, not_created, settle_unrecorded, to_its_end
from driftproof.run.batch_io import RESULT_COUNTS, shortfall
from driftproof.run.config import now
from driftproof.run.providers.base import AttemptError, Provider, Reply, transient_ending
from driftproof.run.scheduler import DrawPlan, FatalRun, HeldStops, Key

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
        if (failed := transient_ending(o, kw.get("max_tokens"))) is not None:
            raise failed  # as Provider.call does: a server abort is retried (D-19)
        return o


def _resolved(outs: Sequence[Outcome], budget: int) -> bool:
    """Whether a call's attempts are over: success, an unretryable failure, or the budget used.

    A reply whose ending fails the attempt as transient (:func:`transient_ending`) is no success.
    """
    if not outs:
        return False
    last = outs[-1]
    if isinstance(last, Reply):
        return transient_ending(last, None) is None or len(outs) >= budget
    return not last.retryable or last.fatal or len(outs) >= budget


class BatchRounds:
    """The rounds of ``driftproof run --batch``; :meth:`run` draws every cell.

    Batches are submitted, polled and read on one thread, each step journaled before any wait;
    a batch whose reads break (keeping nothing), or whose polls fail, as many times in a row as
    there are attempts per call is given up (:class:`FatalRun`); an answered poll counts anew.
    """

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

        Raises:
            RefusalError: a request id the batch journal read names no request this run makes.
        """
        cfg, budget = drawer.cfg, drawer.cfg.policy().max_attempts
        self.cells, self.done, self.drawer, self.lanes = cells, done, drawer, lanes
        self.bj, self.opts = journal, cfg.batch
        #: batch id → reads in a row that broke before keeping any new result
        self.broken_reads: dict[str, int] = {}
        #: batch id → polls (status, and cancel past the timeout) in a row that failed
        self.failed_polls: dict[str, int] = {}
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
        for n, ids in journal.loaded:
            if unsent := next((i for i in ids if self._parse(i) is None), None):
                raise RefusalError(
                    f"{journal.path}: line {n} names request {unsent[:80]!r}, which the run never "
                    "sent (this run makes no request of that name); the batch journal is damaged"
                )
        in_run_journal = set(done)
        for _, cid, outcome in journal.outs:
            self._keep(cid, outcome, in_run_journal)
        journal.outs.clear()

    @staticmethod
    def _cid(cell: int, index: int, sample: int, attempt: int) -> str:
        """``a<cell>-<draw>-<attempt>``, or ``j<cell>-<draw>-<sample>-<attempt>`` for a judge."""
        return f"a{cell}-{index}-{attempt}" if sample < 0 else f"j{cell}-{index}-{sample}-{attempt}"

    def _parse(self, cid: str) -> tuple[int, int, int, int] | None:
        """(cell, draw, sample or -1, attempt) of ``cid``; ``None``: this run sends no such id."""
        try:
            parts = [int(x) for x in cid[1:].split("-")]
        except ValueError:
            return None
        if cid[:1] == "a":
            parts.insert(2, -1)  # an answer: no judge sample
        if len(parts) != 4:
            return None
        p = cast(tuple[int, int, int, int], tuple(parts))
        made = p[0] < len(self.cells) and p[1] < self.plan.max_draws and p[2] < self.n
        return p if made and self._cid(*p) == cid else None  # one spelling: not "a+0-0-0"

    def _keep(self, cid: str, outcome: Outcome, finished: set[Key] | None = None) -> bool:
        # every id kept names a request of its batch, whose ids were made or checked by this run
        cell, index, sample, attempt = cast(tuple[int, int, int, int], self._parse(cid))
        if (*self.cells[cell], index) in (finished if finished is not None else self.done):
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
            self._draw(cell, index)

    def _list(self, cell: int, index: int, sample: int) -> list[Outcome]:
        slot = self.outs.get((cell, index, sample), {})
        return [slot[a] for a in range(len(slot)) if a in slot]

    def run(self) -> None:
        """Draw every cell through batches until the stopping rule is met.

        Raises:
            FatalRun: a request failed fatally, the provider refused a batch, or a batch's
                polls or reads failed the attempt budget in a row.
            RefusalError: a batch returned a result for a request it did not hold, or two
                different results for one request (in one read, or a read and one kept).
        """
        while True:
            self.finish_open()
            wanted = self._settle()
            if not any(wanted.values()):
                return
            for stage, reqs in wanted.items():
                if reqs:
                    self.submit(stage, reqs)

    def _settle(self) -> dict[str, list[tuple[str, dict[str, Any]]]]:
        """Make every draw whose results are all in; return the requests the next round needs."""
        wanted: dict[str, list[tuple[str, dict[str, Any]]]] = {"answer": [], "judge": []}
        changed = True
        # draws are made on a few threads so that their journal lines share fsyncs (the run
        # journal's group commit); the requests are gathered in draw order. A stop is raised only
        # where a draw is waited for (HeldStops): elsewhere it could leave the pool's lock held
        pool = ThreadPoolExecutor(max_workers=REPLAY_THREADS, thread_name_prefix="replay")
        with pool, HeldStops() as stops:
            while changed:
                wanted = {"answer": [], "judge": []}
                todo: list[tuple[int, int]] = []
                for cell in self.cells:
                    self.plan.extend(cell)
                    todo.extend((self.cell_no[cell], k[2]) for k in self.plan.missing(cell))
                ended: queue.SimpleQueue[object] = queue.SimpleQueue()
                futures = [pool.submit(self._draw, *t) for t in todo]
                for f in futures:
                    f.add_done_callback(ended.put)
                try:
                    for _ in futures:
                        stops.wait(ended.get)
                finally:  # a stop: the draws not begun are not made (pool.map's rule)
                    for f in futures:
                        f.cancel()
                made = [f.result() for f in futures]
                changed = any(m is None for m in made)
                for m in made:
                    for stage, reqs in (m or {}).items():
                        wanted[stage].extend(reqs)
                if self.on_done:
                    self.on_done(*self.plan.counts())
        return wanted

    def _draw(self, c: int, i: int) -> dict[str, list[tuple[str, dict[str, Any]]]] | None:
        """Make draw ``i`` of cell ``c`` from its outcomes (``None``), or the requests it needs."""
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
            self.done[(*self.cells[c], i)] = self.drawer(*self.cells[c], i)
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

    def submit(self, stage: str, reqs: list[tuple[str, dict[str, Any]]]) -> None:
        """Send ``reqs`` as spooled batches of at most the lane's documented size."""
        lane = self.lanes[stage]
        spool, ids = lane.spool(), list[str]()
        try:
            for cid, body in reqs:
                line = Spool.line(lane.entry(cid, body))
                if spool.count and (
                    spool.count >= lane.max_requests or spool.size + len(line) + 1 > lane.max_bytes
                ):
                    self._create(stage, spool, ids)
                    spool.close()
                    spool, ids = lane.spool(), list[str]()
                spool.add(line)
                ids.append(cid)
            self._create(stage, spool, ids)
        finally:
            spool.close()

    def _create(
        self, stage: str, spool: Spool | None, ids: list[str], fid: str | None = None
    ) -> None:
        lane, sent = self.lanes[stage], {"lane": stage, "ids": ids}
        sent_at = None  # when the batch's creation was asked for
        try:
            if lane.uploads and fid is None and spool is not None:
                fid, stop = to_its_end(lambda: lane.upload(spool))
                self.bj.record("file", {"id": fid, **sent})
                if stop is not None:
                    raise stop
            sent_at, digest = now(), ids_digest(ids)
            at = {"at": sent_at, "created": self.opts.clock()}
            intent = {"lane": stage, "digest": digest, "n": len(ids), "file_id": fid}

            def made() -> None:  # on the call's thread: no stop comes between intent and id
                self.bj.record("creating", intent | at)
                batch = {"id": lane.create(spool, fid), "file_id": fid, **sent}
                self.bj.record("batch", batch | {"created": self.opts.clock()})

            _, stop = to_its_end(made)
        except AttemptError as exc:
            asked = None if sent_at is None else (sent_at, now())
            if sent_at is not None and not maybe_made(exc, asked):
                self.bj.record("dropped", digest)  # refused: no batch was made
            elif sent_at is not None and not lane.uploads:  # the stop names it for cancelling
                self.bj.record("named", digest)
            raise FatalRun(not_created(lane.provider, exc, asked, fid, len(ids))) from exc
        if stop is not None:
            raise stop

    def finish_open(self) -> None:
        """Create, poll (cancelling at the timeout) and read every open batch until it ends.

        Creations begun and not recorded are settled first (:func:`settle_unrecorded`).
        """
        settle_unrecorded(self.bj, self.lanes, resend=self.opts.resend_unrecorded)
        batched_files = {b.get("file_id") for b in self.bj.batches.values()}
        for fid, f in list(self.bj.files.items()):
            if fid not in batched_files:
                self._create(f["lane"], None, f["ids"], fid)
        open_ = [b for b in self.bj.order if b not in self.bj.read]
        while open_:
            statuses = []
            for bid in open_:
                rec = self.bj.batches[bid]
                lane = self.lanes[rec["lane"]]
                doing, tries = "polled", "polls"  # what failed, said when the run stops
                try:
                    st = lane.status(bid)
                    statuses.append(st)
                    if not (st.ended or bid in self.bj.cancelled) and (
                        self.opts.clock() - rec["created"] >= self.opts.timeout
                    ):
                        doing, tries = "cancelled at its timeout", "tries"
                        lane.cancel(bid)
                        self.bj.record("cancel", bid)
                except AttemptError as exc:
                    # a failed poll or cancel is tried again at the next poll, within the budget
                    failed = self.failed_polls[bid] = self.failed_polls.get(bid, 0) + 1
                    if exc.fatal:
                        raise FatalRun(f"batch {bid} could not be {doing}: {exc.reason}") from exc
                    if failed >= self.budget:
                        raise FatalRun(
                            f"batch {bid} could not be {doing} ({failed} {tries} in a row "
                            f"failed; last: {exc.reason})"
                        ) from exc
                    continue
                self.failed_polls[bid] = 0
                if st.ended:
                    self._read(rec, lane, st)
            if self.opts.on_status:
                self.opts.on_status(statuses)
            open_ = [b for b in open_ if b not in self.bj.read]
            if open_:
                self.opts.sleep(self.opts.poll_interval)

    def _broken(self, bid: str, exc: Exception, kept: int, then: str = "") -> None:
        """Read again next poll, or :class:`FatalRun` (fatal, not transport, budget + ``then``)."""
        if isinstance(exc, AttemptError) and exc.fatal:
            raise FatalRun(f"batch {bid}: {exc.reason}") from exc
        transport = ("anthropic", "openai", "httpx", "httpx2", "httpcore", "httpcore2")
        if not isinstance(exc, (AttemptError, OSError)) and (
            type(exc).__module__.split(".")[0] not in transport
        ):
            raise exc
        self.bj.sync()
        # a read that kept something made progress; one that kept nothing counts against the
        # budget, so a batch whose results never come stops the run instead of polling forever
        broken = 0 if kept else self.broken_reads.get(bid, 0) + 1
        self.broken_reads[bid] = broken
        if broken >= self.budget:
            named = f"{type(exc).__name__}: {str(exc)[:300]}"
            why = exc.reason if isinstance(exc, AttemptError) else named
            raise FatalRun(
                f"batch {bid}: its results could not be read ({broken} reads in a row kept "
                f"nothing; last: {why}){then}"
            ) from exc

    def _read(self, rec: dict[str, Any], lane: BatchLane, st: BatchStatus) -> None:
        bid = rec["id"]
        seen: dict[str, bytes] = {}  # custom id → its result's digest, as read in this pass
        sent, kept = set(rec["ids"]), 0
        unread: list[str] = []  # lines that named no request
        held: Counter[str] = Counter()  # part of the results → its lines (each request once)
        results = lane.results(st)
        try:
            while True:
                # only the stream's own errors count as a broken read; what is done with a
                # result (the draw it completes, its journal lines) raises as it would anywhere
                try:
                    cid, outcome, part = next(results)
                except StopIteration:
                    break
                except Exception as exc:  # the stream broke: read it again later
                    self._broken(bid, exc, kept)
                    return
                held[part] += cid is None or cid not in seen
                if cid is None:
                    unread.append(cast(AttemptError, outcome).reason)
                    continue
                if cid not in sent:
                    raise RefusalError(
                        f"batch {bid} returned custom id {cid[:80]!r}, which this run did not send"
                    )
                # results are compared by digest: 32 bytes a request, not every reply
                said = self.bj.digest(self.bj.doc(bid, cid, outcome))
                if seen.setdefault(cid, said) != said:
                    raise RefusalError(
                        f"batch {bid} returned two different results for custom id "
                        f"{cid[:80]!r}; which one answers the request cannot be told"
                    )
                if self.bj.kept.get(bid, {}).get(cid, said) != said:
                    raise RefusalError(
                        f"batch {bid} returned for custom id {cid[:80]!r} a result other than "
                        "the one an earlier read of its results gave and the run kept: its "
                        "results do not stay the same, and which one answers the request "
                        "cannot be told"
                    )
                if self._keep(cid, outcome):
                    self.bj.out(bid, cid, outcome)
                    kept += 1
        finally:
            results.close()
        # a read short of the counts (:func:`shortfall`), or none of whose lines named a request,
        # is read again; at the budget (keeping nothing) it is the batch's results, unless no line
        # named a request and the counts do not vouch for its lines (a proxy's text): the run
        # stops, and a later run reading it so to the budget loses the requests without a line
        if short := shortfall(st, held, lane.counted_in, len(sent)):
            unread.insert(0, short)
        again = bool(kept) or self.broken_reads.get(bid, 0) + 1 < self.budget
        blind = bool(unread) and not seen  # no line named a request
        vouched = 0 < sum(st.counts.get(k, 0) for k in RESULT_COUNTS) <= len(sent)
        doubt = blind and (short or not vouched)
        if (short or blind) and (again or (doubt and bid not in self.bj.stopped)):
            if not again:  # journaled before the run stops (:meth:`_broken`)
                self.bj.record("stopped", bid)
            then = "" if again else "; if the next run reads them so, their requests are lost"
            self._broken(bid, AttemptError("; ".join(unread)), kept, then)
            return
        why = f"batch {bid} ({st.state}) returned no result for this request"
        why = "; ".join([why if st.failed is None else f"batch {bid} failed: {st.failed}", *unread])
        lost = st.failed is not None or doubt  # not sent again: it stopped a run, and stays so
        for cid in rec["ids"]:
            if cid not in seen:
                o = AttemptError(why, retryable=not lost, fatal=st.failed is not None)
                if self._keep(cid, o):
                    self.bj.out(bid, cid, o)
        self.bj.sync()
        self.bj.record("read", bid)
