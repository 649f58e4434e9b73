"""``run --batch``: polls that fail without end stop the run; a slow batch is never stopped."""

from __future__ import annotations

import itertools
import re

import pytest
from batch_runs import batched, draws

from driftproof.errors import ProviderError
from driftproof.receipt import read_receipt
from driftproof.run.batch import batch_journal_path
from driftproof.run.journal import journal_path

#: What each fault of the fake (``BatchScript.fail_retrieve``) makes the SDKs say: the status and
#: the provider's message, the proxy's page, or the lost connection.
SAID = {
    "500": r"HTTP 500.*Internal server error",
    "html": r"HTTP 502.*502 Bad Gateway",
    "reset": r"connection failed",
    "text200": r"the reply is not JSON \(not a JSON content type\): 'upstream connect error'",
    "json200": r"the reply is not JSON \(Unterminated string .*\): '\{\"id\": \"msgbatch_'",
    "error200": r"the reply is an error with status 200, not an answer: api_error: Internal serv",
    "empty200": r"the reply names no batch or file: \{\}\)",
    "state200": r"the reply gives the batch no state its API documents: \{\"id\":\"b\",.*paused",
}


@pytest.mark.parametrize("fault", sorted(SAID))
@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_polls_failing_in_a_row_stop_the_run_then_it_resumes(fake, tmp_path, provider, fault):
    # every poll of the first batch fails (the fake lets the 101st through: without a bound
    # the run would poll on, saying nothing, then finish). The attempt budget (the plain lanes'
    # 1 + len((5.0, 20.0)) = 3) of failed polls in a row stops the run naming the batch, in
    # the provider's (or the proxy's) own words; the journals are kept for the same command.
    s = fake.script
    s.fail_retrieve = lambda n: fault if n <= 100 else None
    bid = "msgbatch_000001" if provider == "anthropic" else "batch_000002"  # after its file
    with pytest.raises(ProviderError) as e:
        batched(tmp_path, provider, cases=1)
    said = str(e.value)
    assert s.calls["retrieve"] == 3 and s.calls["create"] == 1
    assert f"batch {bid} could not be polled (3 polls in a row failed; last: " in said, said
    assert re.search(SAID[fault], said), said
    assert said.endswith("run the same command again to resume"), said
    out = tmp_path / "receipt.json"
    assert not out.exists() and journal_path(out).exists() and batch_journal_path(out).exists()
    s.fail_retrieve = lambda n: None
    r = read_receipt(batched(tmp_path, provider, cases=1))
    assert r.run.batch.batch_ids == s.batch_ids and s.calls["create"] == 2  # answers, judge
    assert len(s.submitted) == len(set(s.submitted)) == 36 == r.run.endpoint_attempts
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_slow_batch_whose_polls_often_fail_is_never_stopped(fake, tmp_path, provider):
    # each batch stays in progress for 20 answered polls, an hour apart by the run's clock
    # (20 hours, inside the 24 h timeout), and two polls of every three fail: an answered poll
    # starts the count again, so the 2 failures in a row never reach the budget of 3
    s = fake.script
    s.polls_to_end, s.fail_retrieve = 20, lambda n: "500" if n % 3 else None
    hours = itertools.count(0, 3600.0)
    r = read_receipt(batched(tmp_path, provider, cases=1, clock=lambda: next(hours)))
    # two batches (answers, then judge samples), each ending at its 21st answered poll
    assert s.calls["poll"] == 2 * 3 * 21 and s.calls["cancel"] == 0
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_web_page_answering_a_poll_with_200_stops_the_run_at_once(fake, tmp_path, provider):
    # the SDKs hand back a body that is no JSON as its text, which was read as a batch (a
    # traceback); a web page with status 200 is fatal, as for a call: no poll can succeed
    s = fake.script
    s.fail_retrieve = lambda n: "page200"
    with pytest.raises(ProviderError) as e:
        batched(tmp_path, provider, cases=1)
    assert s.calls["poll"] == 1, str(e.value)
    assert (
        "the reply is a web page with status 200, not an answer: "
        "'<html><body><h1>502 Bad Gateway</h1></body></html>'; no call can succeed: check the "
        "base URL and any proxy in front of it"
    ) in str(e.value)


def test_a_web_page_answering_the_results_read_with_200_stops_the_run(fake, tmp_path):
    # the Anthropic SDK's results read fetches the ended batch first, and took a page there for
    # the batch (a traceback); it stops the run in the words of a page answering a call, its
    # journals kept, and the same command then reads the results
    s = fake.script
    s.fail_ended = "page200"
    with pytest.raises(ProviderError) as e:
        batched(tmp_path, "anthropic", cases=1)
    said = str(e.value)
    assert (
        "batch msgbatch_000001: the reply is a web page with status 200, not an answer: "
        "'<html><body><h1>502 Bad Gateway</h1></body></html>'; no call can succeed: check the "
        "base URL and any proxy in front of it"
    ) in said, said
    assert said.endswith("run the same command again to resume"), said
    out = tmp_path / "receipt.json"
    assert not out.exists() and journal_path(out).exists() and batch_journal_path(out).exists()
    assert s.calls["results"] == 0 and s.calls["create"] == 1
    s.fail_ended = None
    r = read_receipt(batched(tmp_path, "anthropic", cases=1))
    assert s.calls["results"] == 2 and s.calls["create"] == 2  # answers, then judge samples
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


