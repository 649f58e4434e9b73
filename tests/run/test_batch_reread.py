"""``run --batch``: a batch's results read again (after a read cut short, or on resume) are held
to the results an earlier read kept, and a batch journal of the earlier format still resumes."""

from __future__ import annotations

import json

import batch_fake_state
import pytest
from batch_runs import batched, journal_lines

from driftproof.errors import RefusalError
from driftproof.receipt import read_receipt
from driftproof.run.batch import batch_journal_path

CHANGED = (
    "batch msgbatch_000001 returned for custom id 'a0-0-0' a result other than the one an "
    "earlier read of its results gave and the run kept: its results do not stay the same, and "
    "which one answers the request cannot be told"
)


def _changing_on_the_second_read(monkeypatch):
    """The answers' batch gives another answer to a0-0-0 from its second read on."""
    results, reads = batch_fake_state.FakeState.anthropic_results, []

    def changing(self, b):  # type: ignore[no-untyped-def]
        lines = results(self, b)
        if b.id == "msgbatch_000001":
            reads.append(b.id)
            if len(reads) > 1:
                first = json.loads(lines[0])
                assert first["custom_id"] == "a0-0-0"
                lines[0] = lines[0].replace(b"(skill)", b"(other)")
        return lines

    monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_results", changing)
    return reads


def test_a_read_again_that_disagrees_with_a_kept_result_is_refused(fake, tmp_path, monkeypatch):
    # the first read of the answers' batch leaves out its last 2 of 6 lines: 4 results are kept
    # and the batch is read again. The second read answers a0-0-0 otherwise: it was not
    # compared with the result kept, and the first of two answers was graded without a word
    fake.script.short_results = 1
    reads = _changing_on_the_second_read(monkeypatch)
    with pytest.raises(RefusalError) as info:
        batched(tmp_path, "anthropic", cases=1)
    assert str(info.value) == CHANGED
    assert len(reads) == 2


def test_a_resumed_read_that_disagrees_with_a_journaled_result_is_refused(
    fake, tmp_path, monkeypatch
):
    # the run stops (Ctrl-C) once the answers' batch was read short: 4 results journaled, the
    # batch not wholly read. Resumed, the batch is read again, and a0-0-0's answer differs
    fake.script.short_results = 1
    reads = _changing_on_the_second_read(monkeypatch)

    def stop(statuses):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt("stopped after the first read")

    with pytest.raises(KeyboardInterrupt):
        batched(tmp_path, "anthropic", cases=1, on_status=stop)
    assert journal_lines(batch_journal_path(tmp_path / "receipt.json"), "out") == 4
    with pytest.raises(RefusalError) as info:
        batched(tmp_path, "anthropic", cases=1)
    assert str(info.value) == CHANGED
    assert len(reads) == 2


def test_a_batch_journal_whose_records_hold_stage_still_resumes(fake, tmp_path):
    # the previous code wrote each file and batch record with a "stage" member, always the
    # same as its "lane", and never read it; it is no longer written. A journal of the
    # previous code resumes: its batch is polled again, nothing is uploaded or sent twice
    fake.script.polls_to_end = 1
    polls: list[int] = []

    def stop_at_the_first_poll(statuses):  # type: ignore[no-untyped-def]
        polls.append(len(statuses))
        if len(polls) == 1:
            raise KeyboardInterrupt("stopped while the answers' batch runs")

    with pytest.raises(KeyboardInterrupt):
        batched(tmp_path, "openai", cases=1, on_status=stop_at_the_first_poll)
    bj = batch_journal_path(tmp_path / "receipt.json")
    lines = [json.loads(x) for x in bj.read_bytes().splitlines()]
    (file,) = [x["file"] for x in lines if "file" in x]
    (batch,) = [x["batch"] for x in lines if "batch" in x]
    assert set(file) == {"id", "lane", "ids"}
    assert set(batch) == {"id", "file_id", "lane", "ids", "created"}
    old = [
        {k: {**v, "stage": v["lane"]} if k in ("file", "batch") else v for k, v in x.items()}
        for x in lines
    ]
    bj.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in old))
    r = read_receipt(batched(tmp_path, "openai", cases=1))
    s = fake.script
    assert (s.calls["upload"], s.calls["create"]) == (2, 2)  # answers once, judge samples once
    assert len(s.submitted) == len(set(s.submitted)) == 36 == r.run.endpoint_attempts
    assert r.run.batch.batch_ids == s.batch_ids
