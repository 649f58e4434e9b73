"""Source timestamps read as instants, in UTC, their written offset kept beside them."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

from driftproof.importers import _common as common
from driftproof.importers._common import Where

_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})", re.ASCII
)


def utc_instant(text: str, where: Where) -> tuple[str, str | None]:
    """An RFC 3339 timestamp as (UTC ``…Z`` text, the offset it was written in, ``None`` for UTC).

    ``09:58:55-04:00`` reads as (``13:58:55Z``, ``-04:00``); fractional seconds keep the
    source's digits, to the microsecond.

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
    utc = _in_utc(moment, text, where)
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
    return utc_text(datetime.fromtimestamp(seconds, tz=UTC))


def parse_instant(value: Any, where: Where) -> tuple[datetime, str | None]:
    """A source timestamp as (aware datetime, its written offset ``+HH:MM`` or ``None`` for UTC).

    Raises:
        ImportError_: not an RFC 3339 / ISO 8601 date-time with a UTC offset (a time with no
            offset is no instant), naming the place.
    """
    try:
        dt = datetime.fromisoformat(value.strip())  # not a string: no strip()
    except (AttributeError, ValueError):
        raise where.fail(
            f"expected a date-time with a UTC offset, found {common.kind_of(value)}"
        ) from None
    off = dt.utcoffset()  # None without tzinfo too
    if off is None:
        raise where.fail(
            "expected a date-time with a UTC offset (no instant without one), found "
            + common.kind_of(value)
        )
    _in_utc(dt, value, where)
    if not off:
        return dt, None
    minutes = int(off.total_seconds()) // 60
    sign = "+" if minutes >= 0 else "-"
    return dt, f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _in_utc(moment: datetime, text: str, where: Where) -> datetime:
    """``moment`` in UTC; ImportError_ naming ``where`` when UTC leaves years 1 to 9999."""
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise where.fail(
            f"expected a date-time within the years 1 to 9999 in UTC, found {text[:64]!r}"
        ) from None


def utc_text(dt: datetime) -> str:
    """An aware datetime as the receipt's UTC date-time, ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``."""
    u = dt.astimezone(UTC)
    fraction = f".{u.microsecond:06d}" if u.microsecond else ""
    return u.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"


def run_times(
    started: list[tuple[datetime, str | None]], finished: list[tuple[datetime, str | None]]
) -> dict[str, str | None]:
    """``run`` members for the earliest start and latest finish (as instants), with offsets."""
    out: dict[str, str | None] = {}
    for key, moments, pick in (("started_at", started, min), ("finished_at", finished, max)):
        dt, off = pick(moments, key=lambda x: x[0]) if moments else (None, None)
        out[key], out[f"{key}_offset"] = utc_text(dt) if dt is not None else None, off
    return out