#: What a batch creation answered with status 200 by each fault of the fake reads.
CREATED = {
    "page200": "(the reply is a web page with status 200, not an answer: "
    "'<html><body><h1>502 Bad Gateway</h1></body></html>'; no call can succeed: check the "
    "base URL and any proxy in front of it)",
    "error200": "(the reply is an error with status 200, not an answer: api_error: Internal "
    "server error)",
    "empty200": "(the reply names no batch or file: {})",
}


@pytest.mark.parametrize("fault", sorted(CREATED))
@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_creation_answered_200_with_no_batch_stops_the_run(fake, tmp_path, provider, fault):
    # the SDKs hand back a page as the created batch's text (a traceback reading its id), and an
    # object with no id as a batch whose id is None (journaled as batch "None"): each is read as
    # a call's reply, no batch confirmed
    s = fake.script
    s.fail_create = fault
    with pytest.raises(ProviderError) as e:
        batched(tmp_path, provider, cases=1)
    said = str(e.value)
    assert s.calls["create"] == 0 and s.calls["retrieve"] == 0, said
    assert CREATED[fault] in said, said


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("500", r" \(3 tries in a row failed; last: HTTP 500.*Internal server error"),
        ("page200", r": the reply is a web page with status 200, not an answer: "),
    ],
)
@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_cancel_that_fails_says_the_batch_could_not_be_cancelled(
    fake, tmp_path, provider, fault, said
):
    # the answers' batch never ends; each poll (10 s of the run's clock apart) answers, and past
    # the 25 s timeout each cancel fails: the run stops saying the cancel failed, not the polls
    # (it said "could not be polled (3 polls in a row failed"), journals kept
    s = fake.script
    s.never_end_first, s.fail_cancel = 1, fault
    now = itertools.count(0.0, 10.0)
    with pytest.raises(ProviderError) as e:
        batched(tmp_path, provider, cases=1, timeout=25.0, clock=lambda: next(now))
    bid = "msgbatch_000001" if provider == "anthropic" else "batch_000002"  # after its file
    assert re.search(f"batch {bid} could not be cancelled at its timeout{said}", str(e.value))
    assert "polled" not in str(e.value) and s.calls["cancel"] == 0
    assert journal_path(tmp_path / "receipt.json").exists()


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_web_page_answering_a_results_read_with_200_stops_the_run_and_pays_nothing_twice(
    fake, tmp_path, provider
):
    # a proxy's page for the results (Anthropic's results, an OpenAI output file): its lines,
    # none a result, left every request of the ended batch without one, and the run paid for
    # each again in a follow-up batch. A page answering a call is fatal; the batch is read
    # again by the same command, and no request is sent twice
    s = fake.script
    s.fail_results = "page200"
    with pytest.raises(ProviderError) as e:
        batched(tmp_path, provider, cases=1)
    said = str(e.value)
    assert (
        f"batch {s.batch_ids[0]}: the reply is a web page with status 200, not an answer: "
        "'<html><body><h1>502 Bad Gateway</h1></body></html>'; no call can succeed: check the "
        "base URL and any proxy in front of it"
    ) in said, said
    assert said.endswith("run the same command again to resume"), said
    assert s.calls["create"] == 1
    s.fail_results = None
    r = read_receipt(batched(tmp_path, provider, cases=1))
    assert s.calls["create"] == 2  # answers, then judge samples
    assert len(s.submitted) == len(set(s.submitted)) == 36 == r.run.endpoint_attempts
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


