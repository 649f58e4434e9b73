"""caveman's evals snapshot → one DECLARED receipt per skill arm (D-15, D-16).

caveman (github.com/JuliusBrussee/caveman) runs each prompt of a fixed list
through ``claude -p`` once per arm and commits the answers in
``evals/snapshots/results.json``::

    {"metadata": {"generated_at", "claude_cli_version", "model", "n_prompts", "terse_prefix"},
     "prompts": [str, ...],
     "arms": {"__baseline__": [str, ...], "__terse__": [str, ...], "<skill>": [str, ...], ...}}

Arms map as D-16 says: ``__baseline__`` (no system prompt) → baseline,
``__terse__`` (system prompt ``metadata.terse_prefix``) → control, and each
other arm → with_skill of its own receipt; caveman's skill arm sends the terse
prefix followed by the skill's SKILL.md. Each prompt is one case (ids ``p01``…),
each arm one draw holding the answer and its o200k_base output-token count
(:mod:`driftproof.tokens`). There is no judge, so no draw has a score and the
receipt is DECLARED: faithful, never a verdict (D-15). Everything the snapshot
did not record is listed in ``provenance.unrecorded`` and left null (D-13).

A cell caveman's runner wrote as ``__ERROR__: …`` (a call that failed) is not an answer: it
is a lost draw of kind ``source_error`` with the text kept in ``source_error``, never
tokenised. ``metadata.model: "default"`` names the CLI's default, not a model: the model
stays unknown (D-13). ``generated_at`` is parsed to an instant and stored in UTC with the
offset it was written in. Text that is not valid Unicode is made valid (U+FFFD) and a prompt
or answer too long to copy is bounded, as for every importer (issue 14).

The snapshot is refused, as caveman's own snapshot contract refuses it
(its evals README, "Read the snapshot"), when it is partial (``metadata.error``,
a null cell) or malformed: a missing control arm, no skill arm, an arm whose
length differs from the prompt list, a non-string output, an ``n_prompts`` that
does not match the prompts, or a skill arm with no SKILL.md in the skills
directory. Nothing is written on refusal.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from driftproof._json import pointer
from driftproof.errors import ImportError_
from driftproof.importers import Imported, register
from driftproof.importers._common import Where, parse_instant, parse_json_bytes, run_times
from driftproof.receipt import draw_doc, receipt_doc, sha256_text
from driftproof.tokens import COUNTED_BY, count_tokens

__all__ = ["BASELINE_ARM", "CONTROL_ARM", "TOOL", "import_caveman"]

BASELINE_ARM = "__baseline__"
CONTROL_ARM = "__terse__"
TOOL = "caveman-evals"

SNAPSHOT_MAX_BYTES = 32 * 1024 * 1024
SKILL_MAX_BYTES = 1024 * 1024
_ARM_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,80}$")
_CLI_VERSION = re.compile(r"^(\d+\.\d+\.\d+)\s*\(Claude Code\)$")
_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")
#: The receipt schema's date-time pattern (run.started_at).
_DATE_TIME = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})\Z"
)
#: Characters: the receipt schema's limits for the texts a snapshot supplies, checked on the
#: snapshot so a refusal names the snapshot's pointer, not the receipt's.
PROMPT_MAX_CHARS = 262_144
ANSWER_MAX_CHARS = 1_048_576
_META_TEXT: dict[str, tuple[str, int]] = {
    "model": ("a model id", 200),
    "generated_at": ("a date-time", 64),
    "terse_prefix": ("the control arm's instruction", 262_144),
    "claude_cli_version": ("a Claude Code version", 200),
}

#: What caveman's length snapshot never records (D-13); each stays unknown.
UNRECORDED_ALWAYS: tuple[str, ...] = (
    "judge: no answer was graded, so there are no scores",
    "usage: Claude's own input and output token counts and cost per call "
    "(output tokens here are o200k_base counts of the answer text)",
    "host isolation: the snapshot does not record whether installed plugins, settings or "
    "CLAUDE.md files could reach the calls",
    "temperature and other sampling settings (the claude -p defaults of the time)",
    "system prompt bytes of each arm (only the terse prefix is recorded)",
    "capture mode and the tools the agent could use",
    "suite file and its sha256 (only the prompt texts are recorded)",
    "finished_at: when the run ended",
    "endpoint attempts, retries and failed calls",
)


def _pointer(*parts: Any) -> str:
    return pointer(parts)


def _read_capped(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``path``: a device or pipe that reports size 0 is not read
    without end."""
    with path.open("rb") as fh:
        return fh.read(limit + 1)


def _load(path: Path, shown: str) -> tuple[Any, str]:
    """The parsed snapshot and the sha256 of its bytes."""
    try:
        size = path.stat().st_size
        if size <= SNAPSHOT_MAX_BYTES:
            data = _read_capped(path, SNAPSHOT_MAX_BYTES)
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


