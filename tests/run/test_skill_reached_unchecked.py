"""The sheet's skill-reached line says how many with-skill draws reported no input (D-14).

Such a draw cannot be held to the dropped-skill check, yet it is graded; the line used to say
only what a draw was held to, as if every with-skill draw had been.
"""

from __future__ import annotations

from shape_replies import _answers, _chat, _mini

from driftproof.pages.sheet import sheet
from driftproof.render.sheet import sheet_text
from driftproof.run.providers import make_provider


def test_the_sheet_names_the_with_skill_draws_that_reported_no_input(
    loopback, suite_file, tmp_path
):
    # the task is 54 tokens, the skill 22: with it 76. The second with-skill reply reports no
    # usage, so it is graded without the check; three with-skill draws, one unchecked
    seen = []

    def shape(path, body, text):
        skill = body["messages"][0]["role"] == "system"
        seen.append(skill)
        doc = _chat(text, usage={"prompt_tokens": 76 if skill else 54, "completion_tokens": 20})
        if skill and seen.count(True) == 2:
            del doc["usage"]
        return 200, doc, {}

    loopback.script.shape = _answers(shape)
    lane = make_provider("openai", "api", api="chat", budget_param="auto")
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=lane, min_draws=3, max_draws=3)
    draws = r.cases[0].arms.with_skill.draws
    assert [d.score for d in draws] == [0.9, 0.9, 0.9]
    line = " ".join(sheet_text(sheet(r)).split())
    assert "does not; 1 with-skill draw reported no input, so was not checked" in line
