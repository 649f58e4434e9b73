"""Reply shapes of OpenAI-compatible servers and gateways that are no finished answer (D-19),
served by the loopback server through the official SDK.

OpenRouter's non-streaming choice may carry an ``error`` (its response schema,
https://openrouter.ai/docs/api-reference/overview: ``NonStreamingChoice.error?: ErrorResponse``)
with ``finish_reason`` ``error``, status 200, beside the text sent before the upstream failed.
gpt-oss served without its Harmony parser (llama.cpp's server, LM Studio, lmdeploy) puts the
raw channels in ``content``: ``<|channel|>analysis<|message|>…<|end|><|start|>assistant
<|channel|>final<|message|>…`` (ggml-org/llama.cpp#15789, InternLM/lmdeploy#3954); Seed-OSS on
vLLM without ``--reasoning-parser seed_oss`` sends ``<seed:think>…</seed:think>`` there
(murtaza-nasir/maestro#59).
"""

from __future__ import annotations

import pytest
from run_helpers import BASE_ANSWER, SKILL_ANSWER
from shape_replies import ONE, _answers, _chat, _draws, _mini, _response

from driftproof.run.providers import make_provider


def _compatible():
    return make_provider("openai", "api", api="chat")


_UPSTREAM = {"code": 502, "message": "Upstream idle timeout exceeded", "metadata": {"p": "x"}}


@pytest.mark.parametrize("finish", ["error", "stop"])
def test_a_choice_holding_an_error_is_a_failed_attempt_quoting_it(
    loopback, suite_file, tmp_path, finish
):
    def shape(path, body, text):
        c = _chat(text[:30], finish=finish)  # the text sent before the upstream failed
        c["choices"][0]["native_finish_reason"] = "error"
        c["choices"][0]["error"] = _UPSTREAM
        return 200, c, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    for d in _draws(r):
        assert d.score is None and d.judge_samples == []
        assert (d.lost.kind, d.lost.error_class, len(d.attempts)) == ("error", "transient", 3)
        assert d.lost.reason == (
            "the reply's choice is an error with status 200, not an answer: Upstream idle "
            "timeout exceeded; transient, 3 attempts, retried after 0.01 s and 0.02 s"
        )


def test_a_choice_whose_error_is_null_is_read_as_an_answer(loopback, suite_file, tmp_path):
    def shape(path, body, text):
        c = _chat(text)
        c["choices"][0]["error"] = None
        return 200, c, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    assert [d.score for d in _draws(r)] == [0.9, 0.5]


_HARMONY = (
    "<|channel|>analysis<|message|>The user wants a commit message. Say sorry first?<|end|>"
    "<|start|>assistant<|channel|>final<|message|>"
)


@pytest.mark.parametrize("where", ["before", "after"])
def test_gpt_oss_channels_sent_as_text_are_never_graded(loopback, suite_file, tmp_path, where):
    # the analysis channel is reasoning (D-19); a server without the Harmony parser sends it in
    # content, before the final channel, or (a commentary channel) after the answer
    def shape(path, body, text):
        after = "<|end|><|start|>assistant<|channel|>commentary<|message|>sorry"
        said = _HARMONY + text if where == "before" else text + after
        return 200, _chat(said), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    for d, answer_chars in zip(_draws(r), (len(SKILL_ANSWER), len(BASE_ANSWER)), strict=True):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "reasoning_mixed"
        # "<|end|><|start|>assistant" is 25 characters before the channel marker
        n = 0 if where == "before" else answer_chars + 25
        assert d.lost.reason == (
            f"reasoning mixed into the answer: <|channel|> at character {n:,} of the answer "
            "(the model's reasoning markup sent as text: the server parsed no reasoning); "
            "reasoning is never graded"
        )


def test_reasoning_left_in_an_answer_cut_at_the_budget_is_never_graded_when_accepted(
    loopback, suite_file, tmp_path
):
    # the budget (8,192 tokens) spent in the analysis channel: an accepted truncation still
    # grades only an answer, never the reasoning before it
    usage = {"prompt_tokens": 120, "completion_tokens": 8192, "total_tokens": 8312}
    said = _HARMONY[:60]  # cut part way through the analysis
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _chat(said, finish="length", usage=usage), {})
    )
    r, _ = _mini(
        tmp_path, suite_file, "openai", "api", lane=_compatible(),
        suite={**ONE, "truncation": "accepted"},
    )  # fmt: skip
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "reasoning_mixed"
        said = "reasoning mixed into the answer: <|channel|> at character 0 of the answer"
        assert d.lost.reason.startswith(said)


