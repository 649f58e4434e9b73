"""OpenAI Evals run output items (JSONL or JSON) → a DECLARED receipt (D-15).

The user names which run is which arm; one run alone is a single-arm import. The mapping is the
interop page's ("OpenAI Evals").
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from driftproof._json import member_str
from driftproof.errors import ImportError_
from driftproof.importers import Imported, register
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers import _openai_evals_scores as scores
from driftproof.importers._common import OPTIONS, Where
from driftproof.importers._schema import validate_source
from driftproof.importers._shapes import ITEM_KEYS, oaieval_line
from driftproof.importers._text import Repair
from driftproof.receipt import ArmSpec, Case, Draw, build_draw, build_judge_sample
from driftproof.wording import COMPARED_ARMS

TOOL = "openai-evals"
#: The most output items read from one file.
MAX_ROWS = 200_000
_ERROR_KEYS = ("code", "type", "message")
_MODEL_KEYS = ("model", "sampled_model_name")  # the first that names a model


@dataclass(frozen=True)
class OpenAIEvalsOptions:
    """Options of an OpenAI Evals import.

    Attributes:
        arms: receipt arm -> run id; ``None``: the file's one run is with_skill.
        grader: the grader read; required when the rows carry several.
        grader_range: the grader's own (worst, best), mapped linearly onto 0..1, worst to 0 (the
            worst may be the higher number); without it a number is read only from a result
            whose grader type states 0..1 (:mod:`._openai_evals_scores`).
        skill_md: the SKILL.md measured, hashed and counted (D-14); unknown when omitted.
    """

    skill_name: str
    arms: dict[str, str] | None = None
    grader: str | None = None
    grader_range: tuple[float, float] | None = None
    skill_md: Path | None = None


@register(TOOL, OpenAIEvalsOptions)
def import_openai_evals(path: Path, options: OpenAIEvalsOptions) -> list[Imported]:
    """Convert OpenAI Evals output items (JSONL or JSON) into a DECLARED receipt.

    Raises:
        ImportError_: malformed rows, a blank item id, run id or grader name, an unknown arm
            or run, the same run for both arms, rows of an unmapped run, an item answered twice
            in one run, an unknown or ambiguous grader, a score whose scale is not stated, one
            outside its scale, or one its row's own verdict (passed, passes) contradicts; each
            naming the source file, the JSON pointer and what was expected.
    """
    path, o = Path(path), options
    repairs: list[Repair] = []
    rows, raw = _read_rows(path, repairs)
    parsed = [_parse_row(r, rw) for r, rw in rows]
    mapping = _arm_map(o.arms, list(dict.fromkeys(p["run"] for p in parsed)), Where(path))
    graders = list(dict.fromkeys(name for p in parsed for name in p["grades"]))
    name = _grader_name(o.grader, graders, Where(path))
    rng = o.grader_range
    scores.check_range(rng)
    scores.check_verdicts(_verdicts(parsed, name, rng), name, rng)
    cases, models, started = _group(parsed, mapping)
    variants, case_docs = Counter(key for key, _ in cases), []
    for (key, content), c in cases.items():  # an item whose content differs: one case each
        arms = {
            a: [_draw(j, p, name, rng) for j, p in enumerate(c["arms"][a])] for a in COMPARED_ARMS
        }
        label = f"item-{key}" if variants[key] == 1 else f"item-{key}-{(content or 'none')[:10]}"
        case_docs.append(declared.case_entry(common.case_id_for(label), c["prompt"], arms))
    differing = [k for k, n in variants.items() if n > 1]
    all_models = set().union(*models.values())
    model = common.sole(all_models)
    unrecorded = [
        "provenance.tool_version (output items record none)",
        *(
            f"the {a} arm (a single-arm import: one run was given)"
            for a in COMPARED_ARMS
            if a not in mapping
        ),
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
    if o.skill_md is None:
        unrecorded.append("skill.sha256 and skill.tokens (SKILL.md not given)")
    details = {
        "runs": dict(mapping),
        "grader": name,
        "graders": graders[:50],
        "grader_range": list(rng) if rng is not None else None,
    }
    notes = _notes(name, rng, graders, mapping, case_docs, differing)
    body = declared.declared_receipt(
        o.skill_name,
        common.read_skill_md(o.skill_md),
        case_docs,
        declared.provenance(
            TOOL, None, str(path), common.file_sha256(raw), unrecorded, notes=notes, details=details
        ),
        model=model,
        provider="openai",
        surface="api",
        started_at=common.unix_instant(min(started), Where(path)) if started else None,
        judge=declared.unrecorded_judge(TOOL, name, channel="source"),
        arms={a: _arm(a, mapping, models) for a in COMPARED_ARMS},
        band_source="generation",
    )
    return [Imported.named(TOOL, body, name, repairs=repairs)]


def _verdicts(
    parsed: list[dict[str, Any]], grader: str, rng: tuple[float, float] | None
) -> list[tuple[float, Any, bool, Where]]:
    """(score on 0..1, source value, verdict, its place) of each scored row with a verdict."""
    seen = []
    for p in parsed:
        value, vw = p["grades"].get(grader, (None, p["where"]))
        verdict = p["verdicts"].get(grader)
        if p["error"] is None and verdict is not None:
            s = scores.score(value, vw, grader, rng, p["types"].get(grader))
            if s is not None:
                seen.append((s, value, *verdict))
    return seen


def _group(
    parsed: list[dict[str, Any]], mapping: dict[str, str | None]
) -> tuple[dict[tuple[str, str | None], dict[str, Any]], dict[str, set[str]], list[float]]:
    """The rows by (item, content), each arm's models, and creation times (Unix seconds)."""
    cases: dict[tuple[str, str | None], dict[str, Any]] = {}
    models: dict[str, set[str]] = {a: set() for a in mapping}
    started: list[float] = []
    for p in parsed:
        arm = next((a for a, run in mapping.items() if run == p["run"]), None)
        if arm is None:
            raise (p["where"] / "run_id").fail(
                f"run {p['run']!r} is not mapped to an arm (mapped: "
                + ", ".join(f"{a}={r}" for a, r in mapping.items())
                + "); map it with --arm, or leave its rows out of the file"
            )
        new = {"prompt": p["prompt"], "arms": {a: [] for a in COMPARED_ARMS}}
        case = cases.setdefault((p["key"], p["content"]), new)
        if case["arms"][arm]:
            raise p["where"].fail(
                f"expected one output item per data source item and run; item {p['key']} "
                f"of run {p['run']!r} is also at {case['arms'][arm][0]['where'].pointer or '/'}"
            )
        if case["prompt"] is None:
            case["prompt"] = p["prompt"]
        if p["model"]:
            models[arm].add(p["model"])
        if p["created_at"] is not None:
            common.unix_instant(p["created_at"], p["where"] / "created_at")  # named at its place
            started.append(float(p["created_at"]))
        case["arms"][arm].append(p)
    return cases, models, started