def _check(doc: Any, shown: str) -> tuple[dict[str, Any], list[str], dict[str, list[str]]]:
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
                shown, _pointer("prompts", i), f"expected a prompt string, found {_kind(p)}"
            )
        _text(p, shown, _pointer("prompts", i), "a prompt", None)
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
                _pointer("arms", control),
                f"missing control arm {control}: expected both {BASELINE_ARM} and {CONTROL_ARM}",
            )
    if len(arms) < 3:
        raise ImportError_.at(
            shown, "/arms", "expected at least one skill arm beside the two control arms"
        )
    for name, outputs in arms.items():
        where = _pointer("arms", name)
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
                    _pointer("arms", name, i),
                    "null cell: this call never finished (a partial snapshot); expected a string output",
                )
            if not isinstance(out, str):
                raise ImportError_.at(
                    shown,
                    _pointer("arms", name, i),
                    f"expected a string output, found {_kind(out)}",
                )
            _text(out, shown, _pointer("arms", name, i), "an output", None)
    for key, (what, limit) in _META_TEXT.items():
        value = meta.get(key)
        if value is not None and not isinstance(value, str):
            # a wrong type is a malformed snapshot, not an unrecorded value (D-13 keeps the two apart)
            raise ImportError_.at(
                shown,
                _pointer("metadata", key),
                f"expected {what} (a string) or no member, found {_json_kind(value)}",
            )
        if isinstance(value, str):
            _text(value, shown, _pointer("metadata", key), what, limit)
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


def _skill_text(skills_dir: Path, arm: str, shown: str) -> str:
    path = skills_dir / arm / "SKILL.md"
    where = _pointer("arms", arm)
    if not path.is_file():
        raise ImportError_.at(
            shown, where, f"no SKILL.md for this skill arm: expected the file {path}"
        )
    try:
        data = _read_capped(path, SKILL_MAX_BYTES)
    except OSError as exc:
        raise ImportError_.at(shown, where, f"cannot read {path}: {exc.strerror}") from None
    if len(data) > SKILL_MAX_BYTES:
        raise ImportError_.at(shown, where, f"{path} is over {SKILL_MAX_BYTES} bytes, the limit")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportError_.at(
            shown, where, f"{path} is not UTF-8 (invalid byte at offset {exc.start})"
        ) from None


_LANG = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")
_LANG_FILE = re.compile(r"^results\.([A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*)\.json$")


def _language(meta: dict[str, Any], path: Path, shown: str) -> str | None:
    """The snapshot's language (seed 004): ``metadata.lang`` as caveman's ``llm_run.py`` writes it,
    else the ``<lang>`` of a ``results.<lang>.json`` file name; ``None`` (unknown, D-13) when
    neither says. A ``metadata.lang`` that disagrees with the file name is refused."""
    lang = meta.get("lang")
    if lang is not None and (not isinstance(lang, str) or len(lang) > 35 or not _LANG.match(lang)):
        raise ImportError_.at(
            shown,
            "/metadata/lang",
            f"expected a language tag such as pt, found {json.dumps(lang)[:60]}",
        )
    m = _LANG_FILE.match(path.name)
    if lang is not None and m is not None and m.group(1) != lang:
        raise ImportError_.at(
            shown,
            "/metadata/lang",
            f"expected {m.group(1)!r}, the language the file name "
            f"{path.name} names, found {lang!r}",
        )
    return lang if lang is not None else (m.group(1) if m else None)


def _str_or_none(meta: dict[str, Any], key: str) -> str | None:
    value = meta.get(key)
    return value if isinstance(value, str) and value.strip() else None


#: caveman's runner writes a failed call's cell as this prefix and the error (llm_run.py).
ERROR_PREFIX = "__ERROR__"
#: ``metadata.model`` values that name no model (the CLI's default): the model stays unknown.
PLACEHOLDER_MODELS = frozenset({"default", "<model-name>", "unknown"})


def _arm(answer: str) -> dict[str, Any]:
    if answer.startswith(ERROR_PREFIX):
        error = answer[len(ERROR_PREFIX) :].lstrip(":").strip() or answer
        return {
            "draws": [
                draw_doc(
                    0,
                    answer=None,
                    lost_reason=f"source error: {error}"[:4000],
                    lost_kind="source_error",
                    source_error=answer[:4000],
                )
            ],
            "generation": None,
        }
    tokens = {"input": None, "output": count_tokens(answer), "counted_by": COUNTED_BY}
    return {"draws": [draw_doc(0, answer=answer, tokens=tokens)], "generation": None}


