"""A journal whose name was given to something else while the run went on (moved away and a
directory made in its place, or another run's journal created there): the finished run removes
its own journal only, never what now holds its name. Before, it unlinked the name: a directory
made the run fail after its receipt was written ("Is a directory", exit 2), and another run's
journal was deleted under it."""

from __future__ import annotations

import os

import pytest
from test_journal_short_write import ID, T0, T1, _record

from driftproof.run.batch import BatchJournal
from driftproof.run.journal import Journal


@pytest.mark.parametrize("what", ["directory", "journal of another run"])
def test_a_finished_run_removes_its_own_journal_only(tmp_path, what):
    p = tmp_path / "r.json.journal"
    j = Journal(p, ID, started_at=T0, harness_version=None)
    j.draw(_record(0))
    os.rename(p, tmp_path / "moved")
    if what == "directory":
        p.mkdir()
    else:
        Journal(p, ID, started_at=T1, harness_version=None).close()
    kept = p.is_dir() or p.read_bytes()
    j.remove()
    assert (p.is_dir() or p.read_bytes()) == kept


def test_a_finished_run_removes_its_own_batch_journal_only(tmp_path):
    p = tmp_path / "r.json.batches"
    j = BatchJournal(p, resumed_run=False, mark="0" * 16)
    os.rename(p, tmp_path / "moved")
    p.mkdir()
    j.remove()
    assert p.is_dir()


def test_a_finished_run_removes_its_journals(tmp_path):
    p, b = tmp_path / "r.json.journal", tmp_path / "r.json.batches"
    Journal(p, ID, started_at=T0, harness_version=None).remove()
    BatchJournal(b, resumed_run=False, mark="0" * 16).remove()
    assert sorted(tmp_path.iterdir()) == []
