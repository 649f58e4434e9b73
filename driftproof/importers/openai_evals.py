"""OpenAI Evals run output items (JSONL or JSON) → DECLARED receipts (D-15).

An OpenAI Evals *run* answers every item of a data source once and grades each answer with
the eval's graders. A run has no arms: the user names which run is which
(``--arm with_skill=RUN --arm baseline=RUN``); one run alone is a single-arm import, whose other
arm is recorded as not recorded (``arms.<arm>.recorded: false``: no lift, no interval, no value
per token). Two row shapes are read (``schemas/openai-evals.schema.json``):

- the API object ``eval.run.output_item`` (``GET /evals/{id}/runs/{run}/output_items``, one per
  JSONL line, a JSON array, or a list page ``{"object": "list", "data": [...]}``):
  ``datasource_item_id``, ``datasource_item``, ``results[{name, type, score, passed, sample}]``,
  ``sample{output[], finish_reason, model, usage, error{code, message}}``, ``created_at``;
- the per-row export promptfoo's importer reads (its test fixture): ``data_source_idx``, ``item``,
  ``grades{grader: score}``, ``passes{grader: bool}``, ``grader_samples{grader: {outputs[]}}``,
  ``sample{outputs[], token_usage, sampled_model_name, error}``.

Mapping (interop page, "OpenAI Evals"):

- case: the data source item (``datasource_item_id`` / ``data_source_idx``), id ``item-<n>``;
  an item whose content differs between runs (different data sets) is one case per version,
  never paired; prompt: the item's ``input`` when it is text;
- draw: one output item (a run answers each item once; an item twice in one run is refused);
  each is its own generation, graded once, so ``band_source`` is ``generation``;
- score: the named grader's result (``--grader NAME``; required when the rows carry several),
  on 0..1 as recorded, or mapped linearly from the grader's own range given with
  ``--grader-range LOW:HIGH`` (a score model grading 1–7, say); ``true``/``false`` read 1/0. The
  grader's reply, when the row keeps it, is one judge sample (hashed, never stored);
- ``sample.error`` with a code, type or message is a lost draw, its message in ``source_error`` (its
  code or type leads the lost reason); a row whose
  grader gave no score (missing, null, NaN) is a lost draw of kind ``unscored``, never 0;
- tokens: ``sample.usage`` / ``sample.token_usage`` (prompt, completion, cached);
- model: ``sample.model`` / ``sample.sampled_model_name``; every arm's label names its run.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from driftproof.errors import ImportError_
from driftproof.importers import register_single
from driftproof.importers._common import (
    Where,
    arm_spec,
    case_entry,
    case_id_for,
    file_sha256,
    provenance_doc,
    read_skill_md,
    unrecorded_judge,
)
from driftproof.importers._declared import declared_receipt
from driftproof.importers._fields import bound_text, unix_instant
from driftproof.importers._openai_evals_rows import (
    parse_row,
    read_rows,
)
from driftproof.receipt import draw_doc, judge_sample_doc

__all__ = ["import_openai_evals", "openai_evals_importer", "read_rows"]

TOOL = "openai-evals"
_ARMS = ("with_skill", "baseline")
_MAX_ANSWER_CHARS = 1_048_576
_MAX_PROMPT_CHARS = 262_144


def import_openai_evals(
    path: Path,
    *,
    skill_name: str,
    arms: dict[str, str] | None = None,
    grader: str | None = None,
    grader_range: tuple[float, float] | None = None,
    skill_md: Path | None = None,
) -> dict[str, Any]:
    """Convert OpenAI Evals output items into an unsealed DECLARED receipt document.

    Args:
        path: the output items, JSONL or JSON.
        skill_name: the skill's name (OpenAI Evals records none).
        arms: receipt arm (``with_skill``, ``baseline``) -> run id. One arm alone is a single-arm
            import. ``None``: the file must hold exactly one run, read as the with-skill arm.
        grader: the grader whose results are the scores; required when the rows carry several.
        grader_range: the grader's own (worst, best) scores, mapped linearly onto 0..1; without
            it every score must already lie in 0..1.
        skill_md: the SKILL.md measured, hashed and counted (D-14); unknown when omitted.

    Raises:
        ImportError_: malformed rows, an unknown arm or run, the same run for both arms, rows of
            an unmapped run, an item answered twice in one run, an unknown or ambiguous grader, or
            a score outside 0..1 (or outside the given range); each naming the source file, the
            JSON pointer and what was expected.
    """
    rows, raw = read_rows(Path(path))
    parsed = [parse_row(r, rw) for r, rw in rows]
    runs = list(dict.fromkeys(p["run"] for p in parsed))
    mapping = _arm_map(arms, runs, Where(path))
    graders = list(dict.fromkeys(name for p in parsed for name in p["grades"]))
    name = _grader_name(grader, graders, Where(path))
    if grader_range is not None and not (
        math.isfinite(grader_range[0])
        and math.isfinite(grader_range[1])
        and grader_range[0] < grader_range[1]
    ):
        raise ImportError_.at(
            "<options>",
            "",
            f"--grader-range: expected LOW:HIGH with LOW < HIGH, found {grader_range}",
        )
    cases: dict[tuple[str, str | None], dict[str, Any]] = {}
    models: dict[str, set[str]] = {a: set() for a in mapping}
    started: list[float] = []  # Unix seconds: instants compared as numbers, never as text
    bounded: list[dict[str, Any]] = []
    for p in parsed:
        arm = next((a for a, run in mapping.items() if run == p["run"]), None)
        if arm is None:
            raise (p["where"] / "run_id").fail(
                f"run {p['run']!r} is not mapped to an arm (mapped: "
                + ", ".join(f"{a}={r}" for a, r in mapping.items())
                + "); map it with --arm, or leave its rows out of the file"
            )
        case = cases.setdefault(
            (p["key"], p["content"]),
            {"key": p["key"], "prompt": p["prompt"], "arms": {a: [] for a in _ARMS}, "where": {}},
        )
        if arm in case["where"]:
            raise p["where"].fail(
                f"expected one output item per data source item and run; item {p['key']} "
                f"of run {p['run']!r} is also at {case['where'][arm]}"
            )
        case["where"][arm] = p["where"].pointer or "/"
        if case["prompt"] is None:
            case["prompt"] = p["prompt"]
        if p["model"]:
            models[arm].add(p["model"])
        if p["created_at"] is not None:
            unix_instant(
                p["created_at"], p["where"] / "created_at"
            )  # checked here, named at its place
            started.append(float(p["created_at"]))
        case["arms"][arm].append(p)
    variants: dict[str, int] = {}
    for key, _ in cases:
        variants[key] = variants.get(key, 0) + 1
    case_docs: list[dict[str, Any]] = []
    for (key, content), c in cases.items():
        ci = len(case_docs)
        arms_doc: dict[str, Any] = {}
        for arm in _ARMS:
            draws = []
            for j, p in enumerate(c["arms"][arm]):
                answer = bound_text(
                    p["answer"],
                    _MAX_ANSWER_CHARS,
                    f"/cases/{ci}/arms/{arm}/draws/{j}/answer",
                    bounded,
                )
                draws.append(_draw(j, p, name, grader_range, answer))
            arms_doc[arm] = {"draws": draws, "generation": None}
        full = c["prompt"]
        prompt = bound_text(full, _MAX_PROMPT_CHARS, f"/cases/{ci}/prompt", bounded)
        case_label = (
            f"item-{key}" if variants[key] == 1 else f"item-{key}-{(content or 'none')[:10]}"
        )
        case_docs.append(case_entry(case_id_for(case_label), prompt, arms_doc, whole=full))
    all_models = set().union(*models.values())
    model = next(iter(all_models)) if len(all_models) == 1 else None
    unrecorded = [
        "judge.model (output items do not name the grader's model)",
        "judge_samples_per_generation",
        "generations_per_arm (a run answers each item once; not stated as a count)",
        "run.harness",
        "each case's rubric_sha256 (the graders' definitions are in the eval, not its output "
        "items)",
    ]
    if model is None:
        why = "the runs name different models" if all_models else "no row names its model"
        unrecorded.append(f"run.model ({why})")
    if skill_md is None:
        unrecorded.append("skill.sha256 and skill.tokens (SKILL.md not given)")
    missing = [a for a in _ARMS if a not in mapping]
    for a in missing:
        unrecorded.insert(0, f"the {a} arm (a single-arm import: one run was given)")
    arm_specs: dict[str, Any] = {}
    for a in _ARMS:
        label: str | None = None
        if a in mapping:
            run = f"run:{mapping[a]}" if mapping[a] is not None else "run (no run_id)"
            label = run[:150] + (f" ({', '.join(sorted(models[a]))})"[:50] if models[a] else "")
        arm_specs[a] = arm_spec(label)
        if a not in mapping:
            arm_specs[a]["recorded"] = False
    judge = unrecorded_judge(TOOL, name)
    judge["channel"] = "source"
    how = (
        f"mapped linearly from its range {grader_range[0]:g}..{grader_range[1]:g} onto 0..1"
        if grader_range is not None
        else "as recorded on 0..1"
    )
    others = ", ".join(repr(g) for g in graders if g != name)
    notes = [
        f"Scores are the results of grader {name!r}, {how}."
        + (f" The rows also carry the graders {others}, not read." if others else "")
    ]
    for a in mapping:
        absent = [c["id"] for c in case_docs if not c["arms"][a]["draws"]]
        if absent:
            notes.append(
                f"Run {mapping[a]!r} ({a}) has no output item for {len(absent)} item(s) another "
                f"run answered ({', '.join(absent[:20])}{', …' if len(absent) > 20 else ''}): "
                "those cases hold no draw in that arm."
            )
    differing = [k for k, n in variants.items() if n > 1]
    if differing:
        notes.append(
            f"Data source item(s) {', '.join(differing[:20])} differ between the runs: each "
            "version is its own case (id item-<n>-<first 10 hex digits of the item's sha256>), "
            "never paired across arms."
        )
    details = {
        "runs": {a: mapping[a] for a in mapping},
        "grader": name,
        "graders": graders[:50],
        "grader_range": list(grader_range) if grader_range is not None else None,
    }
    document = declared_receipt(
        skill_name,
        read_skill_md(skill_md),
        case_docs,
        provenance_doc(
            TOOL,
            None,
            str(path),
            file_sha256(raw),
            ["provenance.tool_version (output items record none)"] + unrecorded,
        ),
        model=model,
        provider="openai",
        surface="api",
        started_at=unix_instant(min(started), Where(path)) if started else None,
        judge=judge,
        arms=arm_specs,
        band_source="generation",
    )
    document["provenance"]["notes"] = [n[:1000] for n in notes]
    document["provenance"]["details"] = details
    if bounded:
        document["bounded_text"] = bounded
    return document


def _arm_map(
    arms: dict[str, str] | None, runs: list[str | None], w: Where
) -> dict[str, str | None]:
    if not arms:
        if len(runs) != 1:
            raise w.fail(
                "expected one run, or --arm with_skill=RUN [--arm baseline=RUN]; the file holds "
                f"runs {', '.join(repr(r) for r in runs[:20])}"
            )
        return {"with_skill": runs[0]}
    for arm in arms:
        if arm not in _ARMS:
            raise ImportError_.at(
                "<options>", "", f"--arm: expected with_skill or baseline, found {arm!r}"
            )
    if len(arms) == 2 and arms["with_skill"] == arms["baseline"]:
        raise ImportError_.at(
            "<options>",
            "",
            f"--arm: the same run {arms['with_skill']!r} is given for both arms; "
            "a run measured against itself has no lift",
        )
    for arm, run in arms.items():
        if run not in runs:
            raise w.fail(
                f"expected rows of run {run!r} ({arm}); the file holds runs "
                f"{', '.join(repr(r) for r in runs[:20])}"
            )
    return {a: arms[a] for a in _ARMS if a in arms}


def _grader_name(grader: str | None, graders: list[str], w: Where) -> str:
    if grader is not None:
        if grader not in graders:
            raise w.fail(f"expected a grader named {grader!r}; the rows carry {graders}")
        return grader
    if len(graders) != 1:
        raise w.fail(
            f"expected exactly one grader or an explicit --grader; the rows carry {graders}"
        )
    return graders[0]


def _draw(
    index: int,
    p: dict[str, Any],
    grader: str,
    grader_range: tuple[float, float] | None,
    answer: str | None,
) -> dict[str, Any]:
    stop = p["stop"][:64] if isinstance(p["stop"], str) and p["stop"] else None
    if p["error"] is not None:
        text, reason = p["error"]
        return draw_doc(
            index,
            answer=answer,
            lost_reason=reason,
            lost_kind="source_error",
            source_error=text,
            tokens=p["tokens"],
            stop_reason=stop,
        )
    value, vw = p["grades"].get(grader, (None, p["where"] / "grades" / grader))
    score = _score(value, vw, grader, grader_range)
    if score is None:
        return draw_doc(
            index,
            answer=answer,
            lost_reason=f"grader {grader!r} recorded no score for this item",
            lost_kind="unscored",
            tokens=p["tokens"],
            stop_reason=stop,
        )
    reply = p["replies"].get(grader)
    samples = [judge_sample_doc(score, reply=reply)] if reply is not None else []
    return draw_doc(
        index,
        answer=answer,
        score=score,
        judge_samples=samples,
        tokens=p["tokens"],
        stop_reason=stop,
    )


def _score(
    value: Any, w: Where, grader: str, grader_range: tuple[float, float] | None
) -> float | None:
    """A grader result on 0..1; ``None`` when the grader gave none (missing, null, NaN)."""
    if value is None:
        return None
    if isinstance(value, bool):
        if grader_range is not None:  # a pass/fail grade is not a point on a LOW:HIGH scale
            raise w.fail(
                f"expected grader {grader!r}'s score as a number on "
                f"{grader_range[0]:g}:{grader_range[1]:g}, "
                f"found {str(value).lower()}"
            )
        return 1.0 if value else 0.0
    if not isinstance(value, (int, float)):
        raise w.fail(
            f"expected grader {grader!r}'s score as a number or true/false, found "
            f"{type(value).__name__}"
        )
    v = float(value)
    if math.isnan(v):
        return None
    if math.isinf(v):
        raise w.fail(f"expected grader {grader!r}'s score as a finite number, found {v!r}")
    if grader_range is not None:
        lo, hi = grader_range
        if v < lo or v > hi:
            raise w.fail(
                f"expected a score in the grader's range {lo:g}..{hi:g} (--grader-range), found "
                f"{value!r}"
            )
        return (v - lo) / (hi - lo)
    if v < 0.0 or v > 1.0:
        raise w.fail(
            f"expected a score between 0 and 1, found {value!r}; give the grader's own range with "
            "--grader-range LOW:HIGH to map it onto 0..1"
        )
    return v


#: Registry entry: :func:`import_openai_evals`, file
#: ``openai-evals-<skill>-<document sha256[:8]>.json``.
openai_evals_importer = register_single("openai-evals", TOOL, import_openai_evals)