def _arm(a: str, mapping: dict[str, str | None], models: dict[str, set[str]]) -> ArmSpec:
    """An arm labelled by its run and models; an unmapped arm is not recorded."""
    if a not in mapping:
        return declared.arm_spec(None, recorded=False)
    run = f"run:{mapping[a]}" if mapping[a] is not None else "run (no run_id)"
    return declared.arm_spec(run + (f" ({', '.join(sorted(models[a]))})" if models[a] else ""))


def _notes(
    grader: str,
    grader_range: tuple[float, float] | None,
    graders: list[str],
    mapping: dict[str, str | None],
    cases: list[Case],
    differing: list[str],
) -> list[str]:
    """The grader read and how, runs missing items, items that differ between runs."""
    how = "as recorded on 0..1"
    if grader_range is not None:
        how = f"mapped linearly from its scale {scores.scale_words(grader_range)} onto 0..1"
    others = ", ".join(repr(g) for g in graders if g != grader)
    notes = [
        f"Scores are the results of grader {grader!r}, {how}."
        + (f" The rows also carry the graders {others}, not read." if others else "")
    ]
    for a in mapping:
        absent = [c.id for c in cases if not getattr(c.arms, a).draws]
        if absent:
            notes.append(
                f"Run {mapping[a]!r} ({a}) has no output item for {len(absent)} item(s) another "
                f"run answered ({', '.join(absent[:20])}{', …' if len(absent) > 20 else ''}): "
                "those cases hold no draw in that arm."
            )
    if differing:
        notes.append(
            f"Data source item(s) {', '.join(differing[:20])} differ between the runs: each "
            "version is its own case (id item-<n>-<first 10 hex digits of the item's sha256>), "
            "never paired across arms."
        )
    return notes


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
        if arm not in COMPARED_ARMS:
            raise OPTIONS.fail(f"--arm: expected with_skill or baseline, found {arm!r}")
    if len(arms) == 2 and arms["with_skill"] == arms["baseline"]:
        raise OPTIONS.fail(
            f"--arm: the same run {arms['with_skill']!r} is given for both arms; "
            "a run measured against itself has no lift"
        )
    for arm, run in arms.items():
        if run not in runs:
            raise w.fail(
                f"expected rows of run {run!r} ({arm}); the file holds runs "
                f"{', '.join(repr(r) for r in runs[:20])}"
            )
    return {a: arms[a] for a in COMPARED_ARMS if a in arms}


