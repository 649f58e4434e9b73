"""A resume reads only lines it recognises as this run's: every line after the header carries the
run's mark, so a draw line copied from another run's journal (another model, suite or draw count)
is refused naming the file and the line, as are a draw of an arm the run does not have, a record
of no known kind and a journal of another format. Before, a draw line carried nothing tying it to
its header: one pasted from another run's journal was sealed into the receipt as this run's."""

from __future__ import annotations

import json
import os
import signal

import pytest

from driftproof.errors import RefusalError
from driftproof.receipt import build_draw
from driftproof.run.journal import Journal

ID = {"cases": ["c1"], "max_draws": 3, "model": "acme-8b", "control": None}
T0, T1 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"


def _record(score: float, index: int = 0, arm: str = "with_skill") -> dict:
    samples = [
        {"score": score, "reason": "graded", "reply_sha256": "0" * 64, "invalid_reason": None}
        | {"reported_model": None, "serving_model": None}
    ]
    draw = build_draw(index, answer="an answer", judge_samples=samples)
    return {"case": "c1", "arm": arm, "index": index, "draw": draw.model_dump(mode="json")}


def _journal(path, identity, *records: dict):
    j = Journal(path, identity, started_at=T0, harness_version=None)
    for r in records:
        j.draw(r)
    j.close()
    return path


def _refused(path, identity=ID, endings=None) -> str:
    kept = path.read_bytes()
    with pytest.raises(RefusalError) as info:
        Journal(path, identity, started_at=T1, harness_version=None, endings=endings)
    assert path.read_bytes() == kept  # a refusal leaves the journal as it was
    return str(info.value)


@pytest.mark.parametrize(
    "other", [{"model": "qwen-8b"}, {"cases": ["c1", "c2"]}, {"max_draws": 4}], ids=str
)
def test_a_draw_line_from_another_runs_journal_is_refused(tmp_path, other):
    ours = _journal(tmp_path / "ours.journal", ID, _record(0.5))
    theirs = _journal(tmp_path / "theirs.journal", ID | other, _record(0.25, index=1))
    with ours.open("ab") as f:  # line 3: their draw 2 of case c1, a draw this run makes too
        f.write(theirs.read_bytes().split(b"\n")[1] + b"\n")
    assert _refused(ours).startswith(f"{ours}: line 3 was written by another run")


def test_a_draw_of_an_arm_the_run_does_not_have_is_refused(tmp_path):
    p = _journal(tmp_path / "r.journal", ID, _record(0.5), _record(0.5, arm="control"))
    assert _refused(p) == (
        f"{p}: the draw record at line 3 (case 'c1', control arm, draw 1) is no draw this run "
        "makes; the journal is damaged"
    )
    with_control = ID | {"control": "Answer concisely."}
    q = _journal(tmp_path / "c.journal", with_control, _record(0.5, arm="control"))
    j = Journal(q, with_control, started_at=T1, harness_version=None)
    j.close()
    assert list(j.draws) == [("c1", "control", 0)]


@pytest.mark.parametrize(
    ("line", "marked"),
    [
        ({"foo": 1}, True),
        ({"attempt": 5}, True),
        ({"attempt": True}, True),
        ({"attempt": 1, "draw": {}}, True),
        ({"attempt": 1}, False),  # this run's attempt record, without this run's mark
    ],
    ids=str,
)
def test_a_record_neither_an_attempt_nor_a_draw_of_this_run_is_refused(tmp_path, line, marked):
    p = _journal(tmp_path / "r.journal", ID, _record(0.5))
    mark = json.loads(p.read_bytes().split(b"\n")[1])["run"]
    with p.open("ab") as f:
        f.write(json.dumps(line | ({"run": mark} if marked else {})).encode() + b"\n")
    assert _refused(p).startswith(f"{p}: line 3 ")


