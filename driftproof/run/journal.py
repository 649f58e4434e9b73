"""The run journal ``<receipt>.journal``: every finished draw, so a killed run resumes exactly.

JSON Lines: a header ``{"journal": "driftproof-run/2", "identity", "started_at",
"harness_version"}`` a resumed run must match; ``{"attempt": 1, "run": MARK}`` per endpoint
attempt; and ``{"draw": {...}, "run": MARK}`` per finished draw, each line written whole or not at
all before it counts, fsync'd at most every :data:`SYNC_INTERVAL` seconds and on close. ``MARK``
(:func:`run_mark`) ties every line to its header, so a line copied from another run's journal is
refused, never read as this run's. A torn last line is a draw that did not
finish; a draw recorded twice alike is read once, twice differently is refused. The journal is
removed once the sealed receipt is written.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import stat
import threading
import time
from pathlib import Path
from typing import Any

from driftproof.errors import RefusalError
from driftproof.receipt._model_base import DateTime
from driftproof.run.journal_draws import DrawRecord, Strict, draw_problem
from driftproof.run.jsonl import (
    append,
    checked,
    json_line,
    json_records,
    named,
    unlink_own,
    whole_lines,
)

JOURNAL_FORMAT = "driftproof-run/2"
#: The arms a draw record may name: the control arm only in a run with --control.
_ARMS = ("with_skill", "baseline")
#: Seconds between two fsyncs of the journal while draws finish.
SYNC_INTERVAL = 1.0
_APPEND = os.O_WRONLY | os.O_APPEND

#: Each member of a journal's identity (:func:`driftproof.run.engine._identity`) as a refusal
#: names it: the option or file that sets it; a member not listed is named with spaces.
_IDENTITY_WORDS = {
    "suite_sha256": "the suite file",
    "cases": "the cases drawn (the suite's, or --quick)",
    "skill_sha256": "the skill file",
    "model": "--model",
    "provider": "--provider",
    "surface": "--surface",
    "capture": "--capture",
    "service": "the service called (--base-url)",
    "judge": "the judge (--judge-model, --judge-provider and their settings)",
    "min_draws": "the draws per arm (--max-draws, --draws or --quick)",
    "max_draws": "the draws per arm (--max-draws, --draws or --quick)",
    "settle": "the stopping rule",
    "judge_samples": "the judge samples per draw (--quick)",
    "control": "--control",
    "quick": "--quick",
    "keep_transcripts": "--keep-transcripts",
    "max_tokens": "--max-output-tokens",
    "truncation": "the suite's truncation setting",
    "skill_arm": "--control",
    "aa": "--aa",
    "language": "--lang",
    "prompts_sha256": "the prompts (--lang)",
    "batch": "--batch",
    "margin": "--margin",
    "seed": "--seed",
    "api": "--openai-api",
}


class _Header(Strict):
    """What a resumed run reads of a journal's header beside its identity and harness."""

    started_at: DateTime


