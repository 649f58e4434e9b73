"""Reading a source file faithfully: its bytes, strict JSON, typed reads by place.

Timestamps read as instants in UTC, their written offset kept beside them. A problem names the
file, the JSON pointer and what was expected (:class:`Where`); unknowns stay ``None`` (D-13).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import rfc8785

from driftproof._anchor import slug as _slug
from driftproof._json import JSONFault, json_kind, loads_strict, pointer, read_capped
from driftproof._json import read_skill_md as _read_skill_md
from driftproof.errors import ImportError_
from driftproof.importers._counts import COUNT_TOO_BIG as COUNT_TOO_BIG
from driftproof.importers._counts import add_tokens as add_tokens
from driftproof.importers._counts import count_at as count_at
from driftproof.importers._counts import exact_integer as exact_integer
from driftproof.importers._counts import is_count as is_count
from driftproof.importers._counts import is_name as is_name
from driftproof.importers._counts import named as named
from driftproof.importers._counts import sealable as sealable
from driftproof.importers._counts import source_tokens as source_tokens
from driftproof.importers._counts import stated as stated
from driftproof.importers._counts import unblank as unblank
from driftproof.importers._counts import within as within
from driftproof.importers._text import NAME_NOT_UNICODE, BadName, Repair, repair_tree
from driftproof.receipt._model_draw import CASE_ID_PATTERN

#: Largest source file an importer reads (bytes), checked before reading.
MAX_SOURCE_BYTES = 64 * 1024 * 1024
_T = TypeVar("_T")
#: The receipt schema's case id pattern.
CASE_ID = re.compile(CASE_ID_PATTERN)


class Where:
    """A place in a source document: ``Where(file) / "runs" / 0`` is ``file: /runs/0``.

    ``member``: the archive member the document is (``Where(f, member="m.json") / "id"`` is
    ``f, member m.json: /id``); ``""`` when the file itself is the document.
    """

    __slots__ = ("file", "member", "parts")

    def __init__(self, file: str | Path, parts: tuple[Any, ...] = (), *, member: str = "") -> None:
        self.file = str(file)
        self.parts = parts
        self.member = member

    def __truediv__(self, key: Any) -> Where:
        return Where(self.file, self.parts + (key,), member=self.member)

    @property
    def pointer(self) -> str:
        """The RFC 6901 pointer of this place."""
        return pointer(self.parts)

    def fail(self, message: str) -> ImportError_:
        """The :class:`~driftproof.errors.ImportError_` for this place (raise it)."""
        return ImportError_.at(self.file, self.pointer, message, member=self.member)

    def get(
        self,
        obj: Any,
        key: str,
        kind: type | tuple[type, ...],
        *,
        required: bool = True,
        nullable: bool = False,
    ) -> Any:
        """``obj[key]`` checked to be of ``kind`` (``bool`` is never an int here)."""
        here = self / key
        if not isinstance(obj, dict):
            raise self.fail(f"expected an object, found {kind_of(obj)}")
        if key not in obj:
            if required:
                raise here.fail(f"expected member {key!r} ({_names(kind)}), found none")
            return None
        value = obj[key]
        if value is None:
            if nullable or not required:
                return None
            raise here.fail(f"expected {_names(kind)}, found null")
        if not _is(value, kind):
            raise here.fail(f"expected {_names(kind)}, found {kind_of(value)}")
        return value

    def number(
        self,
        obj: Any,
        key: str,
        *,
        low: float | None = None,
        high: float | None = None,
        count: bool = False,
    ) -> float | None:
        """``obj[key]`` by :func:`source_number`, a ``count`` by :func:`count_at` too; or None."""
        value = self.get(obj, key, int if count else float, required=False)
        if count:
            count_at(value, self / key)
        return source_number(value, self / key, low=low, high=high)


#: The place an option given on the command line is named at (``<options>``, no pointer).
OPTIONS = Where("<options>")

#: Every integer up to it in magnitude is exactly a float (2**53 + 1 is not); a score past it
#: is no score (scores lie in 0..1 anyway).
EXACT_INTEGER = 2**53
#: How far a source figure may sit from the one its own fields make it: float rounding only.
ROUNDING = 1e-9


def source_number(
    value: Any, where: Where, *, low: float | None = None, high: float | None = None
) -> float | None:
    """A number a source recorded, as the float a receipt keeps; ``None`` for ``None``.

    Raises:
        ImportError_: true or false (never a number here), not a number, an integer past
            2**53 - 1 in magnitude (:func:`exact_integer`: no receipt holds it exactly), or
            outside ``low``..``high`` (inclusive); naming ``where``.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise where.fail(f"expected a number, found {kind_of(value)}")
    if isinstance(value, int):
        exact_integer(value, where)
    too_low, too_high = low is not None and value < low, high is not None and value > high
    if not math.isfinite(value) or too_low or too_high:
        span = f" from {low:g}" if low is not None else ""
        if high is not None:
            span += f" to {high:g}" if low is not None else f" up to {high:g}"
        raise where.fail(f"expected a finite number{span}, found {kind_of(value)}")
    return float(value)


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool):
        return bool in kinds
    return isinstance(value, kinds) or (float in kinds and isinstance(value, int))


