"""Error replies and usage counts read by the API lanes' shared helpers, from the providers' docs.

OpenAI's error body is ``{"error": {"message", "type", "param", "code"}}``; Anthropic's
``{"type": "error", "error": {"type", "message"}}`` (``overloaded_error`` for an overloaded API);
Gemini's OpenAI endpoint sends a list ``[{"error": {"code", "message", "status"}}]`` and
Cloudflare's API envelope ``{"success": false, "errors": [{"code", "message"}]}``. Anthropic's
``usage`` counts ``input_tokens`` apart from ``cache_read_input_tokens`` and
``cache_creation_input_tokens``; the billed input is their sum.
"""

from __future__ import annotations

import pytest

from driftproof.run.providers._sdk import anthropic_input, error_object, reply_error, said

INNER = {"message": "Rate limit reached", "type": "requests", "param": None, "code": None}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"error": INNER}, INNER),  # OpenAI's body
        (INNER, INNER),  # the SDK's body: the error member already taken out
        (
            [{"error": {"code": 429, "message": "Quota", "status": "X"}}],
            {"code": 429, "message": "Quota", "status": "X"},
        ),  # noqa: E501
        ([INNER], INNER),  # a list whose first item is the error itself
        (
            {"success": False, "errors": [{"code": 7003, "message": "No route"}]},
            {"code": 7003, "message": "No route"},
        ),  # noqa: E501
        (
            {"message": "Top", "errors": [{"message": "Inner"}]},
            {"message": "Top", "errors": [{"message": "Inner"}]},
        ),  # noqa: E501
        ({"errors": ["text"]}, {"errors": ["text"]}),  # an item that is no object: the body
        ({"errors": []}, {"errors": []}),
        ({"errors": {"code": 1}}, {"errors": {"code": 1}}),  # errors that are no list: the body
        ([], {}),
        ("Bad Gateway", {}),
        (None, {}),
    ],
)
def test_the_error_object_of_each_providers_error_body(body, expected):
    assert error_object(body) == expected


@pytest.mark.parametrize(
    ("err", "words"),
    [
        ({"type": "overloaded_error", "message": "Overloaded"}, "overloaded_error: Overloaded"),
        ({"type": "None", "message": "Bad key"}, "Bad key"),  # a LiteLLM proxy's "None" type
        ({"message": "Bad key"}, "Bad key"),
        ({"code": 5}, '{"code": 5}'),  # no message: the error as JSON
        ({"type": "x", "code": 5}, 'x: {"type": "x", "code": 5}'),
    ],
)
def test_an_error_in_the_senders_words(err, words):
    assert said(err) == words


def test_a_rate_limit_is_retried_after_the_wait_it_asks():
    err = reply_error(429, {"error": INNER}, "fallback", retry_after=3.0)
    assert (err.reason, err.retryable, err.fatal, err.status, err.retry_after) == (
        "HTTP 429: requests: Rate limit reached", True, False, 429, 3.0
    )  # fmt: skip


def test_a_404_names_the_hint_unless_the_model_is_unknown():
    nf = {"message": "Not found", "type": "invalid_request_error"}
    err = reply_error(404, nf, "fallback", hint_404="try chat")
    assert (err.reason, err.fatal) == ("HTTP 404: invalid_request_error: Not found; try chat", True)
    unknown = {**nf, "code": "model_not_found"}
    assert reply_error(404, unknown, "fallback", hint_404="try chat").reason == (
        "HTTP 404: invalid_request_error: Not found"
    )
    assert reply_error(400, nf, "fallback", hint_404="try chat").reason == (
        "HTTP 400: invalid_request_error: Not found"
    )


def test_overloaded_is_transient_whatever_its_status():
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    err = reply_error(400, body, "fallback")
    assert (err.reason, err.retryable, err.fatal, err.status) == (
        "HTTP 400: overloaded_error: Overloaded", True, False, 400
    )  # fmt: skip
    other = reply_error(400, {"error": {"type": "invalid_request_error", "message": "x"}}, "f")
    assert (other.retryable, other.fatal) == (False, True)


@pytest.mark.parametrize(
    ("body", "sent_json", "reason"),
    [
        ("upstream\n  broke", True, "HTTP 502: upstream broke"),  # an error member that is text
        ("<html> Bad\tGateway", False, "HTTP 502: the reply is not JSON: '<html> Bad Gateway'"),
        ({"detail": "down"}, True, 'HTTP 502: {"detail": "down"}'),  # no message: as sent
        ({"detail": "Überlastet"}, True, 'HTTP 502: {"detail": "Überlastet"}'),  # not escaped
        ("  ", True, 'HTTP 502: "  "'),  # a blank string: no words, so the JSON as sent
        ("  ", False, 'HTTP 502: "  "'),
        (None, True, "HTTP 502: no body"),
    ],
)
def test_an_error_reply_with_no_error_object_is_quoted_as_sent(body, sent_json, reason):
    assert reply_error(502, body, "no body", sent_json=sent_json).reason == reason


def test_a_string_body_is_read_as_the_error_member_unless_told_it_was_no_json():
    assert reply_error(502, "upstream broke", "f").reason == "HTTP 502: upstream broke"


def test_a_404_with_no_hint_names_none():
    err = reply_error(404, {"message": "Not found"}, "f")
    assert err.reason == "HTTP 404: Not found"


def test_an_overloaded_reply_keeps_the_wait_it_asks():
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    err = reply_error(529, body, "f", retry_after=5.0)
    assert (err.retryable, err.retry_after) == (True, 5.0)


def test_a_label_replaces_the_http_status_where_no_reply_carried_one():
    body = {"type": "error", "error": {"type": "api_error", "message": "Internal"}}
    err = reply_error(500, body, "fallback", label="errored")
    assert (err.reason, err.retryable) == ("errored: api_error: Internal", True)


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        (
            {"input_tokens": 10, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 3},
            (18, 5, 3),
        ),  # noqa: E501
        ({"input_tokens": 10}, (10, None, None)),
        ({"input_tokens": 10, "cache_read_input_tokens": None}, (10, None, None)),  # null: none
        ({"input_tokens": 10, "cache_read_input_tokens": "5"}, (None, None, None)),  # no count
        ({"input_tokens": 10, "cache_creation_input_tokens": -1}, (None, None, None)),
        ({"cache_read_input_tokens": 5}, (None, 5, None)),  # no input count: no total
        ({"input_tokens": 2**53 - 1, "cache_read_input_tokens": 1}, (None, 1, None)),  # unsealable
        ({"input_tokens": 0, "cache_read_input_tokens": 0}, (0, 0, None)),
    ],
)
def test_anthropic_billed_input_is_the_sum_of_its_three_counts(usage, expected):
    assert anthropic_input(usage) == expected
