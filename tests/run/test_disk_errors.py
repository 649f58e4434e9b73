"""A run that cannot write its journal (a full disk) or its receipt or transcripts (a folder made
read-only) stops naming the file and saying that its finished draws are kept and how to resume:
the same command again, which makes no call for a draw already kept. Before, it said only
"r.json.journal: No space left on device", as if the run were lost."""

from __future__ import annotations

import errno
import json
import os
import tempfile

import pytest
from run_helpers import SUITE, run_lane

import driftproof.run.journal as journal_module
from driftproof.receipt import read_receipt

RESUME = "run the same command again to resume once it can be written"


@pytest.fixture
def one_case(suite_file):
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))


def _calls(loopback) -> int:
    return sum(loopback.script.requests.values())


@pytest.mark.parametrize("what", ["receipt", "transcripts"])
def test_a_receipt_or_transcripts_that_cannot_be_written_keeps_the_draws_and_says_so(
    loopback, one_case, tmp_path, monkeypatch, what
):
    real = tempfile.mkstemp
    tmp = tmp_path / f".receipt.json.{what}"

    def mkstemp(*args, **kw):
        if ("transcripts" in kw.get("prefix", "")) == (what == "transcripts"):
            raise PermissionError(errno.EACCES, "Permission denied", str(tmp))
        return real(*args, **kw)

    with monkeypatch.context() as m, pytest.raises(OSError) as info:
        m.setattr(tempfile, "mkstemp", mkstemp)
        run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    journal = tmp_path / "receipt.json.journal"
    # one case: 2 arms x 3 draws, each an answer and 5 judge samples
    # the file the user asked for, never the temporary one beside it
    named = tmp_path / ("receipt.json" if what == "receipt" else "receipt.json.transcripts.jsonl")
    assert (info.value.filename, info.value.strerror) == (
        str(named),
        f"Permission denied; 6 finished draws are kept in {journal}: {RESUME}",
    )
    assert _calls(loopback) == 36 and journal.exists()
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    assert _calls(loopback) == 36 and not journal.exists()
    assert len(read_receipt(out).cases[0].arms.with_skill.draws) == 3


def test_a_journal_the_disk_cannot_take_keeps_the_draws_written_and_says_so(
    loopback, one_case, tmp_path, monkeypatch
):
    real, written = journal_module.append, []

    def append(fd, data, path):
        if data.startswith(b'{"draw"'):
            if len(written) == 2:  # the disk is full from the third draw on
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            written.append(data)
        real(fd, data, path)

    with monkeypatch.context() as m, pytest.raises(OSError) as info:
        m.setattr(journal_module, "append", append)
        run_lane(tmp_path, "anthropic", "api", concurrency=1)
    journal = tmp_path / "receipt.json.journal"
    assert (info.value.filename, info.value.strerror) == (
        str(journal),
        f"No space left on device; 2 finished draws are kept in {journal}: {RESUME}",
    )
    before = _calls(loopback)
    out = run_lane(tmp_path, "anthropic", "api", concurrency=1)
    assert _calls(loopback) - before == 4 * 6  # the 4 draws not kept, each 6 calls
    r = read_receipt(out)
    assert [len(getattr(r.cases[0].arms, a).draws) for a in ("with_skill", "baseline")] == [3, 3]
