"""Each with-skill draw answers for itself against the other arm of its case (D-14, D-19).

A server that leaves the system message out of some requests only (a chat template with no
system slot behind a load balancer that also reaches a server with one: ollama/ollama#8956) gives
a minority of with-skill draws the task alone; the case's medians hide it. A server that counts
only the prompt tokens it evaluated (Ollama's ``prompt_eval_count``, sent as Chat Completions'
``usage.prompt_tokens``, left out a cached prefix: ollama/ollama#2068, #3427, #16414) reports a
few tokens for a prompt it read whole; the count cannot tell the two apart, so the draw is lost and
its words name both.
"""

from __future__ import annotations

from shape_replies import _answers, _chat, _mini

from driftproof.run.providers import make_provider
from driftproof.tokens import count_tokens

#: run_helpers.SKILL_TEXT's size in o200k_base tokens; 80% of it is 17.6.
SKILL = 22

#: The cause the words name beside a dropped system message.
CACHE = "or one that counts only the prompt tokens it did not take from its cache"


def _lane():
    return make_provider("openai", "api", api="chat", budget_param="auto")


def _usage(n):
    return {"prompt_tokens": n, "completion_tokens": 20, "total_tokens": n + 20}


def test_the_skill_is_22_tokens():
    import run_helpers

    assert count_tokens(run_helpers.SKILL_TEXT) == SKILL


def test_one_with_skill_draw_of_three_without_the_system_message_is_lost(
    loopback, suite_file, tmp_path
):
    # a long task: 3,363 tokens in every request. The second with-skill request loses its
    # system message and reports the baseline's 3,363; the others 3,363 + 22 = 3,385. Each
    # draw's own count is far above 17.6 and the medians are 22 apart (3,385 vs 3,363), so
    # only the draw held to the baseline's median shows it: 0 apart, under 17.6
    seen = []

    def shape(path, body, text):
        skill = body["messages"][0]["role"] == "system"
        seen.append(skill)
        dropped = skill and seen.count(True) == 2
        n = 3363 + (SKILL if skill and not dropped else 0)
        return 200, _chat("Fixed it." if dropped else text, usage=_usage(n)), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane(), min_draws=3, max_draws=3)
    arms = r.cases[0].arms
    assert [d.score for d in arms.baseline.draws] == [0.5, 0.5, 0.5]
    kept = [d for d in arms.with_skill.draws if d.lost is None]
    assert [(d.tokens.input, d.score) for d in kept] == [(3385, 0.9), (3385, 0.9)]
    (lost,) = [d for d in arms.with_skill.draws if d.lost is not None]
    assert lost.score is None and lost.lost.kind == "prompt_dropped"
    assert lost.lost.reason == (
        "a reported input without room for the skill: this draw reported 3,363 input tokens and "
        "the baseline's median 3,363, fewer than 80% of the skill's own 22 o200k_base tokens "
        f"apart (a server that leaves the system message out does this, {CACHE}; so does a chat "
        "template that adds its own system prompt to a request without one: run with a control "
        "then)"
    )
    assert len(lost.judge_samples) == 1  # graded before the arms could be compared: kept


def test_a_server_counting_only_what_it_did_not_cache_loses_the_cached_draws_naming_both(
    loopback, suite_file, tmp_path
):
    # Ollama evaluates the first request of each arm whole (task 54 tokens; with the skill
    # 54 + 22 = 76) and later ones from its cache, reporting 1 token each. The cached with-skill
    # draws report 1, under 17.6: lost before grading, naming both causes. The first is 76 - 1
    # = 75 above the baseline's median of [54, 1, 1] = 1: kept, not lost with the others
    firsts = set()

    def shape(path, body, text):
        skill = body["messages"][0]["role"] == "system"
        n = 1 if skill in firsts else 54 + (SKILL if skill else 0)
        firsts.add(skill)
        return 200, _chat(text, usage=_usage(n)), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane(), min_draws=3, max_draws=3)
    arms = r.cases[0].arms
    assert sorted(d.tokens.input for d in arms.baseline.draws) == [1, 1, 54]
    assert all(d.score == 0.5 for d in arms.baseline.draws)
    (kept,) = [d for d in arms.with_skill.draws if d.lost is None]
    assert kept.tokens.input == 76 and kept.score == 0.9
    lost = [d for d in arms.with_skill.draws if d.lost is not None]
    assert len(lost) == 2
    for d in lost:
        assert d.lost.kind == "prompt_dropped" and d.judge_samples == []
        assert d.lost.reason == (
            "the server dropped part of the prompt, or counts only the prompt tokens it did not "
            "take from its cache (reported 1 input tokens, fewer than 80% of the skill's own 22 "
            "o200k_base tokens)"
        )
