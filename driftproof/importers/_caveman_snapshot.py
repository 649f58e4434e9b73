"""caveman's snapshot contract: reading ``evals/snapshots/results.json`` and refusing it as
caveman's own contract refuses it (its evals README, "Read the snapshot"): partial
(``metadata.error``, a null cell) or malformed. Every refusal names the snapshot's own JSON
pointer. :mod:`driftproof.importers.caveman` turns a snapshot that passes into receipts.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from driftproof._json import pointer
from driftproof.errors import ImportError_
from driftproof.importers._common import parse_json_bytes

__all__ = [
    "BASELINE_ARM",
    "CONTROL_ARM",
    "SNAPSHOT_MAX_BYTES",
    "check_snapshot",
    "load_snapshot",
    "read_capped",
    "snap_pointer",
]

#: caveman's arm with no system prompt (the baseline, D-16).
BASELINE_ARM = "__baseline__"
#: caveman's arm with the terse prefix as system prompt (the control, D-16).
CONTROL_ARM = "__terse__"
#: Bytes: the largest snapshot read.
SNAPSHOT_MAX_BYTES = 32 * 1024 * 1024
_ARM_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,80}$")
#: The receipt schema's date-time pattern (run.started_at).
_DATE_TIME = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\Z"
)


#: Characters: the receipt schema's limits for the metadata texts a snapshot supplies, checked
#: on the snapshot so a refusal names the snapshot's pointer, not the receipt's.
_META_TEXT: dict[str, tuple[str, int]] = {
    "model": ("a model id", 200),
    "generated_at": ("a date-time", 64),
    "terse_prefix": ("the control arm's instruction", 262_144),
    "claude_cli_version": ("a Claude Code version", 200),
}


def snap_pointer(*parts: Any) -> str:
    """The RFC 6901 pointer of a place in the snapshot."""
    return pointer(parts)


def read_capped(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``path``: a device or pipe that reports size 0 is not read
    without end."""
    with path.open("rb") as fh:
        return fh.read(limit + 1)


def load_snapshot(path: Path, shown: str) -> tuple[Any, str]:
    """The parsed snapshot and the sha256 of its bytes."""
    try:
        size = path.stat().st_size
        if size <= SNAPSHOT_MAX_BYTES:
            data = read_capped(path, SNAPSHOT_MAX_BYTES)
            size = len(data)
    except OSError as exc:
        raise ImportError_.at(shown, "", f"cannot read the snapshot: {exc.strerror}") from None
    if size > SNAPSHOT_MAX_BYTES:
        raise ImportError_.at(shown, "", f"snapshot is over {SNAPSHOT_MAX_BYTES} bytes, the limit")
    # bytes that are not UTF-8 inside a string become U+FFFD (repair_tree), in text_repairs
    return parse_json_bytes(data, shown, lead="not valid JSON"), hashlib.sha256(data).hexdigest()


def _text(value: str, shown: str, where: str, what: str, limit: int | None) -> str:
    """``value`` as receipt text of at most ``limit`` characters (``None``: any length, bounded
    later into ``bounded_text``), or the error naming the snapshot's own pointer. Parsing has
    already made it valid Unicode."""
    if limit is not None and len(value) > limit:
        raise ImportError_.at(
            shown, where, f"expected {what} of at most {limit} characters, found {len(value)}"
        )
    return value


