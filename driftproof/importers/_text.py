r"""Imported text made safe to seal: valid Unicode, and big fields bounded.

A lone surrogate or a non-UTF-8 byte in a source string becomes U+FFFD while parsing
(:func:`repair_tree`, with the runner's ``repair_text``); :func:`finish` records where the
receipt holds such text (``text_repairs``). A text longer than the schema allows is null, with
its pointer, sha256 and length in ``bounded_text``; its ``*_sha256`` member keeps the whole
text's hash.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from driftproof._json import escape as _esc
from driftproof._json import pointer as _pointer
from driftproof.receipt import BoundedText, ReceiptBody, TextRepair, sha256_text
from driftproof.receipt._bounds import ANSWER_MAX_CHARS
from driftproof.run.reply_text import repair_text
from driftproof.wording import ARMS

REPLACEMENT = "\ufffd"
#: A string repaired while parsing: (its repaired text, code points replaced).
Repair = tuple[str, int]
#: Characters: the receipt schema's maxLength of each bounded field.
PROMPT_MAX_CHARS = 262_144
INSTRUCTION_MAX_CHARS = 262_144


#: Why a member name that is not valid Unicode is refused, not repaired.
NAME_NOT_UNICODE = (
    "expected a member name in UTF-8, found one holding a byte that is not (shown as U+FFFD): "
    "a name not read as written is not recognised, and its member would be left out unsaid"
)


class BadName(ValueError):
    """A member name holding a byte that is not UTF-8 or a lone surrogate, at ``pointer``."""

    def __init__(self, pointer: str) -> None:
        super().__init__(pointer)
        self.pointer = pointer


def _place(root: Any, target: object) -> list[Any]:
    """The path from ``root`` to the object ``target`` (by identity) in parsed JSON."""
    stack: list[tuple[Any, list[Any]]] = [(root, [])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if isinstance(node, (dict, list)):
            items = node.items() if isinstance(node, dict) else enumerate(node)
            stack.extend((v, [*path, k]) for k, v in items)
    return []  # pragma: no cover - target is in root


#: A lone surrogate in JSON text, or one escaped (``\ud800`` to ``\udfff``, either case).
_SURROGATE_IN_JSON = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")


def repair_tree(value: Any, repairs: list[Repair], text: str | None = None) -> Any:
    """``value`` (parsed JSON) with every string made valid Unicode.

    Each repaired string is appended to ``repairs``. Iterative: deep nesting cannot exhaust the
    stack. ``text``, the JSON text ``value`` was parsed from: where it holds no surrogate, bare
    or escaped, ``value`` is returned as it is, unwalked.

    Raises:
        BadName: a member name holding a byte that is not UTF-8 or a lone surrogate, at its
            pointer: the importer would not recognise it and leave its member out.
    """
    if text is not None and not _SURROGATE_IN_JSON.search(text):
        return value
    root: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        parent, key = stack.pop()
        v = parent[key]
        if isinstance(v, str):
            fixed, n = repair_text(v)
            if n:
                parent[key] = fixed
                repairs.append((fixed, n))
        elif isinstance(v, dict):
            if not all(k.isascii() for k in v):
                for k in v:
                    if (name := repair_text(k))[1]:
                        raise BadName(_pointer([*_place(root[0], v), name[0]]))
            stack.extend((v, k) for k in v)
        elif isinstance(v, list):
            stack.extend((v, i) for i in range(len(v)))
    return root[0]


def _bound(body: ReceiptBody) -> ReceiptBody:
    """``body`` with every text too big for the receipt schema nulled and listed; idempotent."""
    found: list[BoundedText] = []

    def cut(model: Any, key: str, limit: int, pointer: str, keep: bool = False) -> dict[str, Any]:
        """The update nulling ``model``'s ``key`` text when too long; ``keep``: its ``_sha256``."""
        text = getattr(model, key)
        if text is None or len(text) <= limit:
            return {}
        found.append(BoundedText(pointer=pointer, sha256=sha256_text(text), chars=len(text)))
        digest = (getattr(model, f"{key}_sha256") or found[-1].sha256) if keep else None
        return {key: None, **({f"{key}_sha256": digest} if keep else {})}

    def copy(model: Any, update: dict[str, Any]) -> Any:
        return model.model_copy(update=update) if update else model

    specs = {
        n: copy(s, cut(s, "instruction", INSTRUCTION_MAX_CHARS, f"/arms/{n}/instruction"))
        for n in ARMS
        if (s := getattr(body.arms, n)) is not None
    }
    cases = []
    for i, case in enumerate(body.cases):
        update = cut(case, "prompt", PROMPT_MAX_CHARS, f"/cases/{i}/prompt", keep=True)
        count, arms = len(found), {}
        for name in (n for n in ARMS if getattr(case.arms, n) is not None):
            w = f"/cases/{i}/arms/{_esc(name)}/draws"
            draws = []
            for j, d in enumerate(getattr(case.arms, name).draws):
                new = cut(d, "answer", ANSWER_MAX_CHARS, f"{w}/{j}/answer", keep=True)
                draws.append(copy(d, new))  # no importer records a refusal: none to bound
            arms[name] = getattr(case.arms, name).model_copy(update={"draws": draws})
        if len(found) > count:
            update["arms"] = case.arms.model_copy(update=arms)
        cases.append(copy(case, update))
    if not found:
        return body
    return body.model_copy(
        update={
            "arms": body.arms.model_copy(update=specs),
            "cases": cases,
            "bounded_text": [*(body.bounded_text or []), *found],
        }
    )


