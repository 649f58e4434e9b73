"""An answer made only of characters that show as nothing holds no answer (the one blank rule).

A Chat Completions ``message.content`` is any string (the openai SDK's
``ChatCompletionMessage.content: Optional[str]``), so a server may send white space and a
zero-width space (U+200B, which ``str.strip`` keeps) with ``finish_reason`` ``stop``.
"""

from __future__ import annotations

import pytest
from shape_replies import _answers, _chat, _draws, _mini

from driftproof.run.providers import make_provider


@pytest.mark.parametrize("said", [" \n\u200b ", "\ufeff\u2060", "\u200b\n\u200b"])
def test_an_answer_that_shows_as_nothing_is_lost_as_no_answer(loopback, suite_file, tmp_path, said):
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(said), {}))
    lane = make_provider("openai", "api", api="chat")
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=lane)
    for d in _draws(r):
        assert d.score is None and d.judge_samples == []
        assert (d.lost.kind, d.lost.reason) == ("no_answer", "the reply holds no answer")


def test_a_zero_width_space_beside_a_letter_is_an_answer(loopback, suite_file, tmp_path):
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(f"\u200b{t}"), {}))
    lane = make_provider("openai", "api", api="chat")
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=lane)
    assert [(d.score, d.lost) for d in _draws(r)] == [(0.9, None), (0.5, None)]
