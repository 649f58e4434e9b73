"""The first read of a build's receipt files: each file's sha256, on a few threads (issue 19).

Reading and hashing both let go of the GIL, so the files are read on :data:`READ_THREADS`
threads; the answers come in path order all the same, so problems and progress do too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from driftproof.errors import ReceiptError

__all__ = ["READ_THREADS", "read_and_hash"]

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