@pytest.mark.parametrize("fault", ["text200", "json200", "blank200"])
@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_results_read_with_no_line_naming_a_request_is_a_broken_read(
    fake, tmp_path, provider, fault
):
    # a proxy's text, a body cut short, or no body at all, with status 200 for the results of a
    # batch whose counts say its 6 answers have a result (Anthropic's succeeded, OpenAI's
    # completed): no line of it named a request, and every request of the ended batch was left
    # without a result, each sent and paid for again. It is a read that kept nothing: read
    # again, the budget (3) in a row stops the run, and the same command reads the batch,
    # sending nothing twice
    s = fake.script
    s.fail_results = fault
    with pytest.raises(ProviderError) as e:
        batched(tmp_path, provider, cases=1)
    said = str(e.value)
    assert f"batch {s.batch_ids[0]}: its results could not be read (3 reads in a row" in said
    empty = "last: its results came back empty, where the batch counts 6 results)"
    assert (empty in said) == (fault == "blank200"), said
    assert s.calls["create"] == 1 and said.endswith("run the same command again to resume")
    s.fail_results = None
    r = read_receipt(batched(tmp_path, provider, cases=1))
    assert len(s.submitted) == len(set(s.submitted)) == 36 == r.run.endpoint_attempts
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_results_short_of_the_batch_counts_are_a_broken_read_and_nothing_is_paid_twice(
    fake, tmp_path, provider
):
    # the results of the answers' batch come back twice with 4 of its 6 lines, whole (status
    # 200, the length as sent), where the batch counts 6 results (Anthropic's succeeded, OpenAI's
    # completed): the 4 are journaled, the batch read again at each poll, the third read holds
    # the 6, and nothing is sent twice (6 answers + 30 judge samples)
    s = fake.script
    s.short_results = 2
    r = read_receipt(batched(tmp_path, provider, cases=1))
    assert s.calls["create"] == 2  # answers, then judge samples
    assert s.calls["results"] == (3 + 1 if provider == "anthropic" else 0)  # OpenAI's: files
    assert len(s.submitted) == len(set(s.submitted)) == 36 == r.run.endpoint_attempts
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_results_short_of_the_counts_read_after_read_are_the_batch_results(
    fake, tmp_path, provider
):
    # 4 reads in a row of the answers' batch hold 4 of its 6 lines, where it counts 6: the file
    # as the provider holds it (the API reference does not promise the counts match its lines).
    # The run stopped at the budget (3 reads in a row keeping nothing), and the same command
    # read the same lines again: it could never finish. Now the fourth read is taken as the
    # batch's results: the 2 requests without a line are sent again, once each (36 + 2)
    s = fake.script
    s.short_results = 4
    r = read_receipt(batched(tmp_path, provider, cases=1))
    assert len(s.submitted) == 36 + 2 == r.run.endpoint_attempts and len(set(s.submitted)) == 38
    said = "its results hold 4 lines, where the batch counts 6 results"
    failed = [a.error for _, d in draws(r, "with_skill") + draws(r, "baseline") for a in d.attempts]
    assert len(failed) == 2 and all(said in (e or "") for e in failed), failed
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


def test_counts_above_what_the_batch_sent_are_not_its_counts(fake, tmp_path, monkeypatch):
    # each Anthropic batch counts 10 more successes than it holds requests: no read can hold
    # them all, and reading again would stop every run at that batch; they are counts not
    # given, and the batches (6 answers, then 30 judge samples) are read as they come
    import batch_fake_state

    doc = batch_fake_state.FakeState.anthropic_doc

    def inflated(self, b):  # type: ignore[no-untyped-def]
        d = doc(self, b)
        d["request_counts"]["succeeded"] += 10
        return d

    monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_doc", inflated)
    r = read_receipt(batched(tmp_path, "anthropic", cases=1))
    s = fake.script
    assert len(s.submitted) == len(set(s.submitted)) == 36 == r.run.endpoint_attempts
    assert s.calls["results"] == 2


def test_an_openai_output_file_empty_beside_an_error_file_is_read_as_its_errors(fake, tmp_path):
    # every answer's first attempt expires: the batch names an empty output file and an error
    # file of 6 lines (its counts: 0 completed, 6 failed). The read holds the 6 errors, no line
    # short of the counts: each answer is retried once in a follow-up batch (6 more requests)
    s = fake.script
    s.empty_output = True
    s.fault = lambda cid: "expired" if re.fullmatch(r"a\d+-\d+-0", cid) else None
    r = read_receipt(batched(tmp_path, "openai", cases=1))
    expired = (
        "batch batch_000002: batch_expired: This request could not be executed before the "
        "completion window expired."
    )
    for _, d in draws(r, "with_skill") + draws(r, "baseline"):
        assert d.score is not None and [a.error for a in d.attempts] == [expired]
    assert len(s.submitted) == len(set(s.submitted)) == 36 + 6 == r.run.endpoint_attempts


def test_openai_request_counts_that_are_no_object_are_counts_not_given(fake, tmp_path, monkeypatch):
    # a batch whose request_counts is no object (a gateway's "6") raised AttributeError as its
    # counts were read, a traceback at the first poll; they are counts not given, and the
    # results are read as they come (6 answers, then 30 judge samples, each sent once)
    import batch_fake_state

    doc = batch_fake_state.FakeState.openai_doc
    monkeypatch.setattr(
        batch_fake_state.FakeState,
        "openai_doc",
        lambda self, b: {**doc(self, b), "request_counts": "6"},
    )
    r = read_receipt(batched(tmp_path, "openai", cases=1))
    s = fake.script
    assert len(s.submitted) == len(set(s.submitted)) == 36 == r.run.endpoint_attempts
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))
