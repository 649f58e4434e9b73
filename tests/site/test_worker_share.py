"""Each worker's share carries the names of its own receipts only (issue 19).

Every share handed to the worker pool is pickled on its own. When each carried the names of
all N receipts, the build's work grew with N² (at 10,000 receipts, 625 shares each unpickling
a 10,000-path mapping: about 90 CPU seconds the 1,000-receipt build does not have).
"""

from __future__ import annotations

import functools
import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from driftproof.site import publish


class _RecordingPool:
    """Stands in for ProcessPoolExecutor: records what each share is sent, runs nothing."""

    sent: list[tuple[Any, ...]] = []

    def __init__(self, **_kwargs: object) -> None:
        pass

    def __enter__(self) -> _RecordingPool:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def map(self, fn: object, *iterables: Any) -> list[tuple[dict, list, dict]]:
        calls = list(zip(*iterables, strict=False))  # as Executor.map: the shortest decides
        if isinstance(fn, functools.partial):  # the arguments bound once for every share
            calls = [(*c, fn.keywords.get("raw"), fn.keywords.get("ahead")) for c in calls]
        _RecordingPool.sent = calls
        return [({}, [], {}) for _ in calls]


def _shares(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int) -> list[tuple[Any, ...]]:
    tmp_path.mkdir(exist_ok=True)
    paths = []
    for i in range(n):
        p = tmp_path / f"r{i:02d}.json"
        p.write_bytes(b"{}")
        paths.append(p)
    monkeypatch.setattr(publish, "ProcessPoolExecutor", _RecordingPool)
    monkeypatch.setattr(publish, "PARALLEL_FROM_BYTES", 0)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    names = {p: p.stem for p in paths}
    job = object()  # stands for the RenderAhead job: only passed along
    publish._read_all(paths, {}, dict.fromkeys(paths, "0" * 64), ahead=(job, names))  # type: ignore[arg-type]
    return _RecordingPool.sent


def test_each_share_names_only_its_own_receipts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 20 receipts on 2 workers: shares of min(16, 20 // 8) = 2 up to the last 2 × 4 = 8
    # receipts, then those one by one: 6 shares of 2 and 8 of 1 (publish._read_all)
    sent = _shares(tmp_path, monkeypatch, 20)
    assert [len(items) for items, _raw, _ahead in sent] == [2] * 6 + [1] * 8
    for items, raw, ahead in sent:
        assert raw is None  # workers read the files themselves
        _job, names = ahead
        assert names == {p: p.stem for p, _known, _sha in items}
    covered = [p.stem for items, _, _ in sent for p, _, _ in items]
    assert covered == [f"r{i:02d}" for i in range(20)]


def test_a_share_sent_is_the_same_size_at_ten_times_the_receipts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a one-receipt share (the last ones) pickles to the same bytes whatever N is, up to the
    # length of the receipt's own path: with all N names in it, it grew about N-fold
    small = _shares(tmp_path / "a", monkeypatch, 10)[-1]
    large = _shares(tmp_path / "b", monkeypatch, 100)[-1]
    sizes = [len(pickle.dumps((items, names))) for items, _, (_, names) in (small, large)]
    assert abs(sizes[1] - sizes[0]) <= 2  # r09 against r99: same length; "a" against "b"
