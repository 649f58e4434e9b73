"""A reply message that speaks in another role than the assistant's is never graded (D-19): the
Messages API, Chat Completions and the Responses API each document an answer's ``role`` as
``"assistant"``, so a body giving ``"user"`` (a proxy echoing the request back, say) holds no
answer of the model's. A reply that gives no role is read as before."""

from __future__ import annotations

import pytest
from shape_replies import _answers, _chat, _draws, _message, _mini, _response

WHY = "the reply's message speaks as 'user', not as the assistant, so there is nothing to grade"


def _chat_as(role, text):
    body = _chat(text)
    body["choices"][0]["message"]["role"] = role
    return body


def _response_as(role, text):
    said = [{"type": "output_text", "text": text, "annotations": []}]
    item = {"type": "message", "id": "m", "role": role, "status": "completed", "content": said}
    return _response([item])


@pytest.mark.parametrize(
    ("provider", "api", "build"),
    [
        ("anthropic", None, lambda role, text: {**_message(text), "role": role}),
        ("openai", "chat", _chat_as),
        ("openai", "responses", _response_as),
    ],
)
def test_a_reply_in_the_users_role_is_never_graded(
    loopback, suite_file, tmp_path, provider, api, build
):
    loopback.script.shape = _answers(lambda path, body, text: (200, build("user", text), {}))
    r, _ = _mini(tmp_path, suite_file, provider, "api", **({"api": api} if api else {}))
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.reason) == (None, "no_answer", WHY)
