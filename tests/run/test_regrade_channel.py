"""A rubric regrade asks the original's grader through the original's structured channel.

docs/reference.md, "What is graded": the judge records its grade through the provider's
structured output (Anthropic: a forced tool call; OpenAI Responses: ``text.format``), and a
rubric regrade grades with the original's grader. The regrade receipt records the original's
``judge.channel``, so its judge calls must carry that channel too, not ask for free text.
"""

from __future__ import annotations

import hashlib

import pytest
import run_helpers
from click.testing import CliRunner
from run_helpers import is_judge_prompt, run_lane

from driftproof.cli import cli
from driftproof.receipt import read_receipt


def _judge_bodies(loopback, since: int) -> list[tuple[str, dict]]:
    bodies = loopback.script.bodies[since:]
    return [(p, b) for p, b in bodies if is_judge_prompt(run_helpers._texts(p, b)[1])]


def _structured(path: str, body: dict) -> bool:
    """Whether ``body`` asks for the grade through the lane's structured channel."""
    if path.endswith("/messages"):
        return bool(body.get("tools")) and body.get("tool_choice", {}).get("type") == "tool"
    return (body.get("text") or {}).get("format", {}).get("type") == "json_schema"


@pytest.mark.parametrize("judge", ["anthropic", "openai"])
def test_regrade_judge_calls_use_the_original_channel(loopback, suite_file, tmp_path, judge):
    out = run_lane(tmp_path, "anthropic", "api", judge=judge, keep_transcripts=True)
    run_calls = _judge_bodies(loopback, 0)
    # the run itself asked every grade through the structured channel
    assert run_calls and all(_structured(p, b) for p, b in run_calls)
    since = len(loopback.script.bodies)
    args = ["regrade", str(out), "--rubric", str(suite_file), "--out", str(tmp_path / "rg.json")]
    res = CliRunner().invoke(cli, [*args, "--retry-delays", "0.01,0.02"])
    assert res.exit_code == 0, res.output
    calls = _judge_bodies(loopback, since)
    # 3 cases x 2 arms x 3 draws, 5 samples each: 90 grading calls, each structured
    assert len(calls) == 90
    assert [p for p, b in calls if not _structured(p, b)] == []
    assert read_receipt(tmp_path / "rg.json").judge.channel == read_receipt(out).judge.channel


def test_regrade_of_a_chat_judge_needs_no_api_option(loopback, suite_file, skill_file, tmp_path):
    out = tmp_path / "r.json"
    lane = ["--provider", "openai", "--openai-api", "chat", "--judge-provider", "openai"]
    run = ["run", str(suite_file), "--skill", str(skill_file), "--model", "gpt-5", *lane]
    res = CliRunner().invoke(
        cli, [*run, "--judge-price", "1,2", "--keep-transcripts"] + ["--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    args = ["regrade", str(out), "--rubric", str(suite_file), "--out", str(tmp_path / "rg.json")]
    res = CliRunner().invoke(cli, [*args, "--retry-delays", "0.01,0.02"])
    assert res.exit_code == 0, res.output  # it read "grader sampling differs" and wrote nothing
    assert read_receipt(tmp_path / "rg.json").judge.sampling["api"] == "chat"


@pytest.mark.parametrize(
    ("provider", "model", "channel"),
    [("openai", "gpt-5-mini", "responses_format"), ("anthropic", "claude-sonnet-4-6", "tool_call")],
)
def test_plain_regrade_records_the_channel_it_asked_through(
    loopback, suite_file, tmp_path, provider, model, channel
):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True, judge_max_tokens=700)
    since = len(loopback.script.bodies)
    rg = tmp_path / "rg.json"
    args = ["regrade", str(out), "--rubric", str(suite_file), "--out", str(rg)]
    plain = ["--judge-provider", provider, "--judge-model", model, "--judge-samples", "1"]
    res = CliRunner().invoke(cli, [*args, *plain, "--retry-delays", "0.01,0.02"])
    assert res.exit_code == 0, res.output
    calls = _judge_bodies(loopback, since)
    assert len(calls) == 18 and all(_structured(p, b) for p, b in calls)
    judge = read_receipt(rg).judge
    # it recorded no channel and no budget, though every call was structured, at 700 tokens
    assert (judge.channel, judge.max_output_tokens) == (channel, 700)


@pytest.mark.parametrize("judge", ["anthropic", "openai"])
def test_regrade_samples_keep_the_structured_reply_as_run_does(
    loopback, suite_file, tmp_path, judge
):
    out = run_lane(tmp_path, "anthropic", "api", judge=judge, keep_transcripts=True)
    rg = tmp_path / "rg.json"
    args = ["regrade", str(out), "--rubric", str(suite_file), "--out", str(rg)]
    res = CliRunner().invoke(cli, [*args, "--retry-delays", "0.01,0.02"])
    assert res.exit_code == 0, res.output

    def samples(path):
        r = read_receipt(path)
        return [
            (s.reply_sha256, s.reason, s.score)
            for c in r.cases
            for _, arm in c.arms.named()
            for d in arm.draws
            for s in d.judge_samples
        ]

    # the same deterministic judge, rubric and answers: the same replies, reasons and scores
    # (it hashed the empty text of a tool call or JSON-schema reply and dropped the reason)
    empty = hashlib.sha256(b"").hexdigest()
    assert samples(rg) == samples(out)
    assert all(h != empty for h, _, _ in samples(rg))
    assert "graded" in {why for _, why, _ in samples(rg)}