_WORDS = {dict: "an object", list: "an array", str: "a string", int: "an integer"}
_WORDS |= {float: "a number", bool: "true or false"}


def _names(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(_WORDS.get(k, k.__name__) for k in kinds)


def kind_of(value: Any) -> str:
    """The JSON kind of ``value`` in words, quoting a number or (the start of) a string."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {json.dumps(value if len(value) <= 40 else value[:40] + '…')}"
    return json_kind(value)


def to_read(path: Path) -> bool:
    """Whether ``path`` is read: anything is there, or its folder is a link that leads nowhere."""
    return os.path.lexists(path) or os.path.lexists(path.parent) and not path.parent.exists()


def read_bytes(path: Path, most: int = MAX_SOURCE_BYTES) -> bytes:
    """A source file's bytes, refusing a missing file or one over ``most`` bytes before reading."""
    w = Where(path)
    try:
        st = path.stat()
        if stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode):
            # opening a pipe waits for a writer that may never come
            raise w.fail("expected a file, found a named pipe or socket")
        if st.st_size > most:
            raise w.fail(f"file is {st.st_size} bytes; importers read at most {most}")
        data = read_capped(path, most)
    except OSError as exc:
        raise w.fail(f"cannot read: {exc.strerror}") from None
    if len(data) > most:
        raise w.fail(f"file is over {most} bytes; importers read at most that")
    return data


def parse_json_bytes(
    data: bytes,
    file: str | Path,
    repairs: list[Repair],
    *,
    allow_nan: bool = False,
    pointer: str = "",
    member: str = "",
    lead: str = "expected JSON",
) -> Any:
    """Parse JSON source bytes strictly (:func:`driftproof._json.loads_strict`).

    No member name twice; NaN/Infinity only with ``allow_nan``. A string holding a byte that is
    not UTF-8 or a lone surrogate gets U+FFFD and is appended to ``repairs``; such a member name
    is refused. ``pointer`` places a document inside ``file`` (a JSONL line), ``member`` names
    the archive member it is; ``lead`` opens a syntax error.

    Raises:
        ImportError_: not JSON, naming the file, pointer and line.
    """
    text = data.decode(
        "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8", errors="surrogateescape"
    )
    try:
        value = loads_strict(text, allow_nan=allow_nan)
    except JSONFault as exc:
        fault: JSONFault | BadName = exc
        message = exc.worded(lead)
    else:
        try:
            return repair_tree(value, repairs, text)
        except BadName as exc:
            fault, message = exc, NAME_NOT_UNICODE
    raise ImportError_.at(file, pointer + fault.pointer, message, member=member)


def read_json(path: Path, repairs: list[Repair]) -> tuple[Any, bytes]:
    """Read and parse one JSON source file (:func:`parse_json_bytes`, no NaN): (data, raw bytes)."""
    data = read_bytes(path)
    return parse_json_bytes(data, path, repairs), data


