"""A base URL that refuses connections before any call to it was answered stops the run at once
(nothing listens there: every further attempt would be refused too); once an attempt of the lane
has been answered, a refusal is transient (a server restarting), retried as before.

Without this, a newcomer's run against a server that was not running made 4 attempts a draw
over every draw of the suite, waiting about 2, 4 and 8 s between them, before its one line.
"""

from __future__ import annotations

import json
import socket

import pytest
from factories import run_main
from run_helpers import SUITE, _ok

from driftproof.run.providers import make_provider
from driftproof.run.providers.base import AttemptError, Call


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("concurrency", ["1", "2"])
def test_a_base_url_refusing_every_connection_stops_the_run_after_one_attempt_per_lane_in_flight(
    concurrency, suite_file, skill_file, tmp_path, monkeypatch, capsys
):
    # the newcomer's command: an OpenAI-compatible server on Chat, judged through the same URL.
    # One case, 2 arms x 3 draws, 4 attempts each (--retry-delays 0,0,0: no waits) made 24
    # refused attempts before the fix; now each draw in flight makes one, then the run stops.
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    out = tmp_path / "r.json"
    argv = ["run", str(suite_file), "--skill", str(skill_file), "--model", "llama"]
    argv += ["--provider", "openai", "--openai-api", "chat", "--base-url", url]
    argv += ["--judge-provider", "openai", "--judge-model", "llama", "--judge-price", "0,0"]
    argv += ["--concurrency", concurrency, "--retry-delays", "0,0,0", "--out", str(out)]
    code, _, err = run_main(argv, capsys)
    journal = tmp_path / "r.json.journal"
    assert code == 2
    assert err == (
        f"error: the run stopped: connection failed: Connection error. (base URL {url}): it "
        "refuses connections and no call to it has been answered in this run; 0 finished draws "
        f"are kept in {journal}; run the same command again to resume\n"
    )
    records = [json.loads(x) for x in journal.read_text().splitlines()[1:]]
    assert not any("draw" in x for x in records)
    attempts = sum("attempt" in x for x in records)
    assert 1 <= attempts <= int(concurrency)  # the first attempt of each draw already started
    assert not out.exists()


def _call() -> Call:
    return Call("claude-sonnet-4-6", None, "Say hi.", 64, timeout=10.0)


def test_a_lane_never_answered_makes_a_refusal_fatal_naming_the_base_url(monkeypatch):
    url = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    lane = make_provider("anthropic", "api", base_url=url)
    try:
        with pytest.raises(AttemptError) as caught:
            lane.attempt(_call())
    finally:
        lane.close()
    assert caught.value.fatal and not caught.value.retryable
    assert f"(base URL {url}): it refuses connections" in caught.value.reason


@pytest.mark.parametrize("first", ["answer", "HTTP 500"])
def test_a_refusal_after_the_lane_was_answered_is_transient(first, loopback, monkeypatch):
    # the server answered once (a reply, or an error status), then stopped: a restart, retried
    def once(path, body, is_judge, text):  # the connection is not kept: the next one is refused
        if first == "answer":
            return 200, _ok(path, body["model"], text, body), {"connection": "close"}
        return (
            500,
            {"type": "error", "error": {"type": "api_error", "message": "down"}},
            {"connection": "close"},
        )

    loopback.script.shape = once
    lane = make_provider("anthropic", "api")
    try:
        if first == "HTTP 500":
            with pytest.raises(AttemptError, match="HTTP 500"):
                lane.attempt(_call())
        else:
            lane.attempt(_call())
        loopback.close()  # the port now refuses connections
        with pytest.raises(AttemptError) as caught:
            lane.attempt(_call())
    finally:
        lane.close()
    assert caught.value.retryable and not caught.value.fatal
    assert caught.value.reason == "connection failed: Connection error."
