"""``driftproof run --batch`` killed and resumed (issue 17, "Crash-proof"): SIGKILL at each
stage, a kill between an upload and its batch, and results streams that break or never come.
Same scripted fake and figures as :mod:`test_batch`: one case is 6 answers and 30 judge
samples (36 requests); the shared suite's three cases are 108."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from batch_runs import batched, draws, journal_lines
from factories import run_main
from run_helpers import CLI_PROCESS, run_args

from driftproof.errors import ProviderError
from driftproof.receipt import read_receipt
from driftproof.run.batch import batch_journal_path
from driftproof.run.journal import journal_path


@pytest.mark.parametrize("stage", ["after_create", "while_polling", "while_reading"])
def test_sigkill_at_each_stage_then_resume(fake, suite_file, skill_file, tmp_path, capsys, stage):
    out = tmp_path / "receipt.json"
    bj = batch_journal_path(out)
    argv = [
        *CLI_PROCESS,
        *run_args(suite_file, skill_file, "--out", str(out), "--batch"),
        *("--batch-poll-interval", "0.02"),
    ]
    s = fake.script
    if stage == "after_create":
        s.hold_retrieve = True  # the run has created its batch and waits on its first poll
    elif stage == "while_polling":
        s.never_end = True
    else:
        s.hold_results_after = 7  # the answers' results stop after 7 of 18 lines

    def ready() -> bool:
        if stage == "after_create":
            return journal_lines(bj, "batch") == 1
        if stage == "while_polling":
            return journal_lines(bj, "batch") == 1 and s.calls["retrieve"] >= 3
        return journal_lines(bj, "out") >= 3

    proc = subprocess.Popen(
        argv, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 180  # a loaded machine starts the run slowly
    while time.monotonic() < deadline and not ready() and proc.poll() is None:
        time.sleep(0.02)
    assert ready(), proc.stderr.read().decode() if proc.poll() is not None else "stage not reached"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    assert s.calls["create"] == 1 and not out.exists()
    assert (
        journal_lines(bj, "out") <= (7 if stage == "while_reading" else 0)
        and journal_lines(bj, "read") == 0
    )
    s.hold_retrieve, s.never_end, s.hold_results_after = False, False, None
    s.release.set()
    code, _, err = run_main(
        argv[3:], capsys
    )  # the same command again (in this process, to save a start-up)
    assert code == 0, err
    r = read_receipt(out)
    keys = [
        (c.id, arm, d.index)
        for c in r.cases
        for arm in ("with_skill", "baseline")
        for d in getattr(c.arms, arm).draws
    ]
    assert len(keys) == len(set(keys)) == 18  # every draw exactly once
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))
    # no batch created twice: the answers' batch was polled again, not sent again
    assert s.calls["create"] == 2 and r.run.batch.batch_ids == s.batch_ids
    assert len(s.submitted) == len(set(s.submitted)) == 108 == r.run.endpoint_attempts
    assert not bj.exists()


def test_a_file_uploaded_before_a_kill_gets_its_batch_on_resume_and_is_not_uploaded_again(
    fake, tmp_path, monkeypatch
):
    from driftproof.run import batch_lanes as B

    real = B.OpenAIBatches.create

    def killed(self, entries, file_id):
        raise KeyboardInterrupt("killed between the upload and the batch")

    monkeypatch.setattr(B.OpenAIBatches, "create", killed)
    with pytest.raises(KeyboardInterrupt):
        batched(tmp_path, "openai", cases=1)
    out = tmp_path / "receipt.json"
    assert journal_lines(batch_journal_path(out), "file") == 1 and fake.script.calls["upload"] == 1
    monkeypatch.setattr(B.OpenAIBatches, "create", real)
    r = read_receipt(batched(tmp_path, "openai", cases=1))
    assert fake.script.calls["upload"] == 2  # the answers' file once, then the judge samples' file
    assert r.run.batch.file_ids == [
        fake.state.batches[b].input_file_id for b in fake.script.batch_ids
    ]
    assert (
        len(fake.script.submitted)
        == len(set(fake.script.submitted))
        == 36
        == r.run.endpoint_attempts
    )


def test_a_broken_results_stream_is_read_again(fake, tmp_path, monkeypatch):
    from driftproof.run import batch_lanes as B

    real = B.AnthropicBatches.results
    broke = []

    def flaky(self, status):
        for k, item in enumerate(real(self, status)):
            if k == 2 and not broke:
                broke.append(k)
                raise OSError("connection reset by peer")
            yield item

    monkeypatch.setattr(B.AnthropicBatches, "results", flaky)
    r = read_receipt(batched(tmp_path, cases=1))
    assert (
        broke and fake.script.calls["results"] == 3
    )  # the answers' results twice, the judge samples' once
    assert len(fake.script.submitted) == 36 == r.run.endpoint_attempts
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


def test_results_that_never_come_stop_the_run_then_resume(fake, tmp_path):
    # the results endpoint drops the connection without a reply (the real SDK raises
    # APIConnectionError): each read keeps nothing, so after the attempt budget (3 reads: the
    # plain lanes' 1 + len((5.0, 20.0))) the run stops naming the batch, instead of polling forever
    s = fake.script
    s.drop_results = 10**6
    with pytest.raises(
        ProviderError,
        match=r"batch msgbatch_000001: its results could not be read \(3 reads in a "
        r"row kept nothing; last: connection failed",
    ):
        batched(tmp_path, cases=1)
    out = tmp_path / "receipt.json"
    assert s.calls["results"] == 3 and s.calls["create"] == 1
    assert not out.exists() and journal_path(out).exists() and batch_journal_path(out).exists()
    # the same run again reads the same batch: nothing is submitted twice
    s.drop_results = 0
    r = read_receipt(batched(tmp_path, cases=1))
    assert s.calls["create"] == 2 and r.run.batch.batch_ids == s.batch_ids
    assert len(s.submitted) == len(set(s.submitted)) == 36 == r.run.endpoint_attempts
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_polls_and_cancels_trickled_past_the_deadline_are_cut_off(
    fake, tmp_path, monkeypatch, provider
):
    # every reply one byte every 0.25 s (minutes in all), each byte well inside the SDK's read
    # timeout: the batch calls ran on the sync client with no whole-call deadline, so a poll
    # stayed open for as long as the server trickled. Each is cut off 1 s after it starts.
    from driftproof.run import batch as B
    from driftproof.run.batch_lanes import batch_lane
    from driftproof.run.providers import make_provider
    from driftproof.run.providers.base import AttemptError

    monkeypatch.setattr(B.BatchLane, "call_timeout", 1.0)
    s = fake.script
    assert batched(tmp_path, provider, cases=1) is not None  # a batch to poll and cancel
    s.trickle = {"retrieve", "cancel"}
    lane = batch_lane(make_provider(provider, "api"))
    for call in (lane.status, lane.cancel):
        with pytest.raises(AttemptError) as e:
            call(s.batch_ids[0])
        assert e.value.reason == "timed out after 1 s" and e.value.retryable
    assert s.trickled == 2
    lane.lane.close()


def test_a_read_that_keeps_results_before_breaking_is_not_counted_against_the_budget(
    fake, tmp_path, monkeypatch
):
    from driftproof.run import batch_lanes as B

    real = B.AnthropicBatches.results
    reads = []

    def one_more_each_time(self, status):
        # read k keeps k new results then breaks (the 6 answers need 6 reads, more than the
        # budget of 3)
        reads.append(status.id)
        n = len(reads)
        for k, item in enumerate(real(self, status)):
            if k == n and status.id == "msgbatch_000001":
                raise OSError("connection reset by peer")
            yield item

    monkeypatch.setattr(B.AnthropicBatches, "results", one_more_each_time)
    r = read_receipt(batched(tmp_path, cases=1))
    assert (
        reads.count("msgbatch_000001") == 6
    )  # 5 broken reads (lines 0, 0-1, …, 0-4), the 6th whole
    assert len(fake.script.submitted) == 36 == r.run.endpoint_attempts
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


DAMAGED_LINES = [
    # a line of the batch journal, the message after "<file>: "
    (
        b'{"batch": "msgbatch_1"}',
        "a record's member /batch at line 2 is not of its kind (expected an object, found "
        "'msgbatch_1')",
    ),
    (b'{"batch": {"lane": "answer"}}', "a record's member /batch/id at line 2 is missing"),
    (
        b'{"cancel": ["msgbatch_1"]}',
        "a record's member /cancel at line 2 is not of its kind (expected a valid string, found "
        "['msgbatch_1'])",
    ),
    (b'{"out": {"id": "a0-0-0"}}', "a record's member /out/batch at line 2 is missing"),
    (
        b'{"out": {"id": "a0-0-0", "batch": "b", "error": {"reason": "x"}}}',
        "a record's member /out/error/retryable at line 2 is missing",
    ),
    (
        b'{"out": {"id": "a0-0-0", "batch": "b", "reply": {"nope": 1, "text": 5}}}',
        "a record's member /out/reply/text at line 2 is not of its kind (expected a valid "
        "string, found 5)",
    ),
    (
        b'{"out": {"id": "a0-0-0", "batch": "b"}}',
        "a record's member /out at line 2 is not of its kind (expected either a reply or an "
        "error, found {'id': 'a0-0-0', 'batch': 'b'})",
    ),
]
_B = b'{"batch": {"id": "b1", "lane": "answer", "ids": ["a0-0-0"], "file_id": null, "created": %s}}'
KEPT_LINE = _B.replace(b'"b1"', b'"b"') % b"0.0"  # the batch the results above name
_OUT = b'{"out": {"id": "%s", "batch": "%s", "error": {"reason": "r", "retryable": true, ' + (
    b'"fatal": false}}}'
)
_F = b'{"file": {"id": "f1", "lane": "answer", "ids": ["a0-0-0"]}}'
DAMAGED_LINES += [
    (
        _B % b"NaN",
        "a record's member /batch/created at line 2 is not of its kind (expected a finite "
        "number, found nan)",
    ),
    (b'{"read": "b1", "read": "b2"}', "line 2 is not JSON (a member named 'read' twice)"),
    # a batch of requests its input file does not hold counted attempts never made
    (
        _F + b"\n" + _B.replace(b'"], "file_id": null', b'", "a0-1-0"], "file_id": "f1"') % b"1",
        "line 3 names request 'a0-1-0', which the run never sent (no earlier line uploads it in "
        "file 'f1')",
    ),
    (
        _B.replace(b"null", b'"f2"') % b"1.0",
        "line 2 names request 'a0-0-0', which the run never sent (no earlier line uploads it in "
        "file 'f2')",
    ),
    # a result, read, cancel or stop of a batch never created: its result was used in a draw
    *(
        (line, "line 2 names batch 'b9', which no earlier line creates")
        for line in (b'{"read": "b9"}', b'{"cancel": "b9"}', b'{"stopped": "b9"}')
        + (_OUT % (b"a0-0-0", b"b9"),)
    ),
    # a result for a request its batch did not send (the first was blamed on the provider)
    *(
        (
            _OUT % (cid.encode(), b"b"),
            f"line 2 holds a result for request {cid!r}, which batch 'b' did not send",
        )
        for cid in ("zz", "a0-1-0")
    ),
    # the same batch recorded twice (its second record with fewer ids) sealed wrong provenance
    (_B % b"1.0" + b"\n" + _B % b"2.0", "line 3 records batch 'b1' a second time"),
    # a line of no kind, of two kinds, or a run's mark past line 1 was skipped or read as one
    *(
        (
            line,
            "line 2 is no record of a batch journal (expected one member, one of file, creating, "
            "batch, dropped, named, cancel, stopped, read, out)",
        )
        for line in (b'{"foo": 1}', b'{"read": "b", "cancel": "b"}', b'{"run": "0123456789abcdef"}')
    ),
]


@pytest.mark.parametrize(("line", "want"), DAMAGED_LINES, ids=[x[1][17:40] for x in DAMAGED_LINES])
def test_a_damaged_batch_journal_line_is_refused_naming_the_file_and_line(
    tmp_path, line, want
) -> None:
    # Found: a line's record was read with no check of its kind: TypeError (a batch record that
    # is no object, a list as a batch id), KeyError (a member missing), and a reply whose text
    # was 5 became a Reply
    from driftproof.errors import RefusalError
    from driftproof.run.batch import BatchJournal

    p = tmp_path / "r.json.batches"
    p.write_bytes(KEPT_LINE + b"\n" + line + b"\n")
    with pytest.raises(RefusalError) as info:
        BatchJournal(p, resumed_run=True)
    assert str(info.value) == f"{p}: {want}; the batch journal is damaged"
    assert p.read_bytes() == KEPT_LINE + b"\n" + line + b"\n"


def test_a_batch_journals_results_are_read_back_as_replies_and_errors(tmp_path) -> None:
    from driftproof.run.batch import BatchJournal
    from driftproof.run.providers.base import AttemptError, Reply

    p = tmp_path / "r.json.batches"
    j = BatchJournal(p, resumed_run=False)
    ids = ["a0-0-0", "a0-1-0"]
    j.record("batch", {"id": "b1", "lane": "answer", "ids": ids, "file_id": None, "created": 1.0})
    j.out("b1", "a0-0-0", Reply("an answer", input_tokens=300, output_tokens=40, cost_usd=0.5))
    j.out("b1", "a0-1-0", AttemptError("overloaded", retryable=True, status=529))
    j.close()
    again = BatchJournal(p, resumed_run=True)
    (b1, c1, reply), (b2, c2, error) = again.outs
    assert (b1, c1, reply) == ("b1", "a0-0-0", Reply("an answer", 300, 40, cost_usd=0.5))
    assert (b2, c2, type(error)) == ("b1", "a0-1-0", AttemptError)
    assert (error.reason, error.retryable, error.fatal, error.status) == (
        "overloaded",
        True,
        False,
        529,
    )
    again.close()


def test_a_journaled_reply_keeps_its_empty_members(tmp_path) -> None:
    # a judge's decision of {} and a harness's empty event list are not "none recorded": a resumed
    # run must read back the reply the uninterrupted run graded (an empty decision is an invalid
    # sample for one reason, a missing one for another)
    from driftproof.run.batch import BatchJournal
    from driftproof.run.providers.base import Reply

    p = tmp_path / "r.json.batches"
    j = BatchJournal(p, resumed_run=False)
    j.record("batch", {"id": "b1", "lane": "judge", "ids": ["g0"], "file_id": None, "created": 1.0})
    sent = Reply("", decision={}, channel="tool", refusal={}, harness_events=[], other_models=[])
    j.out("b1", "g0", sent)
    j.close()
    again = BatchJournal(p, resumed_run=True)
    ((_, _, reply),) = again.outs
    assert (reply.decision, reply.refusal, reply.harness_events) == ({}, {}, [])
    assert reply == sent
    again.close()


HAND_EDITED = [
    # lines appended to the batch journal of a stopped run (its line 1: the run's mark, line 2:
    # msgbatch_000001 about to be made, line 3: made, the 6 answers a0-{0,1,2}-0 and
    # a1-{0,1,2}-0), the refusal after "<file>: line 4 "
    (
        b'{"batch": {"id": "msgbatch_9", "lane": "answer", "ids": ["a9-0-0"], "file_id": null, '
        b'"created": 1.0}}\n{"read": "msgbatch_9"}',
        "names request 'a9-0-0', which the run never sent (this run makes no request of that name)",
    ),
    (  # a sixth judge sample of a run of five
        b'{"batch": {"id": "msgbatch_9", "lane": "judge", "ids": ["j0-0-0-0", "j0-0-5-0"], '
        b'"file_id": null, "created": 1.0}}\n{"read": "msgbatch_9"}',
        "names request 'j0-0-5-0', which the run never sent (this run makes no request of that "
        "name)",
    ),
    *(  # a result for a request msgbatch_000001 did not send (the first blamed the provider)
        (
            _OUT % (cid.encode(), b"msgbatch_000001"),
            f"holds a result for request {cid!r}, which batch 'msgbatch_000001' did not send",
        )
        for cid in ("x9", "a0-5-0")
    ),
    (  # a result of a batch never created, for a request of msgbatch_000001
        _OUT % (b"a0-0-0", b"msgbatch_9"),
        "names batch 'msgbatch_9', which no earlier line creates",
    ),
    (  # a creation of a batch from a file never uploaded, and one never begun dropped
        b'{"creating": {"lane": "answer", "digest": "' + b"0" * 64 + b'", "n": 1, "file_id": '
        b'"file-9", "at": "2026-12-05T10:00:00Z", "created": 1.0}}',
        "creates a batch from file 'file-9', which no earlier line uploads",
    ),
    (b'{"dropped": "' + b"0" * 64 + b'"}', "drops a batch creation no earlier line begins"),
]


@pytest.mark.parametrize(("lines", "want"), HAND_EDITED, ids=[w[:30] for _, w in HAND_EDITED])
def test_a_hand_edited_batch_journal_is_refused_on_resume_naming_the_file_and_line(
    fake, tmp_path, lines, want
):
    # Found: the resumed run trusted these lines: a batch of a request never sent counted one
    # more endpoint attempt in the receipt (37 of 36); a result of a batch never created became
    # a draw's first attempt; a result for x9 was blamed on the provider
    from driftproof.errors import RefusalError

    fake.script.drop_results = 3  # the run stops with its answers' batch unread
    with pytest.raises(ProviderError):
        batched(tmp_path, cases=1)
    bj = batch_journal_path(tmp_path / "receipt.json")
    assert bj.read_bytes().count(b"\n") == 3
    with bj.open("ab") as f:
        f.write(lines + b"\n")
    kept = bj.read_bytes()
    with pytest.raises(RefusalError) as info:
        batched(tmp_path, cases=1)
    assert str(info.value) == f"{bj}: line 4 {want}; the batch journal is damaged"
    assert bj.read_bytes() == kept and fake.script.calls["create"] == 1


def test_a_journal_of_another_run_names_its_batch_journal_and_its_open_batches(fake, tmp_path):
    # Found: the refusal said to remove the run journal alone; the next run then refused the
    # batch journal left behind, and neither said that its batches may still be open and billed
    from driftproof.errors import RefusalError

    fake.script.drop_results = 10**6
    with pytest.raises(ProviderError):
        batched(tmp_path, cases=1)
    bj = batch_journal_path(tmp_path / "receipt.json")
    assert bj.exists()
    with pytest.raises(RefusalError) as e:
        batched(tmp_path, cases=2)  # another run: its suite holds another case
    said = str(e.value)
    assert "belongs to a different run" in said
    assert f"cancel any batch of {bj} still open" in said and "billed" in said
    assert said.endswith("then remove it and that batch journal, or write the receipt elsewhere")
