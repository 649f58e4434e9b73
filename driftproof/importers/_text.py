"""Imported text made safe to seal: valid Unicode, and big fields bounded (issue 14, item 1).

Two kinds of fault, each fixed as a kind for every importer:

* **Invalid Unicode.** A source may hold a lone surrogate escape (``"\\ud800"``) or bytes that
  are not UTF-8 inside a string. No receipt can hold either (UTF-8, RFC 8785). Each such code
  point becomes U+FFFD, deterministically, while the source is parsed
  (:func:`repair_tree`), and the receipt records where, in ``text_repairs`` (v0.15):
  ``{pointer, replaced}``, the pointer into the receipt and how many code points were replaced.
* **Big fields.** A prompt, answer, control instruction or refusal longer than the receipt
  schema allows is not copied: the field is null and ``bounded_text`` (v0.15) records its
  pointer, the sha256 of its UTF-8 bytes and its length in characters
  (:func:`bound_document`). The field's own ``*_sha256`` member keeps the hash of the whole text.

Both run on the finished document (:func:`finalize_document`), which
:func:`driftproof.importers.get_importer` applies to every importer's output, so a new
importer gets them by registering. Parsing records the repaired strings in the current
:func:`collect_repairs` scope; :func:`finalize_document` finds them in the receipt by value.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
from collections.abc import Iterator
from typing import Any

from driftproof._json import escape as _esc

__all__ = [
    "ANSWER_MAX_CHARS",
    "INSTRUCTION_MAX_CHARS",
    "PROMPT_MAX_CHARS",
    "REFUSAL_MAX_CHARS",
    "REPLACEMENT",
    "bound_document",
    "collect_repairs",
    "finalize_document",
    "repair_text",
    "repair_tree",
]

REPLACEMENT = "\ufffd"
#: Characters: the receipt schema's maxLength of each bounded field (receipt-0.15.schema.json).
PROMPT_MAX_CHARS = 262_144
ANSWER_MAX_CHARS = 1_048_576
INSTRUCTION_MAX_CHARS = 262_144
REFUSAL_MAX_CHARS = 65_536

_REPAIRS: contextvars.ContextVar[list[tuple[str, int]] | None] = contextvars.ContextVar(
    "_REPAIRS", default=None
)


def repair_text(value: str) -> tuple[str, int]:
    """``value`` with every surrogate code point (a lone ``\\ud800`` escape, or an undecodable
    byte read with ``surrogateescape``) replaced by U+FFFD, and how many were replaced.

    A valid surrogate pair never reaches here: JSON parsing joins it into one code point.
    """
    if value.isascii():
        return value, 0
    n = 0
    out = []
    for ch in value:
        if "\ud800" <= ch <= "\udfff":
            out.append(REPLACEMENT)
            n += 1
        else:
            out.append(ch)
    return ("".join(out), n) if n else (value, 0)


def _note(repaired: str, n: int) -> None:
    sink = _REPAIRS.get()
    if sink is not None:
        sink.append((repaired, n))


def repair_tree(value: Any) -> Any:
    """A parsed JSON value with every string and member name made valid Unicode
    (:func:`repair_text`); each repaired string is noted in the current :func:`collect_repairs`
    scope. Iterative: a deeply nested source does not exhaust the stack."""
    root: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        parent, key = stack.pop()
        v = parent[key]
        if isinstance(v, str):
            fixed, n = repair_text(v)
            if n:
                parent[key] = fixed
                _note(fixed, n)
        elif isinstance(v, dict):
            if not all(k.isascii() for k in v):
                items = []
                for k, x in v.items():
                    fk, n = repair_text(k)
                    if n:
                        _note(fk, n)
                    items.append((fk, x))
                v = dict(items)
                parent[key] = v
            stack.extend((v, k) for k in v)
        elif isinstance(v, list):
            stack.extend((v, i) for i in range(len(v)))
    return root[0]


@contextlib.contextmanager
def collect_repairs() -> Iterator[list[tuple[str, int]]]:
    """A scope in which parsing notes each repaired string as ``(repaired text, code points
    replaced)``."""
    sink: list[tuple[str, int]] = []
    token = _REPAIRS.set(sink)
    try:
        yield sink
    finally:
        _REPAIRS.reset(token)


def _bounded(
    doc: dict[str, Any],
    parent: dict[str, Any],
    key: str,
    limit: int,
    pointer: str,
    sha_key: str | None,
) -> None:
    text = parent.get(key)
    if not isinstance(text, str) or len(text) <= limit:
        return
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    parent[key] = None
    if sha_key is not None and parent.get(sha_key) is None:
        parent[sha_key] = digest
    doc.setdefault("bounded_text", None)
    if doc["bounded_text"] is None:
        doc["bounded_text"] = []
    doc["bounded_text"].append({"pointer": pointer, "sha256": digest, "chars": len(text)})


def bound_document(doc: dict[str, Any]) -> dict[str, Any]:
    """Null every prompt, answer, control instruction and refusal text longer than the receipt
    schema allows, recording each in ``bounded_text`` (pointer, sha256, characters). In place;
    returns ``doc``. Idempotent: a bounded field is null and is not bounded twice."""
    for name, spec in (doc.get("arms") or {}).items():
        if isinstance(spec, dict):
            _bounded(
                doc,
                spec,
                "instruction",
                INSTRUCTION_MAX_CHARS,
                f"/arms/{_esc(name)}/instruction",
                None,
            )
    for i, case in enumerate(doc.get("cases") or []):
        if not isinstance(case, dict):
            continue
        _bounded(doc, case, "prompt", PROMPT_MAX_CHARS, f"/cases/{i}/prompt", "prompt_sha256")
        for name, arm in (case.get("arms") or {}).items():
            if not isinstance(arm, dict):
                continue
            for j, d in enumerate(arm.get("draws") or []):
                if not isinstance(d, dict):
                    continue
                base = f"/cases/{i}/arms/{_esc(name)}/draws/{j}"
                _bounded(doc, d, "answer", ANSWER_MAX_CHARS, f"{base}/answer", "answer_sha256")
                if isinstance(d.get("refusal"), dict):
                    _bounded(
                        doc, d["refusal"], "text", REFUSAL_MAX_CHARS, f"{base}/refusal/text", None
                    )
    return doc


def _repaired_count(s: str, repairs: list[tuple[str, int]]) -> int:
    """How many U+FFFD in receipt string ``s`` came from repairs: a repaired source string
    inside it counts whole; ``s`` cut from one (a truncated reason) counts what it kept."""
    n = 0
    for text, count in repairs:
        if text in s:
            n += count * s.count(text)
        elif s in text:
            n += min(count, s.count(REPLACEMENT))
    return min(n, s.count(REPLACEMENT))


def finalize_document(doc: dict[str, Any], repairs: list[tuple[str, int]]) -> dict[str, Any]:
    """Bound big fields (:func:`bound_document`) and record in ``text_repairs`` every receipt
    string that holds text repaired while parsing, by RFC 6901 pointer, in document order.
    In place; returns ``doc``."""
    bound_document(doc)
    if not repairs:
        return doc
    unique = list(dict.fromkeys(repairs))
    found: list[dict[str, Any]] = []
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        v, ptr = stack.pop()
        if isinstance(v, str):
            if REPLACEMENT in v:
                n = _repaired_count(v, unique)
                if n:
                    found.append({"pointer": ptr, "replaced": n})
        elif isinstance(v, dict):
            stack.extend(
                (x, f"{ptr}/{_esc(k)}")
                for k, x in reversed(list(v.items()))
                if k not in ("text_repairs", "bounded_text")
            )
        elif isinstance(v, list):
            stack.extend((x, f"{ptr}/{i}") for i, x in reversed(list(enumerate(v))))
    if found:
        doc["text_repairs"] = (doc.get("text_repairs") or []) + found
    return doc