def run_mark(identity: dict[str, Any], started_at: str) -> str:
    """The mark every line of one run's journal carries, so another run's line is told apart.

    Returns:
        16 hex digits of the SHA-256 of ``[identity, started_at]`` as canonical JSON.
    """
    doc = json.dumps([identity, started_at], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(doc.encode("utf-8")).hexdigest()[:16]


def journal_path(receipt_path: str | Path) -> Path:
    """Where the journal of a run writing ``receipt_path`` lives."""
    p = Path(receipt_path)
    return p.with_name(p.name + ".journal")


#: Why a journal that is a symbolic link is refused: to a file (False), to none (True).
_LINKED = {
    False: "a link to another file, which it would overwrite",
    True: "a link to a file that does not exist",
}


class Journal:
    """An open journal; thread-safe, every write whole lines (:func:`~.jsonl.append`).

    ``draws`` are the finished records keyed (case id, arm, index); ``attempts`` counts every
    session's attempts; ``resumed``: an earlier session's journal was read.
    """

    def __init__(
        self,
        path: str | Path,
        identity: dict[str, Any],
        *,
        started_at: str,
        harness_version: str | None,
        companion: Path | None = None,
        endings: str | None = None,
    ) -> None:
        """Open or resume the journal at ``path`` for the run ``identity`` names.

        A finished draw read back must end as ``endings`` (``Provider.endings``) calls complete.

        ``companion`` is the run's batch journal: a refusal that says to remove this journal
        names it too when it is there (its batches may still be open and billed). A journal of
        another run that holds no finished draw (its header and attempts only) and has no
        companion on disk is replaced, :attr:`replaced` saying so in one line (else ``None``).

        Raises:
            RefusalError: the journal belongs to another run or another harness version, or is
                damaged (a line not JSON, a record not of its kind, a draw recorded twice
                differently), naming the file and the line.
        """
        self.path = Path(path)
        self.companion, self.endings = companion, endings
        self.lock = threading.Lock()
        self._synced = time.monotonic()
        self._failed: BaseException | None = None
        self.draws: dict[tuple[str, str, int], dict[str, Any]] = {}
        self.attempts = 0
        self.resumed = False
        self.replaced: str | None = None
        canonical = json.loads(json.dumps(identity))
        self.fd, exists = self._open_locked()
        try:  # a stop or a failure here leaves no journal open (and locked)
            self.started_at, self.harness_version = started_at, harness_version
            self.mark = run_mark(canonical, started_at)
            if exists:
                with whole_lines(self.path) as lines:
                    if lines:  # none whole: a kill before the header was written, nothing held
                        self._load(lines, canonical)
                if self.replaced is not None:  # after the block: it cuts a torn line by length
                    os.ftruncate(self.fd, 0)
                exists = bool(lines) and self.replaced is None
            if not exists:
                self._write(
                    {
                        "journal": JOURNAL_FORMAT,
                        "identity": canonical,
                        "started_at": started_at,
                        "harness_version": harness_version,
                    },
                    sync=True,
                )
        except BaseException:
            os.close(self.fd)
            raise

    def _open_locked(self) -> tuple[int, bool]:
        """The journal's descriptor, locked for the journal's life, and whether it was there.

        The lock is taken before reading: two runs never share a journal, and a run still
        writing it is refused, not raced. A run that creates it at the same moment, or removes
        it (finished) between its opening and its locking, is met by opening the name anew.

        Raises:
            RefusalError: another run holds the lock, or the path holds no regular file (a
                directory, a FIFO, a symbolic link, a hard link), which is left as it is.
        """
        for _ in range(3):
            try:
                fd, existed = os.open(self.path, _APPEND | os.O_CREAT | os.O_EXCL, 0o600), False
            except FileExistsError:  # there already, or created since by another run
                try:  # never waits: a FIFO with no reader is refused below, not waited on
                    fd, existed = os.open(self.path, _APPEND | os.O_NONBLOCK | os.O_NOFOLLOW), True
                except FileNotFoundError:  # removed since by a run that finished
                    continue
                except OSError as exc:  # a link; a directory; a FIFO or socket no process reads
                    if exc.errno == errno.ELOOP:  # never followed: it would write its target
                        gone = not os.path.exists(self.path)
                        raise self._not_a_file(_LINKED[gone]) from None
                    if exc.errno not in (errno.EISDIR, errno.ENXIO, errno.ENODEV):
                        raise  # unreadable (permissions): as any file the run cannot write
                    what = "a directory" if exc.errno == errno.EISDIR else "a FIFO or a device"
                    raise self._not_a_file(what) from None
            try:  # a stop or a refusal from here on leaves no descriptor open (and locked)
                if not stat.S_ISREG(os.fstat(fd).st_mode):  # a device, or a FIFO being read
                    raise self._not_a_file("not a regular file")
                if os.fstat(fd).st_nlink > 1:  # a run's own journal has one name
                    raise self._not_a_file("a hard link: another name shares its file")
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError as exc:
                    raise RefusalError(
                        f"{self.path}: another run is writing this journal; wait for it, "
                        "or write the receipt elsewhere"
                    ) from exc
                # the name still the file locked (not one a finished run removed meanwhile)
                with contextlib.suppress(FileNotFoundError):
                    if os.path.samestat(os.fstat(fd), os.stat(self.path)):
                        return fd, existed
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)
        raise RefusalError(
            f"{self.path}: other runs keep creating and removing this journal; wait for them, "
            "or write the receipt elsewhere"
        )

    def _not_a_file(self, why: str) -> RefusalError:
        """The refusal of a journal path that holds no regular file (``why`` says what it is)."""
        return RefusalError(
            f"{self.path}: the journal is not a file a run can keep ({why}); move it away, or "
            "write the receipt elsewhere"
        )

    def _remove(self) -> str:
        """The words that say what to remove to start afresh: this journal, and its companion."""
        if self.companion is None or not self.companion.exists():
            return "remove it"
        return (
            f"cancel any batch of {self.companion} still open (the provider's batch list shows "
            "them; they are billed), then remove it and that batch journal"
        )

    def _holds_no_draw(self, records: list[bytes]) -> bool:
        """Whether ``records`` (after the header) are attempts only and no companion is on disk."""
        if self.companion is not None and self.companion.exists():
            return False
        try:
            recs = [json.loads(r) for r in records if r.strip()]
        except (ValueError, RecursionError):  # not JSON, or not UTF-8: damaged, not replaced
            return False
        return all(isinstance(r, dict) and set(r) <= {"attempt", "run"} for r in recs)

    def _load(self, complete: list[bytes], identity: dict[str, Any]) -> None:
        version = self.harness_version
        try:
            header = json.loads(complete[0]) if complete else None
        except (ValueError, RecursionError):  # not JSON, or not UTF-8
            header = None
        fmt = header.get("journal") if isinstance(header, dict) else None
        if isinstance(fmt, str) and fmt.startswith("driftproof-run/") and fmt != JOURNAL_FORMAT:
            raise RefusalError(
                f"{self.path}: line 1 gives the journal format {fmt[:40]!r}, this driftproof "
                f"reads {JOURNAL_FORMAT!r} only; resume it with the driftproof that began it, or "
                f"{self._remove()} to start afresh"
            )
        if not isinstance(header, dict) or fmt != JOURNAL_FORMAT:
            raise RefusalError(
                f"{self.path}: not a driftproof run journal; {self._remove()} to start afresh"
            )
        if (theirs := header.get("identity")) != identity:
            theirs = theirs if isinstance(theirs, dict) else {}
            diff = sorted(k for k in {**identity, **theirs} if identity.get(k) != theirs.get(k))
            named = ", ".join(
                dict.fromkeys(_IDENTITY_WORDS.get(k, k.replace("_", " ")) for k in diff)
            )
            if header.get("identity") == theirs and self._holds_no_draw(complete[1:]):
                self.replaced = (
                    f"{self.path}: replaced the journal of another run (differs in: {named}); it "
                    "held no finished draw"
                )
                return
            raise RefusalError(
                f"{self.path}: the journal belongs to a different run (differs in: "
                f"{named}); {self._remove()}, or write the receipt elsewhere"
            )
        if header.get("harness_version") != version:
            raise RefusalError(
                f"{self.path}: the run began on harness version {header.get('harness_version')}, "
                f"this binary prints {version}; answers of one receipt come from one "
                "harness"
            )
        checked(_Header.model_validate, header, self.path, 1, "", kind="the header")
        self.started_at = header["started_at"]
        self.mark = run_mark(identity, self.started_at)
        self._records(complete[1:], identity)
        self.resumed = True

    def _records(self, records: list[bytes], identity: dict[str, Any]) -> None:
        """Read the lines after the header (line 2 on): this run's attempts and finished draws.

        Raises:
            RefusalError: a line not JSON, neither an attempt nor a draw record, carrying another
                run's mark, not of its kind, naming a draw this run does not make, or recording
                a draw a second time differently; naming the file and the line.
        """
        arms = (*_ARMS, "control") if identity.get("control") is not None else _ARMS
        lines: dict[tuple[str, str, int], int] = {}  # the line each draw was first read at
        for n, rec in json_records(self.path, records, first_line=2):
            kind = self._kind(n, rec)
            if kind == "attempt":
                self.attempts += 1
            else:
                d = rec["draw"]
                v = checked(
                    DrawRecord.model_validate, d, self.path, n, "/draw", kind="a draw record"
                )
                if why := draw_problem(d["draw"], v.draw, identity, self.endings):
                    raise RefusalError(
                        f"{self.path}: the draw record at line {n}: its member /draw/draw{why}; "
                        "the journal is damaged"
                    )
                if not (
                    d["index"] == d["draw"]["index"]
                    and d["arm"] in arms
                    and d["case"] in identity.get("cases", [d["case"]])
                    and d["index"] < identity.get("max_draws", d["index"] + 1)
                ):
                    raise RefusalError(
                        f"{self.path}: the draw record at line {n} (case {d['case']!r}, "
                        f"{d['arm'].replace('_', '-')} arm, draw {d['index'] + 1}) is no draw "
                        "this run makes; the journal is damaged"
                    )
                key = (d["case"], d["arm"], d["index"])
                if key in self.draws and self.draws[key] != d:  # which one is true is unknown
                    raise RefusalError(
                        f"{self.path}: line {n} records draw {d['index'] + 1} of case "
                        f"{d['case']!r} ({d['arm'].replace('_', '-')} arm) a second time, "
                        f"differently from line {lines[key]}; the journal is damaged"
                    )
                lines.setdefault(key, n)
                self.draws.setdefault(key, d)

    def _kind(self, n: int, rec: dict[str, Any]) -> str:
        """``"attempt"`` or ``"draw"``: what the record at line ``n`` is, of this run.

        Raises:
            RefusalError: it is neither ``{"attempt": 1, "run": MARK}`` nor ``{"draw": {...},
                "run": MARK}``, or its mark is not this journal's (a line of another run).
        """
        attempt = set(rec) == {"attempt", "run"} and type(rec["attempt"]) is int
        if not (attempt and rec["attempt"] == 1) and set(rec) != {"draw", "run"}:
            raise RefusalError(
                f"{self.path}: line {n} is neither an attempt nor a finished draw of a run "
                '(expected the members "attempt" (1) or "draw", and "run"); the journal is '
                "damaged"
            )
        if rec["run"] != self.mark:
            raise RefusalError(
                f"{self.path}: line {n} was written by another run (its member /run is "
                f"{str(rec['run'])[:40]!r}, expected {self.mark!r}, the mark of this journal's "
                "header); the journal is damaged"
            )
        return "attempt" if attempt else "draw"

    def _write(self, obj: dict[str, Any], *, sync: bool) -> None:
        with self.lock:
            try:
                append(self.fd, json_line(obj), self.path)
                if sync:
                    os.fsync(self.fd)
            except OSError as exc:
                raise named(exc, self.path) from exc

    def attempt(self) -> None:
        """Record one endpoint attempt, as it is made."""
        self._write({"attempt": 1, "run": self.mark}, sync=False)

    def draw(self, record: dict[str, Any]) -> None:
        """Record one finished draw; fsync after :data:`SYNC_INTERVAL`.

        Its line is written whole or not at all (:func:`~driftproof.run.jsonl.append`).

        Raises:
            OSError: the journal could not be written (the draw does not count as finished).
        """
        data = json_line({"draw": record, "run": self.mark})
        with self.lock:
            if (failed := self._failed) is not None:  # every draw after it names what failed
                if isinstance(failed, OSError):
                    raise named(failed, self.path)
                raise OSError(errno.EIO, f"the journal could not be written ({failed})", self.path)
            try:
                append(self.fd, data, self.path)
                now = time.monotonic()
                if now - self._synced >= SYNC_INTERVAL:
                    os.fsync(self.fd)
                    self._synced = now
            except OSError as exc:
                self._failed = exc
                raise named(exc, self.path) from exc
            except BaseException as exc:
                self._failed = exc
                raise
            self.draws.setdefault((record["case"], record["arm"], record["index"]), record)

    def close(self) -> None:
        """Fsync and close, once (every finished draw kept); a later write fails, reaching none."""
        with self.lock:  # a draw still in flight must not write to the number given to another
            if self.fd >= 0:
                with contextlib.suppress(OSError):
                    os.fsync(self.fd)
                os.close(self.fd)
                self.fd = -1

    def remove(self) -> None:
        """Delete the journal (after the receipt is written; no fsync needed).

        The name goes first and the lock with the descriptor after, so no other run can take
        the lock of a journal about to be deleted; a name that holds this journal no longer is
        left as it is (:func:`~driftproof.run.jsonl.unlink_own`).
        """
        unlink_own(self.path, self.fd)
        os.close(self.fd)
