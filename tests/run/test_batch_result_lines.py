"""Batch result lines that are not results (a string error, a line that is not JSON or not an
object): named, retried or lost like any failure, never a traceback.
"""

from __future__ import annotations

import json

import pytest
from batch_runs import batched

from driftproof.receipt import read_receipt


@pytest.mark.parametrize(
    "error,said",
    [
        ("boom", "errored: boom"),  # a string body, in its own words
        ({"type": "error", "error": "boom"}, 'errored: {"type": "error", "error": "boom"}'),
        (None, "errored: with no error given"),
    ],
)
def test_an_anthropic_errored_result_whose_error_is_no_object_is_a_failed_attempt(
    fake, tmp_path, monkeypatch, error, said
):
    # Found: a result's error (or error.error) that is a string raised AttributeError in the
    # results reader, which the batch engine re-raised (not a transport error): a traceback
    import batch_fake_state

    results = batch_fake_state.FakeState.anthropic_results

    def shapeless_first(self, b):
        lines = results(self, b)
        first = json.loads(lines[0])
        if first["custom_id"] == "a0-0-0":  # the first answer's first attempt
            first["result"] = {"type": "errored", "error": error}
        return [json.dumps(first).encode() + b"\n", *lines[1:]]

    monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_results", shapeless_first)
    r = read_receipt(batched(tmp_path, "anthropic", cases=1))
    first = r.cases[0].arms.with_skill.draws[0]
    # an unknown error is the Messages API's 500: retried in a follow-up batch, then answered
    assert first.score == pytest.approx(0.9)
    assert [(a.error, a.error_class, a.status) for a in first.attempts] == [
        (f"batch msgbatch_000001: {said}", "transient", 500)
    ]
    assert r.run.endpoint_attempts == 36 + 1


@pytest.mark.parametrize(
    "bad,note",
    [
        (b"this is not json", "is not a result (a JSON object)"),
        (b"[1, 2]", "is not a result (a JSON object)"),
        # no custom id of text: it was read as the request 'None' and the run refused, again
        # on every resume (the provider's file does not change)
        (b'{"custom_id": 7, "response": {"status_code": 200, "body": {}}}', "names no request"),
    ],
)
def test_an_openai_output_line_that_is_no_result_leaves_its_request_without_one(
    fake, tmp_path, monkeypatch, bad, note
):
    # Found: json.loads / obj.get raised inside the results reader, which the batch engine
    # re-raised (it is no transport error): a traceback. The line names no request: the one it
    # held is answered "no result", with the line named, and retried in a follow-up batch
    _edit_first_answer_line(monkeypatch, lambda _first: bad)
    r = read_receipt(batched(tmp_path, "openai", api="chat", cases=1))
    first = r.cases[0].arms.with_skill.draws[0]
    assert first.score == pytest.approx(0.9)
    # the fake's ids run on: input file 1, batch 2, its 6 result lines 3-8, the output file 9
    assert [(a.error, a.error_class, a.status) for a in first.attempts] == [
        (
            "batch batch_000002 (completed) returned no result for this request; line 1 of its "
            f"file file-out000009 {note}",
            "transient",
            None,
        )
    ]
    assert r.run.endpoint_attempts == 36 + 1


@pytest.mark.parametrize(
    "bad,note,attempts",
    [
        # the lines are read one by one (the SDK's decoder read none past this one: all 6
        # answers were retried), so only the request it held is without a result
        (b"this is not json", "is not a result (a JSON object)", 36 + 1),
        (b"[1, 2]", "is not a result (a JSON object)", 36 + 1),
        (b'"a0-0-0"', "is not a result (a JSON object)", 36 + 1),
        (b'{"custom_id": null, "result": {"type": "succeeded"}}', "names no request", 36 + 1),
    ],
)
def test_an_anthropic_results_line_that_is_no_result_leaves_its_request_without_one(
    fake, tmp_path, monkeypatch, bad, note, attempts
):
    # Found: a line that is not JSON raised JSONDecodeError in the SDK's decoder, one that is no
    # object AttributeError (model_dump on a list); the batch engine re-raised both: a traceback
    import batch_fake_state

    results = batch_fake_state.FakeState.anthropic_results

    def first_line_broken(self, b):
        lines = results(self, b)
        if json.loads(lines[0])["custom_id"] == "a0-0-0":  # the first answer's first attempt
            return [bad + b"\n", *lines[1:]]
        return lines

    monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_results", first_line_broken)
    r = read_receipt(batched(tmp_path, "anthropic", cases=1))
    first = r.cases[0].arms.with_skill.draws[0]
    assert first.score == pytest.approx(0.9)
    assert [(a.error, a.error_class) for a in first.attempts] == [
        (
            "batch msgbatch_000001 (ended) returned no result for this request; line 1 of its "
            f"results {note}",
            "transient",
        )
    ]
    assert r.run.endpoint_attempts == attempts


