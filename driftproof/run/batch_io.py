"""Sending, polling and reading the batches of ``run --batch``, journaled before any wait."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from driftproof.run.batch import BatchJournal, BatchLane, BatchStatus, Outcome, Spool
from driftproof.run.providers.base import AttemptError
from driftproof.run.scheduler import FatalRun

#: Default seconds between polls. Both providers' guides poll a batch's status in a loop and
#: say most batches finish within an hour; once a minute keeps well inside their rate limits.
BATCH_POLL_INTERVAL = 60.0
#: Default seconds after which a batch that has not ended is cancelled: the providers' own
#: completion window (Anthropic expires a batch 24 h after creation; OpenAI ``24h``).
BATCH_TIMEOUT = 24 * 3600.0


@dataclass
class BatchOptions:
    """``--batch`` settings: seconds between polls, and after creation to cancel a batch.

    ``on_status`` receives every open batch's :class:`BatchStatus` after each poll.
    """

    poll_interval: float = BATCH_POLL_INTERVAL
    timeout: float = BATCH_TIMEOUT
    on_status: Callable[[list[BatchStatus]], None] | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.time


def describe(statuses: Sequence[BatchStatus]) -> str:
    """The progress line: each batch's state and the provider's counts, printable only."""

    def one(st: BatchStatus) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in st.counts.items())
        return f"{st.id} {st.state}" + (f": {counts}" if counts else "")

    text = "; ".join(one(st) for st in statuses)
    return "".join(ch if ch.isprintable() else "?" for ch in text)


class BatchIO:
    """The batches of one run: submits, polls and reads them, each step journaled, on one thread.

    ``keep(batch id, custom id, outcome)`` returns whether a result is new; ``budget`` is attempts
    per call and the broken reads in a row after which a batch is given up (:class:`FatalRun`).
    """

    def __init__(
        self,
        lanes: dict[str, BatchLane],
        journal: BatchJournal,
        opts: BatchOptions,
        budget: int,
        keep: Callable[[str, str, Outcome], bool],
    ) -> None:
        """Keep the lanes, journal, options, attempt budget and the result keeper."""
        self.lanes, self.bj, self.opts, self.budget, self.keep = lanes, journal, opts, budget, keep
        #: batch id → reads in a row that broke before keeping any new result
        self.broken_reads: dict[str, int] = {}

    def submit(self, stage: str, reqs: list[tuple[str, dict[str, Any]]]) -> None:
        """Send ``reqs`` as spooled batches of at most the lane's documented size."""
        lane = self.lanes[stage]
        spool: Spool | None = None
        ids: list[str] = []
        try:
            for cid, body in reqs:
                line = Spool.line(lane.entry(cid, body))
                if spool is not None and (
                    spool.count >= lane.max_requests or spool.size + len(line) + 1 > lane.max_bytes
                ):
                    self._create(stage, spool, ids)
                    spool.close()
                    spool, ids = None, []
                if spool is None:
                    spool = lane.spool()
                spool.add(line)
                ids.append(cid)
            if spool is not None:
                self._create(stage, spool, ids)
        finally:
            if spool is not None:
                spool.close()

    def _create(
        self, stage: str, spool: Spool | None, ids: list[str], fid: str | None = None
    ) -> None:
        lane, sent = self.lanes[stage], {"lane": stage, "stage": stage, "ids": ids}
        try:
            if lane.uploads and fid is None and spool is not None:
                fid = lane.upload(spool)
                self.bj.record("file", {"id": fid, **sent})
            bid = lane.create(spool, fid)
        except AttemptError as exc:
            raise FatalRun(f"the {lane.provider} batch API refused a batch: {exc.reason}") from exc
        self.bj.record("batch", {"id": bid, "file_id": fid, **sent, "created": self.opts.clock()})

    def finish_open(self) -> None:
        """Create, poll (cancelling at the timeout) and read every open batch until it ends."""
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
                try:
                    st = lane.status(bid)
                    statuses.append(st)
                    if not (st.ended or bid in self.bj.cancelled) and (
                        self.opts.clock() - rec["created"] >= self.opts.timeout
                    ):
                        lane.cancel(bid)
                        self.bj.record("cancel", bid)
                except AttemptError as exc:
                    if exc.fatal:
                        raise FatalRun(f"batch {bid}: {exc.reason}") from exc
                    continue  # a failed poll or cancel is tried again at the next poll
                if st.ended:
                    self._read(rec, lane, st)
            if self.opts.on_status:
                self.opts.on_status(statuses)
            open_ = [b for b in open_ if b not in self.bj.read]
            if open_:
                self.opts.sleep(self.opts.poll_interval)

    def _broken(self, bid: str, exc: Exception, kept: int) -> None:
        """Read again at the next poll, or :class:`FatalRun` (fatal, not transport, budget)."""
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
            why = (
                exc.reason
                if isinstance(exc, AttemptError)
                else f"{type(exc).__name__}: {str(exc)[:300]}"
            )
            raise FatalRun(
                f"batch {bid}: its results could not be read ({broken} reads in a row kept "
                f"nothing; last: {why})"
            ) from exc

    def _read(self, rec: dict[str, Any], lane: BatchLane, st: BatchStatus) -> None:
        bid = rec["id"]
        seen: set[str] = set()
        kept = 0
        results = lane.results(st)
        try:
            while True:
                # only the stream's own errors count as a broken read; what is done with a
                # result (the draw it completes, its journal lines) raises as it would anywhere
                try:
                    cid, outcome = next(results)
                except StopIteration:
                    break
                except Exception as exc:  # the stream broke: read it again later
                    self._broken(bid, exc, kept)
                    return
                seen.add(cid)
                if self.keep(bid, cid, outcome):
                    self.bj.out(bid, cid, outcome)
                    kept += 1
        finally:
            results.close()
        why = (
            f"batch {bid} failed: {st.failed}"
            if st.failed is not None
            else f"batch {bid} ({st.state}) returned no result for this request"
        )
        for cid in rec["ids"]:
            if cid not in seen:
                o = AttemptError(why, retryable=st.failed is None, fatal=st.failed is not None)
                if self.keep(bid, cid, o):
                    self.bj.out(bid, cid, o)
        self.bj.sync()
        self.bj.record("read", bid)
