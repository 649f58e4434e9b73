"""Helpers shared by the importers: reading a source file faithfully.

Hashing it, naming the place of a problem (file + RFC 6901 JSON pointer + what was expected,
:class:`Where`), parsing it strictly (:func:`parse_json_bytes`) and turning a source's labels
into receipt identifiers without inventing values. The source schemas' check lives in
:mod:`driftproof.importers._schema` (re-exported here). Unknowns stay ``None`` and are listed in
``provenance.unrecorded`` (D-13).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from driftproof._anchor import slug as _slug
from driftproof._json import JSONFault, loads_strict
from driftproof._json import pointer as _pointer_of
from driftproof.errors import ImportError_
from driftproof.importers._schema import (
    MAX_SCHEMA_PROBLEMS,
    json_kind,
    schema_problems,
    source_schema,
    validate_source,
)
from driftproof.importers._text import repair_tree
from driftproof.receipt import sha256_text

__all__ = [
    "CASE_ID",
    "EXACT_INTEGER",
    "MAX_SCHEMA_PROBLEMS",
    "MAX_SOURCE_BYTES",
    "Where",
    "arm_spec",
    "case_entry",
    "case_id_for",
    "file_sha256",
    "git_blob_sha1",
    "is_count",
    "manifest_sha256",
    "member_list",
    "member_object",
    "parse_instant",
    "parse_json_bytes",
    "provenance_doc",
    "read_bytes",
    "read_json",
    "read_skill_md",
    "run_times",
    "safe_filename",
    "schema_problems",
    "source_number",
    "source_schema",
    "unit_score",
    "unrecorded_judge",
    "utc_text",
    "validate_source",
]

#: Largest source file an importer reads (bytes), checked before reading.
MAX_SOURCE_BYTES = 64 * 1024 * 1024
#: The receipt schema's case id pattern.
CASE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class Where:
    """A place in a source document: the file and a JSON pointer, built up step by step.

    ``Where(file) / "runs" / 0`` is ``file: /runs/0``; :meth:`fail` raises the
    :class:`~driftproof.errors.ImportError_` for that place.
    """

    __slots__ = ("file", "parts")

    def __init__(self, file: str | Path, parts: tuple[Any, ...] = ()) -> None:
        self.file = str(file)
        self.parts = parts

    def __truediv__(self, key: Any) -> Where:
        return Where(self.file, self.parts + (key,))

    @property
    def pointer(self) -> str:
        """The RFC 6901 pointer of this place."""
        return _pointer_of(self.parts)

    def fail(self, message: str) -> ImportError_:
        """The error for this place (raise it)."""
        return ImportError_.at(self.file, self.pointer, message)

    # -- typed reads: each fails naming the place and the expectation -------------
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
            raise self.fail(f"expected an object, found {_kind(obj)}")
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
            raise here.fail(f"expected {_names(kind)}, found {_kind(value)}")
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
        """``obj[key]``, a number the source recorded, as :func:`source_number` reads it;
        ``None`` when absent or null (unknown, D-13)."""
        value = self.get(obj, key, int if count else float, required=False)
        return source_number(value, self / key, low=low, high=high)


#: Largest integer a source figure may hold: every integer up to it is exactly a float.
EXACT_INTEGER = 2**53


def source_number(
    value: Any, where: Where, *, low: float | None = None, high: float | None = None
) -> float | None:
    """A number a source recorded, as the float a receipt keeps; ``None`` for ``None``.

    Raises:
        ImportError_: true or false (never a number here), not a number, an integer beyond
            2**53 (no float holds it exactly), or outside ``low``..``high`` (inclusive);
            naming ``where``.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise where.fail(f"expected a number, found {_kind(value)}")
    if isinstance(value, int) and abs(value) > EXACT_INTEGER:
        raise where.fail(
            f"expected a number of at most 16 digits (an integer up to {EXACT_INTEGER}), "
            f"found an integer of "
            f"{len(str(abs(value)))} digits"
        )
    if (
        not math.isfinite(value)
        or (low is not None and value < low)
        or (high is not None and value > high)
    ):
        span = (
            f" from {low:g} to {high:g}"
            if low is not None and high is not None
            else (
                f" from {low:g}"
                if low is not None
                else f" up to {high:g}"
                if high is not None
                else ""
            )
        )
        raise where.fail(f"expected a finite number{span}, found {_kind(value)}")
    return float(value)


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool):
        return bool in kinds
    if float in kinds and isinstance(value, int):
        return True
    return isinstance(value, kinds)