def test_a_server_reporting_no_usage_says_the_skills_arrival_was_not_checked(
    loopback, suite_file, tmp_path
):
    # llama.cpp's and LM Studio's replies carry usage; a proxy may not, and Ollama reports
    # prompt_tokens 0 for a cached prompt: with no input count, a dropped skill cannot be seen
    from driftproof.pages.sheet import sheet
    from driftproof.render.sheet import sheet_text

    def shape(path, body, text):
        c = _chat(text)
        del c["usage"]
        return 200, c, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    assert [d.score for d in _draws(r)] == [0.9, 0.5]  # graded: the endings say finished
    assert (
        "median reported input tokens  not recorded, so whether the skill reached the model was "
        "not checked"
    ) in sheet_text(sheet(r))


@pytest.mark.parametrize("said", ["<seed:think>sorry</seed:think>{}", "sorry</seed:think>{}"])
def test_seed_oss_think_tags_sent_as_text_are_never_graded(loopback, suite_file, tmp_path, said):
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(said.format(t)), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "reasoning_mixed"
        at = said.index("<seed:think>" if said.startswith("<") else "</seed:think>")
        tag = said[at : said.index(">", at) + 1]
        assert d.lost.reason.startswith(
            f"reasoning mixed into the answer: {tag} at character {at:,} of the answer"
        )


_THOUGHT = "The user wants a commit message."  # 32 characters


@pytest.mark.parametrize(
    ("said", "tag", "at"),
    [  # Magistral's [THINK] tokens: vllm/reasoning/mistral_reasoning_parser.py; sent as text by
        # Ollama (RooCodeInc/Roo-Code#8522), and with the opener left out of the output
        (f"[THINK]{_THOUGHT}[/THINK]{{}}", "[THINK]", 0),
        (f"{_THOUGHT}[/THINK]{{}}", "[/THINK]", 32),
        # Gemma 4's thought channel: vllm/reasoning/gemma4_utils.py; sent as text by llama.cpp
        # without --reasoning-format (qwersyk/Newelle#427) and LM Studio
        # (lmstudio-ai/lmstudio-bug-tracker#2013); its opener put in the prompt (jundot/omlx#2533)
        (f"<|channel>thought\n{_THOUGHT}<channel|>{{}}", "<|channel>", 0),
        (f"{_THOUGHT}<channel|>{{}}", "<channel|>", 32),
    ],
)
def test_magistral_and_gemma_4_reasoning_sent_as_text_is_never_graded(
    loopback, suite_file, tmp_path, said, tag, at
):
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(said.format(t)), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "reasoning_mixed"
        assert d.lost.reason == (
            f"reasoning mixed into the answer: {tag} at character {at} of the answer (the "
            "model's reasoning markup sent as text: the server parsed no reasoning); reasoning "
            "is never graded"
        )


def test_tgis_eos_token_ending_is_a_finished_answer(loopback, suite_file, tmp_path):
    # Hugging Face TGI's OpenAI-compatible chat route named a natural end of its model
    # "eos_token" (its FinishReason::EndOfSequenceToken) before it spelled it "stop"
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(t, finish="eos_token"), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)


def test_togethers_eos_ending_is_a_finished_answer(loopback, suite_file, tmp_path):
    # Together AI ends a finished answer of its Llama models with "eos" (the together SDK's
    # FinishReason.EOS, beside "stop", "length" and "tool_calls"; ragas#1548 quotes such a reply)
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(t, finish="eos"), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)


