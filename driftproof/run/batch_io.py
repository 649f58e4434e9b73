"""The settings of ``run --batch`` and its progress line."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from driftproof.run.batch import BatchStatus

#: Default seconds between polls. Both providers' guides poll a batch's status in a loop and
#: say most batches finish within an hour; once a minute keeps well inside their rate limits.
BATCH_POLL_INTERVAL = 60.0
#: Default seconds after which a batch that has not ended is cancelled: the providers' own
#: completion window (Anthropic expires a batch 24 h after creation; OpenAI ``24h``).
BATCH_TIMEOUT = 24 * 3600.0


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
