"""A run killed (SIGKILL, power loss) after the provider made a batch and before the batch
journal held its id. Before, the same command made a second batch of the same requests: both
billed, the first one's results never read. Now the journal says a batch is being made before
each creation: on resume an OpenAI batch made from the journaled input file is found and read,
and an Anthropic one (whose requests cannot be matched without its results) is refused, with
what to cancel and how to go on. One case is 6 answers and 30 judge samples (36 requests)."""

from __future__ import annotations

import json
import signal
import time
from collections import Counter

import pytest
from batch_runs import creating_slowly, draws, journal_lines
from factories import run_main

from driftproof.receipt import read_receipt
from driftproof.run.batch import batch_journal_path


def _killed_while_created(fake, suite_file, skill_file, tmp_path, provider, *extra):
    """The CLI's argv, run until the answers' batch is made and killed before its reply."""
    argv, out, proc = creating_slowly(fake, suite_file, skill_file, tmp_path, provider, *extra)
    s = fake.script
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    s.trickle = set()
    bj = batch_journal_path(out)
    assert journal_lines(bj, "batch") == 0  # the provider holds a batch the journal does not
    return argv, out, bj


def test_openai_a_batch_made_before_a_kill_is_found_by_its_input_file_and_read(
    fake, suite_file, skill_file, tmp_path, capsys
):
    argv, out, bj = _killed_while_created(fake, suite_file, skill_file, tmp_path, "openai")
    code, _, err = run_main(argv[3:], capsys)
    assert code == 0, err
    s = fake.script
    sent = Counter(s.submitted)
    assert len(sent) == 36 and max(sent.values()) == 1, sent.most_common(3)
    assert s.calls["create"] == 2  # the answers' batch, found and read; then the judges'
    r = read_receipt(out)
    assert r.run.batch.batch_ids == s.batch_ids and r.run.endpoint_attempts == 36
    first = fake.state.batches[s.batch_ids[0]]
    assert r.run.batch.file_ids[0] == first.input_file_id and first.polls >= 1
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))
    assert not bj.exists()


def test_openai_a_batch_made_before_a_kill_is_found_with_the_local_clock_hours_ahead(
    fake, suite_file, skill_file, tmp_path, capsys, monkeypatch
):
    # The list is read back to an hour before the journaled time of the creation, by the local
    # clock; the batch's own time is the provider's. With the local clock two hours ahead the
    # search stopped above the batch and the resumed run made a second one (sent twice)
    from driftproof.run import batch_lanes as BL

    made_from = BL.OpenAIBatches.made_from
    ahead = 2 * 3600.0
    monkeypatch.setattr(BL.OpenAIBatches, "made_from", lambda o, f, t: made_from(o, f, t + ahead))
    argv, out, _ = _killed_while_created(fake, suite_file, skill_file, tmp_path, "openai")
    code, _, err = run_main(argv[3:], capsys)
    assert code == 0, err
    sent = Counter(fake.script.submitted)
    assert len(sent) == 36 and max(sent.values()) == 1, sent.most_common(3)


def test_anthropic_a_batch_perhaps_made_before_a_kill_is_refused_then_resent_on_request(
    fake, suite_file, skill_file, tmp_path, capsys
):
    argv, out, bj = _killed_while_created(fake, suite_file, skill_file, tmp_path, "anthropic")
    held = bj.read_bytes()
    (intent,) = [json.loads(x)["creating"] for x in held.splitlines() if b'"creating"' in x]
    at = intent["at"].replace("T", " ").removesuffix("Z")
    code, _, err = run_main(argv[3:], capsys)
    said = " ".join(err.split())
    s = fake.script
    assert code != 0 and s.calls["create"] == 1 and s.calls["retrieve"] == 0  # nothing sent
    # the journal only notes that the run has named this creation to the user
    assert bj.read_bytes() == held + b'{"named":"' + intent["digest"].encode() + b'"}\n'
    assert not out.exists()
    assert f"a batch of 6 requests may have been made at {at} UTC" in said, said
    assert "the run was stopped before its id was recorded" in said
    assert str(bj) in said and "/v1/messages/batches" in said and "cancel" in said
    assert "run the same command with --batch-resend-unrecorded" in said
    # the user cancels it (the fake's batch list holds it) and goes on as told
    (first,) = fake.state.batches.values()
    first.cancelled = True
    code, _, err = run_main([*argv[3:], "--batch-resend-unrecorded"], capsys)
    assert code == 0, err
    # the 6 answers twice (the lost batch, then again), the 30 judge samples once
    sent = Counter(s.submitted)
    assert len(sent) == 36 and sorted(Counter(sent.values()).items()) == [(1, 30), (2, 6)]
    r = read_receipt(out)
    assert r.run.batch.batch_ids == s.batch_ids[1:]  # the lost batch is none of the run's
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