def test_a_journal_of_another_format_is_refused_naming_it(tmp_path):
    p = _journal(tmp_path / "r.journal", ID, _record(0.5))
    lines = p.read_bytes().split(b"\n")
    header = json.loads(lines[0]) | {"journal": "driftproof-run/1"}
    p.write_bytes(b"\n".join([json.dumps(header).encode(), *lines[1:]]))
    assert _refused(p) == (
        f"{p}: line 1 gives the journal format 'driftproof-run/1', this driftproof reads "
        "'driftproof-run/2' only; resume it with the driftproof that began it, or remove it to "
        "start afresh"
    )


@pytest.mark.parametrize("kind", ["a directory", "a FIFO", "a link to nothing"])
def test_a_journal_path_holding_no_regular_file_is_refused_at_once(tmp_path, kind):
    # a FIFO no process reads made the run wait forever at its opening (a write-only open);
    # a link to nothing read "other runs keep creating and removing this journal"
    p = tmp_path / "r.json.journal"
    {"a directory": p.mkdir, "a FIFO": lambda: os.mkfifo(p)}.get(
        kind, lambda: p.symlink_to(tmp_path / "nowhere")
    )()

    def waited(*_):
        raise TimeoutError("the run waited on the journal")

    signal.signal(signal.SIGALRM, waited)
    signal.alarm(5)
    try:
        with pytest.raises(RefusalError) as info:
            Journal(p, ID, started_at=T1, harness_version=None)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
    what = {
        "a FIFO": "a FIFO or a device",
        "a link to nothing": "a link to a file that does not exist",
    }
    assert str(info.value).startswith(
        f"{p}: the journal is not a file a run can keep ({what.get(kind, kind)}); "
    )
    assert os.path.lexists(p) and not os.path.exists(tmp_path / "nowhere")  # left as it was


def test_a_draw_whose_score_is_not_its_judge_samples_mean_is_refused_at_its_line(tmp_path):
    # found: the resume read it, drew the rest, then the seal refused "r.json: /cases/0/arms/...
    # score: expected ..." naming a receipt never written and no journal line, at every resume
    bad = _record(0.5)
    bad["draw"]["score"] = 0.25  # its one valid judge sample says 0.5
    p = _journal(tmp_path / "r.journal", ID, _record(0.75, index=1), bad)
    assert _refused(p) == (
        f"{p}: the draw record at line 3: its member /draw/draw/score does not follow from its "
        "judge samples (expected 0.5, the mean of the draw's 1 valid judge sample, found 0.25); "
        "the journal is damaged"
    )


def test_a_draw_the_receipt_would_refuse_is_refused_at_its_line(tmp_path):
    # found: a judge reason over the schema's 1 MiB (1048576 characters), or a judged draw with
    # no judge samples in a run taking 5, was read and then refused by the seal as above
    long = _record(0.5)
    long["draw"]["judge_samples"][0]["reason"] = "r" * (1048576 + 1)
    p = _journal(tmp_path / "long.journal", ID, long)
    want = f"{p}: the draw record at line 2: its member /draw/draw/judge_samples/0/reason does "
    assert _refused(p).startswith(want)
    bare = _record(0.5)
    bare["draw"] |= {"judge_samples": [], "score": 0.5}
    q = _journal(tmp_path / "bare.journal", ID | {"judge_samples": 5}, bare)
    assert _refused(q, ID | {"judge_samples": 5}) == (
        f"{q}: the draw record at line 2: its member /draw/draw/judge_samples holds 0 judge "
        "samples, expected 5, the judge samples per draw of this run; the journal is damaged"
    )


