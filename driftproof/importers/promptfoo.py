"""promptfoo output files (``promptfoo eval -o out.json`` / ``promptfoo export``) → DECLARED
receipts (D-15).

promptfoo has no notion of arms: the user maps two (or three) prompt or provider
labels to with_skill, baseline and control explicitly. Mapping
(INTEROP-NOTES.md §3):

- case: ``testCase.metadata.id``, else ``testCase.description``, else the test's
  content (its ``vars``). Never ``testIdx``: with ``--repeat N`` every repetition gets a
  new ``testIdx``, so repeats are grouped by content into draws of one case;
- arm: ``--by provider`` matches ``provider.label`` or ``provider.id``; ``--by prompt``
  matches ``prompt.label``, the prompt's id or its raw text;
- draw: one result row; score = promptfoo's ``score`` as recorded (its weighted mean
  over every assertion of the test); every assertion becomes a check beside it, in the
  source's order: the deterministic kinds under their own kind, any other type (``python``,
  ``llm-rubric``, ``cost``…) as kind ``assertion`` with its type kept; an assertion that
  errored (``Python code execution failed``, ``Custom function threw error``, or the grader's
  ``metadata.graderError``) has outcome ``error`` and never passes, apart from a fail;
- draw index: the row's ``repeatIndex`` where the export records it (repeat-stable), else the
  order of the rows;
- ``failureReason == 2`` is a real error: the draw is lost, with the error kept in
  ``source_error``. ``error`` on an assertion failure (``failureReason == 1``) is only
  the grader's reason and does not lose the draw. A file with no ``failureReason`` (``version``
  2 and older 3) cannot tell the two apart: a row with ``error`` and no grading is read as an
  error, and ``provenance.notes`` says the reading is ambiguous;
- tokens: ``response.tokenUsage`` prompt/completion; judge tokens
  ``gradingResult.tokensUsed`` summed into ``economics.judge_overhead`` (no USD split).

The JSONL export (``promptfoo eval -o out.jsonl``, promptfoo's own way out for big evals: one
``EvaluateResult`` per line) is read line by line; a problem names the line as the pointer's
first step (``/line 3/score``). A mapping that names only ``with_skill`` or only ``baseline``
is a single-arm import: the other arm is ``recorded: false``, with no lift (issue 14).
``results.timestamp`` is parsed to an instant and stored in UTC with its offset.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import rfc8785

from driftproof.errors import ImportError_
from driftproof.importers import register_single
from driftproof.importers._common import (
    Where,
    arm_spec,
    case_entry,
    case_id_for,
    file_sha256,
    member_list,
    member_object,
    parse_instant,
    parse_json_bytes,
    provenance_doc,
    read_json,
    read_skill_md,
    run_times,
    unit_score,
    unrecorded_judge,
    validate_source,
)
from driftproof.importers._declared import declared_receipt
from driftproof.receipt import draw_doc

__all__ = ["import_promptfoo", "promptfoo_importer"]

TOOL = "promptfoo"
_CHECK_KINDS = {
    "contains": "must_include",
    "icontains": "must_include",
    "contains-any": "must_include",
    "contains-all": "must_include",
    "not-contains": "must_not_include",
    "not-icontains": "must_not_include",
    "regex": "regex",
    "not-regex": "regex",
    "is-json": "structural",
    "contains-json": "structural",
    "starts-with": "structural",
}


def import_promptfoo(
    path: Path,
    *,
    arms: dict[str, str],
    by: str = "provider",
    skill_name: str,
    skill_md: Path | None = None,
) -> dict[str, Any]:
    """Convert one promptfoo output file into an unsealed DECLARED receipt document.

    Args:
        path: the ``OutputFile`` JSON (``results.version`` 2 or 3 with ``results.results[]``).
        arms: receipt arm -> label, e.g. ``{"with_skill": "with-skill", "baseline": "bare"}``;
            with_skill and baseline are required, control optional.
        by: ``"provider"`` (match ``provider.label`` or ``provider.id``) or ``"prompt"``
            (match ``prompt.label``, the prompt id or the raw prompt).
        skill_name: the skill's name (promptfoo does not record one).
        skill_md: the SKILL.md measured, hashed and counted (D-14); unknown when omitted.

    Raises:
        ImportError_: malformed file (a member of the wrong type per
            ``schemas/promptfoo.schema.json``), a row no arm maps, or an arm matching no row; names
            the file, the JSON pointer and what was expected.
    """
    if by not in ("provider", "prompt"):
        raise ImportError_.at("<options>", "", f"--by: expected provider or prompt, found {by!r}")
    if not {"with_skill", "baseline"} & set(arms) or set(arms) - {
        "with_skill",
        "baseline",
        "control",
    }:
        raise ImportError_.at(
            "<options>",
            "",
            "expected an arm mapping naming with_skill and/or baseline (and "
            "optionally control), e.g. --arm with_skill=LABEL --arm baseline=LABEL; one of the "
            "two alone is a single-arm import",
        )
    missing = [a for a in ("with_skill", "baseline") if a not in arms]
    doc, sha, located = _read_output(path)
    res = doc["results"]
    prompt_ids = {p.get("id"): p for p in res.get("prompts") or [] if isinstance(p, dict)}
    rw = Where(path) / "results"
    cases: dict[str, dict[str, Any]] = {}
    used = {a: 0 for a in arms}
    overhead = {"input_tokens": 0, "output_tokens": 0, "counted": 0, "missing": 0}
    models: dict[str, set[str]] = {a: set() for a in arms}
    ambiguous = 0
    for row, iw in located:
        if not isinstance(row, dict):
            raise iw.fail("expected a result object")
        arm = _arm_of(row, arms, by, prompt_ids, iw)
        used[arm] += 1
        provider = member_object(row, "provider")
        if isinstance(provider.get("id"), str):
            models[arm].add(provider["id"])
        key, label, prompt_text = _case_key(row, iw)
        case = cases.setdefault(
            key, {"label": label, "prompt": prompt_text, "arms": {a: [] for a in arms}}
        )
        case["arms"][arm].append((_repeat_index(row, iw), iw, _draw(row, iw, overhead)))
        if row.get("failureReason") is None and isinstance(row.get("error"), str):
            ambiguous += 1
    for arm, n in used.items():
        if n == 0:
            raise (rw / "results").fail(
                f"expected results for arm {arm} ({by} {arms[arm]!r}); no row matched it"
            )
    case_docs = []
    for key, c in cases.items():
        arms_doc: dict[str, Any] = {}
        for arm in ("with_skill", "baseline", "control"):
            if arm in arms:
                draws = _indexed(c["arms"][arm])
                arms_doc[arm] = {"draws": draws, "generation": None}
            elif arm in missing:
                arms_doc[arm] = {"draws": [], "generation": None}
        prompt = c["prompt"] if by == "provider" else None
        case_docs.append(case_entry(case_id_for(c["label"], content=key), prompt, arms_doc))
    all_models = set().union(*models.values())
    model = next(iter(all_models)) if len(all_models) == 1 else None
    provider_name = None
    if model is not None and model.split(":", 1)[0] in ("openai", "anthropic"):
        provider_name = model.split(":", 1)[0]
    meta = member_object(doc, "metadata")
    version = (
        meta.get("promptfooVersion") if isinstance(meta.get("promptfooVersion"), str) else None
    )
    repeat = member_object(member_object(doc, "config"), "evaluateOptions").get("repeat")
    gens = (
        repeat if isinstance(repeat, int) and not isinstance(repeat, bool) and repeat >= 1 else None
    )
    judge = _configured_grader(doc.get("config"))
    unrecorded = [
        "judge_samples_per_generation",
        "run.surface",
        "run.harness",
        "each case's rubric_sha256",
    ]
    if judge is None:
        judge = unrecorded_judge(TOOL, "grader")
        unrecorded.insert(0, "judge.model (no grader provider in config.defaultTest.options)")
    if model is None:
        unrecorded.append("run.model (the arms used different providers; see arms labels)")
    if gens is None:
        unrecorded.append("generations_per_arm (no repeat count in config.evaluateOptions)")
    if skill_md is None:
        unrecorded.append("skill.sha256 and skill.tokens (SKILL.md not given)")
    if version is None:
        unrecorded.append("provenance.tool_version (metadata.promptfooVersion absent)")
    stamp = res.get("timestamp")
    times = run_times(
        [parse_instant(stamp, rw / "timestamp")] if isinstance(stamp, str) and stamp else [], []
    )
    if times["started_at"] is None:
        unrecorded.append("run.started_at (no results.timestamp)")
    arm_specs: dict[str, dict[str, Any]] = {
        a: arm_spec(
            f"{by}:{arms[a]}"[:200]
            + (f" ({', '.join(sorted(models[a]))})"[:100] if by == "prompt" and models[a] else "")
        )
        for a in arms
    }
    for a in missing:
        arm_specs[a] = arm_spec(None, recorded=False)
        unrecorded.append(
            f"the {a} arm (a single-arm import: no lift, no interval, no value per token)"
        )
    judge_overhead = None
    if overhead["counted"]:
        judge_overhead = {
            "input_tokens": overhead["input_tokens"],
            "output_tokens": overhead["output_tokens"],
            "usd": None,
            "judged_draws_counted": overhead["counted"],
            "judged_draws_missing_usage": overhead["missing"],
        }
    skill_text = read_skill_md(skill_md)
    out = declared_receipt(
        skill_name,
        skill_text,
        case_docs,
        provenance_doc(TOOL, version, str(path), sha, unrecorded),
        model=model,
        provider=provider_name,
        started_at=times["started_at"],
        generations_per_arm=gens,
        judge=judge,
        arms=arm_specs,
        band_source="generation",
        judge_overhead=judge_overhead,
    )
    if times["started_at_offset"] is not None:
        out["run"]["started_at_offset"] = times["started_at_offset"]
    if ambiguous:
        out["provenance"]["notes"] = [
            f"{ambiguous} row(s) carry an error message but no failureReason (a version 2 or "
            "older version 3 file): promptfoo also writes an assertion's failure reason there, "
            "so an error cannot be told from a failed assertion; a row with no grading is read "
            "as an error (lost), one with grading as measured."
        ]
    return out


def _repeat_index(row: dict[str, Any], w: Where) -> int | None:
    """The row's ``repeatIndex`` (a count), or ``None`` where the export has none."""
    value = row.get("repeatIndex")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise (w / "repeatIndex").fail(
            f"expected a repeat index (an integer from 0), found {value!r}"
        )
    return value


