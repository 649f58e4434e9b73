"""What the skill-reached check can and cannot see, in the sheet's words (D-14).

The check counts the skill in o200k_base tokens and allows 20% for the serving tokenizer, so a
server that keeps 81% of the skill (Ollama's runner cutting the front of a prompt past its
``num_ctx``, "truncating input prompt ... keep=5": ollama/ollama#10368, #8531) passes it; the
sheet says so, and names the skill's size it shows for what it is: the receipt's characters ÷ 4,
not the o200k_base count the check used.
"""

from __future__ import annotations

import run_helpers
from shape_replies import _answers, _chat, _draws, _mini

from driftproof.pages.sheet import sheet
from driftproof.render.sheet import sheet_text
from driftproof.run.providers import make_provider
from driftproof.tokens import count_tokens

#: 39 characters of front matter and mark, then 1,998 one-token words: 2,010 o200k_base tokens.
SKILL = "---\nname: commit-helper\n---\nSKILL-MARK\n" + " word" * 1998


def test_a_skill_cut_to_81_percent_passes_and_the_sheet_says_what_the_check_cannot_see(
    loopback, suite_file, tmp_path, monkeypatch
):
    assert count_tokens(SKILL) == 2010 and len(SKILL) == 39 + 5 * 1998
    monkeypatch.setattr(run_helpers, "SKILL_TEXT", SKILL)
    # the task is 60 tokens; 81% of the skill is 1,628 (1,628.1): 1,688 with it, 1,628 above
    # the baseline's 60, past 80% of 2,010 (1,608): the draw is kept

    def shape(path, body, text):
        n = 60 + (1628 if body["messages"][0]["role"] == "system" else 0)
        return 200, _chat(text, usage={"prompt_tokens": n, "completion_tokens": 20}), {}

    loopback.script.shape = _answers(shape)
    lane = make_provider("openai", "api", api="chat", budget_param="auto")
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=lane)
    skill, base = _draws(r)
    assert (skill.lost, skill.score, base.score) == (None, 0.9, 0.5)
    # ceil(10,029 / 4) = 2,508: the receipt's size, named as it is counted
    assert r.skill.tokens == 2508
    line = " ".join(sheet_text(sheet(r)).split())
    assert (
        "median reported input tokens with skill 1,688, baseline 60; with the skill +1,628, "
        "beside a skill of about 2,508 tokens at four characters a token; a with-skill draw "
        "counted only when its input was above the baseline's median by 80% of the skill in "
        "o200k_base tokens: a skill left out shows, one cut by less than 20% (or more, where the "
        "server's tokenizer makes more tokens of it than o200k_base does) does not"
    ) in line
