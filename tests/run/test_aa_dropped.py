"""An A/A calibration gives both arms the skill, so both are held to the dropped-skill check.

Before, only the with-skill arm was checked: a server dropping the skill lost the first run's
draws and graded the second run's, so losses fell on one side of the comparison.
"""

from __future__ import annotations

from shape_replies import _answers, _chat, _draws, _mini

from driftproof.run.providers import make_provider


def test_both_runs_of_an_aa_calibration_lose_a_draw_that_reports_too_little_input(
    loopback, suite_file, tmp_path
):
    # every request reports 10 input tokens: under 80% of the skill's 22 o200k_base tokens
    # (17.6), so the skill cannot have reached the model in either run; both draws are lost
    def shape(path, body, text):
        return 200, _chat(text, usage={"prompt_tokens": 10, "completion_tokens": 20}), {}

    loopback.script.shape = _answers(shape)
    lane = make_provider("openai", "api", api="chat", budget_param="auto")
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=lane, aa=True)
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "prompt_dropped"
        assert "reported 10 input tokens, fewer than 80% of the skill's own 22" in d.lost.reason