def _repaired_count(s: str, repairs: Sequence[Repair]) -> int:
    """How many U+FFFD in receipt string ``s`` came from repairs (not from the source)."""
    n = 0
    for text, count in repairs:
        if text in s:
            n += count * s.count(text)
        elif s in text:
            n += min(count, s.count(REPLACEMENT))
    return min(n, s.count(REPLACEMENT))


def _repairs_at(data: Any, repairs: Sequence[Repair]) -> list[TextRepair]:
    """The pointers of every string of receipt JSON ``data`` holding repaired text, in order."""
    found: list[TextRepair] = []
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        v, ptr = stack.pop()
        if isinstance(v, str):
            if REPLACEMENT in v and (n := _repaired_count(v, repairs)):
                found.append(TextRepair(pointer=ptr, replaced=n))
        elif isinstance(v, dict):
            stack.extend(
                (x, f"{ptr}/{_esc(k)}")
                for k, x in reversed(list(v.items()))
                if k not in ("text_repairs", "bounded_text")
            )
        elif isinstance(v, list):
            stack.extend((x, f"{ptr}/{i}") for i, x in reversed(list(enumerate(v))))
    return found


def finish(body: ReceiptBody, repairs: Sequence[Repair]) -> ReceiptBody:
    """``body`` with big fields bounded and the strings holding ``repairs`` in ``text_repairs``.

    Returns ``body`` itself when there was nothing to do.
    """
    body = _bound(body)
    if not repairs:
        return body
    found = _repairs_at(body.to_json_dict(), list(dict.fromkeys(repairs)))
    if not found:
        return body
    return body.model_copy(update={"text_repairs": [*(body.text_repairs or []), *found]})


#: A V8 stack frame: indented ``at``, then a place (``file:line:column``, ``<anonymous>``,
#: ``native``, ``index N``), in parentheses after a function's name or alone.
_JS_FRAME = re.compile(r"\s+at (?:.* \()?[^()]*?(?::\d+:\d+|<anonymous>|native|index \d+)\)?\s*")


def error_reason(error: str) -> str:
    """A draw's lost reason for a source ``error``: its message up to any JavaScript stack trace.

    A Node tool (promptfoo) appends ``err.stack`` to an error's message; the message alone is
    the cause a reader needs, and the whole text stays in the draw's ``source_error``. The
    stack starts at the first line after the first that reads as a V8 frame (:data:`_JS_FRAME`);
    a line of the message that merely opens with "at" is kept. At most 4,000 characters.
    """
    lines = error.split("\n")
    cut = next((i for i, x in enumerate(lines) if i and _JS_FRAME.fullmatch(x)), len(lines))
    message = "\n".join(lines[:cut]).rstrip() or error
    return f"source error: {message}"[:4000]
