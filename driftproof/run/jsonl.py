"""The JSON Lines files a run keeps (its journal and batch journal), read and written whole."""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from driftproof._json import _Duplicate, _unique_members, pointer
from driftproof.errors import RefusalError
from driftproof.run.reply_text import repaired_doc

T = TypeVar("T")


def json_records(
    path: Path, lines: Sequence[bytes], *, first_line: int = 1, what: str = "journal"
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each complete line of a JSON Lines journal as (line number, record); blank lines skipped.

    Raises:
        RefusalError: a line is not UTF-8 JSON or not an object, naming the file and the line.
    """
    for n, line in enumerate(lines, start=first_line):
        if not line.strip():
            continue
        try:
            rec = json.loads(line, object_pairs_hook=_unique_members)
        except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, nested past reading
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
            if isinstance(exc, _Duplicate):
                why = f"a member named {str(exc)[:80]!r} twice"
            if isinstance(exc, UnicodeDecodeError):
                why = f"an invalid UTF-8 byte at offset {exc.start}"
            raise RefusalError(
                f"{path}: line {n} is not JSON ({why}); the {what} is damaged"
            ) from None
        if not isinstance(rec, dict):
            raise RefusalError(
                f"{path}: line {n} is not a record (a JSON object); the {what} is damaged"
            )
        yield n, rec


def checked(
    validate: Callable[[Any], T],
    value: Any,
    path: Path,
    line: int,
    at: str,
    *,
    kind: str,
    what: str = "journal",
) -> T:
    """``validate(value)``: the record ``kind`` at pointer ``at`` of ``line`` of the ``what``.

    Raises:
        RefusalError: ``validate`` refused it: the file, the record, the pointer and the line,
            and what was expected (the first of pydantic's errors).
    """
    try:
        return validate(value)
    except ValidationError as exc:
        e = exc.errors()[0]
        why = e["msg"].removeprefix("Value error, ").replace("Input should be", "expected")
        found = (
            "is missing"
            if e["type"] == "missing"
            else f"is not of its kind ({why}, found {repr(e['input'])[:80]})"
        )
        raise RefusalError(
            f"{path}: {kind}'s member {at}{pointer(e['loc'])} at line {line} {found}; the {what} "
            "is damaged"
        ) from None


@contextlib.contextmanager
def whole_lines(path: Path) -> Iterator[list[bytes]]:
    """The complete lines of the JSON Lines file at ``path``.

    Once the block has read them without raising, a torn last line (cut short by a kill) is
    removed so that later lines stay whole.
    """
    raw = path.read_bytes()
    *lines, torn = raw.split(b"\n")
    yield lines
    if torn:
        os.truncate(path, len(raw) - len(torn))


def json_line(obj: dict[str, Any]) -> bytes:
    """``obj`` as one compact UTF-8 JSON line, newline included.

    A string holding a lone surrogate (a reply's escape that pairs with nothing) is written as
    JSON escapes, which read back as they were sent; it is made valid Unicode where a draw is
    recorded (:func:`~driftproof.run.reply_text.repaired_doc`).
    """
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(obj, separators=(",", ":")) + "\n").encode("utf-8")


def append(fd: int, data: bytes, path: Path) -> None:
    """Append ``data`` (whole lines) to the file ``path`` open for appending at ``fd``: all or none.

    A short ``write(2)`` (a disk filling up part way) is followed by the rest; when the rest cannot
    be written, the part written is cut off again, so no torn line stands before a later one. The
    caller holds the file alone (its lock, or its one thread).

    Raises:
        OSError: the rest could not be written, naming ``path``; the file is as it was before.
    """
    start, done = os.fstat(fd).st_size, 0
    try:
        while done < len(data):
            n = os.write(fd, data[done:])
            if n <= 0:  # nothing taken and no error: a full disk all the same
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            done += n
    except BaseException as exc:
        if done:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
        if isinstance(exc, OSError):
            raise named(exc, path) from exc
        raise


def unlink_own(path: Path, fd: int) -> None:
    """Remove the name ``path`` while it names the file open at ``fd``; else leave it as it is.

    A name given to something else meanwhile (the file moved away and a directory made there,
    another run's journal) is not this file's to remove.
    """
    with contextlib.suppress(FileNotFoundError):
        if os.path.samestat(os.fstat(fd), os.stat(path)):
            path.unlink()


def named(exc: OSError, path: Path) -> OSError:
    """``exc`` naming the file at ``path`` (``os.write`` names no file; a full disk must)."""
    return OSError(exc.errno, exc.strerror or str(exc), str(path))


def strict_reader(shape: Any) -> Callable[[Any], Any]:
    """A reader of a parsed record as ``shape``, through JSON: strict, yet a Reply is rebuilt.

    Pydantic reads no lone surrogate in JSON: a record holding one (a reply's, kept as sent and
    repaired where its draw is recorded) is checked with each made U+FFFD, then read as it is.
    """
    adapter = TypeAdapter(shape)

    def read(v: Any) -> Any:
        fixed = repaired_doc({}, v)
        valid = adapter.validate_json(json.dumps(fixed), strict=True)
        return valid if fixed == v else adapter.validate_python(v)  # its kinds checked above

    return read
