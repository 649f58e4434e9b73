"""Reading an OpenAI Evals run's output items: an API list page, a JSON array, or JSONL."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from driftproof.errors import ImportError_
from driftproof.importers._common import (
    Where,
    canonical_json,
    is_count,
    parse_json_bytes,
    read_bytes,
    source_tokens,
)
from driftproof.importers._schema import validate_source
from driftproof.importers._text import Repair

#: The most output items read from one file.
MAX_ROWS = 200_000
_ITEM_KEYS = ("datasource_item_id", "data_source_idx", "data_source_id")
_ERROR_KEYS = ("code", "type", "message")


def read_rows(
    path: Path, repairs: list[Repair]
) -> tuple[list[tuple[dict[str, Any], Where]], bytes]:
    """The output items of ``path`` with their places, and the file's bytes.

    ``.jsonl``/``.ndjson`` is JSONL (a line's pointer ``/<0-based index>``); other text that
    parses whole is JSON (array, list page or one item), else JSONL too.

    Raises:
        ImportError_: unreadable file, a line that is not JSON, or an item of the wrong shape,
            naming the file, the JSON pointer and what was expected.
    """
    raw = read_bytes(path)
    w = Where(path)
    whole: Any = None
    text = raw.lstrip()
    if text[:1] in (b"[", b"{") and path.suffix.lower() not in (".jsonl", ".ndjson"):
        try:
            whole = parse_json_bytes(raw, path, repairs, allow_nan=True)
        except ImportError_:
            if text[:1] == b"[":
                raise
    rows: list[tuple[Any, Where]] = []
    if isinstance(whole, list):
        rows = [(r, w / i) for i, r in enumerate(whole)]
    elif isinstance(whole, dict) and isinstance(whole.get("data"), list) and "run_id" not in whole:
        rows = [(r, w / "data" / i) for i, r in enumerate(whole["data"])]
    elif isinstance(whole, dict):
        rows = [(whole, w)]
    else:
        for i, line in enumerate(raw.split(b"\n")):
            if not line.strip():
                continue
            try:
                rows.append((parse_json_bytes(line, path, repairs, allow_nan=True), w / i))
            except ImportError_ as exc:
                raise (w / i).fail(f"line {i + 1}: {exc.problems[0].message}") from None
            if len(rows) > MAX_ROWS:
                break
    if not rows:
        raise w.fail(
            "expected OpenAI Evals output items (JSONL, a JSON array or a list page); found none"
        )
    if len(rows) > MAX_ROWS:
        raise w.fail(f"expected at most {MAX_ROWS} output items, found more")
    for row, rw in rows:
        validate_source(row, "openai-evals", path, prefix=rw.parts)
    return rows, raw


def parse_row(row: dict[str, Any], w: Where) -> dict[str, Any]:
    """One output item in the importer's terms (either shape)."""
    key_name = next((k for k in _ITEM_KEYS if row.get(k) is not None), None)
    if key_name is None:
        raise w.fail(
            "expected the data source item's id (datasource_item_id or data_source_idx), found none"
        )
    key = str(row[key_name])
    item = row.get("datasource_item") if row.get("datasource_item") is not None else row.get("item")
    prompt = item.get("input") if isinstance(item, dict) else None
    prompt = prompt if isinstance(prompt, str) else None
    grades: dict[str, tuple[Any, Where]] = {}
    replies: dict[str, str] = {}
    for i, res in enumerate(row.get("results") or []):
        rw = w / "results" / i
        # a second result of one grader would silently replace the first
        if res["name"] in grades:
            raise (rw / "name").fail(
                f"expected each grader once per item, found {res['name'][:80]!r} again"
            )
        grades[res["name"]] = (res.get("score"), rw / "score")
        if (text := _last_text((res.get("sample") or {}).get("output"))) is not None:
            replies[res["name"]] = text
    for gname, value in (row.get("grades") or {}).items():
        grades.setdefault(gname, (value, w / "grades" / gname))
    for gname, gs in (row.get("grader_samples") or {}).items():
        if (text := _last_text((gs or {}).get("outputs"))) is not None:
            replies.setdefault(gname, text)
    sample = row.get("sample") or {}
    usage = sample.get("usage") if sample.get("usage") is not None else sample.get("token_usage")
    tokens = source_tokens(usage, "prompt_tokens", "completion_tokens")
    if tokens is not None and isinstance(usage, dict) and is_count(usage.get("cached_tokens")):
        tokens["cache_read_input"] = usage["cached_tokens"]
    model = sample.get("model") or sample.get("sampled_model_name")
    outputs = sample.get("output") if sample.get("output") is not None else sample.get("outputs")
    return {
        "run": row.get("run_id"),
        "key": key,
        "content": _content_sha256(item),
        "prompt": prompt,
        "grades": grades,
        "replies": replies,
        "answer": _last_text(outputs),
        "tokens": tokens,
        "model": model if isinstance(model, str) and model.strip() else None,
        "error": _error(sample.get("error"), row.get("status")),
        "stop": sample.get("finish_reason"),
        "created_at": row.get("created_at"),
        "where": w,
    }


def _content_sha256(item: Any) -> str | None:
    """sha256 of a data source item's RFC 8785 JSON (what makes two runs' items the same case)."""
    if item is None:
        return None
    # NaN and the like: a stable fallback
    data = canonical_json(item) or json.dumps(item, sort_keys=True, default=str).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def _error(error: Any, status: Any) -> tuple[str, str] | None:
    """The sample's error as (message, lost reason led by its code or type); empty: ``None``."""
    if isinstance(error, str) and error.strip():
        return error.strip()[:4000], f"source error: {error.strip()}"[:4000]
    if isinstance(error, dict):
        texts = {k: v.strip() if isinstance(v := error.get(k), str) else "" for k in _ERROR_KEYS}
        code, message = texts["code"] or texts["type"], texts["message"]
        if code or message:
            text = message or code
            return text[:4000], (
                f"source error ({code}): {text}" if code and message else f"source error: {text}"
            )[:4000]
    if status == "error":
        text = "the run marked this output item status 'error' and gave no message"
        return text, f"source error: {text}"
    return None


def _last_text(messages: Any) -> str | None:
    """The text of the last message holding text (an assistant reply), else ``None``."""
    if not isinstance(messages, list):
        return None
    for m in reversed(messages):
        if isinstance(m, dict) and isinstance(m.get("content"), str):
            return m["content"]
    return None
