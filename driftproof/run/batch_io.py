"""The settings of ``run --batch``, its progress line, and a results read against the counts."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from driftproof.run.batch import BatchStatus
from driftproof.wording import count_of

#: Default seconds between polls. Both providers' guides poll a batch's status in a loop and
#: say most batches finish within an hour; once a minute keeps well inside their rate limits.
BATCH_POLL_INTERVAL = 60.0
#: Default seconds after which a batch that has not ended is cancelled: the providers' own
#: completion window (Anthropic expires a batch 24 h after creation; OpenAI ``24h``).
BATCH_TIMEOUT = 24 * 3600.0
#: The ``request_counts`` of requests that each have a line in the results: Anthropic's four
#: ended kinds (each a result type), and OpenAI's ``completed`` (its output file: the outputs of
#: the requests that succeeded) and ``failed`` (its error file: of those with errors).
RESULT_COUNTS = ("succeeded", "errored", "canceled", "expired", "completed", "failed")


@dataclass
class BatchOptions:
    """``--batch`` settings: seconds between polls, and after creation to cancel a batch.

    ``on_status`` receives every open batch's :class:`BatchStatus` after each poll;
    ``resend_unrecorded``: a batch creation the batch journal began and did not see end is
    dropped and its requests sent again, where its batch cannot be found (Anthropic).
    """

    poll_interval: float = BATCH_POLL_INTERVAL
    timeout: float = BATCH_TIMEOUT
    on_status: Callable[[list[BatchStatus]], None] | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.time
    resend_unrecorded: bool = False


def describe(statuses: Sequence[BatchStatus]) -> str:
    """The progress line: each batch's state and the provider's counts, printable only."""

    def one(st: BatchStatus) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in st.counts.items())
        return f"{st.id} {st.state}" + (f": {counts}" if counts else "")

    text = "; ".join(one(st) for st in statuses)
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def shortfall(st: BatchStatus, held: Counter[str], counted_in: dict[str, str], sent: int) -> str:
    """Why the lines read of ended batch ``st`` are fewer than its counts say; ``""``: they are not.

    ``held`` is each part's lines read (a request's once, each naming none once); ``counted_in``
    the lane's :attr:`~driftproof.run.batch.BatchLane.counted_in`; ``sent`` the requests the
    batch sent. The lines of all parts are held to :data:`RESULT_COUNTS`, then each part to its
    own count; a count above ``sent`` is no count, and a batch that failed (``st.failed``) has
    no lines.
    """
    counted = sum(st.counts.get(k, 0) for k in RESULT_COUNTS)
    wants = [("results", "hold", held.total(), counted, "results")]
    wants += [(p, "holds", held[p], st.counts.get(k, 0), k) for p, k in counted_in.items()]
    for part, verb, n, count, kind in wants if st.failed is None else ():
        if n < count <= sent:
            got = f"{verb} {count_of(n, 'line')}" if n else "came back empty"
            return f"its {part} {got}, where the batch counts {count} {kind}"
    return ""
