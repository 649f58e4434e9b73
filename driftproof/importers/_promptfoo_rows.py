"""promptfoo result rows read: the arm a row maps to, its test case, its draw and checks."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from driftproof._json import member_list, member_object
from driftproof.importers._common import (
    Where,
    canonical_json,
    file_sha256,
    is_count,
    parse_json_bytes,
    read_json,
    source_tokens,
    unit_score,
)
from driftproof.importers._declared import source_check
from driftproof.importers._schema import validate_source
from driftproof.importers._text import Repair
from driftproof.receipt import Draw, build_draw

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


def repeat_index(row: dict[str, Any], w: Where) -> int | None:
    """The row's ``repeatIndex`` (a count), or ``None`` where the export has none."""
    value = row.get("repeatIndex")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise (w / "repeatIndex").fail(
            f"expected a repeat index (an integer from 0), found {value!r}"
        )
    return value


#: Bytes: the largest JSONL export read (line by line; a JSON output file stays at
#: MAX_SOURCE_BYTES).
MAX_JSONL_BYTES = 512 * 1024 * 1024


def read_output(
    path: Path, repairs: list[Repair]
) -> tuple[dict[str, Any], str, list[tuple[Any, Where]]]:
    """(document, sha256, [(result row, where)]) of a JSON output or JSONL export file.

    A JSONL export (one ``EvaluateResult`` a line) is wrapped as ``{"results": {"results": …}}``.
    """
    if path.suffix.lower() != ".jsonl":
        doc, raw = read_json(path, repairs)
        validate_source(doc, "promptfoo", path)  # the shape of every member walked below
        rows = Where(path) / "results" / "results"
        return (
            doc,
            file_sha256(raw),
            [(row, rows / i) for i, row in enumerate(doc["results"]["results"])],
        )
    digest = hashlib.sha256()
    located: list[tuple[Any, Where]] = []
    size = 0
    try:
        with path.open("rb") as fh:
            for n, line in enumerate(fh, start=1):
                size += len(line)
                if size > MAX_JSONL_BYTES:
                    raise Where(path).fail(
                        f"file is over {MAX_JSONL_BYTES} bytes; at most that is read"
                    )
                digest.update(line)
                if not line.strip():
                    continue
                where = Where(path, (f"line {n}",))
                row = parse_json_bytes(line, path, repairs, pointer=f"/line {n}")
                validate_source(row, "promptfoo", path, definition="result", prefix=(f"line {n}",))
                located.append((row, where))
    except OSError as exc:
        raise Where(path).fail(f"cannot read: {exc.strerror}") from None
    if not located:
        raise Where(path).fail("expected one promptfoo result per line; the file holds none")
    return (
        {"results": {"version": 3, "results": [r for r, _ in located]}},
        digest.hexdigest(),
        located,
    )


def arm_of(
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


def case_key(row: dict[str, Any], w: Where) -> tuple[str, str, str | None]:
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
    canonical = canonical_json({"description": desc, "vars": vars_})
    if canonical is None:
        raise (w / "testCase" / "vars").fail("expected JSON-serialisable test vars (no NaN)")
    content, digest = canonical.decode("utf-8"), file_sha256(canonical)
    return f"content:{content}", desc or f"case-{digest[:12]}", prompt_text


def draw(row: dict[str, Any], w: Where, overhead: dict[str, int]) -> Draw:
    response = member_object(row, "response")
    output = response.get("output")
    answer = output if isinstance(output, str) else (None if output is None else _json_text(output))
    tokens = source_tokens(response.get("tokenUsage"), "prompt", "completion")
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
        return build_draw(
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
            and is_count(used.get("prompt"))
            and is_count(used.get("completion"))
        ):
            overhead["input_tokens"] += used["prompt"]
            overhead["output_tokens"] += used["completion"]
            overhead["counted"] += 1
        else:
            overhead["missing"] += 1
    return build_draw(0, answer=answer, score=score, tokens=tokens, checks=checks)


#: How promptfoo words an assertion whose own code failed (src/assertions/python.ts,
#: javascript.ts): an error of the check, never a fail of the answer.
_ERRORED = ("Python code execution failed", "Custom function threw error")


def _checks(grading: dict[str, Any] | None, w: Where) -> list[dict[str, Any]]:
    """Every assertion of a row's grading as a check, in order; one with no ``pass`` fails."""
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
        outcome = "error" if errored else ("pass" if passed else "fail")
        checks.append(
            source_check(atype, shown, _CHECK_KINDS.get(atype, "assertion"), passed, outcome)
        )
    return checks


def _json_text(v: Any) -> str | None:
    """``v`` as RFC 8785 JSON text, or ``None`` when it has none."""
    canonical = canonical_json(v)
    return None if canonical is None else canonical.decode("utf-8")