def _indexed(rows: list[tuple[int | None, Where, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The draws of one case arm: indexed by ``repeatIndex`` when every row records one (in its
    order), else by the order of the rows.

    Raises:
        ImportError_: some rows record a repeat index and others do not, or one is repeated.
    """
    recorded = [r for r in rows if r[0] is not None]
    if not recorded:
        return [dict(d, index=j) for j, (_, _, d) in enumerate(rows)]
    if len(recorded) != len(rows):
        w = next(w for i, w, _ in rows if i is None)
        raise (w / "repeatIndex").fail(
            "expected a repeatIndex on every row of this test and arm, as on the others; found none"
        )
    seen: dict[int, Where] = {}
    indexed = [(i, w, d) for i, w, d in rows if i is not None]
    for i, w, _ in indexed:
        if i in seen:
            raise (w / "repeatIndex").fail(
                f"expected each repeat index once per test and arm; {i} is also at "
                f"{seen[i].pointer}"
            )
        seen[i] = w
    return [dict(d, index=i) for i, _, d in sorted(indexed, key=lambda r: r[0])]


#: Bytes: the largest JSONL export read (line by line; a JSON output file stays at
#: MAX_SOURCE_BYTES).
MAX_JSONL_BYTES = 512 * 1024 * 1024


def _read_output(path: Path) -> tuple[dict[str, Any], str, list[tuple[Any, Where]]]:
    """(output document, sha256 of the file, [(result row, where)]) of a JSON output file or a
    JSONL export (one ``EvaluateResult`` per line, wrapped here as ``{"results": {"results":
    …}}``)."""
    if path.suffix.lower() != ".jsonl":
        doc, raw = read_json(path)
        validate_source(doc, "promptfoo", path)  # the shape of every member walked below
        w = Where(path)
        res = w.get(doc, "results", dict)
        rows = (w / "results").get(res, "results", list)
        return (
            doc,
            file_sha256(raw),
            [(row, w / "results" / "results" / i) for i, row in enumerate(rows)],
        )
    digest = hashlib.sha256()
    located: list[tuple[Any, Where]] = []
    size = 0
    try:
        with path.open("rb") as fh:
            for n, line in enumerate(fh, start=1):
                size += len(line)
                if size > MAX_JSONL_BYTES:
                    raise ImportError_.at(
                        path, "", f"file is over {MAX_JSONL_BYTES} bytes; at most that is read"
                    )
                digest.update(line)
                if not line.strip():
                    continue
                where = Where(path, (f"line {n}",))
                row = parse_json_bytes(line, path, pointer=f"/line {n}")
                validate_source(row, "promptfoo", path, definition="result", prefix=(f"line {n}",))
                located.append((row, where))
    except OSError as exc:
        raise ImportError_.at(path, "", f"cannot read: {exc.strerror}") from None
    if not located:
        raise ImportError_.at(
            path, "", "expected one promptfoo result per line; the file holds none"
        )
    return (
        {"results": {"version": 3, "results": [r for r, _ in located]}},
        digest.hexdigest(),
        located,
    )


def _configured_grader(config: Any) -> dict[str, Any] | None:
    """The grader named in ``config.defaultTest.options.provider`` (a string or ``{id}``), if
    any."""
    try:
        provider = config["defaultTest"]["options"]["provider"]
    except (KeyError, TypeError):
        return None
    name = provider.get("id") if isinstance(provider, dict) else provider
    if not isinstance(name, str) or not name.strip():
        return None
    judge = unrecorded_judge(TOOL, "grader")
    judge["model"] = name[:200]
    judge["provider"] = name.split(":", 1)[0][:100] if ":" in name else None
    return judge


def _arm_of(
    row: dict[str, Any], arms: dict[str, str], by: str, prompt_ids: dict[Any, Any], w: Where
) -> str:
    if by == "provider":
        p = row.get("provider")
        names = [p.get("label"), p.get("id")] if isinstance(p, dict) else [p]
    else:
        p = member_object(row, "prompt")
        pid = row.get("promptId")
        listed = prompt_ids.get(pid) or {}
        names = [p.get("label"), listed.get("label"), pid, p.get("raw"), listed.get("raw")]
    names = [n for n in names if isinstance(n, str) and n]
    hits = [a for a, label in arms.items() if label in names]
    if len(hits) != 1:
        what = "no arm maps" if not hits else f"several arms map ({', '.join(hits)})"
        raise (w / by).fail(
            f"{what} this row's {by} {names[:2]!r}; map each {by} label to one arm "
            "(or leave the row's label out of the file)"
        )
    return hits[0]


def _case_key(row: dict[str, Any], w: Where) -> tuple[str, str, str | None]:
    tc = member_object(row, "testCase")
    meta = member_object(tc, "metadata")
    vars_ = tc.get("vars", row.get("vars"))
    prompt = member_object(row, "prompt")
    prompt_text = prompt.get("raw") if isinstance(prompt.get("raw"), str) else None
    if isinstance(meta.get("id"), (str, int)) and not isinstance(meta.get("id"), bool):
        return f"id:{meta['id']}", str(meta["id"]), prompt_text
    desc = (
        tc.get("description")
        if isinstance(tc.get("description"), str) and tc["description"].strip()
        else None
    )
    try:
        content = rfc8785.dumps({"description": desc, "vars": vars_}).decode("utf-8")
    except (rfc8785.CanonicalizationError, TypeError):
        raise (w / "testCase" / "vars").fail(
            "expected JSON-serialisable test vars (no NaN)"
        ) from None
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
    return f"content:{content}", desc or f"case-{digest[:12]}", prompt_text


def _draw(row: dict[str, Any], w: Where, overhead: dict[str, int]) -> dict[str, Any]:
    response = member_object(row, "response")
    output = response.get("output")
    answer = output if isinstance(output, str) else (None if output is None else _json_text(output))
    usage = response.get("tokenUsage") if isinstance(response.get("tokenUsage"), dict) else None
    tokens: dict[str, Any] | None = None
    if usage is not None and _is_int(usage.get("prompt")) and _is_int(usage.get("completion")):
        tokens = {"input": usage["prompt"], "output": usage["completion"], "counted_by": "source"}
    reason = row.get("failureReason")
    grading = row.get("gradingResult") if isinstance(row.get("gradingResult"), dict) else None
    if reason is None and isinstance(row.get("error"), str) and grading is None:
        # files written before failureReason existed: an error with no grading is a real error
        reason = 2
    checks = _checks(grading, w / "gradingResult")
    if reason == 2:
        error = (
            row["error"]
            if isinstance(row.get("error"), str)
            else "promptfoo recorded an error (failureReason 2)"
        )
        return draw_doc(
            0,
            answer=answer,
            lost_reason=f"source error: {error}"[:4000],
            tokens=tokens,
            source_error=error[:4000],
            checks=checks,
        )
    if "score" not in row or row["score"] is None:
        raise (w / "score").fail("expected the result's score (a number between 0 and 1)")
    score = unit_score(row["score"], w / "score")
    if grading is not None:
        used = grading.get("tokensUsed")
        if (
            isinstance(used, dict)
            and _is_int(used.get("prompt"))
            and _is_int(used.get("completion"))
        ):
            overhead["input_tokens"] += used["prompt"]
            overhead["output_tokens"] += used["completion"]
            overhead["counted"] += 1
        else:
            overhead["missing"] += 1
    return draw_doc(0, answer=answer, score=score, tokens=tokens, checks=checks)


#: How promptfoo words an assertion whose own code failed (src/assertions/python.ts,
#: javascript.ts): an error of the check, never a fail of the answer.
_ERRORED = ("Python code execution failed", "Custom function threw error")


def _checks(grading: dict[str, Any] | None, w: Where) -> list[dict[str, Any]]:
    """Every assertion of a row's grading as a check, in the source's order (issue 36).

    Raises:
        ImportError_: an assertion that did not error records no ``pass`` true or false.
    """
    checks: list[dict[str, Any]] = []
    for i, comp in enumerate(member_list(grading, "componentResults")):
        if not isinstance(comp, dict) or not isinstance(comp.get("assertion"), dict):
            continue
        assertion = comp["assertion"]
        atype = str(assertion.get("type"))
        reason: str = comp["reason"] if isinstance(comp.get("reason"), str) else ""
        errored = bool(member_object(comp, "metadata").get("graderError")) or reason.startswith(
            _ERRORED
        )
        if not errored and not isinstance(comp.get("pass"), bool):
            raise (w / "componentResults" / i / "pass").fail(
                "expected the assertion's pass (true or false)"
            )
        passed = comp.get("pass") is True and not errored
        value = assertion.get("value")
        shown = value if isinstance(value, str) else (None if value is None else _json_text(value))
        check: dict[str, Any] = {
            "name": (f"{atype}: {shown}" if shown is not None else atype)[:200],
            "kind": _CHECK_KINDS.get(atype, "assertion"),
            "pass": passed,
            "outcome": "error" if errored else ("pass" if passed else "fail"),
            "source_type": atype[:200],
        }
        checks.append(check)
    return checks


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _json_text(v: Any) -> str | None:
    try:
        return rfc8785.dumps(v).decode("utf-8")
    except (rfc8785.CanonicalizationError, TypeError):
        return None


#: Registry entry: :func:`import_promptfoo`, file
#: ``promptfoo-<skill>-<document sha256[:8]>.json``.
promptfoo_importer = register_single("promptfoo", TOOL, import_promptfoo)
