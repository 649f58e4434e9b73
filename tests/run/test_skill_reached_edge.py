"""The skill-reached check at exactly 80% of the skill, per draw (between the arms: beside it).

The skill is 12 o200k_base tokens of front matter and mark and 1,998 repeats of " word" (one
token each): 2,010 tokens, whose 80% is exactly 1,608. A with-skill draw is lost when its
reported input is fewer than that; a case when its arms are fewer than that apart.
"""

from __future__ import annotations

import pytest
import run_helpers
from shape_replies import _answers, _chat, _draws, _mini

from driftproof.run.providers import make_provider
from driftproof.tokens import count_tokens

SKILL = "---\nname: commit-helper\n---\nSKILL-MARK\n" + " word" * 1998


def _lane():
    return make_provider("openai", "api", api="chat", budget_param="auto")


def _reports(with_skill: int, baseline: int | None):
    """A server reporting these input tokens per arm (``None``: the baseline reports none)."""

    def shape(path, body, text):
        if body["messages"][0]["role"] == "system":
            usage = {"prompt_tokens": with_skill, "completion_tokens": 20}
        else:
            usage = {"completion_tokens": 20}
            if baseline is not None:
                usage["prompt_tokens"] = baseline
        return 200, _chat(text, usage=usage), {}

    return _answers(shape)


def test_the_skill_is_2010_tokens():
    assert count_tokens(SKILL) == 12 + 1998


@pytest.mark.parametrize(("reported", "lost"), [(1607, True), (1608, False)])
def test_a_draw_reporting_exactly_80_percent_of_the_skill_is_kept(
    loopback, suite_file, tmp_path, monkeypatch, reported, lost
):
    # the baseline reports no input, so the arms cannot be compared: only the draw's own count
    # can show the skill was dropped, and it must before the draw is graded
    monkeypatch.setattr(run_helpers, "SKILL_TEXT", SKILL)
    loopback.script.shape = _reports(reported, None)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    skill, base = _draws(r)
    assert base.score == 0.5 and base.tokens.input is None
    if lost:
        assert skill.score is None and skill.lost.kind == "prompt_dropped"
        assert skill.lost.reason == (
            "the server dropped part of the prompt, or counts only the prompt tokens it did not "
            "take from its cache (reported 1,607 input tokens, fewer than 80% of the skill's own "
            "2,010 o200k_base tokens)"
        )
        assert skill.judge_samples == []  # lost before any grading call
    else:
        assert skill.lost is None and skill.score == 0.9


def test_a_with_skill_draw_lost_before_the_arms_are_compared_keeps_its_own_loss(
    loopback, suite_file, tmp_path
):
    # both arms report the task alone (54 tokens, 0 apart, under 80% of the skill's 22 tokens):
    # the with-skill draws are lost as the skill unreached, but one the model's content filter
    # stopped (Chat finish_reason "content_filter") was lost already and stays lost as that
    calls = []

    def shape(path, body, text):
        skill = body["messages"][0]["role"] == "system"
        calls.append(skill)
        finish = "content_filter" if skill and calls.count(True) == 1 else "stop"
        usage = {"prompt_tokens": 54, "completion_tokens": 20}
        return 200, _chat(text, finish=finish, usage=usage), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane(), min_draws=2, max_draws=2)
    draws = r.cases[0].arms.with_skill.draws
    assert sorted(d.lost.kind for d in draws) == ["content_filter", "prompt_dropped"]
    assert all(d.score is None for d in draws)
    assert [d.score for d in r.cases[0].arms.baseline.draws] == [0.5, 0.5]
