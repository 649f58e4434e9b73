r"""Imported text made safe to seal: valid Unicode, and big fields bounded.

A lone surrogate or a non-UTF-8 byte in a source string becomes U+FFFD while parsing
(:func:`repair_tree`, with the runner's ``repair_text``); :func:`finish` records where the
receipt holds such text (``text_repairs``). A text longer than the schema allows is null, with
its pointer, sha256 and length in ``bounded_text``; its ``*_sha256`` member keeps the whole
text's hash.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from driftproof._json import escape as _esc
from driftproof.receipt import BoundedText, CaseArm, ReceiptBody, TextRepair, sha256_text
from driftproof.run.reply_text import repair_text

REPLACEMENT = "\ufffd"
#: A string repaired while parsing: (its repaired text, code points replaced).
Repair = tuple[str, int]
#: Characters: the receipt schema's maxLength of each bounded field.
PROMPT_MAX_CHARS = 262_144
ANSWER_MAX_CHARS = 1_048_576
INSTRUCTION_MAX_CHARS = 262_144
REFUSAL_MAX_CHARS = 65_536
_ARMS = ("with_skill", "baseline", "control")


def repair_tree(value: Any, repairs: list[Repair]) -> Any:
    """``value`` (parsed JSON) with every string and member name made valid Unicode.

    Each repaired string is appended to ``repairs``. Iterative: deep nesting cannot exhaust the
    stack.
    """
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
                pairs = [(repair_text(k), x) for k, x in v.items()]
                repairs.extend((fk, n) for (fk, n), _ in pairs if n)
                v = parent[key] = {fk: x for (fk, _), x in pairs}
            stack.extend((v, k) for k in v)
        elif isinstance(v, list):
            stack.extend((v, i) for i in range(len(v)))
    return root[0]


def _bound(body: ReceiptBody) -> ReceiptBody:
    """``body`` with every text too big for the receipt schema nulled and listed; idempotent."""
    found: list[BoundedText] = []

    def cut(text: str | None, limit: int, pointer: str) -> str | None:
        """The sha256 of ``text`` when it is longer than ``limit`` (it is then not copied)."""
        if text is None or len(text) <= limit:
            return None
        found.append(BoundedText(pointer=pointer, sha256=sha256_text(text), chars=len(text)))
        return found[-1].sha256

    def nulled(text: str | None, sha256: str | None, limit: int, where: str) -> dict[str, Any]:
        """The update nulling too big a text at ``where``, ``<key>_sha256`` keeping its hash."""
        key = where.rsplit("/", 1)[1]
        digest = cut(text, limit, where)
        return {} if digest is None else {key: None, f"{key}_sha256": sha256 or digest}

    def arm(case_arm: CaseArm, base: str) -> CaseArm:
        draws = list(case_arm.draws)
        for j, d in enumerate(draws):
            w = f"{base}/draws/{j}"
            update = nulled(d.answer, d.answer_sha256, ANSWER_MAX_CHARS, f"{w}/answer")
            if d.refusal is not None and cut(
                d.refusal.text, REFUSAL_MAX_CHARS, f"{w}/refusal/text"
            ):
                update["refusal"] = d.refusal.model_copy(update={"text": None})
            if update:
                draws[j] = d.model_copy(update=update)
        return case_arm.model_copy(update={"draws": draws})

    specs = {}
    for name in _ARMS:
        spec = getattr(body.arms, name)
        if spec is not None and cut(
            spec.instruction, INSTRUCTION_MAX_CHARS, f"/arms/{name}/instruction"
        ):
            specs[name] = spec.model_copy(update={"instruction": None})
    cases = list(body.cases)
    for i, case in enumerate(cases):
        update = nulled(case.prompt, case.prompt_sha256, PROMPT_MAX_CHARS, f"/cases/{i}/prompt")
        count = len(found)
        arms = {
            name: arm(a, f"/cases/{i}/arms/{_esc(name)}")
            for name in _ARMS
            if (a := getattr(case.arms, name)) is not None
        }
        if len(found) > count:
            update["arms"] = case.arms.model_copy(update=arms)
        if update:
            cases[i] = case.model_copy(update=update)
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
