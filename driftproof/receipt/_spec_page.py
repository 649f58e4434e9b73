"""The generated blocks of the receipt specification page (``site_src/receipt-spec.md``).

The version map, the field table and the bounds table are refilled from code between
``<!-- generated: NAME -->`` markers (:func:`render_page`); a test fails on a stale page.
Regenerate with ``python -m driftproof.receipt._spec_page site_src/receipt-spec.md``.
A field's meaning is the model's field docstring, else :data:`MEANINGS`; its unit,
:func:`field_unit`. Paths as the page writes them (``.`` between members, ``[]`` for items,
``<arm>`` for each arm).
"""

from __future__ import annotations

import re
import sys
import types
import typing
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel

from driftproof.receipt import _bounds
from driftproof.receipt._canonical import canonical_id, version_id
from driftproof.receipt._messages import resolve_ref
from driftproof.receipt._model import Receipt
from driftproof.receipt._versions import known_versions, schema_for
from driftproof.wording import ARMS

_D = "cases[].arms.<arm>.draws[]"
_J = f"{_D}.judge_samples[]"
_C = f"{_D}.captured_files[]"

#: Units by the last member's name, first match wins, for a string, number or integer field
#: the table below does not name.
_SUFFIX_UNITS: Final = (
    ("version", "version"),
    ("_at", "RFC 3339 date-time"),
    ("_offset", "UTC offset"),
    ("_usd_per_mtok", "USD per million tokens"),
    ("usd", "USD"),
    ("tokens", "tokens"),
    ("_s", "seconds"),
    ("pointer", "JSON pointer"),
    ("chars", "characters"),
    ("model", "id"),
    ("name", "id"),
    ("provider", "id"),
    ("score", "score"),
    ("_ids[]", "id"),
)

#: path → unit, where the field's type and name do not give it (:func:`field_unit`).
FIELD_UNITS: Final[dict[str, str]] = {
    "$schema": "URL",
    "schema_version": "version",
    "verification_level": "level",
    "run.samples": "count",
    "run.generations_per_arm": "draws per arm",
    "run.judge_samples_per_generation": "judge samples per draw",
    "run.endpoint_attempts": "requests",
    "run.transcripts.file": "path",
    "run.transcripts.draws": "draws",
    **{f"{p}.name": "text" for p in ("skill", "suite")},
    "skill.tokens": "tokens (estimate)",
    "judge.service": "URL",
    **{f"judge.scale.{p}": "score" for p in ("worst", "best", "step")},
    "cases[].id": "id",
    "cases[].threshold": "score",
    f"{_D}.index": "ordinal",
    f"{_D}.checks[].name": "text",
    f"{_D}.checks[].source_type": "id",
    f"{_D}.captured_files[].path": "path",
    f"{_D}.captured_files[].bytes": "bytes",
    f"{_D}.other_model_calls": "calls",
    "cases[].arms.<arm>.generation.sd": "score",
    **{f"economics.judge_overhead.judged_draws_{p}": "draws" for p in ("counted", "missing_usage")},
    "provenance.tool": "id",
    "provenance.document": "path",
    **{f"regrade.answers_{p}": "answers" for p in ("read", "graded", "carried")},
    "regrade.logical_judge_calls": "judge calls",
    "regrade.runner_attempts": "requests",
    "run.retry.max_attempts": "attempts",
    "run.language": "language tag",
    "run.quality_margin": "score or pass rate",
    "arms.<arm>.service": "URL",
    **{f"arms.<arm>.skill_fired.{p}": "draws" for p in ("fired", "observed")},
    f"{_D}.lost.kind": "id",
    f"{_D}.lost.status": "HTTP status",
    f"{_D}.stop_reason": "id",
    f"{_D}.refusal.category": "id",
    f"{_D}.attempts[].status": "HTTP status",
    **{f"{_D}.harness_events[].{p}": "id" for p in ("type", "subtype")},
    "text_repairs[].replaced": "code points",
    "source_report.figures[].case": "id",
    **{f"source_report.figures[].{p}": "unit" for p in ("value", "lower", "upper")},
    "source_report.figures[].level": "fraction",
    "source_report.figures[].reducer": "id",
    "source_report.decision.p_value": "probability",
    "source_report.stages[].name": "text",
    "source_report.reducers[]": "id",
    "source_report.source_repository": "id",
    "source_report.source_revision": "version",
    "source_report.evaluator_digest": "id",
    f"{_D}.judge_samples[].ignored_members[]": "JSON pointer",
    "arms.<arm>.input_tokens_median": "tokens",
    **{f"source_figures.{p}": "id" for p in ("source", "commit")},
    **{f"source_figures.{p}": "path" for p in ("files[].path", "file")},
    **{f"source_figures.{p}": "git blob id" for p in ("files[].git_blob_sha1", "git_blob_sha1")},
    "source_figures.rows[].num": "count",
    **{f"source_figures.rows[].{f}.value": "as printed" for f in ("score", "baseline", "uplift")},
}


