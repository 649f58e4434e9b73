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
import json
import re
from pathlib import Path
from typing import Any

from driftproof.errors import ImportError_
from driftproof.importers import Imported, register
from driftproof.importers._caveman_snapshot import (
    BASELINE_ARM,
    CONTROL_ARM,
    check_snapshot,
    load_snapshot,
    read_capped,
    snap_pointer,
)
from driftproof.importers._common import Where, arm_spec, case_entry, parse_instant, run_times
from driftproof.importers._declared import declared_receipt
from driftproof.receipt import draw_doc
from driftproof.tokens import COUNTED_BY, count_tokens

__all__ = ["BASELINE_ARM", "CONTROL_ARM", "TOOL", "import_caveman"]

TOOL = "caveman-evals"

SKILL_MAX_BYTES = 1024 * 1024
_CLI_VERSION = re.compile(r"^(\d+\.\d+\.\d+)\s*\(Claude Code\)$")
_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")

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


def _skill_text(skills_dir: Path, arm: str, shown: str) -> str:
    path = skills_dir / arm / "SKILL.md"
    where = snap_pointer("arms", arm)
    if not path.is_file():
        raise ImportError_.at(
            shown, where, f"no SKILL.md for this skill arm: expected the file {path}"
        )
    try:
        data = read_capped(path, SKILL_MAX_BYTES)
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
    doc, document_sha256 = load_snapshot(Path(snapshot), shown)
    meta, prompts, arms = check_snapshot(doc, shown)
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
        "baseline": arm_spec(BASELINE_ARM),
        "control": arm_spec(CONTROL_ARM, instruction=terse),
    }
    prefix = f"caveman-{source_commit[:7]}-" if source_commit else "caveman-"
    out: list[Imported] = []
    for arm in skill_arms:
        cases = [
            case_entry(
                ids[i],
                prompt,
                {
                    "with_skill": _arm(arms[arm][i]),
                    "baseline": _arm(arms[BASELINE_ARM][i]),
                    "control": _arm(arms[CONTROL_ARM][i]),
                },
            )
            for i, prompt in enumerate(prompts)
        ]
        document = declared_receipt(
            arm,
            skills[arm],
            cases,
            copy.deepcopy(provenance),
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
                "with_skill": arm_spec(arm),
                **arm_specs,
            },
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
