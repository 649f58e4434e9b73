"""``driftproof run --batch``: each round of the run as provider batches (issue 17).

Rounds. A round is every request the run can make now, sent as one batch per lane (split at
the provider's documented size, :mod:`driftproof.run.batch`):

1. the answers of the first ``min_draws`` (3) draws of every case and arm;
2. every judge sample of those draws (with the answers a follow-up batch had to retry);
3. then, round after round, the draws the stopping rule asks for (one more per arm whose
   spread has not settled, :func:`driftproof.run.scheduler.needs_more`) and their judge
   samples, until no arm asks for more.

Batch mode is a transport only (the receipt means the same). Each draw is made by the
engine's own draw maker (``_Drawer``: lost-draw rules, checks, judge parsing, the draw
record), fed the batch results in place of interactive replies: its answering and judging
lanes are replaced by replay lanes that hand it, in order, the outcomes of that draw's
requests. Its requests are built by the real lanes' ``request`` functions from the very
arguments the draw maker passes, so a batch request is the interactive request.

Attempts (method, "A runner attempt ..."): every request in a batch is one endpoint attempt.
A request that errored, expired or was cancelled is sent again in a follow-up batch while the
attempt budget (``len(retry_delays) + 1`` = 3, the plain lanes' budget) lasts; then the draw
is lost, or the judge sample invalid, with the provider's reason (the plain lanes' rule,
:func:`driftproof.run.scheduler.with_retries`). There is no wait between a failed attempt and
its follow-up batch beyond the poll interval.

Crash-proof. The batch journal ``<receipt>.batches`` (JSON Lines beside the run journal)
records, each line written whole and fsync'd before anything waits on it:

* ``{"file": {"id", "lane", "stage", "ids"}}``: an OpenAI input file, right after its upload;
* ``{"batch": {"id", "file_id", "lane", "stage", "ids", "created"}}``: a batch, right after the
  provider returned its id (``ids``: the custom ids it holds; ``created``: Unix seconds);
* ``{"cancel": id}``: the batch was cancelled at ``--batch-timeout``;
* ``{"out": {"id", "batch", "reply"|"error"}}``: one result, as it is streamed;
* ``{"read": id}``: every result of the batch is journaled.

A killed run resumes by reading it: an uploaded file without a batch gets its batch (the file
is not uploaded again), a batch not yet read is polled again and its results read again
(results already journaled are skipped), and nothing already submitted is submitted again.
Finished draws are in the run journal as in a plain run, each exactly once. The one window
left is between the provider creating a batch and its id reaching the disk (one HTTP reply).

Timeout. A batch not ended ``--batch-timeout`` seconds after it was created is cancelled;
the results it finished are kept and the cancelled requests retried within the budget.

Broken reads. A results stream that breaks (a connection error, a transient HTTP status) is
read again at the next poll, keeping what it had streamed. A batch whose results come back
with nothing new ``budget`` reads in a row stops the run (:class:`FatalRun`, naming the batch
and the last error) instead of polling forever; its ids stay journaled, so the same command
run again resumes by reading it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof.errors import RefusalError
from driftproof.run.batch import BatchLane, BatchStatus, Outcome, Spool
from driftproof.run.providers.base import AttemptError, Provider, Reply
from driftproof.run.scheduler import FatalRun, needs_more

__all__ = [
    "BATCH_POLL_INTERVAL",
    "BATCH_TIMEOUT",
    "BatchJournal",
    "BatchOptions",
    "batch_journal_path",
    "describe",
    "run_batched",
]

#: Default seconds between polls. Both providers' guides poll a batch's status in a loop and
#: say most batches finish within an hour; once a minute keeps well inside their rate limits.
BATCH_POLL_INTERVAL = 60.0
#: Default seconds after which a batch that has not ended is cancelled: the providers' own
#: completion window (Anthropic expires a batch 24 h after creation; OpenAI ``24h``).
BATCH_TIMEOUT = 24 * 3600.0
#: Results journaled between two fsyncs while a batch is read.
SYNC_EVERY = 2000
#: Threads that make draws from their results (their journal writes share fsyncs).
REPLAY_THREADS = 8


@dataclass
class BatchOptions:
    """``--batch`` settings.

    Attributes:
        poll_interval: seconds between two polls of the open batches (``--batch-poll-interval``).
        timeout: seconds after a batch's creation at which it is cancelled (``--batch-timeout``).
        on_status: called with every open batch's :class:`BatchStatus` after each poll.
        sleep / clock: injectable for tests (seconds).
    """

    poll_interval: float = BATCH_POLL_INTERVAL
    timeout: float = BATCH_TIMEOUT
    on_status: Callable[[list[BatchStatus]], None] | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.time


def batch_journal_path(receipt_path: str | Path) -> Path:
    """Where the batch journal of a run writing ``receipt_path`` lives."""
    p = Path(receipt_path)
    return p.with_name(p.name + ".batches")


def describe(statuses: Sequence[BatchStatus]) -> str:
    """The progress line: each polled batch's state and the provider's own request counts, e.g.
    ``msgbatch_01 in_progress: processing 90, succeeded 0, errored 0, canceled 0, expired 0``.
    Batch ids and states come from the provider and are shown printable only."""

    def one(st: BatchStatus) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in st.counts.items())
        return f"{st.id} {st.state}" + (f": {counts}" if counts else "")

    text = "; ".join(one(st) for st in statuses)
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def _reply_doc(r: Reply) -> dict[str, Any]:
    return {k: v for k, v in dataclasses.asdict(r).items() if v not in (None, [], {})}


def _outcome_doc(o: Outcome) -> dict[str, Any]:
    if isinstance(o, Reply):
        return {"reply": _reply_doc(o)}
    return {
        "error": {
            "reason": o.reason,
            "retryable": o.retryable,
            "fatal": o.fatal,
            "status": o.status,
        }
    }


def _outcome(doc: dict[str, Any]) -> Outcome:
    if "reply" in doc:
        names = {f.name for f in dataclasses.fields(Reply)}
        return Reply(**{k: v for k, v in doc["reply"].items() if k in names})
    e = doc["error"]
    return AttemptError(
        e["reason"], retryable=e["retryable"], fatal=e["fatal"], status=e.get("status")
    )


class BatchJournal:
    """The batch journal (see the module doc). Not thread-safe: the batch engine is one thread."""

    def __init__(self, path: Path, *, resumed_run: bool) -> None:
        self.path = path
        self.files: dict[str, dict[str, Any]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.order: list[str] = []
        self.cancelled: set[str] = set()
        self.read: set[str] = set()
        self.outs: list[tuple[str, str, dict[str, Any]]] = []
        if path.exists():
            if not resumed_run:
                raise RefusalError(
                    f"{path}: a batch journal without its run journal; remove it to start afresh "
                    "(its batches are not polled again)"
                )
            self._load()
            self.fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        else:
            self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        self._unsynced = 0

    def _load(self) -> None:
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        for n, line in enumerate(lines[:-1], start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RefusalError(
                    f"{self.path}: line {n} is not JSON ({exc.msg}); the batch journal is damaged"
                ) from exc
            if "file" in rec:
                self.files[rec["file"]["id"]] = rec["file"]
            elif "batch" in rec:
                b = rec["batch"]
                self.batches[b["id"]] = b
                self.order.append(b["id"])
            elif "cancel" in rec:
                self.cancelled.add(rec["cancel"])
            elif "read" in rec:
                self.read.add(rec["read"])
            elif "out" in rec:
                o = rec["out"]
                self.outs.append((o["batch"], o["id"], o))
        if lines[-1]:  # a line cut short by a kill
            os.truncate(self.path, len(raw) - len(lines[-1]))

    def _write(self, obj: dict[str, Any], *, sync: bool) -> None:
        os.write(
            self.fd,
            (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"),
        )
        self._unsynced += 1
        if sync or self._unsynced >= SYNC_EVERY:
            self.sync()

    def sync(self) -> None:
        if self._unsynced:
            os.fsync(self.fd)
            self._unsynced = 0

    def file(self, rec: dict[str, Any]) -> None:
        self.files[rec["id"]] = rec
        self._write({"file": rec}, sync=True)

    def batch(self, rec: dict[str, Any]) -> None:
        self.batches[rec["id"]] = rec
        self.order.append(rec["id"])
        self._write({"batch": rec}, sync=True)

    def cancel(self, batch_id: str) -> None:
        self.cancelled.add(batch_id)
        self._write({"cancel": batch_id}, sync=True)

    def out(self, batch_id: str, custom_id: str, outcome: Outcome) -> None:
        self._write(
            {"out": {"id": custom_id, "batch": batch_id, **_outcome_doc(outcome)}}, sync=False
        )

    def mark_read(self, batch_id: str) -> None:
        self.read.add(batch_id)
        self._write({"read": batch_id}, sync=True)

    def attempts(self) -> int:
        """Requests submitted, all batches together: one endpoint attempt each."""
        return sum(len(b["ids"]) for b in self.batches.values())

    def close(self) -> None:
        os.close(self.fd)

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


class _NeedCall(Exception):
    """A replay lane ran out of outcomes: the draw maker wants this call (its keyword arguments)."""

    def __init__(self, kw: dict[str, Any]) -> None:
        super().__init__("call needed")
        self.kw = kw


class _Replay(Provider):
    """Stands in for a real lane inside the draw maker: hands out the outcomes queued for the
    draw being made (per thread), and raises :class:`_NeedCall` when they run out."""

    makes_endpoint_attempts = False

    def __init__(self, real: Provider) -> None:
        self.real = real
        self.name, self.surface, self.capture, self.service = (
            real.name,
            real.surface,
            real.capture,
            real.service,
        )
        self.harness_name, self.keep_raw = real.harness_name, real.keep_raw
        self.channel, self.sends_budget = real.channel, real.sends_budget
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
    """Whether a call's attempts are over: it succeeded, failed in a way a retry cannot fix, or
    used the budget (the rule of :func:`with_retries`)."""
    if not outs:
        return False
    last = outs[-1]
    return isinstance(last, Reply) or not last.retryable or last.fatal or len(outs) >= budget


Key = tuple[str, str, int]


def run_batched(
    cells: Sequence[tuple[str, str]],
    done: dict[Key, float | None],
    drawer: Any,
    *,
    lanes: dict[str, BatchLane],
    journal: BatchJournal,
    opts: BatchOptions,
    finished: Iterable[Key],
    min_draws: int,
    max_draws: int,
    settle: float,
    judge_samples: int,
    budget: int,
    on_done: Callable[[int, int], None] | None = None,
) -> None:
    """Draw every cell (case id, arm) through batches until the stopping rule is met.

    Args:
        done: scores of draws already journaled (resume), keyed (case, arm, index); updated.
        drawer: the engine's draw maker; its ``provider``/``judge`` lanes are replaced by replay
            lanes here, and it journals each draw as in a plain run.
        lanes: ``{"answer": BatchLane, "judge": BatchLane}``.
        finished: keys of draws already in the run journal (their batch results are skipped).
        budget: attempts per call.

    Raises:
        FatalRun: a request failed fatally, or the provider refused a batch.
        RefusalError: the batch journal is damaged or holds ids this run cannot read.
    """
    _Rounds(
        cells,
        done,
        drawer,
        lanes,
        journal,
        opts,
        set(finished),
        min_draws,
        max_draws,
        settle,
        judge_samples,
        budget,
        on_done,
    ).run()


class _Rounds:
    def __init__(
        self,
        cells: Sequence[tuple[str, str]],
        done: dict[Key, float | None],
        drawer: Any,
        lanes: dict[str, BatchLane],
        journal: BatchJournal,
        opts: BatchOptions,
        finished: set[Key],
        min_draws: int,
        max_draws: int,
        settle: float,
        n: int,
        budget: int,
        on_done: Callable[[int, int], None] | None,
    ) -> None:
        self.cells, self.done, self.drawer, self.lanes, self.bj, self.opts = (
            cells,
            done,
            drawer,
            lanes,
            journal,
            opts,
        )
        self.cell_no = {c: i for i, c in enumerate(cells)}
        self.min_draws, self.max_draws, self.settle, self.n, self.budget = (
            min_draws,
            max_draws,
            settle,
            n,
            budget,
        )
        self.on_done = on_done
        self.planned: dict[tuple[str, str], int] = {c: min_draws for c in cells}
        #: batch id → reads in a row that broke before keeping any new result
        self.broken_reads: dict[str, int] = {}
        # outcomes of unfinished draws: (cell no, index, sample or -1 for the answer) → attempt → outcome
        self.outs: dict[tuple[int, int, int], dict[int, Outcome]] = {}
        self.answer, self.judge = _Replay(drawer.provider), _Replay(drawer.judge)
        drawer.provider, drawer.judge = self.answer, self.judge
        drawer.sleep = lambda s: None
        # the plain lanes' budget; the waits between attempts are the batches' own
        drawer.cfg = dataclasses.replace(
            drawer.cfg, retry_delays=tuple(0.0 for _ in range(budget - 1))
        )
        # (a fixed zero wait: the follow-up batch is the retry; the same number of attempts)
        for bid, cid, doc in journal.outs:
            self._keep(bid, cid, _outcome(doc), finished)
        journal.outs.clear()

    # -- ids ------------------------------------------------------------------------------
    @staticmethod
    def _cid(cell: int, index: int, sample: int, attempt: int) -> str:
        """``a<cell>-<draw>-<attempt>`` for an answer, ``j<cell>-<draw>-<sample>-<attempt>`` for a
        judge sample (Anthropic custom ids: ``^[a-zA-Z0-9_-]{1,64}$``)."""
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
        return True

    def _list(self, cell: int, index: int, sample: int) -> list[Outcome]:
        slot = self.outs.get((cell, index, sample), {})
        return [slot[a] for a in range(len(slot)) if a in slot]

    # -- the loop -------------------------------------------------------------------------
    def run(self) -> None:
        while True:
            self._finish_open()
            wanted = self._settle()
            if not any(wanted.values()):
                return
            for stage, reqs in wanted.items():
                if reqs:
                    self._submit(stage, reqs)

    def _plan(self, cell: tuple[str, str]) -> None:
        while all((cell[0], cell[1], i) in self.done for i in range(self.planned[cell])):
            scores = [self.done[(cell[0], cell[1], i)] for i in range(self.planned[cell])]
            if not needs_more(
                scores, min_draws=self.min_draws, max_draws=self.max_draws, settle=self.settle
            ):
                return
            self.planned[cell] += 1

    def _progress(self) -> None:
        if self.on_done:
            n_done = sum(
                1
                for k in self.done
                if (k[0], k[1]) in self.planned and k[2] < self.planned[(k[0], k[1])]
            )
            self.on_done(n_done, sum(self.planned.values()))

    def _settle(self) -> dict[str, list[tuple[str, dict[str, Any]]]]:
        """Make every draw whose results are all in; return the requests the next round needs."""
        wanted: dict[str, list[tuple[str, dict[str, Any]]]] = {"answer": [], "judge": []}
        changed = True
        # draws are made on a few threads so that their journal lines share fsyncs (the run
        # journal's group commit); the requests are gathered in draw order
        with ThreadPoolExecutor(max_workers=REPLAY_THREADS, thread_name_prefix="replay") as pool:
            while changed:
                wanted = {"answer": [], "judge": []}
                todo = []
                for cell in self.cells:
                    self._plan(cell)
                    c = self.cell_no[cell]
                    todo.extend(
                        (c, i, (cell[0], cell[1], i))
                        for i in range(self.planned[cell])
                        if (cell[0], cell[1], i) not in self.done
                    )
                made = list(pool.map(lambda t: self._draw(*t), todo))
                changed = any(m is None for m in made)
                for m in made:
                    for stage, reqs in (m or {}).items():
                        wanted[stage].extend(reqs)
                self._progress()
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
            body = {k: v for k, v in need.kw.items() if k != "timeout"}
            if not _resolved(answer, self.budget):
                return {
                    "answer": [
                        (self._cid(c, i, -1, len(answer)), self.lanes["answer"].request(body))
                    ]
                }
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

    def _submit(self, stage: str, reqs: list[tuple[str, dict[str, Any]]]) -> None:
        """Send ``reqs`` as batches of at most the lane's documented size, each spooled to disk
        as its requests are made (never held as one list; :class:`~driftproof.run.batch.Spool`)."""
        lane = self.lanes[stage]
        spool: Spool | None = None
        ids: list[str] = []
        try:
            for cid, body in reqs:
                line = Spool.line(lane.entry(cid, body))
                if spool is not None and (
                    spool.count >= lane.max_requests or spool.size + len(line) + 1 > lane.max_bytes
                ):
                    self._create(stage, lane, spool, ids)
                    spool.close()
                    spool, ids = None, []
                if spool is None:
                    spool = lane.spool()
                spool.add(line)
                ids.append(cid)
            if spool is not None:
                self._create(stage, lane, spool, ids)
        finally:
            if spool is not None:
                spool.close()

    def _create(
        self,
        stage: str,
        lane: BatchLane,
        spool: Spool | None,
        ids: list[str],
        file_id: str | None = None,
    ) -> None:
        try:
            if lane.uploads and file_id is None and spool is not None:
                file_id = lane.upload(spool)
                self.bj.file({"id": file_id, "lane": stage, "stage": stage, "ids": ids})
            bid = lane.create(spool, file_id)
        except AttemptError as exc:
            raise FatalRun(f"the {lane.provider} batch API refused a batch: {exc.reason}") from exc
        self.bj.batch(
            {
                "id": bid,
                "file_id": file_id,
                "lane": stage,
                "stage": stage,
                "ids": ids,
                "created": self.opts.clock(),
            }
        )

    def _finish_open(self) -> None:
        """Create the batch of an uploaded file that has none; poll every unread batch until it
        ends (cancelling at the timeout); read its results."""
        batched_files = {b.get("file_id") for b in self.bj.batches.values()}
        for fid, f in list(self.bj.files.items()):
            if fid not in batched_files:
                self._create(f["lane"], self.lanes[f["lane"]], None, f["ids"], file_id=fid)
        open_ = [b for b in self.bj.order if b not in self.bj.read]
        while open_:
            statuses = []
            for bid in open_:
                rec = self.bj.batches[bid]
                lane = self.lanes[rec["lane"]]
                try:
                    st = lane.status(bid)
                except AttemptError as exc:
                    if exc.fatal:
                        raise FatalRun(f"batch {bid}: {exc.reason}") from exc
                    continue  # a failed poll is polled again
                statuses.append(st)
                if st.ended:
                    self._read(rec, lane, st)
                elif (
                    bid not in self.bj.cancelled
                    and self.opts.clock() - rec["created"] >= self.opts.timeout
                ):
                    try:
                        lane.cancel(bid)
                    except AttemptError as exc:
                        if exc.fatal:
                            raise FatalRun(f"batch {bid}: {exc.reason}") from exc
                        continue
                    self.bj.cancel(bid)
            if self.opts.on_status:
                self.opts.on_status(statuses)
            open_ = [b for b in open_ if b not in self.bj.read]
            if open_:
                self.opts.sleep(self.opts.poll_interval)

    def _read(self, rec: dict[str, Any], lane: BatchLane, st: BatchStatus) -> None:
        bid = rec["id"]
        seen: set[str] = set()
        kept = 0
        try:
            for cid, outcome in lane.results(st):
                seen.add(cid)
                if self._keep(bid, cid, outcome):
                    self.bj.out(bid, cid, outcome)
                    kept += 1
        except Exception as exc:  # noqa: BLE001 - the stream broke: read the batch again at the next poll
            if isinstance(exc, AttemptError) and exc.fatal:
                raise FatalRun(f"batch {bid}: {exc.reason}") from exc
            if not isinstance(exc, (AttemptError, OSError)) and type(exc).__module__.split(".")[
                0
            ] not in ("anthropic", "openai", "httpx", "httpx2", "httpcore", "httpcore2"):
                raise
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
            return
        why = (
            f"batch {bid} failed: {st.failed}"
            if st.failed is not None
            else f"batch {bid} ({st.state}) returned no result for this request"
        )
        for cid in rec["ids"]:
            if cid not in seen:
                o = AttemptError(why, retryable=st.failed is None, fatal=st.failed is not None)
                if self._keep(bid, cid, o):
                    self.bj.out(bid, cid, o)
        self.bj.sync()
        self.bj.mark_read(bid)