def test_a_batch_journal_of_another_run_is_refused_not_graded(tmp_path):
    # found: a run journal cut to its header beside the batch journal of a run of another skill
    # (the same model and suite) sealed that run's answers as this run's with-skill draws: the
    # batch journal's request names (a<case>-<draw>-<attempt>) say nothing of the run
    from driftproof.run.batch import BatchJournal

    ours = Journal(tmp_path / "r.json.journal", ID, started_at=T0, harness_version=None)
    ours.close()
    p = tmp_path / "r.json.batches"
    theirs = BatchJournal(p, resumed_run=False, mark="0" * 16)  # another run's mark
    batch = {"id": "b1", "lane": "answer", "ids": ["a0-0-0"], "file_id": None, "created": 1.0}
    theirs.record("batch", batch)
    theirs.close()
    kept = p.read_bytes()
    with pytest.raises(RefusalError) as info:
        BatchJournal(p, resumed_run=True, mark=ours.mark)
    assert str(info.value).startswith(
        f'{p}: line 1 is not the mark of this run ({{"run": "{ours.mark}"}}, from its run '
        "journal); the batch journal is another run's"
    )
    assert p.read_bytes() == kept
    p.write_bytes(kept.split(b"\n", 1)[1])  # no mark at all: refused the same
    with pytest.raises(RefusalError, match="line 1 is not the mark of this run"):
        BatchJournal(p, resumed_run=True, mark=ours.mark)
    p.write_bytes(json.dumps({"run": ours.mark}).encode() + b"\n" + kept.split(b"\n", 1)[1])
    mine = BatchJournal(p, resumed_run=True, mark=ours.mark)  # this run's: read
    mine.close()
    assert list(mine.batches) == ["b1"]


#: A run on an OpenAI-compatible server (not api.openai.com): the Chat Completions table whose
#: complete endings are stop, eos_token and eos; an output budget of 100 tokens.
LOOPBACK = ID | {"provider": "openai", "surface": "api", "api": "chat", "max_tokens": 100}
LOOPBACK |= {"service": "http://127.0.0.1:8000/v1", "truncation": "lost"}


def _ended(stop: str | None, output: int = 7, index: int = 0) -> dict:
    rec = _record(0.5, index)
    rec["draw"] |= {"stop_reason": stop, "tokens": {"input": 9, "output": output}}
    rec["draw"]["tokens"]["counted_by"] = "provider"
    return rec


def test_a_graded_draw_whose_stop_reason_is_no_complete_ending_is_refused_at_its_line(tmp_path):
    # found: a killed run's journal whose first draw's stop reason was made "end", its score
    # kept, resumed to a TESTED receipt grading a draw whose reply never ended as finished
    p = _journal(tmp_path / "k.json.journal", LOOPBACK, _ended("stop", index=1), _ended("end"))
    assert _refused(p, LOOPBACK, "compatible") == (
        f"{p}: the draw record at line 3: its member /draw/draw/stop_reason is no complete "
        "ending (unknown ending: the reply ended with 'end', not as a complete final answer), "
        "yet the draw is graded (expected stop, eos_token, eos); the journal is damaged"
    )
    # a cut at the budget, 100 of 100 tokens: lost unless the suite accepts truncation
    q = _journal(tmp_path / "cut.journal", LOOPBACK, _ended("length", output=100))
    assert _refused(q, LOOPBACK, "compatible").endswith(
        "/draw/draw/stop_reason is no complete ending (output budget: the reply ended with "
        "'length', not as a complete final answer), yet the draw is graded (expected stop, "
        "eos_token, eos); the journal is damaged"
    )
    accepted = LOOPBACK | {"truncation": "accepted"}
    r = _journal(
        tmp_path / "ok.journal", accepted, _ended("length", output=100), _ended("stop", 7, 1)
    )
    j = Journal(r, accepted, started_at=T1, harness_version=None, endings="compatible")
    assert len(j.draws) == 2


def test_a_claude_cli_draw_is_read_as_its_harness_ended_it(tmp_path):
    # claude -p: a success envelope ends "success" when the API said no stop reason, else
    # "success:<stop reason>"; only end_turn and stop_sequence of these are complete
    cli = ID | {"provider": "anthropic", "surface": "cli", "max_tokens": 100}
    ok = _journal(tmp_path / "ok.journal", cli, _ended(None), _ended("end_turn", index=1))
    assert len(Journal(ok, cli, started_at=T1, harness_version=None, endings="claude-cli").draws)
    p = _journal(tmp_path / "cut.journal", cli, _ended("max_tokens"))
    assert _refused(p, cli, "claude-cli").startswith(
        f"{p}: the draw record at line 2: its member /draw/draw/stop_reason is no complete "
        "ending (output budget: the reply ended with 'success:max_tokens', not as a complete "
        "final answer), yet the draw is graded (expected success, success:end_turn, "
        "success:stop_sequence)"
    )
