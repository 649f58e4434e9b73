"""A harness whose account has no usage left, or whose login is gone, stops the run at its first
call: every further call would meet the same words (``cli.FATAL``), and a run stopped so resumes
once the limit resets, where retried and lost draws would not be drawn again.

The envelopes are Claude Code's and codex's own words, printed by the fake executables
(``FAKE_STDOUT``): ``claude -p`` answers a subscription limit with a ``success`` result whose
``is_error`` is true and whose ``result`` is the limit ("You've hit your limit · resets 10pm
(America/New_York)", anthropics/claude-code#22946; "Claude AI usage limit reached|1762952400",
#11429; "You're out of extra usage · resets …", a captured envelope with ``duration_api_ms`` 0:
no API call was made), and an expired login as "Failed to authenticate: OAuth session expired
and could not be refreshed". ``codex exec --json`` sends an ``error`` event and a
``turn.failed`` saying "You've hit your usage limit. Try again Aug 18." (codex's
UsageLimitReachedError).
"""

from __future__ import annotations

import json

import pytest
from run_helpers import run_lane
from shape_replies import _draws, _mini, claude_result, printed_by_fake

from driftproof.errors import ProviderError

ZERO = {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
        "output_tokens": 0}  # fmt: skip


def _attempts(tmp_path) -> list[int]:
    journal = (tmp_path / "receipt.json.journal").read_text().splitlines()
    return [json.loads(x)["attempt"] for x in journal[1:]]


@pytest.mark.parametrize(
    ("said", "status"),
    [
        ("You're out of extra usage · resets Apr 24, 4am (Asia/Tokyo)", None),
        ("You've hit your limit · resets 10pm (America/New_York)", None),
        ("You've hit your limit · resets 10pm (America/New_York)", 429),
        ("Claude AI usage limit reached|1762952400", None),
        ("Failed to authenticate: OAuth session expired and could not be refreshed", None),
    ],
)
def test_claude_out_of_usage_or_logged_out_stops_the_run_at_once(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, said, status
):
    # Found: neither reads as a harness error every call would meet, so each draw was tried
    # three times and lost, through the whole run (a 429 was retried as a rate limit)
    env = claude_result(
        is_error=True, result=said, duration_api_ms=0, total_cost_usd=0, usage=ZERO,
        modelUsage={}, api_error_status=status,
    )  # fmt: skip
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", json.dumps(env), code=1)
    with pytest.raises(ProviderError, match="claude reported an error") as stop:
        run_lane(tmp_path, "anthropic", "cli", concurrency=1)
    assert said in str(stop.value)
    assert _attempts(tmp_path) == [1]  # one invocation, no retry, nothing else


@pytest.mark.parametrize(
    "said",
    [
        "You've hit your usage limit. Try again Aug 18.",
        # the words beside a 429, as claude's may be: a rate limit read first was retried
        "unexpected status 429 Too Many Requests: You've hit your usage limit. Try again Aug 18.",
    ],
)
def test_codex_out_of_usage_stops_the_run_at_once(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, said
):
    events = [
        {"type": "thread.started", "thread_id": "th_1"},
        {"type": "turn.started"},
        {"type": "error", "message": said},
        {"type": "turn.failed", "error": {"message": said}},
    ]
    printed = "".join(json.dumps(e) + "\n" for e in events)
    printed_by_fake(tmp_path, monkeypatch, "codex-out.jsonl", printed, code=1)
    with pytest.raises(ProviderError, match="codex reported an error: ") as stop:
        run_lane(tmp_path, "openai", "cli", concurrency=1)
    assert said in str(stop.value)
    assert _attempts(tmp_path) == [1]


@pytest.mark.parametrize(
    "over",
    [
        {},  # claude 2.0.52 (anthropics/claude-code#12312): refused before any API call
        {"terminal_reason": "prompt_too_long"},
        {"terminal_reason": "prompt_too_long", "api_error_status": 400},  # claude 2.1.220
    ],
)
def test_claude_prompt_too_long_loses_the_draw_as_the_context_window_never_retried(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, over
):
    # Found: "Prompt is too long" under is_error with no status was retried as a passing fault
    # and lost as an error, where the API lanes and codex lose it at once as the context window
    env = claude_result(
        is_error=True, result="Prompt is too long", duration_api_ms=0, usage=ZERO, **over
    )
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", json.dumps(env), code=1)
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.error_class, len(d.attempts)) == (
            None, "context_window", "fatal", 1,
        )  # fmt: skip
        assert d.lost.reason.startswith("claude reported an error (success")
        assert "Prompt is too long; not retryable, 1 attempt" in d.lost.reason


#: What Claude Code printed for a gateway's 502 whose words are the upstream's context window
#: (farion1231/cc-switch#3868, request id dropped): its own words call it a server-side issue.
GATEWAY_502 = (
    "API Error: 502 Your input exceeds the context window of this model. Please adjust your "
    "input and try again. This is a server-side issue, usually temporary — try again in a "
    "moment. If it persists, check your inference gateway (127.0.0.1:15721)."
)


@pytest.mark.parametrize(
    ("said", "kind", "attempts"),
    [
        (GATEWAY_502, "error", 3),
        # the same words with status 400 (anthropics/claude-code#77992): the window itself
        ("API Error: 400 Your input exceeds the context window of this model. Please adjust "
         "your input and try again.", "context_window", 1),
        # the Messages API's 413 for the window, as Claude Code printed it
        # (anthropics/claude-code#6368)
        ('API Error: 413 {"type":"error","error":{"type":"invalid_request_error","message":'
         '"Request size exceeds model context window"},'
         '"request_id":"req_011CSPWKXCRRY6RUpJykZ77v"}',
         "context_window", 1),
    ],
)  # fmt: skip
def test_claude_5xx_in_context_window_words_is_retried_as_a_5xx(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, said, kind, attempts
):
    """A 5xx is retried as the API lanes retry one, whatever its words; only a context-window
    message with no status or a 400 loses the draw at once (``classify_status``)."""
    env = claude_result(is_error=True, result=said, usage=ZERO)
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", json.dumps(env), code=1)
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, len(d.attempts), d.lost.status) == (
            None, kind, attempts, int(said[11:14]),
        )  # fmt: skip
        assert said in d.lost.reason


@pytest.mark.parametrize(
    ("said", "kind", "attempts"),
    [
        # codex's words for an HTTP error ("unexpected status …"), the gateway's as above
        ("unexpected status 502 Bad Gateway: " + GATEWAY_502[15:], "error", 3),
        ("unexpected status 400 Bad Request: Your input exceeds the context window of this model.",
         "context_window", 1),
    ],
)  # fmt: skip
def test_codex_5xx_in_context_window_words_is_retried_as_a_5xx(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, said, kind, attempts
):
    """As on the claude lane: a 5xx is retried whatever its words."""
    events = [
        {"type": "error", "message": said},
        {"type": "turn.failed", "error": {"message": said}},
    ]
    printed = "".join(json.dumps(e) + "\n" for e in events)
    printed_by_fake(tmp_path, monkeypatch, "codex-out.jsonl", printed, code=1)
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, len(d.attempts)) == (None, kind, attempts)
        assert said in d.lost.reason
