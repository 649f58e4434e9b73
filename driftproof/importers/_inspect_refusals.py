"""Why a document given as an Inspect log is not read: not such a log, or one without samples.

Every Inspect log holds its eval spec (``eval``). A log whose results count completed samples
(``results.completed_samples``) but which holds none was written without them (a header-only
log, as Inspect reads one with ``header_only=True``); its samples were scored, not lost.
"""

from __future__ import annotations

from typing import Any

from driftproof._json import member_object
from driftproof.errors import ImportError_
from driftproof.importers._common import Where
from driftproof.importers._counts import is_count


def header_only(header: Any, w: Where) -> ImportError_ | None:
    """The refusal of a log (its header at ``w``) that holds no sample but counts completed ones.

    Returns ``None`` when the header counts no completed sample.
    """
    done = member_object(header, "results").get("completed_samples")
    if not is_count(done) or done == 0:
        return None
    return (w / "results" / "completed_samples").fail(
        f"expected the log's samples; its results count {done} completed sample(s) but the log "
        "holds none: it was written without its samples (header only). Import the full log"
    )


def unread(doc: Any, w: Where, samples: Any) -> ImportError_ | None:
    """The refusal of a ``.json`` document at ``w`` holding ``samples``; ``None``: it is read."""
    if not isinstance(member_object(doc, "eval").get("task"), str):
        return w.fail(
            "expected an Inspect log (an object whose `eval` spec names its task); this is not "
            "an Inspect log"
        )
    if samples:
        return None
    refused = header_only(doc, w)
    if refused is None and samples is None:
        return (w / "samples").fail(
            "expected the log's samples (logged with log_samples=True); found none"
        )
    return refused
