"""Response shapes, continued (issue 13, items 4 and 7): errors by class, retry-after and fatal
statuses, missing credentials, the run's help and summary. See test_shapes.py."""

from __future__ import annotations

import json

import pytest
from run_helpers import run_args
from shape_replies import ONE, _chat, _draws, _message, _mini, _response, arm_usage

from driftproof.cli import main
from driftproof.errors import ProviderError
from driftproof.run.journal import journal_path
from driftproof.run.providers import make_provider

# --- item 4: errors by class -------------------------------------------------------------------


def _once(status, body, headers):
    sent = []

    def fn(path, req, is_judge, text):
        if is_judge or sent:
            return None
        sent.append(1)
        return status, body, headers

    return fn


def test_retry_after_60_on_a_429_is_honoured_and_recorded(loopback, suite_file, tmp_path):
    err = {
        "type": "error",
        "error": {
            "type": "rate_limit_error",
            "message": "Number of request tokens has exceeded your per-minute rate limit",
        },
    }
    loopback.script.shape = _once(429, err, {"retry-after": "60"})
    slept = []
    r, _ = _mini(tmp_path, suite_file, retry_delays=None, sleep=slept.append)
    assert slept == [
        60.0
    ]  # the server's wait, longer than the first back-off (2 s + up to 2 s jitter)
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert [a.model_dump() for a in skill.attempts] == [
        {
            "error": "HTTP 429: rate_limit_error: Number of request tokens has exceeded your "
            "per-minute rate limit",
            "error_class": "transient",
            "status": 429,
            "wait_s": 60.0,
        }
    ]
    assert base.attempts == []
    assert r.run.endpoint_attempts == 2 + 1 + 2  # two answers, one retry, two grades
    assert (r.run.retry.max_attempts, r.run.retry.max_wait_s) == (4, 120.0)


def test_retry_after_ms_lengthens_a_short_back_off(loopback, suite_file, tmp_path):
    err = {
        "error": {
            "message": "Rate limit reached",
            "type": "requests",
            "code": "rate_limit_exceeded",
        }
    }
    loopback.script.shape = _once(429, err, {"retry-after-ms": "1500"})
    slept = []
    r, _ = _mini(
        tmp_path,
        suite_file,
        "openai",
        "api",
        api="chat",
        judge="openai",
        sleep=slept.append,
        retry_delays=(0.01, 0.02),
    )
    assert slept == [1.5]
    assert _draws(r)[0].attempts[0].wait_s == 1.5


def test_a_529_overloaded_error_is_transient(loopback, suite_file, tmp_path):
    err = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    loopback.script.shape = _once(529, err, {})
    r, _ = _mini(tmp_path, suite_file)
    skill, _ = _draws(r)
    assert skill.score == 0.9
    assert (skill.attempts[0].status, skill.attempts[0].error_class) == (529, "transient")


def test_three_500s_lose_the_draw_naming_the_last_error_and_class(loopback, suite_file, tmp_path):
    loopback.script.faults = [500, 500, 500]
    r, _ = _mini(tmp_path, suite_file)
    skill, base = _draws(r)
    assert (skill.lost.kind, skill.lost.error_class, skill.lost.status) == (
        "error",
        "transient",
        500,
    )
    assert skill.lost.reason.startswith(
        "HTTP 500: api_error: scripted 500; transient, 3 attempts, retried after 0.01 s and 0.02 s"
    )
    assert [a.wait_s for a in skill.attempts] == [0.01, 0.02, None]
    assert base.score == 0.5


@pytest.mark.parametrize(
    "status,kind",
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (422, "invalid_request_error"),
    ],
)
def test_fatal_statuses_stop_the_run_at_once_and_keep_the_journal(
    loopback, suite_file, tmp_path, status, kind
):
    loopback.script.shape = _once(
        status, {"type": "error", "error": {"type": kind, "message": f"scripted {status}"}}, {}
    )
    with pytest.raises(
        ProviderError, match=rf"the run stopped: HTTP {status}: {kind}: scripted {status};"
    ):
        _mini(tmp_path, suite_file)
    assert (
        journal_path(tmp_path / "receipt.json").exists()
        and not (tmp_path / "receipt.json").exists()
    )
    assert sum(loopback.script.requests.values()) == 1  # not retried, and nothing after it


def test_a_404_on_the_responses_api_names_the_chat_api(loopback, suite_file, tmp_path):
    # llama.cpp's server: no /v1/responses route
    loopback.script.shape = _once(
        404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}}, {}
    )
    with pytest.raises(ProviderError, match=r"HTTP 404: .*run with --openai-api chat"):
        _mini(tmp_path, suite_file, "openai", "api", api="responses", judge="openai")


