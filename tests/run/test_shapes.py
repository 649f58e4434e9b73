"""A corpus of recorded response shapes (issue 13, "Done when"): each is served by the loopback
server through the real ``anthropic`` / ``openai`` SDKs, or printed by the fake ``claude``
binary, and each asserts its receipt outcome: score, lost reason and kind, tokens, stop reason,
attempts and exit status.

The shapes follow the official references and SDK types: Anthropic ``Message``
(``stop_reason`` max_tokens / refusal with ``stop_details``, ``usage`` cache parts, ``tool_use``
content, 429 with ``retry-after``, 529 ``overloaded_error``), OpenAI ``ChatCompletion``
(``message.refusal``, ``finish_reason`` length, ``prompt_tokens_details.cached_tokens``,
``completion_tokens_details.reasoning_tokens``), OpenAI ``Response`` (``status`` incomplete with
``incomplete_details.reason``, ``refusal`` content parts), ``claude -p --output-format json``
(``--verbose`` arrays, ``is_error`` envelopes with ``API Error: NNN``).

Each run is one case, one draw per arm, one judge sample per draw (2 draws, 2 grades): the
scripted judge gives 0.9 to the skill's answer and 0.5 to the baseline's (run_helpers).
"""

from __future__ import annotations

import json

import pytest
from run_helpers import judge_reply
from shape_replies import (
    BASELINE_FEWER,
    ONE,
    _answers,
    _chat,
    _draws,
    _message,
    _mini,
    _response,
    arm_usage,
)

# --- item 2: stop reasons, truncation, refusals -------------------------------------------------


def test_anthropic_max_tokens_is_a_lost_draw_cut_off_at_n_tokens(loopback, suite_file, tmp_path):
    loopback.script.shape = _answers(lambda p, b, t: (200, _message(t[:30], stop="max_tokens"), {}))
    r, _ = _mini(tmp_path, suite_file, max_tokens=20)
    for d in _draws(r):
        assert d.score is None and d.judge_samples == []
        assert d.lost.kind == "truncated" and d.stop_reason == "max_tokens"
        assert d.lost.reason.startswith(
            "cut off at 20 output tokens (stop reason max_tokens; budget 20)"
        )
        assert d.over_budget is False  # 20 tokens against a budget of 20
    assert (r.run.max_output_tokens, r.run.truncation) == (20, "lost")


def test_a_budget_cut_below_the_budget_never_reads_cut_off_at_n(loopback, suite_file, tmp_path):
    # max_tokens reported after 7,400 output tokens at a budget of 8,192 (a server that counts
    # the budget's cut a few tokens short): saying "cut off at 7400" beside "budget 8192"
    # contradicts itself
    def cut(p, b, t):
        usage = arm_usage({"input_tokens": 120, "output_tokens": 7400}, p, b)
        return 200, _message(t[:30], stop="max_tokens", usage=usage), {}

    loopback.script.shape = _answers(cut)
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert d.lost.kind == "truncated"
        assert d.lost.reason == (
            "cut off by the output budget of 8192 tokens (stop reason max_tokens; 7400 output "
            "tokens reported); the suite does not accept truncation"
        )


def test_a_suite_that_accepts_truncation_grades_the_cut_off_answer(loopback, suite_file, tmp_path):
    def cut(p, b, t):
        usage = arm_usage({"input_tokens": 120, "output_tokens": 8192}, p, b)
        return 200, _message(t, stop="max_tokens", usage=usage), {}

    loopback.script.shape = _answers(cut)
    r, _ = _mini(tmp_path, suite_file, suite={**ONE, "truncation": "accepted"})
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert skill.stop_reason == base.stop_reason == "max_tokens" and skill.lost is None
    assert r.run.truncation == "accepted"


def test_anthropic_refusal_keeps_its_text_and_category(loopback, suite_file, tmp_path):
    details = {
        "type": "refusal",
        "category": "cyber",
        "explanation": "This request could enable cyber harm.",
    }
    loopback.script.shape = _answers(
        lambda p, b, t: (
            200,
            _message("I can't help with that.", stop="refusal", stop_details=details),
            {},
        )
    )
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert d.lost.kind == "refusal" and d.stop_reason == "refusal" and d.score is None
        assert (d.refusal.text, d.refusal.category) == ("I can't help with that.", "cyber")
        assert d.lost.reason == "the model refused (category cyber): I can't help with that."


def test_a_refusal_past_what_a_receipt_holds_is_kept_cut_with_a_mark(
    loopback, suite_file, tmp_path
):
    # Found: a category past 200 characters and a text past 65,536 were cut in silence
    details = {"type": "refusal", "category": "c" * 250, "explanation": None}
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _message("n" * 70_000, stop="refusal", stop_details=details), {})
    )
    for d in _draws(_mini(tmp_path, suite_file)[0]):
        assert (d.refusal.category, d.refusal.text) == ("c" * 199 + "…", "n" * 65_535 + "…")


