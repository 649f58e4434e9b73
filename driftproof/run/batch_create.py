"""A batch's creation: the call run to its end, why one failed, and a creation left open.

Each creation is journaled before it is asked for (``creating``) and its batch's id after
(``batch``). A run stopped in between (SIGKILL, power loss, a second Ctrl-C, a reply lost to a
timeout or a 5xx) leaves a ``creating`` line alone: the provider may hold a batch, billed, that
the journal does not name. On resume, an OpenAI batch is found by its input file, journaled
before; an Anthropic batch cannot be matched to its requests without reading its results, so
the run refuses to make another until told to.
"""

from __future__ import annotations

import _thread
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, cast

from driftproof.errors import RefusalError
from driftproof.run.batch import BatchJournal, BatchLane, ids_digest
from driftproof.run.providers._sdk import refused
from driftproof.run.providers.base import AttemptError
from driftproof.run.scheduler import FatalRun

T = TypeVar("T")

#: The option that sends again the requests of a batch perhaps made and not recorded.
RESEND = "--batch-resend-unrecorded"


def to_its_end(call: Callable[[], T]) -> tuple[T, KeyboardInterrupt | None]:
    """``call()`` (an upload, a batch's creation) run to its end, and a Ctrl-C that came meanwhile.

    The provider may hold what the call made before its reply is read: a first Ctrl-C waits
    for the reply (at most the call's timeout) so the id reaches the batch journal and a resumed
    run does not send the requests again, even one that comes while the call's thread starts.
    A second Ctrl-C stops waiting. A call that fails raises its failure, a first Ctrl-C or not:
    the caller journals what the failure made (a batch refused made none) before the run stops.

    Raises:
        KeyboardInterrupt: a second Ctrl-C.
        Whatever ``call`` raised.
    """
    box: list[tuple[bool, Any]] = []
    done = threading.Event()

    def run() -> None:
        try:
            box.append((True, call()))
        except BaseException as exc:  # handed to the waiting thread
            box.append((False, exc))
        finally:
            done.set()

    stop: KeyboardInterrupt | None = None
    started = False
    while not done.is_set():
        try:
            if not started:
                # no stop is raised between these two lines (Python raises one after a call
                # returns, here with the thread started): one that comes while the thread
                # starts, whichever thread took the signal, waits like any other
                started = True
                _thread.start_new_thread(run, ())
            done.wait(0.1)
        except KeyboardInterrupt as exc:
            if stop is not None:
                raise
            stop = exc
    ok, value = box[0]
    if not ok:
        raise value
    return cast(T, value), stop


def maybe_made(exc: AttemptError, asked: tuple[str, str] | None) -> bool:
    """Whether a creation that failed with ``exc`` may have made its batch all the same.

    It may when it was asked for (``asked`` is not ``None``) and met a server error (5xx) or
    had no answer: a timeout, or a connection lost once the request may have been read. Only a
    refusal (4xx) or a refused connection (:func:`~driftproof.run.providers._sdk.refused`,
    through ``exc``'s causes) made none.
    """
    if asked is None:
        return False
    return exc.status >= 500 if exc.status is not None else not refused(exc)


def not_created(
    provider: str, exc: AttemptError, asked: tuple[str, str] | None, fid: str | None, n: int
) -> str:
    """Why a batch of ``n`` requests was not created, as the run's stop says it.

    ``asked`` (UTC times as ``YYYY-MM-DDTHH:MM:SSZ``) is when its creation was asked for and
    when that call failed, ``None`` when it failed before (its upload). When the batch may have
    been made (:func:`maybe_made`), the words say what running again does: find the batch made
    from the input file ``fid`` when there is one; else cancel the batch named by ``n`` and that
    span, then send its requests again with :data:`RESEND`.
    """
    if not maybe_made(exc, asked):
        what = "refused a batch" if exc.status is not None else "could not be sent a batch"
        return f"the {provider} batch API {what}: {exc.reason}"
    head = (
        f"the {provider} batch API did not confirm a batch's creation ({exc.reason}) and may have "
        "made it all the same: "
    )
    if fid:
        return head + (
            f"running the same command again looks for the batch made from the input file {fid} "
            "in its batch list and reads it (or sends its requests again if there is none)"
        )
    start, end = (t.replace("T", " ").removesuffix("Z") for t in cast(tuple[str, str], asked))
    which = f"of {n} requests made between {start} and {end.removeprefix(start[:11])} UTC"
    return head + (
        f"before running again, cancel the batch {which} (its batch list shows it), or it is "
        f"billed twice; then run the same command with {RESEND}"
    )