@register("caveman")
def import_caveman(
    snapshot: str | Path, *, skills_dir: str | Path, source_commit: str | None = None
) -> list[Imported]:
    """Convert caveman's length snapshot into one DECLARED receipt per skill arm.

    Args:
        snapshot: ``evals/snapshots/results.json``; recorded in ``provenance.document``
            exactly as given, with its sha256.
        skills_dir: the ``skills/`` directory as it was when the snapshot ran, holding
            ``<arm>/SKILL.md`` for every skill arm (hashed and counted per D-14).
        source_commit: caveman's git commit the snapshot and skills were read at, when
            known (7-40 hex digits); recorded as ``provenance.tool_version`` and used in
            the file names ``caveman-<commit[:7]>-<arm>.json`` (else ``caveman-<arm>.json``).

    Returns:
        One :class:`~driftproof.importers.Imported` per skill arm, in the snapshot's order.

    Raises:
        ImportError_: the snapshot breaks caveman's snapshot contract, or a skill arm has
            no readable SKILL.md; the message names the file, the JSON pointer and what
            was expected.
    """
    shown = str(snapshot)
    if source_commit is not None and not _COMMIT.match(source_commit):
        raise ImportError_.at(
            shown, "", f"source commit {source_commit!r}: expected 7 to 40 lowercase hex digits"
        )
    doc, document_sha256 = _load(Path(snapshot), shown)
    meta, prompts, arms = _check(doc, shown)
    skill_arms = [a for a in arms if a not in (BASELINE_ARM, CONTROL_ARM)]
    skills = {arm: _skill_text(Path(skills_dir), arm, shown) for arm in skill_arms}

    unrecorded = list(UNRECORDED_ALWAYS)
    if source_commit is None:
        unrecorded.append("caveman-evals version (the snapshot names no commit or release)")
    model = _str_or_none(meta, "model")
    if model is not None and model.strip().lower() in PLACEHOLDER_MODELS:
        unrecorded.append(
            f"model: the snapshot records {json.dumps(model)}, the CLI's default, not a model id"
        )
        model = None
    elif model is None:
        unrecorded.append("model: the snapshot records none")
    generated = _str_or_none(meta, "generated_at")
    started_at = started_offset = None
    if generated is None:
        unrecorded.append("started_at: the snapshot records no generated_at")
    else:
        times = run_times(
            [parse_instant(generated, Where(shown) / "metadata" / "generated_at")], []
        )
        started_at, started_offset = times["started_at"], times["started_at_offset"]
    terse = _str_or_none(meta, "terse_prefix")
    if terse is None:
        unrecorded.append("the control arm's instruction (no metadata.terse_prefix)")
    cli = _str_or_none(meta, "claude_cli_version")
    match = _CLI_VERSION.match(cli.strip()) if cli else None
    if match is None:
        unrecorded.append(
            "harness version: metadata.claude_cli_version is missing or not a Claude Code version"
        )
    harness = {"name": "claude-code", "version": match.group(1) if match else None}
    language = _language(meta, Path(snapshot), shown)

    width = max(2, len(str(len(prompts))))
    ids = [f"p{i + 1:0{width}d}" for i in range(len(prompts))]
    provenance = {
        "tool": TOOL,
        "tool_version": f"git {source_commit}" if source_commit else None,
        "document": shown,
        "document_sha256": document_sha256,
        "unrecorded": unrecorded,
    }
    arm_specs = {
        "baseline": {"label": BASELINE_ARM, "instruction": None, "system_prompt_sha256": None},
        "control": {"label": CONTROL_ARM, "instruction": terse, "system_prompt_sha256": None},
    }
    prefix = f"caveman-{source_commit[:7]}-" if source_commit else "caveman-"
    out: list[Imported] = []
    for arm in skill_arms:
        cases = [
            {
                "id": ids[i],
                "prompt": prompt,
                "prompt_sha256": sha256_text(prompt),
                "rubric_sha256": None,
                "threshold": None,
                "arms": {
                    "with_skill": _arm(arms[arm][i]),
                    "baseline": _arm(arms[BASELINE_ARM][i]),
                    "control": _arm(arms[CONTROL_ARM][i]),
                },
            }
            for i, prompt in enumerate(prompts)
        ]
        document = receipt_doc(
            level="DECLARED",
            skill_name=arm,
            skill_text=skills[arm],
            cases=cases,
            model=model,
            provider="anthropic",
            surface="cli",
            harness=harness,
            started_at=started_at,
            generations_per_arm=1,
            judge_samples_per_generation=None,
            judge=None,
            band_source=None,
            arms={
                "with_skill": {"label": arm, "instruction": None, "system_prompt_sha256": None},
                **arm_specs,
            },
            provenance=copy.deepcopy(provenance),
        )
        if started_offset is not None:
            document["run"]["started_at_offset"] = started_offset
        if language is not None:
            document["run"]["language"] = language
        suffix = (
            f"-{language}" if language not in (None, "en") else ""
        )  # results.<lang>.json beside results.json
        out.append(Imported(f"{prefix}{arm}{suffix}.json", document))
    return out
