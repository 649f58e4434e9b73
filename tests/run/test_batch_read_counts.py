"""``run --batch``: a read is judged against what the batch's counts say each part of its results
holds, and a read whose lines named no request is read again before it is taken as the results.
"""

from __future__ import annotations

import json

import batch_fake_state
import pytest
from batch_runs import batched, draws

from driftproof.errors import ProviderError
from driftproof.receipt import read_receipt


def test_an_openai_output_file_short_of_its_completed_count_is_read_again(
    fake, tmp_path, monkeypatch
):
    # the answers' batch: 2 of its 6 first attempts expire, their 2 error file lines left out of
    # its failed count (0); it counts 4 completed. The first read of its output file leaves out
    # 2 of its 4 lines: with the error file's 2 the two files held 4 lines, as many as 4
    # completed + 0 failed, and the 2 answers left out were sent again, paid twice. The API
    # reference puts the completed requests' outputs in the output file: 2 lines where it
    # counts 4 is a read cut short, read again at the next poll; each answer is sent once,
    # the 2 that expired once more (36 + 2)
    s = fake.script
    s.fault = lambda cid: "expired" if cid in ("a0-1-0", "a1-1-0") else None
    s.short_results = 1  # the first read: the answers' output file
    doc = batch_fake_state.FakeState.openai_doc

    def expired_not_failed(self, b):  # type: ignore[no-untyped-def]
        d = doc(self, b)
        return d | {"request_counts": d["request_counts"] | {"failed": 0}}

    monkeypatch.setattr(batch_fake_state.FakeState, "openai_doc", expired_not_failed)
    r = read_receipt(batched(tmp_path, "openai", cases=1))
    assert len(s.submitted) == len(set(s.submitted)) == 36 + 2 == r.run.endpoint_attempts
    expired = (
        "batch batch_000002: batch_expired: This request could not be executed before the "
        "completion window expired."
    )
    errors = {
        f"a{c}-{k}": [a.error for a in d.attempts]
        for c, arm in enumerate(("with_skill", "baseline"))
        for k, (_, d) in enumerate(draws(r, arm))
    }
    assert errors == {
        "a0-0": [],
        "a0-1": [expired],
        "a0-2": [],
        "a1-0": [],
        "a1-1": [expired],
        "a1-2": [],
    }
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


def test_a_one_request_batch_whose_only_line_cannot_be_read_is_sent_again(
    fake, tmp_path, monkeypatch
):
    # the first answer's first attempt errors; its retry goes alone in a batch whose only
    # result line is not UTF-8, so it names no request. The batch counts 1 result and holds 1
    # line, yet the read was taken as broken: 3 in a row stopped the run, and the same command
    # read the same line and stopped again, for ever. Read again to the budget (3), it is the
    # batch's result: the request has none, saying which line could not be read and why, and
    # is sent once more (6 answers + 2 retries + 30 judge samples); nothing unread is graded
    s = fake.script
    s.fault = lambda cid: "errored" if cid == "a0-0-0" else None
    _one_unreadable_line(monkeypatch, ["a0-0-1"])
    r = read_receipt(batched(tmp_path, "anthropic", cases=1))
    first = r.cases[0].arms.with_skill.draws[0]
    assert first.score is not None
    assert [a.error for a in first.attempts] == [
        "batch msgbatch_000001: errored: overloaded_error: scripted overloaded_error",
        "batch msgbatch_000002 (ended) returned no result for this request; line 1 of its "
        "results is not UTF-8 text (byte 0xff)",
    ]
    assert len(s.submitted) == len(set(s.submitted)) == 36 + 2 == r.run.endpoint_attempts
    assert s.calls["results"] == 4 + 3  # 4 batches read once, the batch of one 3 times
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


def _one_unreadable_line(monkeypatch, retries: list[str]) -> None:  # type: ignore[no-untyped-def]
    """The Anthropic batch of ``retries`` answers with one line that is not UTF-8, naming none."""
    results = batch_fake_state.FakeState.anthropic_results

    def unreadable(self, b):  # type: ignore[no-untyped-def]
        lines = results(self, b)
        if [json.loads(x)["custom_id"] for x in lines] == retries:
            return [b'{"custom_id": "a0-0-1", "result": "\xff"}\n']
        return lines

    monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_results", unreadable)