def test_a_403_exits_2_from_the_command_line(loopback, suite_file, skill_file, tmp_path, capsys):
    loopback.script.shape = _once(
        403, {"type": "error", "error": {"type": "permission_error", "message": "no"}}, {}
    )
    suite_file.write_text(json.dumps(ONE))
    out = tmp_path / "r.json"
    with pytest.raises(SystemExit) as ei:
        main(run_args(suite_file, skill_file, "--out", str(out), "--concurrency", "1"))
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert (
        "error: the run stopped: HTTP 403: permission_error: no; the answering lane's key was "
        "refused: check ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN. No finished draw is kept" in err
    )
    assert journal_path(out).exists() and not out.exists()


# --- item 7: credentials -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "judge", "key_set", "expected"),
    [
        (
            "anthropic",
            ["--judge-provider", "stub"],
            None,
            "ANTHROPIC_API_KEY is not set; the anthropic api lane needs it "
            "(set it in the environment)",
        ),
        (
            "openai",
            ["--judge-provider", "stub"],
            None,
            "OPENAI_API_KEY is not set; the openai api lane needs it (set it in the environment)",
        ),
        # no --judge-provider: the judge is anthropic's api lane, and its key is the one missing
        (
            "openai",
            [],
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY is not set; the judge's anthropic api lane needs it (set it in "
            "the environment, or choose another judge lane with --judge-provider)",
        ),
        # neither key: both named at once (found: the judge's was named only on the next try)
        (
            "openai",
            [],
            None,
            "OPENAI_API_KEY is not set; the openai api lane needs it (set it in the environment); "
            "ANTHROPIC_API_KEY is not set; the judge's anthropic api lane needs it (set it in "
            "the environment, or choose another judge lane with --judge-provider)",
        ),
    ],
)
def test_a_missing_key_is_one_line_exit_2_and_nothing_written(
    suite_file, skill_file, tmp_path, capsys, monkeypatch, provider, judge, key_set, expected
):
    for v in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(v, raising=False)
    if key_set:
        monkeypatch.setenv(key_set, "sk-test")
    out = tmp_path / "out" / "r.json"
    out.parent.mkdir()
    args = ["--model", "m", "--provider", provider, *judge, "--out", str(out)]
    with pytest.raises(SystemExit) as ei:
        main(["run", str(suite_file), "--skill", str(skill_file), *args])
    assert ei.value.code == 2
    assert capsys.readouterr().err.splitlines() == [f"error: {expected}"]
    assert list(out.parent.iterdir()) == []


def test_run_help_documents_budgets_the_stop_reason_rule_and_error_classes():
    from click.testing import CliRunner

    from driftproof.cli.run import run as run_cmd

    text = " ".join(CliRunner().invoke(run_cmd, ["--help"], terminal_width=400).output.split())
    for needle in (
        "--max-output-tokens",
        "--judge-max-output-tokens",
        "(default 8192)",
        "(default 4096",
        '"truncation": "accepted"',
        "cut off at N output tokens",
        "408, 409, 429, Groq's 498 capacity_exceeded, 5xx, 529 and overloaded_error",
        "other 400s, and 401, 402 (no credit left), 403, 404 and other 422s",
        "past the model's context window loses that draw, never retried",
        "A 400 (or TGI's 422, or a 413) saying the prompt is past",
        "Any other 4xx loses its draw, not retried.",
        "retry-after, at most 120 s",
    ):
        assert needle in text, needle


def test_a_compatible_server_on_the_responses_api_records_its_service_and_flags_over_budget(
    loopback, suite_file, tmp_path
):
    usage = {
        "input_tokens": 30,
        "output_tokens": 459,
        "total_tokens": 489,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }

    def shape(path, body, is_judge, text):
        if is_judge:
            return None
        out = [
            {
                "type": "message",
                "id": "m",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ]
        said = arm_usage(usage, path, body)
        return 200, _response(out, usage=said, model="qwen2.5-0.5b-instruct"), {}

    loopback.script.shape = shape
    lane = make_provider("openai", "api", api="responses", base_url=f"{loopback.url}/v1")
    r, _ = _mini(
        tmp_path,
        suite_file,
        "openai",
        "api",
        lane=lane,
        model="qwen2.5-0.5b-instruct",
        max_tokens=20,
    )
    answers = [b for p, b in loopback.script.bodies if p.endswith("/responses")]
    assert answers and all(b["max_output_tokens"] == 20 for b in answers)
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5) and skill.over_budget is True
    assert (
        r.arms.with_skill.service == f"{loopback.url}/v1" and r.run.model == "qwen2.5-0.5b-instruct"
    )


