"""Two runs started at once on one ``--out`` meet at the journal's lock, whatever their timing.

Found: a run that saw no journal and then lost the race to create it stopped with "[Errno 17]
File exists" instead of saying another run is writing it; one that opened a journal just as a
finished run removed it locked the removed file and stopped with "No such file or directory".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftproof.errors import RefusalError
from driftproof.run import journal as journal_module
from driftproof.run.journal import Journal

IDENTITY = {"model": "m"}


def _open(p: Path) -> Journal:
    return Journal(p, IDENTITY, started_at="2026-01-02T00:00:00Z", harness_version=None)


def test_a_run_that_loses_the_race_to_create_the_journal_is_told_another_writes_it(
    tmp_path, monkeypatch
):
    p = tmp_path / "r.json.journal"
    first = _open(p)
    real = Path.exists  # the second run looked before the first created it
    monkeypatch.setattr(Path, "exists", lambda self: False if self == p else real(self))
    with pytest.raises(RefusalError) as exc:
        _open(p)
    assert str(exc.value) == (
        f"{p}: another run is writing this journal; wait for it, or write the receipt elsewhere"
    )
    first.close()


def test_a_journal_removed_before_it_is_locked_is_made_anew(tmp_path, monkeypatch):
    p = tmp_path / "r.json.journal"
    _open(p).close()  # a finished run's journal, about to be removed
    real = journal_module.fcntl.flock
    removed = []

    def flock(fd, op):  # the finished run removes it between this run's open and its lock
        if not removed:
            removed.append(p)
            p.unlink()
        return real(fd, op)

    monkeypatch.setattr(journal_module.fcntl, "flock", flock)
    j = _open(p)
    j.draw({"case": "c", "arm": "baseline", "index": 0})
    j.close()
    lines = [json.loads(x) for x in p.read_text().splitlines()]  # written where the name is
    assert lines[0]["identity"] == IDENTITY and lines[1]["draw"]["case"] == "c"
    assert not j.resumed
