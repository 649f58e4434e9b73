"""A server that drops the system prompt: the arms' reported inputs must differ by the skill.

A chat template with no system slot (ollama/ollama#8956, #682, #3413) answers the task alone in
both arms; each with-skill draw reports more input than 80% of a small skill, so only comparing
the arms of a case shows the skill never reached the model.
"""

from __future__ import annotations

import pytest
import run_helpers
from shape_replies import _answers, _chat, _draws, _mini

from driftproof.pages.sheet_facts import provenance
from driftproof.run.providers import make_provider
from driftproof.stats import no_verdict
from driftproof.stats.codes import Refusal
from driftproof.tokens import count_tokens


def _lane():
    return make_provider("openai", "api", api="chat", budget_param="auto")


def _reports(with_skill: int, baseline: int):
    """A compatible server reporting these input tokens per arm (the with-skill request is the
    one with a system message)."""

    def shape(path, body, text):
        n = with_skill if body["messages"][0]["role"] == "system" else baseline
        return 200, _chat(text, usage={"prompt_tokens": n, "completion_tokens": 20}), {}

    return _answers(shape)


def test_a_server_that_answers_the_task_alone_in_both_arms_measures_nothing_with_the_skill(
    loopback, suite_file, tmp_path
):
    # the task alone is 54 tokens in both arms: more than 80% of the skill's 22 o200k_base
    # tokens (17.6), so each draw passes on its own; the arms are 0 apart, under 17.6
    loopback.script.shape = _reports(54, 54)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane(), min_draws=2, max_draws=2)
    skill_arm, base_arm = r.cases[0].arms.with_skill, r.cases[0].arms.baseline
    assert [d.score for d in base_arm.draws] == [0.5, 0.5]
    for d in skill_arm.draws:
        assert d.score is None and d.lost.kind == "prompt_dropped"
        assert d.lost.reason == (
            "a reported input without room for the skill: this draw reported 54 input tokens and "
            "the baseline's median 54, fewer than 80% of the skill's own 22 o200k_base tokens "
            "apart (a server that leaves the system message out does this, or one that counts "
            "only the prompt tokens it did not take from its cache; so does a chat template that "
            "adds its own system prompt to a request without one: run with a control then)"
        )
        assert len(d.judge_samples) == 1  # judged before the arms could be compared: kept
    refused = no_verdict(r)
    assert refused is not None and refused.refusal is Refusal.NOT_MEASURED


@pytest.mark.parametrize(
    ("words", "apart", "said"),
    [  # 80% of 12 + 2,000 tokens is 1,609.6; of 12 + 1,998 exactly 1,608 (apart by that: kept)
        (2000, 1609, "this draw reported 1,669 input tokens and the baseline's median 60"),
        (2000, 1610, None),
        (1998, 1607, "this draw reported 1,667 input tokens and the baseline's median 60"),
        (1998, 1608, None),
    ],
)
def test_the_arms_must_be_80_percent_of_the_skill_apart(
    loopback, suite_file, tmp_path, monkeypatch, words, apart, said
):
    skill_text = "---\nname: commit-helper\n---\nSKILL-MARK\n" + " word" * words
    assert count_tokens(skill_text) == 12 + words
    monkeypatch.setattr(run_helpers, "SKILL_TEXT", skill_text)
    loopback.script.shape = _reports(60 + apart, 60)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    skill, base = _draws(r)
    assert base.score == 0.5
    if said:
        assert skill.score is None and skill.lost.kind == "prompt_dropped"
        assert said in skill.lost.reason
        assert f"of the skill's own {12 + words:,} o200k_base tokens apart" in skill.lost.reason
    else:
        assert skill.score == 0.9 and skill.lost is None


#: Mistral Small 3's chat template (its Hugging Face tokenizer_config) puts its own default
#: system prompt, 161 o200k_base tokens, into a request with no system message, and the
#: request's own system message in place of it.
DEFAULT_SYSTEM = 161