def test_the_run_summary_counts_lost_draws_by_kind_per_arm(
    loopback, suite_file, skill_file, tmp_path
):
    from click.testing import CliRunner

    from driftproof.cli.run import run as run_cmd

    # the skill's answers are refused; the baseline's are graded
    def shape(path, body, is_judge, text):
        if is_judge or "SKILL-MARK" not in (body.get("system") or ""):
            return None
        return (
            200,
            _message(
                "I can't help with that.",
                stop="refusal",
                stop_details={"type": "refusal", "category": None},
            ),
            {},
        )

    loopback.script.shape = shape
    suite_file.write_text(json.dumps(ONE))
    res = CliRunner().invoke(
        run_cmd,
        [
            str(suite_file),
            "--skill",
            str(skill_file),
            "--model",
            "claude-sonnet-4-6",
            "--provider",
            "anthropic",
            "--out",
            str(tmp_path / "r.json"),
            "--retry-delays",
            "0.01",
        ],
        terminal_width=200,
    )
    # the with-skill arm measured nothing: the receipt is written and the run exits 4 (D-17)
    assert res.exit_code == 4, res.output
    assert "lost draws by kind: with skill refusal 3; baseline none" in res.output


@pytest.mark.parametrize(
    ("lane", "body", "said"),
    [
        # OpenRouter-style: a Chat Completion holding a finished choice and the gateway's error
        (
            "chat",
            {**_chat("fix: retry 429"), "error": {"message": "upstream overloaded", "code": 502}},
            "upstream overloaded",
        ),
        # a Responses body whose ``error`` is set on a completed response
        (
            "responses",
            {
                **_response(
                    [{"type": "message", "content": [{"type": "output_text", "text": "fix: x"}]}]
                ),
                "error": {"code": "server_error", "message": "boom"},
            },
            "boom",
        ),
        # the Messages API's error shape, sent with status 200 by a proxy
        (
            "anthropic",
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "overloaded_error: Overloaded",
        ),
        # vLLM's ErrorResponse passed on with status 200 by RunPod's worker
        # (runpod-workers/worker-vllm#57); SGLang's error body has the same members
        (
            "chat",
            {
                "object": "error",
                "message": "The model `m` does not exist.",
                "code": 404,
                "type": "NotFoundError",
                "param": None,
            },
            "NotFoundError: The model `m` does not exist.",
        ),
    ],
)
def test_a_200_holding_an_error_is_a_failed_attempt_never_graded(
    loopback, suite_file, tmp_path, lane, body, said
):
    loopback.script.shape = lambda path, req, is_judge, text: None if is_judge else (200, body, {})
    provider = "anthropic" if lane == "anthropic" else "openai"
    api = {} if lane == "anthropic" else {"api": lane}
    r, _ = _mini(tmp_path, suite_file, provider, "api", lane=make_provider(provider, "api", **api))
    for d in _draws(r):
        assert d.score is None and d.judge_samples == []
        assert (d.lost.kind, d.lost.error_class, len(d.attempts)) == ("error", "transient", 3)
        assert d.lost.reason == (
            f"the reply is an error with status 200, not an answer: {said}; transient, 3 attempts, "
            "retried after 0.01 s and 0.02 s"
        )


def test_a_body_sent_as_gzip_that_is_none_is_refused_unread(loopback, suite_file, tmp_path):
    # a JSON body sent as "content-encoding: gzip": the SDK said "Connection error."; a call asks
    # for its reply uncompressed, so a compressed one is refused before a byte is decoded, and
    # the run stops: the server would answer every call so
    shape = (200, {"not": "gzip"}, {"content-encoding": "gzip"})
    loopback.script.shape = lambda path, req, is_judge, text: None if is_judge else shape
    with pytest.raises(ProviderError, match=r"the run stopped: the reply is compressed \(gzip\)"):
        _mini(tmp_path, suite_file)
    assert sum(loopback.script.requests.values()) == 1


def test_a_status_with_a_body_that_is_no_json_quotes_the_body(loopback, suite_file, tmp_path):
    # a proxy in front of the server (nginx's 502 page, Cloudflare's "error code: 524") sends no
    # JSON; the SDK's message said only "Error code: 502", dropping the proxy's own words
    def send(handler, code, obj, headers=None, gap=0.0):
        if obj != "page":
            return sent(handler, code, obj, headers, gap)
        data = b"<html><head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>"
        handler.send_response(code)
        handler.send_header("content-type", "text/html")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    handler = loopback.server.RequestHandlerClass
    sent = handler._send
    handler._send = send
    loopback.script.shape = lambda path, req, is_judge, text: (
        None if is_judge else (502, "page", {})
    )
    lane = make_provider("openai", "api", api="chat")
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=lane)
    for d in _draws(r):
        assert (d.lost.kind, d.lost.error_class, len(d.attempts)) == ("error", "transient", 3)
        assert d.lost.reason.startswith(
            "HTTP 502: the reply is not JSON: '<html><head><title>502 Bad Gateway</title></head> "
            "<body>nginx</body></html>'; transient, 3 attempts"
        )