def _grader_name(grader: str | None, graders: list[str], w: Where) -> str:
    if grader is not None:
        if grader not in graders:
            raise w.fail(
                f"--grader {grader!r}: expected a grader the rows carry: {', '.join(graders)}"
            )
        return grader
    if len(graders) != 1:
        raise w.fail(
            "expected exactly one grader or an explicit --grader; the rows carry "
            f"{', '.join(graders) or 'no grader'}"
        )
    return graders[0]


def _draw(
    index: int, p: dict[str, Any], grader: str, grader_range: tuple[float, float] | None
) -> Draw:
    """One output item as a draw: lost on a sample error or a missing score."""
    stop = p["stop"][:64] if common.is_name(p["stop"]) else None  # blank: none given
    draw = partial(build_draw, index, answer=p["answer"], tokens=p["tokens"], stop_reason=stop)
    if p["error"] is not None:
        text, reason = p["error"]
        return draw(lost_reason=reason, lost_kind="source_error", source_error=text)
    value, vw = p["grades"].get(grader, (None, p["where"] / "grades" / grader))
    score = scores.score(value, vw, grader, grader_range, p["types"].get(grader))
    if score is None:
        return draw(
            lost_reason=f"grader {grader!r} recorded no score for this item", lost_kind="unscored"
        )
    reply = p["replies"].get(grader)
    samples = [build_judge_sample(score, reply=reply)] if reply is not None else []
    return draw(score=score, judge_samples=samples)


def _read_rows(
    path: Path, repairs: list[Repair]
) -> tuple[list[tuple[dict[str, Any], Where]], bytes]:
    """The output items (``.jsonl``/``.ndjson``, else JSON when it parses whole) and the bytes."""
    raw = common.read_bytes(path)
    w = Where(path)
    whole: Any = None
    text = raw.lstrip()
    if text[:1] in (b"[", b"{") and path.suffix.lower() not in (".jsonl", ".ndjson"):
        try:
            whole = common.parse_json_bytes(raw, path, repairs, allow_nan=True)
        except ImportError_:
            if text[:1] == b"[":
                raise
    rows: list[tuple[Any, Where]] = []
    if isinstance(whole, list):
        rows = [(r, w / i) for i, r in enumerate(whole)]
    elif isinstance(whole, dict) and isinstance(whole.get("data"), list) and "run_id" not in whole:
        if whole.get("has_more") is True:  # one page of several: the run's other items are absent
            raise (w / "has_more").fail(
                "expected the whole list of output items (has_more false); this page says more "
                "items follow: fetch every page (the API's after cursor, or the SDK's "
                "auto-pagination) and import them together as JSONL or one JSON array"
            )
        rows = [(r, w / "data" / i) for i, r in enumerate(whole["data"])]
    elif isinstance(whole, dict):
        rows = [(whole, w)]
    else:
        for i, line in enumerate(raw.split(b"\n")):
            if not line.strip():
                continue
            try:
                rows.append((common.parse_json_bytes(line, path, repairs, allow_nan=True), w / i))
            except ImportError_ as exc:
                inner = exc.problems[0]  # a member name twice names its object in the line
                raise ImportError_.at(
                    path, (w / i).pointer + inner.pointer, f"line {i + 1}: {inner.message}"
                ) from None
            if len(rows) > MAX_ROWS:
                break
    if not rows:
        raise w.fail(
            "expected OpenAI Evals output items (JSONL, a JSON array or a list page); found none"
        )
    if len(rows) > MAX_ROWS:
        raise w.fail(f"expected at most {MAX_ROWS} output items, found more")
    for row, rw in rows:
        if oaieval_line(row):  # oaieval's record: a spec line, a final_report line, an event each
            raise rw.fail(
                "expected an OpenAI Evals output item (the API's eval.run.output_item, or the "
                "per-row export); this is a line of an oaieval record (the openai/evals "
                "repository's run log of spec, final_report and event lines), not read here"
            )
        validate_source(row, "openai-evals", path, prefix=rw.parts)
    return rows, raw