def field_unit(path: str, node: dict[str, Any]) -> str:
    """The unit of the field at ``path`` whose schema is ``node``.

    :data:`FIELD_UNITS` first, then the schema's type, then the member's name ("id": a name
    from a fixed list or a source's identifier). An object or an array has none of its own
    (its members do): the empty string.
    """
    kind = node.get("type")
    last = path.rsplit(".", 1)[-1]
    if path in FIELD_UNITS:
        return FIELD_UNITS[path]
    if node.get("pattern") == "^[0-9a-f]{64}$":
        return "sha256"
    if kind in ("object", "array"):
        return ""
    if "enum" in node or "const" in node:
        return "id"
    if kind == "boolean":
        return "true/false"
    unit = next((u for suffix, u in _SUFFIX_UNITS if last.endswith(suffix)), None)
    if unit is None and ".tokens." in path:
        unit = "tokens"
    return unit or ("text" if kind == "string" else str(kind or "value"))


#: path → meaning, for what is not a field of the current model: array items, older
#: versions' fields and ``regrade.original_runner``.
_OTHER_MEANINGS: Final[dict[str, str]] = {
    "run.samples": (
        "One count per arm that did not say whether it counted generations or judge samples; "
        "readers state both counts as unknown."
    ),
    "cases[]": "One case.",
    f"{_D}": "One draw: one answer and its judge samples.",
    f"{_J}": "One judge sample.",
    f"{_D}.checks[]": "One check result {name, kind, pass}.",
    f"{_C}": "One file the agent left.",
    f"{_D}.other_model_calls[]": "One call on another model.",
    "provenance.unrecorded[]": "One thing the source did not record.",
    "regrade.original_runner.name": "Its name.",
    "regrade.original_runner.version": "Its version.",
    "regrade.judge_ids[]": "One judge id, dates kept.",
    "run.batch.batch_ids[]": "One batch id, as the provider gave it.",
    "run.batch.file_ids[]": "One file id.",
    f"{_D}.attempts[]": "One failed attempt.",
    f"{_D}.harness_events[]": "One event.",
    "provenance.notes[]": "One note.",
    "text_repairs[]": "One repaired string.",
    "bounded_text[]": "One such text.",
    "source_report.reducers[]": "One reducer, as the source named it.",
    "source_report.figures[]": "One figure, as the source gave it.",
    "source_report.stages[]": "One stage, as the source printed it.",
    f"{_J}.ignored_members[]": "One member, as a JSON pointer into the decision.",
}