def check_snapshot(doc: Any, shown: str) -> tuple[dict[str, Any], list[str], dict[str, list[str]]]:
    """caveman's snapshot contract. Returns (metadata, prompts, arms)."""
    if not isinstance(doc, dict):
        raise ImportError_.at(shown, "", "expected a JSON object with metadata, prompts and arms")
    meta = doc.get("metadata")
    if not isinstance(meta, dict):
        raise ImportError_.at(shown, "/metadata", "expected an object (the snapshot's metadata)")
    if "error" in meta:
        raise ImportError_.at(
            shown,
            "/metadata/error",
            "the snapshot is partial (the run stopped with an "
            "error); expected a finished snapshot with no metadata.error",
        )
    if "usage" in doc:
        raise ImportError_.at(
            shown,
            "/usage",
            "this importer reads snapshots without a usage block; "
            "usage is not imported yet, so the snapshot is refused rather than half-read",
        )
    prompts = doc.get("prompts")
    if not isinstance(prompts, list) or not prompts:
        raise ImportError_.at(shown, "/prompts", "expected a non-empty list of prompt strings")
    for i, p in enumerate(prompts):
        if not isinstance(p, str):
            raise ImportError_.at(
                shown, snap_pointer("prompts", i), f"expected a prompt string, found {_kind(p)}"
            )
        _text(p, shown, snap_pointer("prompts", i), "a prompt", None)
    n = meta.get("n_prompts")
    if type(n) is not int or n != len(prompts):
        raise ImportError_.at(
            shown,
            "/metadata/n_prompts",
            f"expected {len(prompts)} (the length of /prompts), found {json.dumps(n)}",
        )
    arms = doc.get("arms")
    if not isinstance(arms, dict):
        raise ImportError_.at(shown, "/arms", "expected an object of arm name -> list of outputs")
    for control in (BASELINE_ARM, CONTROL_ARM):
        if control not in arms:
            raise ImportError_.at(
                shown,
                snap_pointer("arms", control),
                f"missing control arm {control}: expected both {BASELINE_ARM} and {CONTROL_ARM}",
            )
    if len(arms) < 3:
        raise ImportError_.at(
            shown, "/arms", "expected at least one skill arm beside the two control arms"
        )
    for name, outputs in arms.items():
        where = snap_pointer("arms", name)
        if not _ARM_NAME.match(name) and name not in (BASELINE_ARM, CONTROL_ARM):
            raise ImportError_.at(
                shown, where, "expected a skill arm name of lowercase letters, digits, - or _"
            )
        if not isinstance(outputs, list):
            raise ImportError_.at(
                shown, where, f"expected a list of {len(prompts)} outputs, found {_kind(outputs)}"
            )
        if len(outputs) != len(prompts):
            raise ImportError_.at(
                shown,
                where,
                f"expected exactly one output per prompt ({len(prompts)}), found {len(outputs)}",
            )
        for i, out in enumerate(outputs):
            if out is None:
                raise ImportError_.at(
                    shown,
                    snap_pointer("arms", name, i),
                    "null cell: this call never finished (a partial snapshot); "
                    "expected a string output",
                )
            if not isinstance(out, str):
                raise ImportError_.at(
                    shown,
                    snap_pointer("arms", name, i),
                    f"expected a string output, found {_kind(out)}",
                )
            _text(out, shown, snap_pointer("arms", name, i), "an output", None)
    for key, (what, limit) in _META_TEXT.items():
        value = meta.get(key)
        if value is not None and not isinstance(value, str):
            # a wrong type is malformed, not unrecorded (D-13 keeps the two apart)
            raise ImportError_.at(
                shown,
                snap_pointer("metadata", key),
                f"expected {what} (a string) or no member, found {_json_kind(value)}",
            )
        if isinstance(value, str):
            _text(value, shown, snap_pointer("metadata", key), what, limit)
    started = meta.get("generated_at")
    if isinstance(started, str) and started.strip() and not _DATE_TIME.match(started):
        raise ImportError_.at(
            shown,
            "/metadata/generated_at",
            f"expected an RFC 3339 date-time with an offset, found {json.dumps(started[:64])}",
        )
    return meta, prompts, arms


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _json_kind(value: Any) -> str:
    """The JSON kind of ``value`` in words (``true``, ``a number``, ``an object``, ...)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    words = {
        int: "a number",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "an object",
    }
    return words.get(type(value), type(value).__name__)
