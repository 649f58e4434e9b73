"""Reasoning that comes after the answer (D-19): an Anthropic thinking block after the last text
block, a Responses reasoning item after the last answer message. A reply that ends reasoning
after its answer has no answer known to be final, so the draw is lost, as Mistral's text part
before a thinking part is (test_shapes_endings_chat.py). Reasoning between two parts of the answer
is read: Anthropic's interleaved thinking sends thinking, text, thinking, text with no tool call
(BerriAI/litellm#13834), and the answer is the text blocks in order."""

from __future__ import annotations

from shape_replies import _answers, _draws, _message, _mini, _response


def test_a_thinking_block_after_the_text_loses_the_draw(loopback, suite_file, tmp_path):
    def shape(path, body, text):
        content = [
            {"type": "text", "text": text},
            {"type": "thinking", "thinking": "on second thought, no", "signature": "s"},
        ]
        return 200, {**_message(text), "content": content}, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert (d.score, d.lost.kind) == (None, "no_answer")
        assert d.lost.reason == (
            "the reply's content holds a thinking block after its last text block (text, thinking),"
            " not thinking followed by the answer, so there is nothing to grade"
        )


def test_a_reasoning_item_after_the_answer_message_loses_the_draw(loopback, suite_file, tmp_path):
    def shape(path, body, text):
        said = [{"type": "output_text", "text": text, "annotations": []}]
        message = {"type": "message", "id": "m", "role": "assistant", "status": "completed"}
        reasoning = {"type": "reasoning", "id": "rs", "summary": []}
        return 200, _response([reasoning, {**message, "content": said}, reasoning]), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses")
    for d in _draws(r):
        assert (d.score, d.lost.kind) == (None, "no_answer")
        assert d.lost.reason == (
            "the reply's output holds a reasoning item after its last answer message (reasoning,"
            " message, reasoning), not reasoning followed by the answer, so there is nothing"
            " to grade"
        )


def test_interleaved_thinking_between_text_blocks_is_graded(loopback, suite_file, tmp_path):
    def shape(path, body, text):
        half = len(text) // 2
        content = [
            {"type": "thinking", "thinking": "first", "signature": "s"},
            {"type": "text", "text": text[:half]},
            {"type": "thinking", "thinking": "then", "signature": "s"},
            {"type": "text", "text": text[half:]},
        ]
        return 200, {**_message(text), "content": content}, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert d.lost is None and d.score is not None


def test_reasoning_between_two_answer_messages_is_graded(loopback, suite_file, tmp_path):
    def shape(path, body, text):
        half = len(text) // 2
        reasoning = {"type": "reasoning", "id": "rs", "summary": []}
        message = {"type": "message", "id": "m", "role": "assistant", "status": "completed"}
        parts = [
            [{"type": "output_text", "text": x, "annotations": []}]
            for x in (text[:half], text[half:])
        ]
        return 200, _response([reasoning, {**message, "content": parts[0]}, reasoning,
                               {**message, "content": parts[1]}]), {}  # fmt: skip

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses")
    for d in _draws(r):
        assert d.lost is None and d.score is not None
