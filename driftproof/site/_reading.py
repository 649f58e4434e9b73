"""The first read of a build's receipt files: each file's sha256, on a few threads (issue 19);
and :func:`read_soon`, which has the kernel fetch a file the build will read next.

Reading and hashing both let go of the GIL, so the files are read on :data:`READ_THREADS`
threads; the answers come in path order all the same, so problems and progress do too.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from driftproof.errors import ReceiptError

__all__ = ["READ_THREADS", "read_and_hash", "read_soon"]

#: Threads that read and hash the receipts' files at the start of a build.
READ_THREADS = 4


def read_and_hash(
    paths: list[Path],
    read: Callable[[Path], bytes],
    *,
    hold: bool,
    known_shas: Mapping[Path, str] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[dict[Path, str], dict[Path, bytes], list[ReceiptError]]:
    """``(sha256 hex by path, bytes by path, problems)`` of ``paths``, read with ``read``.

    Args:
        paths: the receipt files, in path order.
        read: reads one file whole (raises :class:`ReceiptError` for one it refuses).
        hold: keep every file's bytes (a small site); otherwise each is let go once hashed,
            so reading ahead holds no bytes (issue 19: memory bounded).
        known_shas: digests the caller found by stat; used instead of reading, unless held.
        progress: ``progress("read", done, total)`` after each file, in path order.

    Returns:
        The digests and held bytes of the files read, and one error per file refused, in
        path order.
    """

    def one(p: Path) -> tuple[str, bytes | None] | ReceiptError:
        if not hold and known_shas is not None and p in known_shas:
            return known_shas[p], None
        try:
            data = read(p)
        except ReceiptError as exc:
            return exc
        return hashlib.sha256(data).hexdigest(), data if hold else None

    shas: dict[Path, str] = {}
    raw: dict[Path, bytes] = {}
    unreadable: list[ReceiptError] = []
    with ThreadPoolExecutor(max_workers=READ_THREADS) as readers:
        for i, (p, got) in enumerate(zip(paths, readers.map(one, paths), strict=True)):
            if isinstance(got, ReceiptError):
                unreadable.append(got)
            else:
                shas[p] = got[0]
                if got[1] is not None:
                    raw[p] = got[1]
            if progress:
                progress("read", i + 1, len(paths))
    return shas, raw, unreadable


def read_soon(path: Path) -> None:
    """Have the kernel start reading the regular file at ``path`` into its page cache now
    (``posix_fadvise(POSIX_FADV_WILLNEED)``), so that a read of it a little later need not
    wait on the disk (issue 19).

    A worker asks this for the next receipt of its share while it checks and renders the
    current one: where the receipts do not all fit in the page cache (10,000 receipts, 10.7
    GB, on a machine whose page cache holds about 9 GB), each is read from disk a second time
    after the build's first read hashed it, and that read then overlaps the work on the
    receipt before it instead of stalling the worker's core.

    Only advice: nothing is read here, a symbolic link is not followed (``O_NOFOLLOW``), a
    FIFO or device is neither waited on (``O_NONBLOCK``) nor advised, and any failure, or a
    platform without ``posix_fadvise``, is ignored: the read that follows reports problems
    in its own words. Never raises.
    """
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            advise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
    except OSError:
        pass
    finally:
        os.close(fd)