def test_deepseeks_insufficient_system_resource_is_retried_then_lost_as_a_server_abort(
    loopback, suite_file, tmp_path
):
    # DeepSeek's finish_reason "insufficient_system_resource": "the request is interrupted due to
    # insufficient resource of the inference system" (https://api-docs.deepseek.com/api/
    # create-chat-completion); the text sent before it is no finished answer, its reasoning
    # (reasoning_content) never one
    def shape(path, body, text):
        c = _chat(text[:25], finish="insufficient_system_resource")
        c["choices"][0]["message"]["reasoning_content"] = "The user wants a commit message."
        return 200, c, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    for d in _draws(r):
        assert d.score is None and d.judge_samples == []
        assert (d.lost.kind, d.lost.error_class, len(d.attempts)) == (
            "server_abort",
            "transient",
            3,
        )
        assert d.lost.reason == (
            "aborted by the server: the reply ended with 'insufficient_system_resource', not as a "
            "complete final answer; transient, 3 attempts, retried after 0.01 s and 0.02 s"
        )


def test_deepseeks_insufficient_system_resource_once_then_an_answer_is_graded(
    loopback, suite_file, tmp_path
):
    seen = []

    def shape(path, body, text):
        seen.append(1)
        return (
            (200, _chat("", finish="insufficient_system_resource"), {}) if len(seen) == 1 else None
        )

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    skill, base = _draws(r)
    assert (skill.score, len(skill.attempts), base.score) == (0.9, 1, 0.5)


def test_mistrals_model_length_is_the_context_window_even_when_truncation_is_accepted(
    loopback, suite_file, tmp_path
):
    # Mistral's finish_reason "model_length": the model's context window is full, where "length"
    # is the output budget (the enum of its ChatCompletionChoice; inspect_ai#514 took it over as
    # "the model's context window has been exceeded"); an accepted truncation never grades it
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _chat(t[:25], finish="model_length"), {})
    )
    r, _ = _mini(
        tmp_path, suite_file, "openai", "api", lane=_compatible(),
        suite={**ONE, "truncation": "accepted"},
    )  # fmt: skip
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and len(d.attempts) == 0
        assert (d.lost.kind, d.lost.reason) == (
            "context_window",
            "context window: the reply ended with 'model_length', not as a complete final answer",
        )


#: A LiteLLM proxy after a fallback: since v1.81.7 the body's model is the one asked
#: (BerriAI/litellm#22709, #28241), only its header says another model group answered (its docs'
#: retry and fallback headers: "x-litellm-attempted-fallbacks | int | Number of fallback attempts
#: made").
_FELL_BACK = {"x-litellm-attempted-fallbacks": "1", "x-litellm-model-group": "gpt-4o-mini"}


def _graded(text):
    """A Responses reply (the judge's lane) giving the grade ``text``."""
    part = {"type": "output_text", "text": text, "annotations": []}
    item = {"type": "message", "id": "m", "status": "completed", "role": "assistant"}
    return _response([{**item, "content": [part]}], model="gpt-5-mini")


def test_an_answer_a_litellm_proxy_sent_after_a_fallback_stops_the_run(
    loopback, suite_file, tmp_path
):
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(t), _FELL_BACK))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    drawn = r.cases[0].arms.with_skill.draws + r.cases[0].arms.baseline.draws
    assert [(d.score, d.lost.kind) for d in drawn] == [(None, "handoff")]
    assert drawn[0].lost.reason == (
        "another model gave the answer: a LiteLLM proxy says it fell back to another model "
        "before this reply (x-litellm-attempted-fallbacks: '1'), whatever model the reply "
        "names; the run stops"
    )


def test_a_grade_a_litellm_proxy_sent_after_a_fallback_is_never_counted(
    loopback, suite_file, tmp_path
):
    def shape(path, body, is_judge, text):
        return (200, _graded(text), _FELL_BACK) if is_judge else None

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible(), judge="openai")
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "unscored"
        (sample,) = d.judge_samples
        assert sample.score is None
        assert sample.invalid_reason.startswith(
            "another model gave the grade: a LiteLLM proxy says it fell back"
        )


def test_a_litellm_proxy_reply_with_no_fallback_is_graded(loopback, suite_file, tmp_path):
    headers = {"x-litellm-attempted-fallbacks": "0", "x-litellm-attempted-retries": "0"}
    loopback.script.shape = lambda p, b, j, t: (200, _graded(t) if j else _chat(t), headers)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible(), judge="openai")
    assert [d.score for d in _draws(r)] == [0.9, 0.5]
