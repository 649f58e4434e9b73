"""A worker has the kernel fetch its next receipt while it works on the current one (issue 19).

At 10,000 receipts (10.7 GB) the page cache of the benchmark machine (about 9 GB) no longer
holds every receipt from the build's first read (the hash) to the worker's read (the check),
so each is read from disk twice; :func:`driftproof.site._reading.read_soon` makes the second
read overlap the work on the receipt before it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from site_fixtures import scored_receipt

from driftproof.receipt import write_receipt
from driftproof.site import publish
from driftproof.site._reading import read_soon


def _advised_path(fd: int) -> str:
    return os.readlink(f"/proc/self/fd/{fd}")


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every ``posix_fadvise`` call, as ``("advise", path)``, and every read of a receipt by
    a worker, as ``("read", path)``, in the order they happen."""
    if not hasattr(os, "posix_fadvise") or not Path("/proc/self/fd").is_dir():
        pytest.skip("needs posix_fadvise and /proc/self/fd")
    seen: list[tuple[str, str]] = []
    real_read = publish._read_bounded

    def advise(fd: int, offset: int, length: int, advice: int) -> None:
        assert (offset, length, advice) == (0, 0, os.POSIX_FADV_WILLNEED)
        seen.append(("advise", _advised_path(fd)))

    def read(p: Path) -> bytes:
        seen.append(("read", str(Path(p).resolve())))
        return real_read(p)

    monkeypatch.setattr(os, "posix_fadvise", advise)
    monkeypatch.setattr(publish, "_read_bounded", read)
    return seen


def _receipts(folder: Path, n: int) -> list[tuple[Path, bool, str]]:
    items = []
    for i in range(n):
        path = folder / f"r{i}.json"
        write_receipt(scored_receipt({"c1": ([0.5, 0.6, 0.7], [0.5, 0.6, 0.7])}), path)
        items.append((path.resolve(), False, hashlib.sha256(path.read_bytes()).hexdigest()))
    return items


def test_each_next_receipt_is_advised_before_the_current_one_is_read(
    tmp_path: Path, events: list[tuple[str, str]]
) -> None:
    a, b, c = _receipts(tmp_path, 3)
    good, bad, _ = publish._check_chunk([a, b, c])
    assert (sorted(good), bad) == (sorted([a[0], b[0], c[0]]), [])
    # the first file of a share is read at once; each later one is announced while the one
    # before it is checked, so the announcement comes before that earlier read
    assert events == [
        ("advise", str(b[0])),
        ("read", str(a[0])),
        ("advise", str(c[0])),
        ("read", str(b[0])),
        ("read", str(c[0])),
    ]


def test_a_receipt_held_in_memory_is_not_advised(
    tmp_path: Path, events: list[tuple[str, str]]
) -> None:
    a, b, c = _receipts(tmp_path, 3)
    good, _, _ = publish._check_chunk([a, b, c], raw={b[0]: b[0].read_bytes()})
    assert len(good) == 3
    assert events == [("read", str(a[0])), ("advise", str(c[0])), ("read", str(c[0]))]


def test_read_soon_advises_a_regular_file_only(
    tmp_path: Path, events: list[tuple[str, str]]
) -> None:
    regular = tmp_path / "r.json"
    regular.write_bytes(b"{}")
    link = tmp_path / "link.json"
    link.symlink_to(regular)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    read_soon(link)  # not followed
    read_soon(fifo)  # not waited on (O_NONBLOCK), and not advised
    read_soon(tmp_path / "missing.json")  # no error: the read that follows words it
    read_soon(tmp_path)  # a folder
    assert events == []
    read_soon(regular)
    assert events == [("advise", str(regular.resolve()))]


def test_read_soon_without_posix_fadvise_opens_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    regular = tmp_path / "r.json"
    regular.write_bytes(b"{}")
    opened: list[object] = []
    monkeypatch.delattr(os, "posix_fadvise", raising=False)
    monkeypatch.setattr(os, "open", lambda *a, **kw: opened.append(a))
    read_soon(regular)
    assert opened == []
