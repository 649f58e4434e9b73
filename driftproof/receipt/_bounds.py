"""Limits checked before a receipt, an answers archive or identity evidence is parsed further.

Sizes are in bytes of the file as stored, string lengths in characters (code points),
collection lengths in items; one constant each, so every reader and the specification page
state the same number. Diagnostics are bounded: at most :data:`MAX_PROBLEMS` per file, each
quoting at most :data:`MAX_QUOTE` characters.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any, Final

from driftproof._json import pointer
from driftproof.errors import BoundsError, DriftproofError, Problem

# --- receipts -------------------------------------------------------------------------

#: Bytes: the largest receipt file a reader parses at all (checked on the file's size
#: before a byte is read).
RECEIPT_MAX_BYTES: Final[int] = 256 * 1024 * 1024
#: Bytes: the largest receipt whose lift breakdown is computed; a larger receipt keeps its
#: sheet and diff, and its breakdown reads unavailable, naming this limit.
BREAKDOWN_MAX_BYTES: Final[int] = 64 * 1024 * 1024
#: Levels: the deepest JSON nesting accepted (a receipt needs about 10; ``source_figures``
#: holds what a source printed and may nest a little more).
MAX_DEPTH: Final[int] = 64
#: Characters: the longest string anywhere in a receipt (an answer; the schema's own
#: ``maxLength`` values are at most this).
RECEIPT_MAX_STRING_CHARS: Final[int] = 1024 * 1024
#: Items: the longest array anywhere in a receipt (``cases``; the schema's ``maxItems`` are
#: at most this).
RECEIPT_MAX_ITEMS: Final[int] = 100_000
#: Items: the most members one JSON object may hold.
RECEIPT_MAX_MEMBERS: Final[int] = 10_000
#: Characters: the longest member name in a receipt.
RECEIPT_MAX_KEY_CHARS: Final[int] = 1_000
#: The largest integer magnitude RFC 8785 can seal exactly (2**53 - 1, I-JSON).
JSON_SAFE_INTEGER: Final[int] = 2**53 - 1
#: Items: the most checks one draw holds (equal to the schema's ``draw.checks`` maxItems).
DRAW_MAX_CHECKS: Final[int] = 200

# --- answers archives (kept transcripts, read by a regrade) ---------------------------

#: Bytes: the largest answers archive a regrade reads, checked before it is parsed.
ANSWERS_ARCHIVE_MAX_BYTES: Final[int] = 256 * 1024 * 1024
#: Items: the most answers (one per draw) one archive may hold.
ANSWERS_ARCHIVE_MAX_ENTRIES: Final[int] = 200_000
#: Characters: the longest answer text (equal to the schema's ``draw.answer`` maxLength).
ANSWER_MAX_CHARS: Final[int] = 1024 * 1024
#: Characters: the longest judge reply kept beside an answer.
JUDGE_REPLY_MAX_CHARS: Final[int] = 65_536
#: Items: the most judge samples per answer (equal to the schema's ``judge_samples`` maxItems).
JUDGE_SAMPLES_MAX_PER_ANSWER: Final[int] = 100

# --- identity evidence (reported and serving model ids of judge replies) --------------

#: Bytes: the largest identity evidence block of one judge reply, checked before ids are copied.
IDENTITY_EVIDENCE_MAX_BYTES: Final[int] = 64 * 1024
#: Items: the most reported model ids one judge reply may carry (a mixed-model reply names several).
IDENTITY_MAX_IDS_PER_SAMPLE: Final[int] = 16
#: Items: the most distinct judge ids one receipt's aggregate list may hold.
IDENTITY_MAX_DISTINCT_IDS: Final[int] = 64
#: Characters: the longest model id (equal to the schema's ``reported_model`` maxLength).
MODEL_ID_MAX_CHARS: Final[int] = 200

# --- diagnostics ----------------------------------------------------------------------

#: Problems: at most this many are reported for one file, then a count of the rest.
MAX_PROBLEMS: Final[int] = 20
#: Characters: the longest excerpt of an offending value quoted in a message.
MAX_QUOTE: Final[int] = 80


def cut_label(text: str, limit: int = 200) -> str:
    """``text`` when at most ``limit`` characters long, else its first ``limit - 1`` and "…".

    200 is what a receipt's labels hold (a check's name, a figure's label or print, an arm's
    label, the suite's name, an item of ``provenance.unrecorded``). The mark shows the cut: no
    reader takes a cut label for the source's whole text.
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quote(value: Any) -> str:
    """A JSON excerpt of ``value`` for a message, at most :data:`MAX_QUOTE` characters (+ "…")."""
    if isinstance(value, str) and len(value) > MAX_QUOTE:
        value = value[:MAX_QUOTE]
    elif isinstance(value, dict):
        return f"an object of {len(value)} members"
    elif isinstance(value, list):
        return f"an array of {len(value)} items"
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text[:MAX_QUOTE] + "…" if len(text) > MAX_QUOTE else text