def settle_unrecorded(bj: BatchJournal, lanes: dict[str, BatchLane], *, resend: bool) -> None:
    """Settle each creation ``bj`` began and never saw end, before any batch is made.

    A lane that uploads (OpenAI) lists its batches: the one made from the journaled input file
    is journaled as the run's and read; none, the creation is dropped and the file's batch made
    again. Any other lane's creation is dropped when ``resend`` is given and the run has named
    it to the user (``named``: this refusal, or the stop of a creation that may have made it),
    else it is journaled as named and refused: ``resend`` kept in a command run again never
    sends again a batch the user was not told to cancel.

    Raises:
        RefusalError: a creation that cannot be settled (the words say what to do), or two
            batches made from one input file.
        FatalRun: the batch list could not be read.
    """
    for digest, rec in list(bj.creating.items()):
        lane = lanes[rec["lane"]]
        if lane.uploads:
            _adopt(bj, lane, digest, rec)
        elif resend and digest in bj.named:
            bj.record("dropped", digest)
        else:
            if digest not in bj.named:
                bj.record("named", digest)
            raise RefusalError(unrecorded(bj.path, lane.provider, rec, resend=resend))


#: OpenAI batch states of a batch cancelled, or ended without running its requests.
_STOPPED = frozenset({"cancelling", "cancelled", "failed", "expired"})


def _adopt(bj: BatchJournal, lane: BatchLane, digest: str, rec: dict[str, Any]) -> None:
    """Journal the batch made from ``rec``'s input file as the run's, or drop ``rec``.

    Of several such batches, the only one not cancelled, failed or expired is the run's; when
    every one is, the newest (its unanswered requests are sent again, as any stopped batch's).
    """
    fid = rec["file_id"]
    sent = bj.files.get(fid or "")
    if sent is None or ids_digest(sent["ids"]) != digest:
        raise RefusalError(
            f"{bj.path}: a batch creation names no input file of its requests; the batch "
            "journal is damaged"
        )
    since = datetime.fromisoformat(rec["at"].replace("Z", "+00:00")).astimezone(UTC).timestamp()
    try:
        made = lane.made_from(fid, since)
    except AttemptError as exc:
        raise FatalRun(
            f"the {lane.provider} batch list could not be read to find the batch made from the "
            f"input file {fid}, which the run may have made before it stopped: {exc.reason}",
            status=exc.status,  # a refused key or a missing endpoint says what to check
            lane=rec["lane"],
        ) from exc
    if len(made) > 1:  # the one the user did not cancel, as the refusal below tells
        made = [m for m in made if m[1] not in _STOPPED] or made[:1]  # all stopped: the newest
    if len(made) > 1:
        named = ", ".join(f"{bid} ({state})" for bid, state in made)
        raise RefusalError(
            f"{bj.path}: the batches {named} were all made from the input file {fid}, whose "
            "requests this run sends once; cancel all but one (the one left is read), or "
            "remove this batch journal and its run journal to start afresh"
        )
    if not made:
        bj.record("dropped", digest)
        return
    what = {"lane": rec["lane"], "ids": sent["ids"]}
    bj.record("batch", {"id": made[0][0], "file_id": fid, **what, "created": rec["created"]})


def unrecorded(path: Path, provider: str, rec: dict[str, Any], *, resend: bool = False) -> str:
    """The refusal of a creation ``rec`` of ``path`` that may have made a batch not recorded.

    ``resend``: :data:`RESEND` was given before the run had named this creation.
    """
    at = rec["at"].replace("T", " ").removesuffix("Z")
    what = "answers" if rec["lane"] == "answer" else "judge samples"
    given = f" ({RESEND} was given, but it sends again only a batch named so before)"
    return (
        f"{path}: a batch of {rec['n']} requests may have been made at {at} UTC and not "
        f"recorded (this run's {what}): the run was stopped before its id was recorded, and "
        f"which {provider} batch holds these requests cannot be told without reading its "
        "results. Find it in the Console's batches page, or in the list GET "
        f"/v1/messages/batches gives, as the batch created at about {at} UTC with {rec['n']} "
        "requests, and cancel it (the Console's Cancel, or POST /v1/messages/batches/<its "
        "id>/cancel), or it is billed along with the one sent in its place. Then run the same "
        f"command with {RESEND} to send its requests again; the rest of the run is kept"
        + (given if resend else "")
    )