@pytest.mark.parametrize("cid", ["zz", "a0-5-0"])
def test_a_result_for_a_request_its_batch_did_not_send_is_the_providers_fault(
    fake, tmp_path, monkeypatch, cid
):
    # Found: a result naming a request of this run's form that its batch did not hold (a0-5-0:
    # draw 5, never sent) was kept and used as that request's answer
    import batch_fake_state

    from driftproof.errors import RefusalError
    from driftproof.run.batch import batch_journal_path

    results = batch_fake_state.FakeState.anthropic_results

    def renamed_first(self, b):
        lines = results(self, b)
        first = json.loads(lines[0])
        if first["custom_id"] == "a0-0-0":  # the first answer's first attempt
            first["custom_id"] = cid
        return [json.dumps(first).encode() + b"\n", *lines[1:]]

    monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_results", renamed_first)
    with pytest.raises(RefusalError) as info:
        batched(tmp_path, "anthropic", cases=1)
    assert str(info.value) == (
        f"batch msgbatch_000001 returned custom id {cid!r}, which this run did not send"
    )
    assert b'"out"' not in batch_journal_path(tmp_path / "receipt.json").read_bytes()


def _twice(line: bytes, member: bytes, first: bytes) -> bytes:
    """``line`` with ``member`` given twice: ``first`` (a JSON value) before the real one."""
    return line.replace(
        b'"' + member + b'": ', b'"' + member + b'": ' + first + b', "' + member + b'": ', 1
    )


def test_an_anthropic_grade_giving_score_twice_in_a_batch_is_not_read(fake, tmp_path, monkeypatch):
    # Found: the batch lanes parsed results with json.loads, which keeps the last of a name
    # given twice: a record_grade input {"score": 0.0, "score": 0.9} graded the draw 0.9, where
    # the interactive lane does not read such a reply at all
    import batch_fake_state

    results = batch_fake_state.FakeState.anthropic_results

    def doubled(self, b):
        return [_twice(x, b"score", b"0.0") for x in results(self, b)]

    monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_results", doubled)
    r = read_receipt(batched(tmp_path, "anthropic", cases=1))
    for arm in ("with_skill", "baseline"):
        for d in getattr(r.cases[0].arms, arm).draws:
            assert (d.score, d.lost.kind) == (None, "unscored")
            for s in d.judge_samples:
                assert s.score is None
                assert s.invalid_reason.startswith("judge call failed: batch msgbatch_")
                assert (
                    ': the result is not JSON (expected unique member names, found "score" twice): '
                ) in s.invalid_reason


def test_an_openai_result_giving_its_ending_twice_in_a_batch_is_not_read(
    fake, tmp_path, monkeypatch
):
    # a finish_reason "length" then "stop": json.loads kept "stop" and graded the answer
    import batch_fake_state

    files = batch_fake_state.FakeState._openai_files

    def doubled(self, b):
        files(self, b)
        if b.output_file_id:
            out = self.files[b.output_file_id]
            self.files[b.output_file_id] = _twice(out, b"finish_reason", b'"length"')

    monkeypatch.setattr(batch_fake_state.FakeState, "_openai_files", doubled)
    r = read_receipt(batched(tmp_path, "openai", api="chat", cases=1))
    first = r.cases[0].arms.with_skill.draws[0]
    assert (first.score, first.lost.kind, first.lost.error_class) == (None, "error", "transient")
    # each output file's first line gives it twice: this request's, in every follow-up batch
    assert first.lost.reason.startswith("batch batch_")
    assert (
        ': the result is not JSON (expected unique member names, found "finish_reason" twice): '
        '\'{"id": '
    ) in first.lost.reason
    assert r.cases[0].arms.baseline.draws[0].score == pytest.approx(0.5)


