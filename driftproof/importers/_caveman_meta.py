"""What a caveman snapshot's metadata records: run, language, eval set (else unrecorded, D-13)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from driftproof.importers._common import Where
from driftproof.importers._time import parse_instant, run_times

_CLI_VERSION = re.compile(r"^(\d+\.\d+\.\d+)\s*\(Claude Code\)$")


_LANG = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")


#: ``results.<lang>.json`` and its partial twin ``results.<lang>.partial.json`` (llm_run.py's
#: ``with_suffix(".partial.json")``); ``results.partial.json`` names no language.
_LANG_FILE = re.compile(
    r"^results\.(?!partial\.json$)([A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*)(?:\.partial)?\.json$"
)


def language_of(meta: dict[str, Any], path: Path, shown: str) -> str | None:
    """``metadata.lang``, else ``<lang>`` of ``results.<lang>.json``, else ``None`` (D-13).

    A ``metadata.lang`` that disagrees with the file name is refused.
    """
    lang, w = meta.get("lang"), Where(shown) / "metadata" / "lang"
    if lang is not None and (not isinstance(lang, str) or len(lang) > 35 or not _LANG.match(lang)):
        raise w.fail(f"expected a language tag such as pt, found {json.dumps(lang)[:60]}")
    m = _LANG_FILE.match(path.name)
    if lang is not None and m is not None and m.group(1) != lang:
        raise w.fail(
            f"expected {m.group(1)!r}, the language the file name {path.name} names, found {lang!r}"
        )
    return lang if lang is not None else (m.group(1) if m else None)


def _str_or_none(meta: dict[str, Any], key: str) -> str | None:
    value = meta.get(key)
    return value if isinstance(value, str) and value.strip() else None


#: ``metadata.model`` values that name no model (the CLI's default): the model stays unknown.
PLACEHOLDER_MODELS = frozenset({"default", "<model-name>", "unknown"})


def run_of(
    meta: dict[str, Any], shown: str, unrecorded: list[str]
) -> tuple[dict[str, Any], str | None]:
    """The run's ``declared_receipt`` keywords (and ``started_offset``), the control's instruction.

    What the metadata leaves out is appended to ``unrecorded``.
    """
    model = _str_or_none(meta, "model")
    if model is not None and model.strip().lower() in PLACEHOLDER_MODELS:
        unrecorded.append(
            f"model: the snapshot records {json.dumps(model)}, the CLI's default, not a model id"
        )
        model = None
    elif model is None:
        unrecorded.append("model: the snapshot records none")
    generated = _str_or_none(meta, "generated_at")
    times: dict[str, str | None] = {"started_at": None, "started_at_offset": None}
    if generated is None:
        unrecorded.append("started_at: the snapshot records no generated_at")
    else:
        where = Where(shown) / "metadata" / "generated_at"
        times = run_times([parse_instant(generated, where)], [])
    terse = _str_or_none(meta, "terse_prefix")
    if terse is None:
        unrecorded.append("the control arm's instruction (no metadata.terse_prefix)")
    cli = _str_or_none(meta, "claude_cli_version")
    match = _CLI_VERSION.match(cli.strip()) if cli else None
    if match is None:
        unrecorded.append(
            "harness version: metadata.claude_cli_version is missing or not a Claude Code version"
        )
    run = {
        "model": model,
        "provider": "anthropic",
        "surface": "cli",
        "harness": {"name": "claude-code", "version": match.group(1) if match else None},
        "started_at": times["started_at"],
        "started_offset": times["started_at_offset"],
        "generations_per_arm": 1,
    }
    return run, terse


def eval_set(meta: dict[str, Any], fidelity: bool, shown: str) -> None:
    """Refuse a snapshot whose ``metadata.eval_set`` disagrees with whether cases were given."""
    value, w = meta.get("eval_set"), Where(shown) / "metadata" / "eval_set"
    if value is None:
        return
    if value not in ("length", "fidelity"):
        raise w.fail(f'expected "length" or "fidelity", found {json.dumps(value)[:60]}')
    if value == "fidelity" and not fidelity:
        raise w.fail(
            "a fidelity snapshot: expected its case file (prompts/fidelity.json, --cases) "
            "to score it against"
        )
    if value == "length" and fidelity:
        raise w.fail(
            'a length snapshot has no fidelity checks: expected "fidelity" when a case file '
            "is given"
        )
