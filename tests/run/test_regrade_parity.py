"""A regrade records what ``run`` records for the same judge calls, through the same functions.

A plain judge regrade freezes the price ``run`` would freeze for its judge (or ``--judge-price``);
the receipt records the retry policy its judge calls were made with; ``--openai-api`` with a judge
that is not OpenAI's is refused; the summary counts draws, not answers; a lone surrogate in a
judge's reply is made U+FFFD and recorded, as ``run`` does. All through loopback servers.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from run_helpers import SUITE, run_lane
from test_context_window_errors import ANTHROPIC
from test_shapes import _message

from driftproof.cli import cli
from driftproof.receipt import read_receipt

RETRY = ["--retry-delays", "0.01,0.02"]


def _regrade(tmp_path, out, suite_file, *more):
    rg = tmp_path / "rg.json"
    args = ["regrade", str(out), "--rubric", str(suite_file), "--out", str(rg), *more]
    return rg, CliRunner().invoke(cli, args)


def _plain(provider, model):
    return ["--judge-provider", provider, "--judge-model", model, "--judge-samples", "1"]


def test_a_plain_regrade_freezes_the_known_price_run_would(loopback, suite_file, tmp_path):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    plain = _plain("anthropic", "claude-haiku-4-5-20251001")
    rg, res = _regrade(tmp_path, out, suite_file, *plain, *RETRY)
    assert res.exit_code == 0, res.output
    price = read_receipt(rg).judge.price
    # Anthropic's list price for Haiku 4.5: $1 in, $5 out; cache reads 0.1x, 5-minute writes 1.25x
    assert price is not None, "it recorded no price"
    got = (price.input_usd_per_mtok, price.output_usd_per_mtok)
    assert got + (price.cache_read_usd_per_mtok, price.cache_write_usd_per_mtok) == (
        1.0,
        5.0,
        0.1,
        1.25,
    )
    assert price.tier is None  # a regrade is not batched


def test_a_plain_regrade_takes_judge_price_as_run_does(loopback, suite_file, tmp_path):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    plain = _plain("openai", "gpt-5-mini")
    rg, res = _regrade(tmp_path, out, suite_file, *plain, "--judge-price", "0.25,2", *RETRY)
    assert res.exit_code == 0, res.output
    r = read_receipt(rg)
    assert (r.judge.price.input_usd_per_mtok, r.judge.price.output_usd_per_mtok) == (0.25, 2.0)
    o = r.economics.judge_overhead
    assert o.usd == pytest.approx((o.input_tokens * 0.25 + o.output_tokens * 2.0) / 1e6)
    # a rubric regrade records the original's judge, price included: another price is refused
    _, res = _regrade(tmp_path, out, suite_file, "--judge-price", "0.25,2", "--force", *RETRY)
    assert res.exit_code == 2 and "--judge-price" in res.output


@pytest.mark.parametrize("plain", [[], _plain("anthropic", "claude-sonnet-4-6")])
def test_openai_api_for_a_judge_that_is_not_openai_is_refused(
    loopback, suite_file, tmp_path, plain
):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True, judge_samples=1)
    since = len(loopback.script.bodies)
    rg, res = _regrade(tmp_path, out, suite_file, *plain, "--openai-api", "chat", *RETRY)
    assert res.exit_code == 2, res.output
    assert "--openai-api" in res.output and "anthropic" in res.output
    assert not rg.exists() and len(loopback.script.bodies) == since


@pytest.mark.parametrize(
    ("delays", "faults", "retry"),
    [
        (RETRY, (500, 500), (3, 120.0, "fixed waits 0.01 s, 0.02 s; at least retry-after")),
        # by default run's policy (docs/reference.md: 4 attempts, jittered exponential back-off from
        # 2 s that waits at least retry-after, at most 120 s); it was fixed waits of 5 s, 20 s
        (
            [],
            (),
            (
                4,
                120.0,
                "jittered exponential: 2 s x 2^k + up to 2 s jitter; at least retry-after / "
                "retry-after-ms",
            ),
        ),
    ],
)
def test_the_regrade_records_the_retry_its_judge_calls_had(
    loopback, suite_file, tmp_path, delays, faults, retry
):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True, judge_samples=1)
    loopback.script.faults = list(faults)  # the first grade failed twice, then answered
    rg, res = _regrade(tmp_path, out, suite_file, *delays)
    assert res.exit_code == 0, res.output
    r = read_receipt(rg)
    assert r.run.retry is not None, "it recorded no retry policy"
    assert (r.run.retry.max_attempts, r.run.retry.max_wait_s, r.run.retry.backoff) == retry
    # 18 grades, the first sent 3 times when it failed twice: the policy's 3 attempts
    assert r.run.endpoint_attempts == r.regrade.runner_attempts == 18 + len(faults)


def test_the_summary_counts_draws_and_says_a_lost_one_had_no_answer(loopback, suite_file, tmp_path):
    lost = []

    def fn(path, req, is_judge, text):  # the first 3 answers: past the context window
        if is_judge or len(lost) == 3:
            return None
        lost.append(1)
        return 400, ANTHROPIC, {}

    loopback.script.shape = fn
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True, judge_samples=1)
    loopback.script.shape = None
    rg, res = _regrade(tmp_path, out, suite_file, *RETRY)
    assert res.exit_code == 0, res.output
    # 3 cases x 2 arms x 3 draws; 3 of them lost with no answer
    assert (
        "18 draws read: 15 graded, 3 draws lost in the original receipt, carried over as lost; "
        in res.output
    )
    assert "answers read" not in res.output


def _shape(answer, reason):
    """Answers ending in ``answer`` (none: as scripted); an Anthropic judge giving ``reason``."""

    def shape(path, body, is_judge, text):
        if not is_judge:
            return None if answer is None else (200, _message(text + answer), {})
        grade = {
            "type": "tool_use",
            "id": "toolu_1",
            "name": body["tools"][0]["name"],
            "input": {"score": 0.5, "reason": reason},
        }
        reply = {**_message("", model="claude-haiku-4-5-20251001"), "content": [grade]}
        return 200, {**reply, "stop_reason": "tool_use"}, {}

    return shape


def _one_draw_each(tmp_path, suite_file):
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    one = {"judge_samples": 1, "min_draws": 1, "max_draws": 1}
    return run_lane(tmp_path, "anthropic", "api", keep_transcripts=True, **one)


def test_a_lone_surrogate_in_the_regrade_judge_reply_is_repaired_and_recorded(
    loopback, suite_file, tmp_path
):
    out = _one_draw_each(tmp_path, suite_file)
    loopback.script.shape = _shape(answer=None, reason="bad \ud800 reason")
    rg, res = _regrade(tmp_path, out, suite_file, *RETRY)
    assert res.exit_code == 0, res.output
    r = read_receipt(rg)
    d = r.cases[0].arms.with_skill.draws[0]
    assert d.score == 0.5 and d.judge_samples[0].reason == "bad \ufffd reason"
    at = "/cases/0/arms/{}/draws/0/judge_samples/0/{}"
    fixed = {
        at.format(a, f) for a in ("with_skill", "baseline") for f in ("reason", "reply_sha256")
    }
    # one code point each: the reply's JSON and the reason hold one lone surrogate
    assert {(t.pointer, t.replaced) for t in r.text_repairs or []} == {(p, 1) for p in fixed}


def test_the_original_repairs_of_what_a_regrade_carries_are_kept(loopback, suite_file, tmp_path):
    # the original repaired each answer and each judge reply; the regrade's judge replies are
    # valid, so only the answers' repairs still hold
    loopback.script.shape = _shape(answer=" \ud800", reason="bad \ud800 reason")
    out = _one_draw_each(tmp_path, suite_file)
    at = "/cases/0/arms/{}/draws/0/{}"
    arms = ("with_skill", "baseline")
    answers = {at.format(a, "answer") for a in arms}
    judged = {
        at.format(a, f"judge_samples/0/{f}") for a in arms for f in ("reason", "reply_sha256")
    }
    assert {t.pointer for t in read_receipt(out).text_repairs} == answers | judged
    loopback.script.shape = _shape(answer=None, reason="fine")
    rg, res = _regrade(tmp_path, out, suite_file, *RETRY)
    assert res.exit_code == 0, res.output
    r = read_receipt(rg)
    assert {(t.pointer, t.replaced) for t in r.text_repairs or []} == {(p, 1) for p in answers}
    assert r.cases[0].arms.baseline.draws[0].answer.endswith(" \ufffd")


def test_a_regrade_words_an_unread_judge_reply_as_run_does(
    loopback, suite_file, tmp_path, monkeypatch
):
    # Found: the regrade made its own judge samples and kept an invalid reason whole, where run
    # cuts it to 2,000 characters: its receipt, over the schema's bound, could not be written
    from run_helpers import is_judge_prompt

    from driftproof.run.providers.base import Provider

    real = Provider.call

    def call(self, **kw):
        reply = real(self, **kw)
        if is_judge_prompt(kw["prompt"]):
            reply.unread = "x" * 3000
        return reply

    out = _one_draw_each(tmp_path, suite_file)
    monkeypatch.setattr(Provider, "call", call)
    rg, res = _regrade(tmp_path, out, suite_file, *RETRY)
    assert res.exit_code == 4 and 'reads "not measured"' in res.output, res.output  # all lost
    one = {"judge_samples": 1, "min_draws": 1, "max_draws": 1}  # run, with the same replies
    again = run_lane(tmp_path, "anthropic", "api", out=tmp_path / "again.json", **one)
    cut = ("the judge's reply: " + "x" * 3000)[:2000]  # run's cut: 2,000 characters
    for r in (read_receipt(again), read_receipt(rg)):
        d = r.cases[0].arms.with_skill.draws[0]
        assert (d.judge_samples[0].score, d.judge_samples[0].invalid_reason) == (None, cut)
        # lost as run loses a draw no sample of which is valid: its kind, and why (300 chars)
        assert (d.lost.kind, d.lost.reason) == (
            "unscored",
            f"no judge sample was valid: {cut[:300]}",
        )


def test_a_regrade_sums_the_judges_usage_as_run_does(loopback, suite_file, tmp_path):
    # Found: the regrade summed only input and output tokens, so a judge's cache reads were
    # recorded as none (and priced as plain input) where run records them
    usage = {"input_tokens": 100, "cache_read_input_tokens": 1000, "output_tokens": 20}

    def shape(path, body, is_judge, text):
        if not is_judge:
            return None
        grade = {"type": "tool_use", "id": "t", "name": body["tools"][0]["name"]}
        grade["input"] = {"score": 0.5, "reason": "fine"}
        reply = _message("", model="claude-haiku-4-5-20251001", usage=usage)
        return 200, {**reply, "content": [grade], "stop_reason": "tool_use"}, {}

    loopback.script.shape = shape
    out = _one_draw_each(tmp_path, suite_file)
    rg, res = _regrade(tmp_path, out, suite_file, *RETRY)
    assert res.exit_code == 0, res.output
    for r in (read_receipt(out), read_receipt(rg)):
        o = r.economics.judge_overhead
        # two draws (one an arm), one sample each: billed input is 100 + 1,000 cache reads
        assert (o.input_tokens, o.cache_read_input_tokens, o.output_tokens) == (2200, 2000, 40)
    assert read_receipt(rg).economics.judge_overhead == read_receipt(out).economics.judge_overhead


def test_a_regrade_asks_for_the_judge_budget_the_original_recorded(loopback, suite_file, tmp_path):
    # Found: the budget was read from the original's judge sampling only; a judge that sends
    # none (the stub, a CLI) records it in max_output_tokens, and the regrade asked for 1,024
    out = run_lane(
        tmp_path, "anthropic", "api", judge="stub", keep_transcripts=True, judge_max_tokens=2000
    )
    since = len(loopback.script.bodies)
    plain = _plain("anthropic", "claude-haiku-4-5-20251001")
    rg, res = _regrade(tmp_path, out, suite_file, *plain, *RETRY)
    assert res.exit_code == 0, res.output
    assert read_receipt(rg).judge.max_output_tokens == 2000
    sent = {b["max_tokens"] for _, b in loopback.script.bodies[since:]}
    assert sent == {2000}


def test_a_regrade_records_each_arms_spread_across_its_draws_as_run_does(
    loopback, suite_file, tmp_path
):
    # D-8 reads the draw-to-draw part from an arm's recorded spread (generation.sd); a regrade
    # wrote none, so its receipt read as one that records no spread. The scripted judge scores
    # every skill answer 0.9 and every other 0.5, so each arm's draws have sd 0.0 exactly.
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True, judge_samples=1)
    rg, res = _regrade(tmp_path, out, suite_file, *RETRY)
    assert res.exit_code == 0, res.output
    arms = [arm for c in read_receipt(rg).cases for _, arm in c.arms.named()]
    assert arms and all(len(a.draws) >= 2 for a in arms)
    assert [a.generation.sd if a.generation else None for a in arms] == [0.0] * len(arms)