def test_a_result_giving_its_custom_id_twice_names_no_request(fake, tmp_path, monkeypatch):
    import batch_fake_state

    results = batch_fake_state.FakeState.anthropic_results

    def doubled(self, b):
        lines = results(self, b)
        if json.loads(lines[0])["custom_id"] == "a0-0-0":  # the first answer's first attempt
            return [_twice(lines[0], b"custom_id", b'"a0-1-0"'), *lines[1:]]
        return lines

    monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_results", doubled)
    r = read_receipt(batched(tmp_path, "anthropic", cases=1))
    first = r.cases[0].arms.with_skill.draws[0]
    assert first.score == pytest.approx(0.9)
    assert [a.error for a in first.attempts] == [
        "batch msgbatch_000001 (ended) returned no result for this request; line 1 of its "
        "results names no request (its custom id is given twice)"
    ]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_batch_returning_two_results_for_one_request_is_refused(
    fake, tmp_path, monkeypatch, provider
):
    # Found: a second result for a request already answered in the same batch was dropped
    # without a word, whatever it said: the first of two different answers was graded
    import batch_fake_state

    from driftproof.errors import RefusalError

    def refused() -> str:
        with pytest.raises(RefusalError) as info:
            batched(
                tmp_path, provider, cases=1, **({"api": "chat"} if provider == "openai" else {})
            )
        return str(info.value)

    if provider == "anthropic":
        results = batch_fake_state.FakeState.anthropic_results

        def twice(self, b):
            lines = results(self, b)
            if json.loads(lines[0])["custom_id"] == "a0-0-0":
                other = lines[0].replace(b"(skill)", b"(other)")
                return [lines[0], *lines[1:], other]
            return lines

        monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_results", twice)
        assert refused() == (
            "batch msgbatch_000001 returned two different results for custom id 'a0-0-0'; "
            "which one answers the request cannot be told"
        )
    else:
        files = batch_fake_state.FakeState._openai_files

        def twice(self, b):
            files(self, b)
            first = self.files[b.output_file_id].split(b"\n", 1)[0]
            if json.loads(first)["custom_id"] == "a0-0-0":
                self.files[b.output_file_id] += first.replace(b"(skill)", b"(other)") + b"\n"

        monkeypatch.setattr(batch_fake_state.FakeState, "_openai_files", twice)
        assert refused() == (
            "batch batch_000002 returned two different results for custom id 'a0-0-0'; "
            "which one answers the request cannot be told"
        )


def test_the_same_result_given_twice_is_read_once(fake, tmp_path, monkeypatch):
    import batch_fake_state

    results = batch_fake_state.FakeState.anthropic_results

    def twice(self, b):
        lines = results(self, b)
        return [*lines, lines[0]]

    monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_results", twice)
    r = read_receipt(batched(tmp_path, "anthropic", cases=1))
    assert [d.score for d in r.cases[0].arms.with_skill.draws] == [0.9] * 3
    assert r.run.endpoint_attempts == 36


def test_a_server_abort_in_a_batch_is_retried_in_a_follow_up_batch(fake, tmp_path, monkeypatch):
    # Found: a batch result ending "abort" (vLLM's server-side abort) was lost at once as a
    # server abort, where the interactive lane retries it as transient; the batch transport now
    # sends it again in a follow-up batch, within the same three attempts per call
    import batch_fake_state

    files = batch_fake_state.FakeState._openai_files
    aborted = {"a0-0-0", "a1-0-0", "a1-0-1", "a1-0-2", "j0-1-0-0"}  # cell 0 with skill, 1 base

    def aborting(self, b):
        files(self, b)
        if b.output_file_id:
            lines = [json.loads(x) for x in self.files[b.output_file_id].splitlines()]
            for x in lines:
                if x["custom_id"] in aborted:
                    x["response"]["body"]["choices"][0]["finish_reason"] = "abort"
            self.files[b.output_file_id] = b"".join(json.dumps(x).encode() + b"\n" for x in lines)

    monkeypatch.setattr(batch_fake_state.FakeState, "_openai_files", aborting)
    r = read_receipt(batched(tmp_path, "openai", api="chat", cases=1))
    ws, base = r.cases[0].arms.with_skill.draws, r.cases[0].arms.baseline.draws
    said = "aborted by the server: the reply ended with 'abort', not as a complete final answer"
    assert ws[0].score == pytest.approx(0.9) and [a.error for a in ws[0].attempts] == [said]
    assert [s.score for s in ws[1].judge_samples] == pytest.approx([0.9] * 5)
    assert (base[0].score, base[0].lost.kind, base[0].lost.error_class) == (
        None,
        "server_abort",
        "transient",
    )
    assert [a.error for a in base[0].attempts] == [said] * 3
    assert [d.score for d in base[1:]] == pytest.approx([0.5, 0.5])
    # answers 6 + 1 retry (a0-0) + 2 (a1-0); judge samples of the 5 judged draws 25 + 1 retry
    assert r.run.endpoint_attempts == 35
    assert len(fake.script.submitted) == len(set(fake.script.submitted)) == 35