def _nested(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """(the model a field holds, whether as an array's items), or ``(None, False)``."""
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _nested(inner[0]) if len(inner) == 1 else (None, False)
    if origin is list:
        return _nested(args[0])[0], True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    return None, False


def model_field_docs(
    model: type[BaseModel] = Receipt, prefix: str = "", out: dict[str, str] | None = None
) -> dict[str, str]:
    """Every field of ``model`` and the models it holds, by page path → its docstring.

    Whitespace is folded, the order is the model's; a field without a docstring maps to ``""``.
    """
    out = {} if out is None else out
    for name, info in model.model_fields.items():
        member = info.alias or name
        segment = "<arm>" if member in ARMS and prefix.endswith("arms") else member
        path = f"{prefix}.{segment}" if prefix else segment
        out.setdefault(path, " ".join((info.description or "").split()))
        inner, is_array = _nested(info.annotation)
        if inner is not None:
            model_field_docs(inner, path + ("[]" if is_array else ""), out)
    return out


#: page path → meaning: the model's docstrings, and the meanings above.
MEANINGS: Final[dict[str, str]] = {**model_field_docs(), **_OTHER_MEANINGS}


#: What each version added, in the method's words (the method dates these fields).
VERSION_NOTES: dict[str, str] = {
    "0.3.1": "Checks recorded as {name, kind, pass}; skill.tokens. One run.samples count per arm, "
    "which did not say what it counted.",
    "0.10": (
        "run.capture (which answer the grader saw), run.harness, and each draw's captured_files."
    ),
    "0.11": "run.preset; the schema refuses a receipt that names a preset and reads TESTED.",
    "0.13": "source_figures and uncertainty_unavailable for sources that print aggregates only; "
    "the schema requires the figures when the mark is set.",
    "0.14": "Separate counts (run.generations_per_arm, run.judge_samples_per_generation, replacing "
    "run.samples), run.endpoint_attempts, generation.sd, band_source, "
    "economics.judge_overhead.judged_draws_counted and judged_draws_missing_usage (the "
    "one-draw-per-case counting corrected), import provenance, skill_fired and source_error.",
    "0.15": "What the provider said and what the run asked for: each draw's stop_reason, refusal, "
    "over_budget, failed attempts and harness events; a lost draw's kind, error class and "
    "status; cache and reasoning token parts; each arm's answering service, construction, "
    "skill-fired rate and whether it was recorded (single-arm sources); output budgets, "
    "truncation rule, retry policy, batch ids and language; the grading channel and the judge "
    "template's version; judge samples' reasons; text repairs and bounded text; provenance "
    "partial, notes and details. Every member 0.15 added may be absent, read as unknown.",
    "0.16": "source_report on imported receipts: the source's own figures (with interval, "
    "level, unit, epoch reducer, the text as printed and whether it was rounded), its decision, "
    "its stages (not run kept apart from a fail), its reducers and the revision and evaluator "
    "digest it recorded; a check's outcome (error apart from fail) and source type, and the "
    "check kind assertion; a draw's cost as the source reported it (cost_usd) and a case's "
    "category in its source; each draw's reasoning kept apart (its length and digest) and its "
    "answer's output tokens without it; each arm's median reported input tokens; the output "
    "budget's spelling on Chat Completions; members a judge's structured decision carried "
    "beyond its schema, recorded and ignored; run.aa marks an A/A calibration (the with-skill "
    "arm run twice, no skill verdict) and run.quality_margin records the non-inferiority "
    "margin declared before the run. Every member 0.16 added may be absent, read as unknown.",
}


def _unwrap(root: dict[str, Any], node: Any) -> tuple[dict[str, Any], bool]:
    node = resolve_ref(root, node)
    if "anyOf" in node:
        branches = [resolve_ref(root, b) for b in node["anyOf"] if b != {"type": "null"}]
        if len(branches) == 1:
            return branches[0], len(branches) < len(node["anyOf"])
    return node, False


_Paths = dict[str, tuple[dict[str, Any], bool]]


def _walk(root: dict[str, Any], node: Any, path: str = "", out: _Paths | None = None) -> _Paths:
    """Every field below ``node`` of ``root`` by page path, in schema order, into ``out``."""
    out = {} if out is None else out
    node, nullable = _unwrap(root, node)
    if path:
        out.setdefault(path, (node, nullable))
    if isinstance(node.get("properties"), dict):
        for key, sub in node["properties"].items():
            name = "<arm>" if key in ARMS and path.endswith("arms") else key
            _walk(root, sub, f"{path}.{name}" if path else name, out)
    elif isinstance(node.get("items"), dict):
        _walk(root, node["items"], f"{path}[]", out)
    return out


def field_paths(version: str) -> _Paths:
    """Every field of ``version`` by page path, in schema order → (its schema, nullable)."""
    return _walk(schema_for(version), schema_for(version))


def model_paths() -> _Paths:
    """The model's members inside ``source_figures``: page path → (their schema, nullable).

    Every frozen schema allows any object there; the page lists what the model reads.
    """
    model = Receipt.model_json_schema(mode="validation", by_alias=True)
    return {
        path: v for path, v in _walk(model, model).items() if path.startswith("source_figures.")
    }


def _type(node: dict[str, Any], nullable: bool) -> str:
    if "const" in node:
        text = f"`{node['const']}`"
    elif "enum" in node:
        text = " / ".join(f"`{v}`" for v in node["enum"])
    elif node.get("pattern") == "^[0-9a-f]{64}$":
        text = "sha256 hex"
    else:
        text = str(node.get("type", "any"))
    return f"{text} or null" if nullable else text


def type_name(value: Any) -> str:
    """The JSON Schema type name of a JSON ``value`` (``"0.16"`` → ``string``)."""
    kinds: tuple[tuple[type, str], ...] = (
        (bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
        (list, "array"), (dict, "object"),
    )  # fmt: skip
    return next((name for kind, name in kinds if isinstance(value, kind)), "null")


def field_doc(path: str, node: dict[str, Any]) -> tuple[str, str]:
    """(unit, meaning) of a field (:data:`MEANINGS`); the schema's description when unlisted."""
    meaning = MEANINGS.get(path) or str(node.get("description", "")).replace("|", "/")
    return field_unit(path, node), meaning


def fields_markdown() -> str:
    """The field table: every field of every frozen version, in schema order."""
    versions = known_versions()
    per_version = {v: field_paths(v) for v in versions}
    order: list[str] = []
    for v in versions:  # a field keeps its place; a later field goes after its predecessor
        previous = None
        for path in per_version[v]:
            if path not in order:
                order.insert(order.index(previous) + 1 if previous else len(order), path)
            previous = path
    typed = model_paths()  # the model's reading of source_figures, right after it
    order[order.index("source_figures") + 1 : order.index("source_figures") + 1] = list(typed)
    rows = ["| Field | Type | Unit | Since | Meaning |", "|---|---|---|---|---|"]
    for path in order:
        if path in typed:
            unit, meaning = field_doc(path, typed[path][0])
            rows.append(f"| `{path}` | {_type(*typed[path])} | {unit} | 0.13 | {meaning} |")
            continue
        present = [v for v in versions if path in per_version[v]]
        since = present[0]
        if present[-1] != versions[-1]:
            since = (
                f"{present[0]}–{present[-1]} (not in {versions[versions.index(present[-1]) + 1]})"
            )
        latest = per_version[present[-1]][path]
        unit, meaning = field_doc(path, latest[0])
        consts = {str(per_version[v][path][0].get("const")) for v in present}
        kind = _type(*latest)
        if len(consts) > 1:  # each version's own value (schema_version): the value's type
            kind = _type({"type": type_name(latest[0]["const"])}, latest[1])
        rows.append(f"| `{path}` | {kind} | {unit} | {since} | {meaning} |")
    return "\n".join(rows)


def versions_markdown() -> str:
    """The version map: each frozen version, what it added, and where it is served.

    Then :func:`unpublished_versions`, when some number was skipped.
    """
    rows = ["| Version | Adds | Served at |", "|---|---|---|"]
    rows += [f"| {v} | {VERSION_NOTES.get(v, '')} | `{version_id(v)}` |" for v in known_versions()]
    rows.append(
        "| any (canonical) | A small schema that dispatches on `schema_version` to the frozen "
        "file of that version, so a receipt of every version validates against it. "
        f"| `{canonical_id()}` |"
    )
    return "\n".join(rows) + (f"\n\n{gaps}\n" if (gaps := unpublished_versions()) else "")


def unpublished_versions() -> str:
    """Which version numbers between the frozen versions were never published, in a sentence.

    A table of the versions says it below itself; ``""`` when no number was skipped.
    """
    numbers = [tuple(int(x) for x in v.split(".")[:2]) for v in known_versions()]
    gaps = []
    for (major, lo), (next_major, hi) in zip(numbers, numbers[1:], strict=False):
        if major == next_major and hi - lo > 1:
            gaps.append(f"{major}.{lo + 1}" + (f" to {major}.{hi - 1}" if hi - lo > 2 else ""))
    if not gaps:
        return ""
    return (
        f"The numbers follow the method's own: a version not in the table ({', '.join(gaps)}) "
        "was never published, so a receipt naming one is refused as an unknown version."
    )


def bounds_markdown() -> str:
    """The bounds table, read from the constants in ``_bounds`` with their doc comments."""
    source = Path(_bounds.__file__).read_text(encoding="utf-8")
    rows = ["| Limit | Value | What it bounds |", "|---|---|---|"]
    for match in re.finditer(r"((?:^#: .*\n)+)^([A-Z_]+): Final\[int\] = ", source, re.M):
        doc = " ".join(line[3:].strip() for line in match.group(1).splitlines())
        name = match.group(2)
        rows.append(f"| `{name}` | {getattr(_bounds, name):,} | {doc} |")
    return "\n".join(rows)


_BLOCKS = {"versions": versions_markdown, "fields": fields_markdown, "bounds": bounds_markdown}


def render_page(text: str) -> str:
    """``text`` with every generated block refilled from the code.

    Raises:
        ValueError: a block's markers are missing.
    """
    for name, make in _BLOCKS.items():
        start, end = f"<!-- generated: {name} -->\n", f"\n<!-- /generated: {name} -->"
        block = (start + make() + end).replace("\\", "\\\\")  # a literal replacement
        text, found = re.subn(f"{start}.*?{end}", block, text, flags=re.S)
        if not found:
            raise ValueError(f"the page has no generated block {name!r}")
    return text


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    page = Path(sys.argv[1]) if len(sys.argv) == 2 else Path()
    if not page.is_file():
        sys.exit(f"usage: python -m {__spec__.name} site_src/receipt-spec.md (a file it rewrites)")
    page.write_text(render_page(page.read_text(encoding="utf-8")), encoding="utf-8")