def test_with_a_control_the_skill_is_compared_against_the_control_not_a_default_system_prompt(
    loopback, suite_file, tmp_path
):
    control = "You are a careful assistant. Answer briefly."

    def shape(path, body, text):
        first = body["messages"][0]
        system = first["content"] if first["role"] == "system" else None
        n = 54 + (len(system) // 3 if system else DEFAULT_SYSTEM)
        return 200, _chat(text, usage={"prompt_tokens": n, "completion_tokens": 20}), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane(), control=control)
    arms = r.cases[0].arms
    # the control's 44 characters: 54 + 44 // 3 = 68; with skill, 44 + 2 + the skill's 93
    # characters: 54 + 139 // 3 = 100, 32 above the control (over 80% of the skill's 22 tokens,
    # 17.6) but 115 below the baseline's 54 + 161 = 215
    assert [d.tokens.input for d in arms.control.draws] == [68]
    assert [d.tokens.input for d in arms.baseline.draws] == [215]
    assert [d.tokens.input for d in arms.with_skill.draws] == [100]
    assert arms.with_skill.draws[0].lost is None and arms.with_skill.draws[0].score == 0.9
    # a control that the server also leaves out: the words name the control, no control advice
    loopback.script.shape = _reports(54, 54)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane(), control=control)
    said = r.cases[0].arms.with_skill.draws[0].lost.reason
    assert said.endswith(
        "the control's median 54, fewer than 80% of the skill's own 22 o200k_base tokens apart "
        "(a server that leaves the system message out does this, or one that counts only the "
        "prompt tokens it did not take from its cache)"
    )


def test_an_aa_run_is_not_compared_both_of_its_arms_carry_the_skill(loopback, suite_file, tmp_path):
    # --aa gives SKILL.md to both arms, so their requests are the same and report the same 54
    # input tokens: 0 apart, under 17.6, yet the skill reached both; no draw is lost
    loopback.script.shape = _reports(54, 54)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane(), aa=True)
    for d in _draws(r):
        assert d.lost is None and d.tokens.input == 54 and d.score == 0.9
    # the sheet (view and the site) says both arms carry the skill, not "with the skill +0" as
    # if the skill had added nothing to the with-skill arm's input; the sheet sizes the skill
    # as ceil(characters ÷ 4): run_helpers.SKILL_TEXT is 93 characters, so 24
    (said,) = [f.value for f in provenance(r) if f.label == "median reported input tokens"]
    assert said == (
        "first run 54, second run 54; the arms +0 apart: an A/A calibration, in which both arms "
        "carry the skill (about 24 tokens), so their inputs are expected to match"
    )


def test_a_control_that_lost_every_draw_leaves_the_baseline_to_compare_against(
    loopback, suite_file, tmp_path
):
    # the server leaves every system message out (54 input tokens in each arm) and fails every
    # control request: the control reports no input, so the with-skill arm is held to the
    # baseline's 54, 0 apart, under 80% of the skill's 22 tokens (17.6); before, no comparison
    # was made and the with-skill draws were scored as if the skill had reached the model
    def shape(path, body, text):
        first = body["messages"][0]
        if first["role"] == "system" and "SKILL-MARK" not in first["content"]:
            return 500, {"error": {"message": "control down", "type": "server_error"}}, {}
        return 200, _chat(text, usage={"prompt_tokens": 54, "completion_tokens": 20}), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane(), control="Be brief.")
    arms = r.cases[0].arms
    assert [d.lost.kind for d in arms.control.draws] == ["error"]
    assert [d.score for d in arms.baseline.draws] == [0.5]
    (d,) = arms.with_skill.draws
    assert d.score is None and d.lost.kind == "prompt_dropped"
    assert d.lost.reason.endswith(
        "this draw reported 54 input tokens and the baseline's median 54, fewer than 80% of the "
        "skill's own 22 o200k_base tokens apart (a server that leaves the system message out "
        "does this, or one that counts only the prompt tokens it did not take from its cache; so "
        "does a chat template that adds its own system prompt to a request without one: the "
        "control, which tells the two apart, reported no input)"
    )