def refuse(
    error: type[DriftproofError],
    file: str | Path,
    found: Iterable[tuple[str, str]],
    suffix: str = "",
    rest: str = "more problems",
) -> None:
    """Raise ``error`` for the ``(pointer, message)`` pairs ``found``, if there are any.

    It lists the first :data:`MAX_PROBLEMS` (each message followed by ``suffix``), then
    ``… and N <rest>``; its message is the first problem and ``(and N more)``, N counting every
    other problem found.
    """
    pairs = iter(found)
    problems = [Problem(str(file), at, m + suffix) for at, m in islice(pairs, MAX_PROBLEMS)]
    if not problems:
        return
    extra = sum(1 for _ in pairs)
    others = len(problems) - 1 + extra
    if extra:
        if extra == 1:  # "… and 1 more problem"
            rest = rest.replace("problems", "problem")
        problems.append(Problem(str(file), "", f"… and {extra} {rest}"))
    raise error(f"{problems[0]}" + (f" (and {others} more)" if others else ""), problems)


def _pointer(node: tuple[Any, ...] | None) -> str:
    keys: list[Any] = []
    while node is not None:
        node, key = node
        keys.append(key)
    return pointer(reversed(keys))


def check_json_bounds(
    value: Any,
    file: str | Path,
    *,
    max_depth: int = MAX_DEPTH,
    max_string_chars: int = RECEIPT_MAX_STRING_CHARS,
    max_items: int = RECEIPT_MAX_ITEMS,
    max_members: int = RECEIPT_MAX_MEMBERS,
    max_key_chars: int = RECEIPT_MAX_KEY_CHARS,
) -> None:
    """Refuse parsed JSON that exceeds a bound, before any schema or model sees it.

    Also refuses what RFC 8785 cannot seal: integers beyond ±(2**53 − 1), non-finite numbers
    and lone surrogates. Iterative (no stack exhaustion); the defaults are the receipt's limits.

    Raises:
        BoundsError: naming the file and, for each of at most :data:`MAX_PROBLEMS` places,
            the JSON pointer, the limit and what was found.
    """
    if _within(value, max_depth, max_string_chars, max_items, max_members, max_key_chars):
        return

    def over() -> Iterator[tuple[tuple[Any, ...] | None, str]]:
        stack: list[tuple[Any, tuple[Any, ...] | None, int]] = [(value, None, 1)]
        while stack:
            v, node, depth = stack.pop()
            if depth > max_depth and isinstance(v, (list, dict)):
                yield node, f"expected nesting of at most {max_depth} levels"
            elif isinstance(v, list):
                if len(v) > max_items:
                    yield node, f"expected at most {max_items} items, found {len(v)}"
                else:
                    stack.extend((x, (node, i), depth + 1) for i, x in enumerate(v))
            elif isinstance(v, dict):
                if len(v) > max_members:
                    yield node, f"expected at most {max_members} members, found {len(v)}"
                    continue
                for k, x in v.items():
                    if len(k) > max_key_chars or not _valid_unicode(k):
                        yield (
                            node,
                            f"expected member names of at most {max_key_chars} characters of "
                            f"valid Unicode, found {quote(k)}",
                        )
                    else:
                        stack.append((x, (node, k), depth + 1))
            elif (problem := _scalar_problem(v, max_string_chars)) is not None:
                yield node, problem

    found = ((_pointer(node), message) for node, message in over())
    refuse(BoundsError, file, found, rest="more problems over the limits")


