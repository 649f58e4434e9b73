"""``run --batch`` against a base URL that refuses connections: as the interactive lanes do
(:mod:`test_refused`), a refusal before any call of the lane was answered stops the run at once,
naming the base URL; before, a resumed run polled its batch at a closed port without end."""

from __future__ import annotations

import json
import socket

import pytest
from batch_fake import BatchLoopback
from batch_runs import batched
from run_helpers import point_sdks_at

from driftproof.errors import ProviderError
from driftproof.receipt import read_receipt


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Killed(Exception):
    """Stands for the run killed while it waited between polls."""


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_resumed_batch_run_whose_server_is_gone_stops_at_its_first_poll(
    provider, tmp_path, monkeypatch
):
    srv = BatchLoopback()
    point_sdks_at(monkeypatch, srv.url)
    srv.script.never_end = True
    polls: list[int] = []

    def killed(_s: float) -> None:
        raise _Killed()

    with pytest.raises(_Killed):  # the answers' batch is created and polled once
        batched(tmp_path, provider, cases=1, sleep=killed)
    srv.close()  # nothing listens at the base URL any more

    def sleep(_s: float) -> None:  # a poll that failed is tried again after a wait
        polls.append(1)
        if len(polls) > 3:
            raise AssertionError("the resumed run kept polling a port that refuses connections")

    url = srv.url + ("/v1" if provider == "openai" else "")
    with pytest.raises(ProviderError) as caught:
        batched(tmp_path, provider, cases=1, sleep=sleep)
    assert polls == []
    batch_id = json.loads((tmp_path / "receipt.json.batches").read_text().splitlines()[-1])
    assert str(caught.value) == (
        f"the run stopped: batch {batch_id['batch']['id']} could not be polled: connection "
        "failed: Connection error. "
        f"(base URL {url}): it refuses connections and no call to it has been answered in this "
        f"run; 0 finished draws are kept in {tmp_path / 'receipt.json.journal'}; run the same "
        "command again to resume"
    )


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_fresh_batch_run_at_a_closed_port_names_the_base_url(provider, tmp_path, monkeypatch):
    url = f"http://127.0.0.1:{_closed_port()}" + ("/v1" if provider == "openai" else "")
    point_sdks_at(monkeypatch, url.removesuffix("/v1"))
    with pytest.raises(ProviderError) as caught:
        batched(tmp_path, provider, cases=1)
    assert str(caught.value) == (
        f"the run stopped: the {provider} batch API could not be sent a batch: connection "
        f"failed: Connection error. (base URL {url}): it refuses connections and no call to it "
        f"has been answered in this run; 0 finished draws are kept in "
        f"{tmp_path / 'receipt.json.journal'}; run the same command again to resume"
    )