def test_anthropic_resend_given_before_the_batch_was_named_sends_nothing_again(
    fake, suite_file, skill_file, tmp_path, capsys
):
    # Found: a command holding --batch-resend-unrecorded (as given after one refusal, and kept
    # in the resume line the run prints on Ctrl-C) dropped a later unrecorded batch the user
    # was never told of and sent its 6 requests again: exit 0, both batches billed, the first
    # one's results never read
    resend = "--batch-resend-unrecorded"
    argv, out, bj = _killed_while_created(
        fake, suite_file, skill_file, tmp_path, "anthropic", resend
    )
    code, _, err = run_main(argv[3:], capsys)
    said = " ".join(err.split())
    s = fake.script
    assert code != 0 and s.calls["create"] == 1 and not out.exists()
    assert "a batch of 6 requests may have been made at" in said
    assert f"({resend} was given, but it sends again only a batch named so before)" in said
    (first,) = fake.state.batches.values()
    first.cancelled = True  # as the refusal tells; the same command again goes on
    code, _, err = run_main(argv[3:], capsys)
    assert code == 0, err
    assert sorted(Counter(Counter(s.submitted).values()).items()) == [(1, 30), (2, 6)]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_each_creation_is_journaled_before_and_its_batch_after(
    fake, tmp_path, monkeypatch, provider
):
    from batch_runs import batched

    from driftproof.run import batch_lanes as BL

    cls = BL.AnthropicBatches if provider == "anthropic" else BL.OpenAIBatches
    made = cls.create
    bj = batch_journal_path(tmp_path / "receipt.json")
    seen: list[tuple[int, int]] = []

    def create(self, spool, file_id):
        seen.append((journal_lines(bj, "creating"), journal_lines(bj, "batch")))
        return made(self, spool, file_id)

    fake.script.fault = lambda cid: "errored" if cid == "a0-0-0" else None  # a follow-up batch
    monkeypatch.setattr(cls, "create", create)
    r = read_receipt(batched(tmp_path, provider, cases=1))
    # answers, judges, then the one failed answer again and its judges: 4 batches, each
    # creation preceded by its own journaled intent and all earlier batches' ids
    assert seen == [(1, 0), (2, 1), (3, 2), (4, 3)]
    assert r.run.batch.batch_ids == fake.script.batch_ids and len(fake.script.batch_ids) == 4


@pytest.mark.parametrize("cancel_first", [True, False])
def test_openai_of_two_batches_made_from_one_input_file_the_one_not_cancelled_is_read(
    fake, suite_file, skill_file, tmp_path, capsys, cancel_first
):
    # two batches of the input file (the second made by hand, through the SDK): the refusal
    # tells the user to cancel all but one; once they have, the one left is read (a cancelled
    # batch stays in the list, so refusing again would leave no way on but starting afresh)
    import openai

    argv, out, bj = _killed_while_created(fake, suite_file, skill_file, tmp_path, "openai")
    client = openai.OpenAI(max_retries=0)
    (first,) = fake.state.batches.values()
    second = client.batches.create(
        input_file_id=first.input_file_id, endpoint="/v1/responses", completion_window="24h"
    )
    if cancel_first:
        client.batches.cancel(first.id)
    code, _, err = run_main(argv[3:], capsys)
    s = fake.script
    if not cancel_first:
        assert code != 0 and s.calls["create"] == 2 and not out.exists()
        said = " ".join(err.split())
        assert f"the batches {second.id} (validating), {first.id} (validating) were all " in said
        assert "cancel all but one (the one left is read)" in said and str(bj) in said
        return
    assert code == 0, err
    r = read_receipt(out)
    assert r.run.batch.batch_ids == [second.id, s.batch_ids[2]]  # it, then the judges'
    assert fake.state.batches[second.id].polls >= 1 and first.polls == 0
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