def _names(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    words = {
        dict: "an object",
        list: "an array",
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "true or false",
    }
    return " or ".join(words.get(k, k.__name__) for k in kinds)


def _kind(value: Any) -> str:
    """:func:`~driftproof.importers._schema.json_kind`, quoting a number or (the start of) a
    string."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"the number {value!r}"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:40] + "…"
        return f"the string {json.dumps(text)}"
    return json_kind(value)


def read_bytes(path: Path) -> bytes:
    """A source file's bytes, refusing a missing or oversized file before reading it."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ImportError_.at(path, "", f"cannot read: {exc.strerror}") from None
    if size > MAX_SOURCE_BYTES:
        raise ImportError_.at(
            path, "", f"file is {size} bytes; importers read at most {MAX_SOURCE_BYTES}"
        )
    try:
        # At most one byte past the limit: a device or pipe reports size 0 and may never end.
        with path.open("rb") as fh:
            data = fh.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise ImportError_.at(path, "", f"cannot read: {exc.strerror}") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise ImportError_.at(
            path, "", f"file is over {MAX_SOURCE_BYTES} bytes; importers read at most that"
        )
    return data


def parse_json_bytes(
    data: bytes,
    file: str | Path,
    *,
    allow_nan: bool = False,
    pointer: str = "",
    lead: str = "expected JSON",
) -> Any:
    """Parse JSON source bytes strictly (:func:`driftproof._json.loads_strict`: no member name
    twice, no NaN/Infinity unless ``allow_nan``, as Inspect logs need). ``pointer`` places a
    document inside ``file`` (an archive member ``/header.json``, a JSONL line ``/line 3``) in
    its errors, so they name the source file, never a made-up one; ``lead`` opens a syntax
    error's message (``expected JSON: Expecting value at line 1 column 1``).

    Text is made valid Unicode deterministically (issue 14): a byte that is not UTF-8 inside a
    string, or a lone surrogate escape, becomes U+FFFD
    (:func:`~driftproof.importers._text.repair_tree`),
    and the importer's receipt records where in ``text_repairs``. A byte that is not UTF-8
    outside a string is not JSON and is refused, naming the file and line.
    """
    text = data.decode(
        "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8", errors="surrogateescape"
    )
    try:
        value = loads_strict(text, allow_nan=allow_nan)
    except JSONFault as exc:
        raise ImportError_.at(file, pointer, exc.worded(lead)) from None
    return repair_tree(value)


def read_json(path: Path, *, allow_nan: bool = False) -> tuple[Any, bytes]:
    """Read and parse one JSON source file; returns (data, raw bytes)."""
    data = read_bytes(path)
    return parse_json_bytes(data, path, allow_nan=allow_nan), data


def file_sha256(data: bytes) -> str:
    """Lowercase hex sha256 of ``data`` (a converted document's hash)."""
    return hashlib.sha256(data).hexdigest()


def git_blob_sha1(data: bytes) -> str:
    """The git blob id of ``data``, as ``git hash-object`` computes it: sha1 of
    ``b"blob <size>\\0" + data`` (method, "Figures a source printed give no verdict")."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def manifest_sha256(entries: list[tuple[str, str]]) -> str:
    """sha256 of a multi-file source: over the UTF-8 lines ``"<label>\\t<sha256>\\n"``,
    in the order given (documented on the interop page)."""
    text = "".join(f"{label}\t{digest}\n" for label, digest in entries)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def case_id_for(label: str, *, content: str | None = None) -> str:
    """A receipt case id for a source's case label.

    The label is kept as it is when it already fits the receipt's pattern
    (``^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$``); otherwise it is slugged and given
    the first 10 hex digits of the sha256 of ``content`` (or of the label), so two
    different labels never share an id.
    """
    if CASE_ID.match(label):
        return label
    slug = _slug(label, strip="-._", empty="")[:100]
    digest = hashlib.sha256(
        (content if content is not None else label).encode("utf-8")
    ).hexdigest()[:10]
    return f"{slug}-{digest}" if slug else f"case-{digest}"


def case_entry(
    case_id: str, prompt: str | None, arms: dict[str, Any], *, whole: str | None = None
) -> dict[str, Any]:
    """A receipt case as an importer builds it: ``prompt`` as kept (``None`` when unknown or
    bounded), ``prompt_sha256`` of the whole prompt (``whole`` when ``prompt`` was bounded),
    no rubric or threshold recorded (D-13), and its ``arms``."""
    hashed = prompt if whole is None else whole
    return {
        "id": case_id,
        "prompt": prompt,
        "prompt_sha256": sha256_text(hashed) if hashed is not None else None,
        "rubric_sha256": None,
        "threshold": None,
        "arms": arms,
    }


def arm_spec(
    label: str | None,
    *,
    instruction: str | None = None,
    system_prompt_sha256: str | None = None,
    recorded: bool = True,
) -> dict[str, Any]:
    """A receipt ``arms.<arm>`` entry: the source's label for the arm, its instruction and system
    prompt hash when recorded; ``recorded: False`` for an arm the source never ran (no lift)."""
    spec: dict[str, Any] = {
        "label": label,
        "instruction": instruction,
        "system_prompt_sha256": system_prompt_sha256,
    }
    if not recorded:
        spec["recorded"] = False
    return spec


def unrecorded_judge(tool: str, grader: str) -> dict[str, Any]:
    """A judge object for a source that scored with a grader whose model it did not record.

    The receipt schema needs a judge beside any score; the model string is the
    marker ``unrecorded:<tool>/<grader>``, never a model id, and the caller lists
    ``judge.model`` in ``provenance.unrecorded`` (D-13). Scale 0..1, step unknown.
    """
    return {
        "model": f"unrecorded:{tool}/{grader}"[:200],
        "provider": None,
        "surface": None,
        "service": None,
        "sampling": None,
        "template_sha256": None,
        "scale": {"worst": 0.0, "best": 1.0, "step": None},
        "price": None,
    }


def provenance_doc(
    tool: str, tool_version: str | None, document: str, document_sha256: str, unrecorded: list[str]
) -> dict[str, Any]:
    """``provenance`` of an imported receipt: tool, version, document, its sha256, unrecorded
    things."""
    seen: list[str] = []
    for item in unrecorded:
        item = item[:200]
        if item not in seen:
            seen.append(item)
    return {
        "tool": tool,
        "tool_version": tool_version,
        "document": document[:4096],
        "document_sha256": document_sha256,
        "unrecorded": seen[:200],
    }


def member_object(holder: Any, key: str) -> dict[str, Any]:
    """``holder[key]`` when ``holder`` is an object and that member is an object, else ``{}``: a
    member a source may leave out or give another type, read without failing."""
    value = holder.get(key) if isinstance(holder, dict) else None
    return value if isinstance(value, dict) else {}


def member_list(holder: Any, key: str) -> list[Any]:
    """``holder[key]`` when ``holder`` is an object and that member is an array, else ``[]``."""
    value = holder.get(key) if isinstance(holder, dict) else None
    return value if isinstance(value, list) else []


def is_count(value: Any) -> bool:
    """Whether ``value`` is a count a source recorded: an integer >= 0 (``true`` is no count)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def unit_score(value: Any, where: Where) -> float:
    """A finite number in 0..1 (the receipt's score range), or fail naming the place."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise where.fail(f"expected a score between 0 and 1, found {_kind(value)}")
    v = float(value)
    if not math.isfinite(v) or v < 0.0 or v > 1.0:
        raise where.fail(f"expected a score between 0 and 1, found {value!r}")
    return v


def safe_filename(*parts: str) -> str:
    """A receipt file name from parts: characters outside ``[A-Za-z0-9._-]`` become ``-``."""
    stem = "-".join(_slug(p, strip="-.", empty="") for p in parts if p)
    stem = re.sub(r"-{2,}", "-", stem)[:190] or "import"
    return f"{stem}.json"


def read_skill_md(skill_md: Path | None) -> str | None:
    """The SKILL.md text an import was told about, or ``None`` when none was given.

    Raises:
        ImportError_: the file cannot be read as UTF-8 text (named, with the reason).
    """
    if skill_md is None:
        return None
    try:
        return skill_md.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportError_.at(skill_md, "", f"cannot read SKILL.md as UTF-8 text: {exc}") from None


def parse_instant(value: Any, where: Where) -> tuple[datetime, str | None]:
    """A source timestamp parsed to an instant (issue 14): ``(aware datetime, offset)``, the offset
    ``+HH:MM`` it was written in, or ``None`` when written in UTC.

    Raises:
        ImportError_: not an RFC 3339 / ISO 8601 date-time with a UTC offset (a time with no
            offset is no instant), naming the place.
    """
    if not isinstance(value, str) or not value.strip():
        raise where.fail(f"expected a date-time with a UTC offset, found {_kind(value)}")
    try:
        dt = datetime.fromisoformat(value.strip())
    except ValueError:
        raise where.fail(f"expected a date-time with a UTC offset, found {_kind(value)}") from None
    if dt.tzinfo is None or dt.utcoffset() is None:
        raise where.fail(
            f"expected a date-time with a UTC offset (no instant without one), found {_kind(value)}"
        )
    off = dt.utcoffset()
    assert off is not None
    if not off:
        return dt, None
    minutes = int(off.total_seconds()) // 60
    sign = "+" if minutes >= 0 else "-"
    return dt, f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def utc_text(dt: datetime) -> str:
    """An aware datetime as the receipt's UTC date-time, ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``."""
    u = dt.astimezone(UTC)
    return (
        u.strftime("%Y-%m-%dT%H:%M:%S") + (f".{u.microsecond:06d}" if u.microsecond else "") + "Z"
    )


def run_times(
    started: list[tuple[datetime, str | None]], finished: list[tuple[datetime, str | None]]
) -> dict[str, str | None]:
    """``run`` members for the earliest start and the latest finish, compared as instants (never
    as strings): ``started_at``/``finished_at`` in UTC and the offsets they were written in."""
    out: dict[str, str | None] = {
        "started_at": None,
        "started_at_offset": None,
        "finished_at": None,
        "finished_at_offset": None,
    }
    if started:
        dt, off = min(started, key=lambda x: x[0])
        out["started_at"], out["started_at_offset"] = utc_text(dt), off
    if finished:
        dt, off = max(finished, key=lambda x: x[0])
        out["finished_at"], out["finished_at_offset"] = utc_text(dt), off
    return out