def test_openai_chat_message_refusal_is_a_refusal_not_an_empty_answer(
    loopback, suite_file, tmp_path
):
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _chat(None, refusal="I'm sorry, I can't assist with that."), {})
    )
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="chat", judge="openai")
    for d in _draws(r):
        assert d.lost.kind == "refusal" and d.stop_reason == "stop"
        assert (d.refusal.text, d.refusal.category) == (
            "I'm sorry, I can't assist with that.",
            None,
        )


def test_openai_chat_finish_reason_length_is_truncated(loopback, suite_file, tmp_path):
    usage = {"prompt_tokens": 120, "completion_tokens": 64, "total_tokens": 184}
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _chat(t[:10], finish="length", usage=usage), {})
    )
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="chat", judge="openai", max_tokens=64)
    for d in _draws(r):
        assert d.lost.kind == "truncated" and d.stop_reason == "length"
        assert d.lost.reason.startswith("cut off at 64 output tokens")


def test_responses_incomplete_max_output_tokens_is_truncated_not_no_answer(
    loopback, suite_file, tmp_path
):
    usage = {
        "input_tokens": 120,
        "output_tokens": 64,
        "total_tokens": 184,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 64},
    }
    reasoning_only = [{"type": "reasoning", "id": "rs_1", "summary": []}]
    loopback.script.shape = _answers(
        lambda p, b, t: (
            200,
            _response(
                reasoning_only,
                status="incomplete",
                usage=usage,
                incomplete={"reason": "max_output_tokens"},
            ),
            {},
        )
    )
    r, _ = _mini(
        tmp_path, suite_file, "openai", "api", api="responses", judge="openai", max_tokens=64
    )
    for d in _draws(r):
        assert d.lost.kind == "truncated" and d.stop_reason == "incomplete:max_output_tokens"
        assert d.lost.reason.startswith("cut off at 64 output tokens")
        assert (d.tokens.output, d.tokens.reasoning_output) == (64, 64)


def test_responses_refusal_content_part_is_a_refusal(loopback, suite_file, tmp_path):
    out = [
        {
            "type": "message",
            "id": "msg_1",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "refusal", "refusal": "I can't help with that request."}],
        }
    ]
    loopback.script.shape = _answers(lambda p, b, t: (200, _response(out), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses", judge="openai")
    for d in _draws(r):
        assert d.lost.kind == "refusal" and d.refusal.text == "I can't help with that request."


# --- item 3: usage as billed ----------------------------------------------------------------------


def test_anthropic_cache_parts_are_input_as_billed_and_priced_per_part(
    loopback, suite_file, tmp_path
):
    answer_usage = {
        "input_tokens": 4,
        "cache_read_input_tokens": 2000,
        "cache_creation_input_tokens": 210,
        "output_tokens": 20,
    }
    judge_usage = {
        "input_tokens": 10,
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": 0,
        "output_tokens": 30,
    }

    def shape(path, body, is_judge, text):
        if not is_judge:
            return 200, _message(text, usage=answer_usage), {}
        grade = {
            "type": "tool_use",
            "id": "toolu_1",
            "name": body["tools"][0]["name"],
            "input": json.loads(text),
        }
        return (
            200,
            {
                **_message("", model="claude-haiku-4-5-20251001", usage=judge_usage),
                "content": [grade],
                "stop_reason": "tool_use",
            },
            {},
        )

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file, judge_price=(1.0, 5.0, 0.1, 1.25))
    for d in _draws(r):
        assert (d.tokens.input, d.tokens.cache_read_input, d.tokens.cache_creation_input) == (
            2214,
            2000,
            210,
        )
    o = r.economics.judge_overhead
    # two grades: input 2 × 1,010 (1,000 of it cache reads), output 2 × 30
    assert (
        o.input_tokens,
        o.cache_read_input_tokens,
        o.cache_creation_input_tokens,
        o.output_tokens,
    ) == (2020, 2000, 0, 60)
    # 20 uncached × $1 + 2,000 cache reads × $0.10 + 60 output × $5, per million
    assert o.usd == pytest.approx((20 * 1.0 + 2000 * 0.1 + 60 * 5.0) / 1e6)
    assert (r.judge.price.cache_read_usd_per_mtok, r.judge.price.cache_write_usd_per_mtok) == (
        0.1,
        1.25,
    )


def test_openai_cached_and_reasoning_tokens_are_kept_apart(loopback, suite_file, tmp_path):
    usage = {
        "prompt_tokens": 2214,
        "completion_tokens": 300,
        "total_tokens": 2514,
        "prompt_tokens_details": {"cached_tokens": 2048},
        "completion_tokens_details": {"reasoning_tokens": 256},
    }
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _chat(t, usage=arm_usage(usage, p, b)), {})
    )
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="chat", judge="openai")
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert (
        skill.tokens.input,
        skill.tokens.cache_read_input,
        skill.tokens.output,
        skill.tokens.reasoning_output,
    ) == (2214, 2048, 300, 256)
    assert skill.tokens.answer_output == 300 - 256


