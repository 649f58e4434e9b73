"""A reply's text as a run reads it: made valid Unicode, reasoning kept apart from the answer.

Reasoning (D-19) is never graded, checked or shown to the judge: a leading ``<think>`` block
is split off, and a tag left in the answer after that makes the answer ``reasoning_mixed``.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "joined_reasoning",
    "json_or_none",
    "mixed_reasoning_at",
    "repair_text",
    "split_reasoning",
]

_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"


def json_or_none(text: str) -> Any:
    """``text`` parsed as JSON, or ``None`` when it is not JSON.

    A structured decision read from a reply, which the judge then checks.
    """
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def split_reasoning(text: str) -> tuple[str, str | None]:
    """``text`` as (final answer, reasoning) (D-19).

    A leading ``<think>…</think>`` block (white space before it allowed; unclosed, the whole
    text is reasoning), or everything up to a ``</think>`` that no ``<think>`` opens (a chat
    template that opens the block in the prompt, as DeepSeek-R1's does), is reasoning; the
    answer is what follows, white space trimmed at its start. Text with neither is all answer
    (reasoning ``None``).
    """
    head = text.lstrip()
    if head.startswith(_THINK_OPEN):
        body = head[len(_THINK_OPEN) :]
        end = body.find(_THINK_CLOSE)
        if end == -1:
            return "", body
        return body[end + len(_THINK_CLOSE) :].lstrip(), body[:end]
    end = text.find(_THINK_CLOSE)
    if end != -1 and _THINK_OPEN not in text[:end]:
        return text[end + len(_THINK_CLOSE) :].lstrip(), text[:end]
    return text, None


def mixed_reasoning_at(answer: str) -> int | None:
    """The offset of the first ``<think>`` or ``</think>`` tag left in a final answer.

    Read after :func:`split_reasoning` took off a leading block; ``None`` when there is none.
    A tag there is reasoning mixed into the answer, which is never graded (D-19).
    """
    at = [i for i in (answer.find(_THINK_OPEN), answer.find(_THINK_CLOSE)) if i != -1]
    return min(at) if at else None


def joined_reasoning(*parts: str | None) -> str | None:
    """The reasoning pieces of one reply in reply order, joined by blank lines.

    ``None`` when there are none (an empty piece is still reasoning the reply carried).
    """
    kept = [p for p in parts if p is not None]
    return "\n\n".join(kept) if kept else None


def repair_text(text: str) -> tuple[str, int]:
    """``text`` made valid Unicode: each lone UTF-16 surrogate becomes U+FFFD.

    Returns:
        (repaired text, how many code points were replaced).
    """
    try:
        text.encode("utf-8")
        return text, 0
    except UnicodeEncodeError:
        pass
    out = ["\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text]
    n = sum(1 for ch in text if 0xD800 <= ord(ch) <= 0xDFFF)
    return "".join(out), n