def file_sha256(data: bytes) -> str:
    """Lowercase hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def git_blob_sha1(data: bytes) -> str:
    r"""The git blob id of ``data``, as ``git hash-object`` computes it.

    Sha1 of ``b"blob <size>\0" + data`` (method, "Figures a source printed give no verdict").
    """
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def manifest_sha256(entries: list[tuple[str, str]]) -> str:
    r"""sha256 of a multi-file source: of the UTF-8 lines ``"<label>\t<sha256>\n"``, in order."""
    return file_sha256("".join(f"{label}\t{digest}\n" for label, digest in entries).encode("utf-8"))


def case_id_for(label: str, *, content: str | None = None) -> str:
    """``label`` when it fits :data:`CASE_ID`, else its slug and 10 hex of sha256 of ``content``.

    ``content`` defaults to the label, so two different labels never share an id.
    """
    if CASE_ID.fullmatch(label):
        return label
    slug = _slug(label, strip="-._", empty="")[:100]
    digest = file_sha256((content if content is not None else label).encode("utf-8"))[:10]
    return f"{slug}-{digest}" if slug else f"case-{digest}"


def canonical_json(value: Any) -> bytes | None:
    """``value`` as RFC 8785 JSON; ``None`` when it has none (NaN, an integer too big, no JSON)."""
    try:
        return rfc8785.dumps(value)
    except (TypeError, ValueError):  # rfc8785.CanonicalizationError is a ValueError
        return None


def sole(values: Iterable[_T]) -> _T | None:
    """The one value ``values`` hold (repeats aside), else ``None``."""
    found = set(values)
    return next(iter(found)) if len(found) == 1 else None


def unit_score(value: Any, where: Where) -> float:
    """A finite number in 0..1 (the receipt's score range), or fail naming the place."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        found = kind_of(value)
    elif isinstance(value, int) and abs(value) > EXACT_INTEGER:
        found = f"an integer of {len(str(abs(value)))} digits"
    elif math.isfinite(value) and 0 <= value <= 1:
        return float(value)
    else:
        found = repr(value)
    raise where.fail(f"expected a score between 0 and 1, found {found}")


def same_derived(
    value: float | None, expected: float | None, where: Where, what: str, whole: str
) -> None:
    """Refuse ``value`` (at ``where``) more than :data:`ROUNDING` from ``expected``.

    ``expected`` is the figure the source's own fields make it, ``what`` says how, ``whole``
    names the source (``"report"``, ``"document"``); either figure ``None``: nothing compared.

    Raises:
        ImportError_: at ``where``, both figures to 6 significant digits.
    """
    if value is None or expected is None or abs(value - expected) <= ROUNDING:
        return
    raise where.fail(
        f"expected {expected:.6g}, {what}, found {value:.6g}: the {whole} contradicts itself"
    )


def safe_filename(*parts: str) -> str:
    """A receipt file name from parts: characters outside ``[A-Za-z0-9._-]`` become ``-``."""
    stem = "-".join(_slug(p, strip="-.", empty="") for p in parts if p)
    stem = re.sub(r"-{2,}", "-", stem)[:190] or "import"
    return f"{stem}.json"


def read_skill_md(skill_md: Path | None) -> str | None:
    """The SKILL.md text (:func:`driftproof._json.read_skill_md`), or ``None`` when none given.

    Raises:
        ImportError_: the file is unreadable, too large, not UTF-8 text, or empty (named, why).
    """
    return None if skill_md is None else _read_skill_md(skill_md, Where(skill_md).fail)


#: An RFC 3339 date-time with an offset as the receipt schema's date-time: any number of fraction
#: digits, its T and Z in capitals (as :data:`DATE_TIME` says); for ``fullmatch``.
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})", re.ASCII)
#: What :data:`RFC3339` reads, in a refusal's words.
DATE_TIME = "an RFC 3339 date-time with an offset, its T and Z in capitals"


def utc_instant(text: str | None, where: Where) -> tuple[str | None, str | None]:
    """An RFC 3339 timestamp as (UTC ``…Z`` text, the offset it was written in, ``None`` for UTC).

    ``09:58:55-04:00`` reads as (``13:58:55Z``, ``-04:00``); fractional seconds keep the
    source's digits, to the microsecond. ``None`` (no timestamp) is ``(None, None)``.

    Raises:
        ImportError_: not :data:`RFC3339` (any fraction digits), or not a real date, naming
        ``where``.
    """
    if text is None:
        return None, None
    m = RFC3339.fullmatch(text)
    if m is None:
        raise where.fail(f"expected {DATE_TIME}, found {text[:64]!r}")
    frac = m.group(1) or ""
    try:
        moment = datetime.fromisoformat(text)  # fraction digits past the sixth dropped
    except ValueError:
        raise where.fail(f"expected a real date and time, found {text[:64]!r}") from None
    offset = None if m.group(2) in ("Z", "+00:00") else m.group(2)
    utc = _in_utc(moment, text, where)
    stamp = utc.replace(tzinfo=None, microsecond=0).isoformat()  # 0999, where strftime writes 999
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
        raise where.fail(
            f"expected Unix seconds from 0 to 253402300799 (1970 to 9999), found {seconds!r}"
        )
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
            f"expected a date-time with a UTC offset, found {kind_of(value)}"
        ) from None
    off = dt.utcoffset()  # None without tzinfo too
    if off is None:
        raise where.fail(
            "expected a date-time with a UTC offset (no instant without one), found "
            + kind_of(value)
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
    return dt.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"


def run_times(
    started: list[tuple[datetime, str | None]], finished: list[tuple[datetime, str | None]]
) -> dict[str, str | None]:
    """``run`` members for the earliest start and latest finish (as instants), with offsets."""
    out: dict[str, str | None] = {}
    for key, moments, pick in (("started_at", started, min), ("finished_at", finished, max)):
        dt, off = pick(moments, key=lambda x: x[0]) if moments else (None, None)
        out[key], out[f"{key}_offset"] = utc_text(dt) if dt is not None else None, off
    return out
