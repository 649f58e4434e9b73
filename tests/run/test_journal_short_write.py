"""A journal line the disk took only part of (a short ``write(2)``: the disk filled up part way)
never stays torn before a later line. The rest is written when it can be; when it cannot, the
part written is cut off again and the draw is not finished (an error naming the journal). Before,
the short count was ignored: the draw counted as finished, the next line was appended after the
torn one, and the resumed run refused the whole journal as damaged, every finished draw with it.
"""

from __future__ import annotations

import errno
import os

import pytest

from driftproof.receipt import build_draw
from driftproof.run.batch import BatchJournal
from driftproof.run.journal import Journal

ID = {"cases": ["c1"], "max_draws": 3}
T0, T1 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"


def _record(index: int) -> dict:
    sample = {"score": 0.5, "reason": "graded", "reply_sha256": "0" * 64, "invalid_reason": None}
    sample |= {"reported_model": None, "serving_model": None}
    draw = build_draw(index, answer="an answer", judge_samples=[sample])
    return {"case": "c1", "arm": "with_skill", "index": index, "draw": draw.model_dump(mode="json")}


def _short_once(monkeypatch, fd: int, *, then_full: bool) -> None:
    """The next write to ``fd`` takes half its bytes; the one after it fails (a full disk) when
    ``then_full``; every later write goes through."""
    real, calls = os.write, []

    def write(to: int, data: bytes) -> int:
        if to != fd or len(calls) >= 2:
            return real(to, data)
        calls.append(len(data))
        if len(calls) == 2 and then_full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(to, bytes(data[: len(data) // 2] if len(calls) == 1 else data))

    monkeypatch.setattr(os, "write", write)


def test_the_rest_of_a_short_write_is_written(tmp_path, monkeypatch):
    p = tmp_path / "r.json.journal"
    j = Journal(p, ID, started_at=T0, harness_version=None)
    j.draw(_record(0))
    with monkeypatch.context() as m:
        _short_once(m, j.fd, then_full=False)
        j.draw(_record(1))
    j.attempt()
    j.close()
    again = Journal(p, ID, started_at=T1, harness_version=None)
    again.close()
    assert sorted(k[2] for k in again.draws) == [0, 1] and again.attempts == 1


def test_a_line_the_disk_cannot_take_whole_is_cut_off_and_the_draw_not_finished(
    tmp_path, monkeypatch
):
    p = tmp_path / "r.json.journal"
    j = Journal(p, ID, started_at=T0, harness_version=None)
    j.draw(_record(0))
    before = p.read_bytes()
    with monkeypatch.context() as m:
        _short_once(m, j.fd, then_full=True)
        with pytest.raises(OSError) as info:
            j.draw(_record(1))
    assert (info.value.errno, info.value.filename) == (errno.ENOSPC, str(p))
    assert p.read_bytes() == before  # no part of the line is left
    j.attempt()  # space freed meanwhile: a later line is appended after whole lines only
    j.close()
    again = Journal(p, ID, started_at=T1, harness_version=None)
    again.close()
    assert sorted(again.draws) == [("c1", "with_skill", 0)] and again.attempts == 1


def test_a_batch_journal_line_the_disk_cannot_take_whole_is_cut_off(tmp_path, monkeypatch):
    p = tmp_path / "r.json.batches"
    j = BatchJournal(p, resumed_run=False, mark="0" * 16)
    before = p.read_bytes()
    with monkeypatch.context() as m:
        _short_once(m, j.fd, then_full=True)
        with pytest.raises(OSError) as info:
            j.record("file", {"id": "file_1", "lane": "answer", "ids": ["a"]})
    assert (info.value.errno, info.value.filename) == (errno.ENOSPC, str(p))  # named, as it was not
    assert p.read_bytes() == before
    j.record("file", {"id": "file_2", "lane": "judge", "ids": ["b"]})
    j.close()
    again = BatchJournal(p, resumed_run=True, mark="0" * 16)
    again.close()
    assert list(again.files) == ["file_2"]