def _scalar_problem(v: Any, max_string_chars: int) -> str | None:
    """What is wrong with a string or number RFC 8785 cannot seal or that is too long."""
    if isinstance(v, str):
        if len(v) > max_string_chars:
            return f"expected a string of at most {max_string_chars} characters, found {len(v)}"
        if not _valid_unicode(v):
            return "expected valid Unicode text, found a lone surrogate escape"
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, int) and abs(v) > JSON_SAFE_INTEGER:
        return (
            f"expected an integer within ±{JSON_SAFE_INTEGER} (RFC 8785 seals no larger), "
            f"found one of {len(str(abs(v)))} digits"
        )
    return None if isinstance(v, int) or math.isfinite(v) else "expected a finite number"


def within_bounds(value: Any, depth: int = 1) -> bool:
    """Whether ``value``, a receipt part at nesting level ``depth``, is within its bounds.

    ``False`` sends the caller to :func:`check_json_bounds`, which words each problem.
    """
    return _within(value, MAX_DEPTH - depth + 1)


def _within(
    value: Any,
    max_depth: int,
    max_string_chars: int = RECEIPT_MAX_STRING_CHARS,
    max_items: int = RECEIPT_MAX_ITEMS,
    max_members: int = RECEIPT_MAX_MEMBERS,
    max_key_chars: int = RECEIPT_MAX_KEY_CHARS,
) -> bool:
    """Whether ``value`` (exact JSON types) is plainly within every bound: fast, no words."""
    safe = JSON_SAFE_INTEGER
    if type(value) is not dict and type(value) is not list:
        return _within({"": value}, 1, max_string_chars, 1, 1, 0)  # a lone value: as a member
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        container, depth = stack.pop()
        if depth > max_depth:
            return False
        if type(container) is dict:
            if len(container) > max_members:
                return False
            try:
                names = "".join(container)  # every member name at once, checked in C
            except TypeError:  # a name that is not a string
                return False
            if len(names) > max_key_chars and max(map(len, container)) > max_key_chars:
                return False
            if not (names.isascii() or _valid_unicode(names)):  # a surrogate stays one
                return False
            children: Any = container.values()
        else:
            if len(container) > max_items:
                return False
            children = container
        for x in children:
            t = type(x)
            if t is str:
                if len(x) > max_string_chars or not (x.isascii() or _valid_unicode(x)):
                    return False
            elif t is float:
                if not math.isfinite(x):
                    return False
            elif t is dict or t is list:
                stack.append((x, depth + 1))
            elif t is int:
                if x > safe or x < -safe:
                    return False
            elif x is not None and t is not bool:
                return False
    return True


_SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_unicode(s: str) -> bool:
    return s.isascii() or not _SURROGATE.search(s)  # all but a lone surrogate encodes


def breakdown_size_ok(source: str | Path | bytes | int) -> bool:
    """Whether a receipt (path, bytes or size) is at most :data:`BREAKDOWN_MAX_BYTES`.

    Raises OSError for a path that cannot be stat'ed.
    """
    return breakdown_unavailable_reason(source) is None


def breakdown_unavailable_reason(source: str | Path | bytes | int) -> str | None:
    """The sentence naming size and limit (bytes) when the receipt is too large, else ``None``.

    Raises OSError for a path that cannot be stat'ed.
    """
    if isinstance(source, str | Path):
        source = Path(source).stat().st_size
    size = len(source) if isinstance(source, bytes) else source
    if size <= BREAKDOWN_MAX_BYTES:
        return None
    return (
        f"Breakdown unavailable: the receipt is {size} bytes, over the breakdown's size limit of "
        f"{BREAKDOWN_MAX_BYTES} bytes. Its sheet and its diff report are unaffected."
    )