def test_cached_tokens_past_the_input_are_no_part_of_it_and_never_priced(
    loopback, suite_file, tmp_path
):
    # every reply, the judge's too, says 5,000,000 of its 120 input tokens were cached
    usage = {
        "input_tokens": 120,
        "output_tokens": 20,
        "input_tokens_details": {"cached_tokens": 5_000_000},
        "output_tokens_details": {"reasoning_tokens": 0},
    }

    def shape(path, body, is_judge, text):
        said = judge_reply(text) if is_judge else text
        part = {"type": "output_text", "text": said}
        out = [{"type": "message", "status": "completed", "content": [part]}]
        said = usage if is_judge else arm_usage(usage, path, body)
        return 200, _response(out, usage=said, model="gpt-5-mini" if is_judge else "gpt-5"), {}

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses", judge="openai")
    assert [d.score for d in _draws(r)] == [0.5, 0.5]  # each answer is its prompt: graded 0.5
    for d, n in zip(_draws(r), (120, 120 - BASELINE_FEWER), strict=True):
        assert (d.tokens.input, d.tokens.cache_read_input, d.tokens.output) == (n, None, 20)
    jo = r.economics.judge_overhead
    assert (jo.input_tokens, jo.cache_read_input_tokens, jo.output_tokens) == (240, 0, 40)
    assert jo.usd == round((240 * 1.0 + 40 * 5.0) / 1e6, 10)  # run_helpers' price: 1 and 5


@pytest.mark.parametrize(("total", "counts"), [(1116, (996, 572, 424)), (1200, (424, 572, None))])
def test_reasoning_tokens_past_the_output_leave_the_answer_tokens_unknown(
    loopback, suite_file, tmp_path, total, counts
):
    # a Gemini- or xAI-style count through a compatible server: completion_tokens holds the
    # visible answer only, its 572 thinking tokens beside it. A total of exactly 120 + 424 + 572
    # says so: the output is 996, the answer's 424; any other total leaves no share of 424 known
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 424,
        "total_tokens": total,
        "completion_tokens_details": {"reasoning_tokens": 572},
    }
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(t, usage=usage), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="chat", judge="openai")
    for d in _draws(r):
        assert (d.tokens.output, d.tokens.reasoning_output, d.tokens.answer_output) == counts


def _said(text):
    return [{"type": "message", "content": [{"type": "output_text", "text": text}]}]


@pytest.mark.parametrize(
    ("provider", "api", "reply", "said", "asked"),
    [
        ("anthropic", None, lambda t: _message(t, model="claude-3-haiku-20240307"),
         "claude-3-haiku-20240307", "claude-sonnet-4-6"),
        ("openai", "chat", lambda t: {**_chat(t), "model": "gpt-5-mini"}, "gpt-5-mini", "gpt-5"),
        ("openai", "responses", lambda t: _response(_said(t), model="openrouter/auto"),
         "openrouter/auto", "gpt-5"),
    ],
)  # fmt: skip
def test_an_answer_reporting_another_model_stops_the_run_ungraded(
    loopback, suite_file, tmp_path, provider, api, reply, said, asked
):
    loopback.script.shape = _answers(lambda p, b, t: (200, reply(t), {}))
    r, _ = _mini(tmp_path, suite_file, provider, "api", api=api)
    draws = r.cases[0].arms.with_skill.draws + r.cases[0].arms.baseline.draws
    assert len(draws) == 1 and draws[0].score is None and draws[0].judge_samples == []
    assert (draws[0].lost.kind, draws[0].lost.reason) == (
        "handoff",
        f"another model gave the answer: the reply reports model '{said}', not the requested "
        f"'{asked}'; the run stops",
    )


@pytest.mark.parametrize("said", ["claude-sonnet-4-6-20260115", ""])
def test_an_answer_from_a_dated_snapshot_or_naming_no_model_is_graded(
    loopback, suite_file, tmp_path, said
):
    loopback.script.shape = _answers(lambda p, b, t: (200, _message(t, model=said), {}))
    r, _ = _mini(tmp_path, suite_file)
    assert [d.score for d in _draws(r)] == [0.9, 0.5]