def test_a_batch_whose_results_stay_short_and_unreadable_loses_its_requests_on_resume(
    fake, tmp_path, monkeypatch
):
    # the first answers of both arms' first draws error; their retries go in a batch of two,
    # which counts 2 results and answers one line that is not UTF-8 (it names no request). The
    # run stops at the budget (3 reads in a row keeping nothing), as for a proxy's text; and
    # the same command read the same line and stopped again, for ever: the run could never
    # finish. Run again, the batch is read again to the budget (3), then its two requests are
    # lost saying why, not graded and not sent again: 6 answers + 2 retries + 4 draws' 20 judge
    # samples, each sent once
    s = fake.script
    s.fault = lambda cid: "errored" if cid in ("a0-0-0", "a1-0-0") else None
    _one_unreadable_line(monkeypatch, ["a0-0-1", "a1-0-1"])
    short = (
        "its results hold 1 line, where the batch counts 2 results; line 1 of its results is "
        "not UTF-8 text (byte 0xff)"
    )
    with pytest.raises(ProviderError) as e:
        batched(tmp_path, "anthropic", cases=1)
    said = (
        f"batch msgbatch_000002: its results could not be read (3 reads in a row kept nothing; "
        f"last: {short}); if the next run reads them so, their requests are lost;"
    )
    assert said in str(e.value), str(e.value)
    r = read_receipt(batched(tmp_path, "anthropic", cases=1))
    errored = "batch msgbatch_000001: errored: overloaded_error: scripted overloaded_error"
    for arm in ("with_skill", "baseline"):
        first = getattr(r.cases[0].arms, arm).draws[0]
        none = f"batch msgbatch_000002 (ended) returned no result for this request; {short}"
        assert [a.error for a in first.attempts] == [errored, none]
        assert first.score is None and first.lost is not None
        assert (
            first.lost.reason
            == f"{none}; not retryable, 2 attempts, retried after 0 s; earlier: {errored}"
        )
    assert len(s.submitted) == len(set(s.submitted)) == 6 + 2 + 20 == r.run.endpoint_attempts
    assert s.calls["results"] == 1 + 3 + 1 + 3  # the answers, the two, the judges; the two again


@pytest.mark.parametrize(("provider", "fault"), [("openai", "blank200"), ("anthropic", "text200")])
def test_results_naming_no_request_through_a_resume_lose_the_draws(fake, tmp_path, provider, fault):
    # the answers' batch counts 6 results, and its results stay an empty body (OpenAI's output
    # file) or a proxy's text (Anthropic's): the run stops at the budget, as before, and so did
    # every resume, for ever. Run again, the batch is read again to the budget (3), then each
    # of the 6 answers is lost saying why; nothing is graded, nothing sent again
    s = fake.script
    s.fail_results = fault
    with pytest.raises(ProviderError):
        batched(tmp_path, provider, cases=1)
    r = read_receipt(batched(tmp_path, provider, cases=1))
    # the 6 answers' batch (OpenAI's after its input file); one line of text, or none
    bid = "batch_000002 (completed)" if provider == "openai" else "msgbatch_000001 (ended)"
    held = "came back empty" if fault == "blank200" else "hold 1 line"
    why = f"batch {bid} returned no result for this request; its results {held}, where the "
    for _, d in draws(r, "with_skill") + draws(r, "baseline"):
        assert d.score is None and d.lost is not None and len(d.attempts) == 1
        assert d.lost.reason.startswith(f"{why}batch counts 6 results")
        assert d.lost.reason.endswith("; not retryable, 1 attempt")
    assert len(s.submitted) == len(set(s.submitted)) == 6 == r.run.endpoint_attempts
    assert s.calls["results"] == (3 + 3 if provider == "anthropic" else 0)  # OpenAI's: files
