"""Field helpers of the ``claude-plugin-eval`` and ``openai-evals`` importers: timestamps to UTC
instants, and texts too big to copy bounded by their hash and length (schema 0.15).

Public API::

    utc_instant(text, where) -> (utc_text, offset | None)
    unix_instant(seconds, where) -> utc_text
    bound_text(text, limit, pointer, bounded) -> text | None
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

from driftproof.importers._common import Where
from driftproof.receipt import sha256_text

__all__ = ["bound_text", "unix_instant", "utc_instant"]

_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})")


def utc_instant(text: str, where: Where) -> tuple[str, str | None]:
    """An RFC 3339 timestamp as (UTC ``…Z`` text, the offset it was written in, ``None`` for UTC).

    The instant is compared and stored in UTC, so ``09:58:55-04:00`` reads as ``13:58:55Z`` and
    the offset ``-04:00`` is kept beside it (``run.started_at_offset``, schema 0.15). Fractional
    seconds keep the source's digits, to the microsecond.

    Raises:
        ImportError_: not an RFC 3339 date-time with an offset, or not a real date, naming
        ``where``.
    """
    m = _RFC3339.fullmatch(text)
    if m is None:
        raise where.fail(f"expected an RFC 3339 date-time with an offset, found {text[:64]!r}")
    frac = m.group(1) or ""
    try:
        moment = datetime.fromisoformat(
            text[: m.start(1)] + frac[:7] + m.group(2) if frac else text
        )
    except ValueError:
        raise where.fail(f"expected a real date and time, found {text[:64]!r}") from None
    offset = None if m.group(2) in ("Z", "+00:00") else m.group(2)
    utc = moment.astimezone(UTC)
    stamp = utc.strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        stamp += "." + f"{utc.microsecond:06d}"[: min(6, len(frac) - 1)]
    return stamp + "Z", offset


def unix_instant(seconds: Any, where: Where) -> str:
    """Unix seconds (an integer or a number) as a UTC RFC 3339 text ``…Z``.

    Raises:
        ImportError_: not a finite number of seconds between 1970 and 9999, naming ``where``.
    """
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, (int, float))
        or not math.isfinite(seconds)
        or not 0 <= seconds < 253402300800
    ):
        raise where.fail(f"expected Unix seconds (a number from 0), found {seconds!r}")
    moment = datetime.fromtimestamp(seconds, tz=UTC)
    return (
        moment.strftime("%Y-%m-%dT%H:%M:%S")
        + (f".{moment.microsecond:06d}" if moment.microsecond else "")
        + "Z"
    )


def bound_text(
    text: str | None, limit: int, pointer: str, bounded: list[dict[str, Any]]
) -> str | None:
    """``text`` when it fits in ``limit`` characters; otherwise ``None``, with its pointer, sha256
    and length appended to ``bounded`` (the receipt's ``bounded_text``): the blob is not copied."""
    if text is None or len(text) <= limit:
        return text
    bounded.append({"pointer": pointer, "sha256": sha256_text(text), "chars": len(text)})
    return None