def _parse_row(row: dict[str, Any], w: Where) -> dict[str, Any]:
    """One output item in the importer's terms (either shape)."""
    key_name = next((k for k in ITEM_KEYS if row.get(k) is not None), None)
    if key_name is None:
        raise w.fail(
            "expected the data source item's id (datasource_item_id or data_source_idx), found none"
        )
    key = str(common.unblank(row[key_name], w / key_name, "the data source item's id"))
    common.unblank(row.get("run_id"), w / "run_id", "the run's id")  # it labels its arm
    item = row.get("datasource_item") if row.get("datasource_item") is not None else row.get("item")
    prompt = member_str(item, "input")
    grades: dict[str, tuple[Any, Where]] = {}
    replies: dict[str, str] = {}
    types: dict[str, Any] = {}
    passes = (row.get("passes") or {}).items()  # the row's own pass/fail per grader
    verdicts = {g: (v, w / "passes" / g) for g, v in passes if isinstance(v, bool)}
    for i, res in enumerate(row.get("results") or []):
        rw = w / "results" / i
        # a blank name names no grader; a second result of one would replace the first
        if common.unblank(res["name"], rw / "name", "the grader's name") in grades:
            raise (rw / "name").fail(
                f"expected each grader once per item, found {res['name'][:80]!r} again"
            )
        grades[res["name"]] = (res.get("score"), rw / "score")
        types[res["name"]] = res.get("type")
        if isinstance(res.get("passed"), bool):
            verdicts[res["name"]] = (res["passed"], rw / "passed")
        if (text := _last_text((res.get("sample") or {}).get("output"))) is not None:
            replies[res["name"]] = text
    for gname, value in (row.get("grades") or {}).items():
        gw = w / "grades" / gname
        grades.setdefault(common.unblank(gname, gw, "the grader's name"), (value, gw))
    for gname, gs in (row.get("grader_samples") or {}).items():
        if (text := _last_text((gs or {}).get("outputs"))) is not None:
            replies.setdefault(gname, text)
    sample = row.get("sample") or {}
    uk = "usage" if sample.get("usage") is not None else "token_usage"
    usage, uw = sample.get(uk), w / "sample" / uk
    tokens = common.source_tokens(usage, "prompt_tokens", "completion_tokens", uw)
    cached = (usage or {}).get("cached_tokens")
    if common.count_at(cached, uw / "cached_tokens") and tokens is not None:
        tokens["cache_read_input"] = cached
    model = next((m for k in _MODEL_KEYS if common.is_name(m := sample.get(k))), None)
    outputs = sample.get("output") if sample.get("output") is not None else sample.get("outputs")
    return {
        "run": row.get("run_id"),
        "key": key,
        "content": _content_sha256(item),
        "prompt": prompt,
        "grades": grades,
        "types": types,
        "verdicts": verdicts,
        "replies": replies,
        "answer": _last_text(outputs),
        "tokens": tokens,
        "model": model,
        "error": _error(sample.get("error"), row.get("status")),
        "stop": sample.get("finish_reason"),
        "created_at": row.get("created_at"),
        "where": w,
    }


def _content_sha256(item: Any) -> str | None:
    """sha256 of a data source item's RFC 8785 JSON (what makes two runs' items the same case)."""
    if item is None:
        return None
    data = common.canonical_json(item)  # NaN and the like: a stable fallback
    return common.file_sha256(data or json.dumps(item, sort_keys=True, default=str).encode())


def _error(error: Any, status: Any) -> tuple[str | None, str] | None:
    """The sample's error as (its message or None, lost reason led by code or type), else None."""
    code, text = "", error.strip() if isinstance(error, str) else ""
    if isinstance(error, dict):
        texts = {k: v.strip() if isinstance(v := error.get(k), str) else "" for k in _ERROR_KEYS}
        code, text = texts["code"] or texts["type"], texts["message"]
        code, text = (code, text) if text else ("", code)
    if not (said := text) and status == "error":  # no message: no words of the source's kept
        text = "the run marked this output item status 'error' and gave no message"
    lead = f"source error ({code})" if code else "source error"
    return (said[:4000] or None, f"{lead}: {text}"[:4000]) if text else None


def _last_text(messages: Any) -> str | None:
    """The text of the last message holding text (an assistant reply), else ``None``."""
    if not isinstance(messages, list):
        return None
    for m in reversed(messages):
        if isinstance(m, dict) and isinstance(m.get("content"), str):
            return m["content"]
    return None
