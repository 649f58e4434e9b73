"""Capture mode ``files``: read back what an agent left in its fresh working directory.

Every file (and every unreadable directory) is named with its path and size, in sorted path
order; of the first 50, each UTF-8 text of at most 65,536 bytes is shown, up to 262,144 bytes
together, and every other is named with its reason. Symbolic links are never followed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FILE_CAP = 50
FILE_MAX_BYTES = 65_536
TOTAL_MAX_BYTES = 262_144


@dataclass
class Capture:
    """What the grader is shown from a working directory.

    ``files`` are receipt ``captured_files`` entries, every file named; ``shown`` is (path, text)
    of the files read; ``error``, why the directory could not be read (the draw is then lost).
    """

    files: list[dict[str, Any]] = field(default_factory=list)
    shown: list[tuple[str, str]] = field(default_factory=list)
    error: str | None = None


def _entry(path: str, size: int | None, status: str, reason: str | None) -> dict[str, Any]:
    """A ``captured_files`` entry."""
    return {"path": path, "bytes": size, "status": status, "reason": reason}


def _walk(root: Path, cap: Capture) -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []

    def onerror(exc: OSError) -> None:
        rel = os.path.relpath(exc.filename or str(root), root) if exc.filename else "."
        if rel == ".":
            cap.error = f"the working directory could not be read back ({exc.strerror or exc})"
        else:
            why = f"directory cannot be read ({exc.strerror or exc})"
            cap.files.append(_entry(rel, None, "unreadable_directory", why))

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=False):
        dirnames.sort()
        for d in list(dirnames):
            full = Path(dirpath, d)
            if full.is_symlink():
                dirnames.remove(d)
                found.append((os.path.relpath(full, root), full))
        for f in sorted(filenames):
            full = Path(dirpath, f)
            found.append((os.path.relpath(full, root), full))
    return sorted(found)


def read_back(root: str | Path) -> Capture:
    """Read the files an agent left under ``root`` under the method's limits."""
    root = Path(root)
    cap = Capture()
    if not root.is_dir():
        cap.error = "the working directory could not be read back (it is gone)"
        return cap
    entries = _walk(root, cap)
    if cap.error:
        return cap
    total = 0
    for n, (rel, full) in enumerate(entries):
        try:
            st = full.lstat()
        except OSError as exc:
            cap.files.append(_entry(rel, None, "unreadable", f"read error ({exc.strerror or exc})"))
            continue
        size = st.st_size
        entry = _entry(rel, size, "read", None)
        cap.files.append(entry)
        why: tuple[str, str] | None
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
            why = ("unreadable", "not a regular file (symbolic links are not followed)")
        elif n >= FILE_CAP:
            why = ("past_file_cap", f"past the {FILE_CAP}-file cap")
        elif size > FILE_MAX_BYTES:
            why = ("truncated", f"{size} bytes, over the {FILE_MAX_BYTES}-byte cap per file")
        elif total + size > TOTAL_MAX_BYTES:
            why = ("past_total_cap", f"past the {TOTAL_MAX_BYTES}-byte total cap")
        else:
            why = _read_one(full, st, entry, cap)
            total += size if why is None else 0
        if why is not None:
            entry.update(status=why[0], reason=why[1])
    return cap


def _read_one(
    full: Path, st: os.stat_result, entry: dict[str, Any], cap: Capture
) -> tuple[str, str] | None:
    """Show one file's text; else (status, reason) it is named with."""
    try:
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            data = os.read(fd, FILE_MAX_BYTES + 1)
            after = os.fstat(fd)
        finally:
            os.close(fd)
    except PermissionError:
        return "unreadable", "permission denied"
    except OSError as exc:
        return "unreadable", f"read error ({exc.strerror or exc})"
    if (
        len(data) != st.st_size
        or after.st_size != st.st_size
        or after.st_mtime_ns != st.st_mtime_ns
    ):
        entry["bytes"] = after.st_size
        return "changed", "changed while it was read"
    if b"\x00" in data:
        return "binary", "binary (holds NUL bytes)"
    try:
        cap.shown.append((entry["path"], data.decode("utf-8")))
    except UnicodeDecodeError:
        return "not_utf8", "not valid UTF-8"
    return None


def compose_answer(reply: str, cap: Capture) -> str:
    """The graded answer: the reply, every file named, those read in full, the rest with why."""
    parts = [reply.rstrip()] if reply.strip() else []
    shown = dict(cap.shown)
    for f in cap.files:
        size = "?" if f["bytes"] is None else f"{f['bytes']} bytes"
        if f["path"] in shown and f["status"] == "read":
            parts.append(f"--- file: {f['path']} ({size}) ---\n{shown[f['path']]}")
        else:
            parts.append(f"--- file: {f['path']} ({size}), not shown: {f['reason']} ---")
    return "\n\n".join(parts)
