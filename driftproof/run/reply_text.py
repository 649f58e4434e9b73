"""A reply's text as a run reads it: valid Unicode, reasoning kept apart from the answer (D-19)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from driftproof._json import JSONFault, json_kind, loads_strict

_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"
_REASONING_OPEN, _REASONING_CLOSE = "<reasoning>", "</reasoning>"
_SURROGATE = re.compile("[\ud800-\udfff]")


def json_or_none(text: str) -> Any:
    """``text`` parsed as JSON, or ``None`` when it is not strict JSON (a member name given twice).

    NaN, Infinity and numbers too large for a float (infinity) are taken, as ``json.loads`` does.
    """
    try:
        return loads_strict(text, allow_nan=True)
    except JSONFault:
        return None


def not_text(where: str, values: Iterable[Any]) -> str | None:
    """Why an answer cannot be read: the first of ``values`` that is no string, else ``None``.

    ``where`` names the member in words (``"a text block's text"``).
    """
    bad = next((json_kind(v) for v in values if not isinstance(v, str)), None)
    return None if bad is None else f"{where} is {bad}, not text, so there is nothing to grade"


def other_object(kind: Any, expected: str) -> str | None:
    """Why a reply body whose type member holds ``kind`` is not read, else ``None``.

    It names another object than ``expected`` (a streamed chunk or event sent to a non-streaming
    client); ``None`` when ``kind`` is ``expected`` or not given.
    """
    if kind is None or kind == expected:
        return None
    what = f"a {kind[:100]!r} object" if isinstance(kind, str) else json_kind(kind)
    return f"the reply is {what}, not a {expected}, so there is nothing to grade"


def other_role(role: Any) -> str | None:
    """Why a reply message whose ``role`` is given and is not ``assistant`` is unread, else None."""
    if role is None or role == "assistant":
        return None
    what = repr(role[:100]) if isinstance(role, str) else json_kind(role)
    return (
        f"the reply's message speaks as {what}, not as the assistant, so there is nothing to grade"
    )


def split_reasoning(text: str) -> tuple[str, str | None]:
    """``text`` as (final answer, reasoning ``None`` when there is none) (D-19).

    Reasoning is a leading ``<think>…</think>`` block (all the text when unclosed) or everything up
    to a ``</think>`` no ``<think>`` opens (a template that opens it in the prompt); the answer
    follows, leading white space trimmed. Leading ``<reasoning>…</reasoning>`` blocks (Amazon
    Bedrock's gpt-oss: one or more before the answer; all the text when one is unclosed) are
    reasoning too.
    """
    head = text.lstrip()
    if head.startswith(_REASONING_OPEN):
        return _reasoning_blocks(head)
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


def _reasoning_blocks(head: str) -> tuple[str, str | None]:
    """``head``, which starts with ``<reasoning>``, as (answer, its leading blocks' reasoning)."""
    thought: list[str] = []
    while head.startswith(_REASONING_OPEN):
        body = head[len(_REASONING_OPEN) :]
        end = body.find(_REASONING_CLOSE)
        if end == -1:
            return "", joined_reasoning(*thought, body)
        thought.append(body[:end])
        head = body[end + len(_REASONING_CLOSE) :].lstrip()
    return head, joined_reasoning(*thought)


#: Tags that mark reasoning left in an answer: think tags, and what a server without the model's
#: reasoning parser sends as text: gpt-oss's Harmony channel marker (``<|channel|>analysis…``),
#: Seed-OSS's think tags, Magistral's ``[THINK]`` tokens, Gemma 4's thought channel
#: (``<|channel>thought…<channel|>``), Kimi's ``◁think▷…◁/think▷`` (SGLang's ``KimiDetector``)
#: and Cohere Command A's thinking tokens (vllm/reasoning/cohere_command_reasoning_parser.py);
#: and Bedrock's reasoning tags.
MIXED_TAGS = (
    _THINK_OPEN,
    _THINK_CLOSE,
    *"<|channel|> <seed:think> </seed:think> [THINK] [/THINK] <|channel> <channel|>".split(),
    *"\u25c1think\u25b7 \u25c1/think\u25b7 <|START_THINKING|> <|END_THINKING|>".split(),
    _REASONING_OPEN,
    _REASONING_CLOSE,
)

#: Reasoning markup read only where a reply opens with it, being plain words elsewhere: IBM
#: Granite's "Here is my thought process:" or "Here's …" (vLLM's granite reasoning parser), and
#: gpt-oss's Harmony analysis channel sent with its special tokens dropped, which leaves
#: ``analysisUser says…assistantfinal…`` (oobabooga/textgen#7374, sgl-project/sglang#9244):
#: "analysis" run into the next word, with or without its final channel.
_LEADING = re.compile(r"\s*((?:Here's|Here is) my thought process:|analysis(?=[^\W\d_]))")
_HARMONY_BARE = "analysis…"


def _mixed(answer: str) -> tuple[int, str] | None:
    """(offset, marker) of the first reasoning marker in ``answer``, else ``None``."""
    found = [(i, t) for t in MIXED_TAGS if (i := answer.find(t)) != -1]
    if m := _LEADING.match(answer):
        said = m.group(1)
        found.append((m.start(1), _HARMONY_BARE if said == "analysis" else said))
    return min(found) if found else None


def mixed_reasoning_at(answer: str) -> int | None:
    """Offset of the first reasoning marker left by :func:`split_reasoning`, else ``None``.

    A marker is one of :data:`MIXED_TAGS` anywhere, or markup of :data:`_LEADING` opening it.
    """
    mark = _mixed(answer)
    return None if mark is None else mark[0]


def mixed_reason(answer: str) -> str:
    """Why ``answer``, holding reasoning markup (:func:`mixed_reasoning_at`), is lost."""
    at, tag = _mixed(answer) or (0, _THINK_OPEN)
    why = f"reasoning mixed into the answer: {tag} at character {at:,} of the answer"
    if tag in (_THINK_OPEN, _THINK_CLOSE, _REASONING_OPEN, _REASONING_CLOSE):
        why += " (only a leading reasoning block is kept apart)"
    else:
        why += " (the model's reasoning markup sent as text: the server parsed no reasoning)"
    return why + "; reasoning is never graded"


def joined_reasoning(*parts: str | None) -> str | None:
    """The reasoning pieces in reply order joined by blank lines; ``None`` when none."""
    kept = [p for p in parts if p is not None]
    return "\n\n".join(kept) if kept else None


def repair_text(text: str) -> tuple[str, int]:
    """``text`` with each lone UTF-16 surrogate made U+FFFD, and how many were replaced."""
    return (text, 0) if text.isascii() else _SURROGATE.subn("\ufffd", text)


def repaired(rec: dict[str, Any], where: str, text: str | None) -> str | None:
    """``text`` with lone surrogates as U+FFFD, each substitution noted in ``rec["repairs"]``."""
    if text is None:
        return None
    fixed, n = repair_text(text)
    if n:
        rec.setdefault("repairs", []).append({"field": where, "replaced": n})
    return fixed


def repaired_doc(rec: dict[str, Any], doc: Any, at: str = "") -> Any:
    """``doc`` (JSON) with every string made valid Unicode by :func:`repaired`.

    Each string repaired is noted in ``rec["repairs"]`` at its pointer under ``doc``, less the
    leading "/" (``stop_reason``, ``judge_samples/0/reported_model``).
    """
    if isinstance(doc, str):
        return repaired(rec, at[1:], doc)
    if isinstance(doc, dict):
        return {k: repaired_doc(rec, v, f"{at}/{k}") for k, v in doc.items()}
    if isinstance(doc, list):
        return [repaired_doc(rec, v, f"{at}/{i}") for i, v in enumerate(doc)]
    return doc