BUSY = {"type": "overloaded_error", "message": "Overloaded"}


@pytest.mark.parametrize(
    "line,said",
    [
        # the reference gives an answer (error null) or an error (response null), never both
        (
            {"response": "answer", "error": {"code": "server_error", "message": "it broke"}},
            "its result line holds an answer and an error (server_error: it broke); which one "
            "stands cannot be told",
        ),
        # vllm run-batch: a status without a body, and its words in a top-level error string
        (
            {"response": {"status_code": 500}, "error": "engine died"},
            "HTTP 500: error: engine died",
        ),
        ({"response": None, "error": "engine died"}, "error: engine died"),
        # an overloaded_error is transient whatever its status, as the interactive lane has it
        (
            {"response": {"status_code": 400, "body": {"error": BUSY}}, "error": None},
            "HTTP 400: overloaded_error: Overloaded",
        ),
    ],
)
def test_an_openai_line_holding_an_error_is_never_graded_and_keeps_its_words(
    fake, tmp_path, monkeypatch, line, said
):
    # Found: a line with a 200 answer and an error was graded from the answer; an error given
    # as a string lost its words ("error: ")
    def erred(first: bytes) -> bytes:
        obj = json.loads(first)
        obj.update(
            line, response=obj["response"] if line["response"] == "answer" else line["response"]
        )
        return json.dumps(obj).encode()

    _edit_first_answer_line(monkeypatch, erred)
    r = read_receipt(batched(tmp_path, "openai", api="chat", cases=1))
    first = r.cases[0].arms.with_skill.draws[0]
    assert first.score == pytest.approx(0.9)  # retried in a follow-up batch, then answered
    assert [a.error for a in first.attempts] == [f"batch batch_000002: {said}"]


def _failed_response(body: dict) -> None:
    # openai's Response: status "failed" and its error (ResponseError: code, message)
    body.update(status="failed", output=[], error={"code": "server_error", "message": "it broke"})


def _choice_error(body: dict) -> None:
    # a gateway's lost upstream, sent on the choice beside the text so far (OpenRouter)
    body["choices"][0].update(finish_reason="error", error={"code": 502, "message": "it broke"})


@pytest.mark.parametrize(
    "api,edit,said",
    [
        ("responses", _failed_response, "the reply is an error with status 200, not an answer"),
        ("chat", _choice_error, "the reply's choice is an error with status 200, not an answer"),
    ],
)
def test_an_openai_answer_that_is_a_failure_is_a_failed_attempt_as_it_is_interactively(
    fake, tmp_path, monkeypatch, api, edit, said
):
    # Found: a status-200 result whose body said it failed was read as a reply: the failed
    # Response lost as an "unknown ending" ('failed'), not retried, its error unquoted
    def failed(first: bytes) -> bytes:
        obj = json.loads(first)
        edit(obj["response"]["body"])
        return json.dumps(obj).encode()

    _edit_first_answer_line(monkeypatch, failed)
    r = read_receipt(batched(tmp_path, "openai", api=api, cases=1))
    first = r.cases[0].arms.with_skill.draws[0]
    assert first.score == pytest.approx(0.9)  # retried in a follow-up batch, then answered
    assert [(a.error, a.error_class) for a in first.attempts] == [
        (f"batch batch_000002: {said}: it broke", "transient")
    ]


def _edit_first_answer_line(monkeypatch, edit) -> None:
    """The fake OpenAI output line of the first answer's first attempt, as ``edit`` makes it."""
    import batch_fake_state

    files = batch_fake_state.FakeState._openai_files

    def edited(self, b):
        files(self, b)
        fid = b.output_file_id
        first, rest = self.files[fid].split(b"\n", 1)
        if json.loads(first)["custom_id"] == "a0-0-0":
            self.files[fid] = edit(first) + b"\n" + rest

    monkeypatch.setattr(batch_fake_state.FakeState, "_openai_files", edited)
