"""One strict JSON reader (:func:`loads_strict`) and one RFC 6901 pointer writer for the package.

Receipts, suites and every importer parse JSON here, so a member name given twice, ``NaN`` and
``Infinity`` (unless asked for) and a number too large for a 64-bit float are refused alike; and
read their files through :func:`open_file`, which never waits on a named pipe.
"""

from __future__ import annotations

import errno
import io
import json
import math
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any

#: Characters of a parser's own message kept in a :class:`JSONFault` (the rest is cut).
_DETAIL_MAX_CHARS = 80
#: Characters of a duplicated member name quoted in a message.
_NAME_MAX_CHARS = 80


def open_file(path: Path) -> io.BufferedReader:
    """``path`` opened for reading bytes, checked before a byte is read.

    Opened with ``O_NONBLOCK``: a named pipe is refused, never waited on for a writer.

    Raises:
        OSError: it cannot be opened; a folder is ``EISDIR``; a named pipe or socket is
            ``EINVAL``, its ``strerror`` "expected a file, found a named pipe or socket".
    """
    not_a_file = OSError(errno.EINVAL, "expected a file, found a named pipe or socket", str(path))
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:  # a socket cannot be opened at all ("No such device or address")
        if exc.errno == errno.ENXIO and stat.S_ISSOCK(os.stat(path).st_mode):
            raise not_a_file from None
        raise
    mode = os.fstat(fd).st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISDIR(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        raise not_a_file
    return os.fdopen(fd, "rb")


def read_capped(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``path`` (a device reporting size 0 may never end).

    Raises:
        OSError: as :func:`open_file`, or the read fails.
    """
    with open_file(path) as fh:
        return fh.read(limit + 1)


def escape(token: Any) -> str:
    """One RFC 6901 reference token of a key or index: ``~`` as ``~0``, ``/`` as ``~1``."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(parts: Iterable[Any]) -> str:
    """The RFC 6901 JSON pointer of a path of member names and array indices (``""`` for none).

    >>> pointer(["arms", "a/b", 0])
    '/arms/a~1b/0'
    """
    return "".join("/" + escape(p) for p in parts)


@dataclass(eq=False, repr=False)
class JSONFault(ValueError):
    """Text that is not strict JSON.

    Attributes:
        detail: what is wrong, in words (e.g. ``Expecting value at line 1 column 2``).
        whole: ``detail`` is a whole expectation (``expected unique member names, ...``); otherwise
            it is worded after a lead such as ``expected JSON`` (see :meth:`worded`).
        too_deep: the parser's recursion limit was reached (a caller with a nesting bound reports
            its bound instead).
        offset: for text holding bytes that are not UTF-8, the byte offset of the first one at or
            before the parser's stop, or ``None``.
        pointer: for a member name given twice, the JSON pointer of the object that gives it
            twice (first in document order); else ``""``.
    """

    detail: str
    _: KW_ONLY
    whole: bool = False
    too_deep: bool = False
    offset: int | None = None
    pointer: str = ""

    def __post_init__(self) -> None:
        """The exception's message is :meth:`worded`."""
        super().__init__(self.worded())

    def worded(self, lead: str = "expected JSON") -> str:
        """The message: ``detail`` alone when whole, else ``"<lead>: <detail>"``."""
        return self.detail if self.whole else f"{lead}: {self.detail}"


class _Twice(dict[str, Any]):
    """An object that gave the member name ``name`` twice (the last value kept)."""

    name = ""


class _Duplicate(ValueError):
    pass


def _marking_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of ``pairs``; a :class:`_Twice` naming the first name given twice, if any."""
    out = dict(pairs)  # built in C; a member name given twice leaves it shorter
    if len(out) == len(pairs):
        return out
    marked, seen = _Twice(out), set()
    for key, _value in pairs:
        if key in seen:
            marked.name = key
            break
        seen.add(key)
    return marked


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of ``pairs``; raises :class:`_Duplicate` at a member name given twice."""
    out = _marking_twice(pairs)
    if isinstance(out, _Twice):
        raise _Duplicate(out.name)
    return out


def _where_twice(text: str) -> tuple[str, str] | None:
    """(pointer, name) of the first object giving a member name twice; None if unparsable."""
    try:
        value = json.loads(text, object_pairs_hook=_marking_twice)
    except (ValueError, RecursionError):
        return None
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        v, path = stack.pop()
        if isinstance(v, _Twice):
            return pointer(path), v.name
        if isinstance(v, dict | list):
            items = v.items() if isinstance(v, dict) else enumerate(v)
            stack.extend((x, (*path, k)) for k, x in reversed(list(items)))
    return None


def _long_number_at(text: str) -> str:
    """Where the first integer too long to convert stands (outside strings), or ``""``."""
    for m in _TOKEN.finditer(text):  # a whole number: a float's digits are no integer's
        digits = m.group().lstrip("-")
        if digits.isdigit() and len(digits) > sys.get_int_max_str_digits():
            return f" (one of {len(digits)} digits {_at(text, m.start())})"
    return ""


def _at(text: str, pos: int) -> str:
    """``at line L column C`` of the character at ``pos`` of ``text`` (both counted from 1)."""
    line, column = text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)
    return f"at line {line} column {column}"


#: A JSON string (skipped) or a bare token a strict parse may refuse: a constant or a number.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?Infinity|NaN|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')


def _refused_at(text: str) -> str:
    """Where the first constant or float-overflowing number stands (outside strings), or ``""``."""
    for m in _TOKEN.finditer(text):
        token = m.group()
        if token.startswith('"'):
            continue
        constant = token[-1] in "yN"  # NaN, Infinity, -Infinity
        if constant or (any(c in token for c in ".eE") and math.isinf(float(token))):
            return f" {_at(text, m.start())}"
    return ""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text[:40]} is too large for a 64-bit float")
    return value