@pytest.mark.parametrize(
    ("provider", "lost", "then"),
    [
        # one case, two arms, three draws each: six requests, asked for at 09:59:58 UTC and
        # unconfirmed at 10:00:58 (the timeout); no input file names the Anthropic batch, so
        # it is named by its size and that span for cancelling, and the requests sent again
        # only when told to
        (
            "anthropic",
            "timed out after 60 s",
            "before running again, cancel the batch of 6 requests made between 2026-12-05 "
            "09:59:58 and 10:00:58 UTC (its batch list shows it), or it is billed twice; then run "
            "the same command with --batch-resend-unrecorded",
        ),
        # the OpenAI batch is found by its input file, the fake's first id, and read: no other
        # run's batch made at that time is taken for it
        (
            "openai",
            "HTTP 502: bad gateway",
            "running the same command again looks for the batch made from the input file "
            "file-000001 in its batch list and reads it (or sends its requests again if there is "
            "none)",
        ),
    ],
)
def test_a_batch_made_but_unanswered_is_named_then_found_or_sent_again_on_request(
    fake, tmp_path, monkeypatch, provider, lost, then
):
    # the provider makes the batch, then its reply is lost (a timeout, a gateway's 502): a run
    # started again made, and paid for, another
    from driftproof.run import batch_engine
    from driftproof.run import batch_lanes as BL
    from driftproof.run.config import now
    from driftproof.run.providers.base import AttemptError

    cls = BL.AnthropicBatches if provider == "anthropic" else BL.OpenAIBatches
    made = cls.create

    def create(self, spool, file_id):
        made(self, spool, file_id)
        raise AttemptError(lost, status=502 if "502" in lost else None)

    times = iter(["2026-12-05T09:59:58Z", "2026-12-05T10:00:58Z"])
    monkeypatch.setattr(batch_engine, "now", lambda: next(times))
    monkeypatch.setattr(cls, "create", create)
    with pytest.raises(ProviderError) as caught:
        batched(tmp_path, provider, cases=1)
    assert fake.script.calls["create"] == 1
    (b,) = fake.state.batches.values()
    assert len(b.requests) == 6
    assert str(caught.value).startswith(
        f"the run stopped: the {provider} batch API did not confirm a batch's creation ({lost}) "
        f"and may have made it all the same: {then}; 0 finished draws are kept in "
    )
    monkeypatch.setattr(cls, "create", made)
    monkeypatch.setattr(batch_engine, "now", now)
    if provider == "anthropic":
        # as the stop said: cancelled, then run with --batch-resend-unrecorded, sent again
        # (the stop named the batch: no refusal first; without the option, see test_batch_intent)
        r = read_receipt(batched(tmp_path, provider, cases=1, resend_unrecorded=True))
        assert fake.script.calls["create"] == 3  # the answers again, then the judges
        assert r.run.batch.batch_ids == fake.script.batch_ids[1:]
        return
    r = read_receipt(batched(tmp_path, provider, cases=1))
    assert fake.script.calls["create"] == 2  # the answers' batch found, then the judges'
    assert r.run.batch.batch_ids == fake.script.batch_ids and r.run.endpoint_attempts == 36


def test_a_batch_refused_with_a_client_error_says_nothing_of_cancelling(
    fake, tmp_path, monkeypatch
):
    from driftproof.run import batch_lanes as BL
    from driftproof.run.providers.base import AttemptError

    def create(self, spool, file_id):
        raise AttemptError("HTTP 400: invalid_request_error: too many requests", status=400)

    made = BL.AnthropicBatches.create
    monkeypatch.setattr(BL.AnthropicBatches, "create", create)
    with pytest.raises(ProviderError) as caught:
        batched(tmp_path, "anthropic", cases=1)
    assert "refused a batch: HTTP 400" in str(caught.value)
    assert "cancel" not in str(caught.value)
    # a refused batch was not made: running again sends its requests, as it did before
    monkeypatch.setattr(BL.AnthropicBatches, "create", made)
    r = read_receipt(batched(tmp_path, "anthropic", cases=1))
    assert fake.script.calls["create"] == 2 and r.run.endpoint_attempts == 36


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_batch_whose_reply_was_lost_to_a_dropped_connection_is_not_sent_again(
    fake, tmp_path, provider
):
    # the provider made the batch and the connection closed before its reply: only a refused
    # connection or a 4xx says no batch was made, so this one is settled as a batch perhaps
    # made (Anthropic: refused until cancelled; OpenAI: found by its input file), never sent
    # again unasked (it was, and the first batch's results were never read)
    from collections import Counter

    from driftproof.errors import RefusalError

    fake.script.drop_create = 1
    with pytest.raises(ProviderError) as caught:
        batched(tmp_path, provider, cases=1)
    assert fake.script.calls["create"] == 1
    said = "connection failed: Server disconnected without sending a response."  # httpx's words
    assert f"did not confirm a batch's creation ({said})" in str(caught.value)
    if provider == "anthropic":
        with pytest.raises(RefusalError, match="may have been made at .* and not recorded"):
            batched(tmp_path, provider, cases=1)
        assert fake.script.calls["create"] == 1
        return
    r = read_receipt(batched(tmp_path, provider, cases=1))
    assert max(Counter(fake.script.submitted).values()) == 1 and r.run.endpoint_attempts == 36
    assert r.run.batch.batch_ids == fake.script.batch_ids and fake.script.calls["create"] == 2