def test_openai_of_two_batches_made_from_one_input_file_both_cancelled_the_newest_is_read(
    fake, suite_file, skill_file, tmp_path, capsys
):
    # the user cancelled both: the refusal "cancel all but one" could never be met again
    import openai

    argv, out, _ = _killed_while_created(fake, suite_file, skill_file, tmp_path, "openai")
    client = openai.OpenAI(max_retries=0)
    (first,) = fake.state.batches.values()
    second = client.batches.create(
        input_file_id=first.input_file_id, endpoint="/v1/responses", completion_window="24h"
    )
    client.batches.cancel(first.id)
    client.batches.cancel(second.id)
    code, _, err = run_main(argv[3:], capsys)
    assert code == 0, err
    r = read_receipt(out)
    assert r.run.batch.batch_ids[0] == second.id and first.id not in r.run.batch.batch_ids
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


def test_openai_a_batch_list_sent_a_byte_at_a_time_is_cut_off_at_the_call_timeout(
    fake, suite_file, skill_file, tmp_path, capsys, monkeypatch
):
    # each page of the list is one call within the batch calls' timeout, as a poll is: a list
    # trickled one byte every 0.05 s held the resumed run until its last byte (over 20 s for
    # this one-batch page; the SDK's timeout counts from each byte received)
    from driftproof.run import batch_lanes as BL

    argv, out, bj = _killed_while_created(fake, suite_file, skill_file, tmp_path, "openai")
    monkeypatch.setattr(BL.OpenAIBatches, "call_timeout", 0.5)
    fake.script.trickle, fake.script.trickle_gap = {"list"}, 0.05
    start = time.monotonic()
    code, _, err = run_main(argv[3:], capsys)
    assert time.monotonic() - start < 15 and code != 0
    said = " ".join(err.split())
    assert (
        "the openai batch list could not be read to find the batch made from the input file "
        "file-000001, which the run may have made before it stopped: timed out after 0.5 s"
    ) in said
    assert fake.script.calls["create"] == 1 and journal_lines(bj, "batch") == 0


def test_openai_a_batch_list_refused_for_its_key_says_to_check_the_key(
    fake, suite_file, skill_file, tmp_path, capsys, monkeypatch
):
    # a 401 from the list (another project's key) read "run the same command again to
    # resume", which meets the same 401
    from driftproof.run import batch_lanes as BL
    from driftproof.run.providers.base import AttemptError

    def refused(*_: object) -> list[tuple[str, str]]:
        raise AttemptError("HTTP 401: invalid_api_key: Incorrect API key", status=401)

    argv, _, bj = _killed_while_created(fake, suite_file, skill_file, tmp_path, "openai")
    monkeypatch.setattr(BL.OpenAIBatches, "made_from", refused)
    code, _, err = run_main(argv[3:], capsys)
    said = " ".join(err.split())
    assert code != 0 and "the answering lane's key was refused: check OPENAI_API_KEY" in said
    assert "run the same command again to resume once it is fixed" in said
    assert fake.script.calls["create"] == 1 and journal_lines(bj, "batch") == 0


#: A page of the batch list each fault of the fake answers with, as the refusal quotes it.
LISTED = {
    "empty200": ": {}",
    "items200": ': {"data":[{"id":"batch_000002","object":"batch","status":"validating"}],',
}


@pytest.mark.parametrize("fault", sorted(LISTED))
def test_openai_a_batch_list_answered_without_batches_it_can_read_is_a_failed_call(
    fake, suite_file, skill_file, tmp_path, capsys, fault
):
    # the list answered {} with status 200 (a gateway's), or batches without their input file
    # and time, while a creation not confirmed was settled: a traceback (no list of batches, a
    # time that is None). It is a failed call quoting the reply; nothing is made again, and
    # once the list answers, the batch is found and read, each request sent once
    argv, out, bj = _killed_while_created(fake, suite_file, skill_file, tmp_path, "openai")
    s = fake.script
    s.fail_list = fault
    code, _, err = run_main(argv[3:], capsys)
    said = " ".join(err.split())
    assert code != 0 and s.calls["list"] == 1, said
    assert (
        "the openai batch list could not be read to find the batch made from the input file "
        "file-000001, which the run may have made before it stopped: the reply is not a page "
        "of the batch list" + LISTED[fault]
    ) in said, said
    assert s.calls["create"] == 1 and journal_lines(bj, "batch") == 0
    s.fail_list = None
    code, _, err = run_main(argv[3:], capsys)
    assert code == 0, err
    sent = Counter(s.submitted)
    assert len(sent) == 36 and max(sent.values()) == 1, sent.most_common(3)
    assert read_receipt(out).run.batch.batch_ids == s.batch_ids