def decode_utf8(
    data: bytes, what: str, fail: Callable[[str], Exception], *, bom: bool = False
) -> str:
    """``data`` as UTF-8 text, a leading byte-order mark dropped when ``bom``.

    Raises:
        the exception ``fail`` builds from ``expected UTF-8 <what>, found an invalid byte at
        offset <n>`` (its cause suppressed).
    """
    try:
        return data.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as exc:
        raise fail(f"expected UTF-8 {what}, found an invalid byte at offset {exc.start}") from None


#: Bytes: the largest SKILL.md any reader takes (run, stale, every import; as large as a
#: suite may be).
SKILL_MD_MAX_BYTES = 32 * 1024 * 1024


def read_skill_md(path: Path, fail: Callable[[str], Exception]) -> str:
    """The text of the SKILL.md at ``path``, as every reader of one takes it (run, stale, imports).

    Raises:
        the exception ``fail`` builds from what was wrong, the path not included: ``cannot read:
        <reason>``, over :data:`SKILL_MD_MAX_BYTES` (32 MiB, every reader's one limit), not
        UTF-8, or empty or only whitespace, a leading byte-order mark aside (no skill to measure:
        its size, ceil(characters ÷ 4) tokens, is what a lift is divided by).
    """
    limit = SKILL_MD_MAX_BYTES
    try:
        data = read_capped(path, limit)
    except OSError as exc:
        raise fail(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise fail(f"expected at most {limit} bytes")
    text = decode_utf8(data, "text", fail)
    if not (body := text.lstrip("\ufeff")).strip():  # a mark alone: an editor's empty file
        found = "only whitespace" if body else "an empty file"
        raise fail(f"expected the skill's instructions, found {found}: no skill to measure")
    return text


def _bad_byte_before(text: str, pos: int) -> int | None:
    """Byte offset of the first ``surrogateescape``-held byte at or before ``pos``, or None."""
    for i, ch in enumerate(text[: pos + 1]):
        if "\udc80" <= ch <= "\udcff":
            return len(text[:i].encode("utf-8", "surrogateescape"))
    return None


def loads_strict(text: str, *, allow_nan: bool = False) -> Any:
    """Parse JSON text strictly.

    Args:
        text: the document; bytes that were not UTF-8 may be held as ``surrogateescape`` code
            points (importers repair those inside strings afterwards).
        allow_nan: accept ``NaN``, ``Infinity``, ``-Infinity`` and numbers too large for a
            float (as infinity), for tools that write them (Inspect AI, OpenAI Evals).

    Returns:
        The parsed value (objects as ``dict``, arrays as ``list``).

    Raises:
        JSONFault: a member name given twice (``expected unique member names, found "k" twice``),
            a constant or overflowing number refused, a syntax error (with line and column; with
            ``offset`` set when a byte that is not UTF-8 stands before it), or nesting deeper
            than the parser can follow (``too_deep``).
    """
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_members,
            parse_constant=None if allow_nan else _no_constant,
            parse_float=None if allow_nan else _finite_float,
        )
    except _Duplicate as exc:
        where = _where_twice(text)
        at, twice = where if where is not None else ("", str(exc))
        name = json.dumps(twice[:_NAME_MAX_CHARS], ensure_ascii=True)
        raise JSONFault(
            f"expected unique member names, found {name} twice", whole=True, pointer=at
        ) from None
    except RecursionError:
        raise JSONFault("nesting too deep to parse", too_deep=True) from None
    except json.JSONDecodeError as exc:
        bad = _bad_byte_before(text, exc.pos)
        if bad is not None:
            message = f"expected UTF-8 JSON, found an invalid byte at offset {bad}"
            raise JSONFault(message, whole=True, offset=bad) from None
        if exc.msg.startswith("Unexpected UTF-8 BOM"):  # Python's words: "decode using utf-8-sig"
            why = "found a byte-order mark (U+FEFF) first; save the file as UTF-8 without one"
            raise JSONFault(why) from None
        what = exc.msg.removesuffix(" at")  # "Unterminated string starting at"
        raise JSONFault(f"{what} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:  # a refused constant or float, an integer too long to convert
        if "digits" in str(exc) and (long := _long_number_at(text)):
            raise JSONFault(
                f"expected an integer of at most {sys.get_int_max_str_digits()} digits{long}",
                whole=True,
            ) from None
        raise JSONFault(str(exc)[:_DETAIL_MAX_CHARS] + _refused_at(text)) from None


#: The kind of a parsed JSON value in words, by its Python type.
_KINDS = {int: "a number", float: "a number", str: "a string", list: "an array", dict: "an object"}


def json_kind(value: Any) -> str:
    """What parsed JSON ``value`` is, in words for a message.

    ``null``, ``true``, ``false``, ``a number``, ``a string``, ``an array`` or ``an object``;
    ``a value of another kind`` for anything JSON cannot hold.
    """
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    return _KINDS.get(type(value), "a value of another kind")


def member_object(holder: Any, key: str) -> dict[str, Any]:
    """``holder[key]`` when ``holder`` is an object and that member is an object, else ``{}``."""
    value = holder.get(key) if isinstance(holder, dict) else None
    return value if isinstance(value, dict) else {}


def member_list(holder: Any, key: str) -> list[Any]:
    """``holder[key]`` when ``holder`` is an object and that member is an array, else ``[]``."""
    value = holder.get(key) if isinstance(holder, dict) else None
    return value if isinstance(value, list) else []


def member_str(holder: Any, key: str) -> str | None:
    """``holder[key]`` when ``holder`` is an object and that member is a string, else ``None``."""
    value = holder.get(key) if isinstance(holder, dict) else None
    return value if isinstance(value, str) else None
