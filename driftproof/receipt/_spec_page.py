"""The generated blocks of the receipt specification page (``site_src/receipt-spec.md``).

The version map, the field table and the bounds table are refilled from code between
``<!-- generated: NAME -->`` markers (:func:`render_page`); a test fails on a stale page.
Regenerate with ``python -m driftproof.receipt._spec_page site_src/receipt-spec.md``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from driftproof.receipt import _bounds
from driftproof.receipt._canonical import canonical_id, version_id
from driftproof.receipt._messages import resolve_ref
from driftproof.receipt._model import Receipt
from driftproof.receipt._spec_docs import MEANINGS, field_unit
from driftproof.receipt._versions import known_versions, schema_for
from driftproof.wording import ARMS

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
    """(unit, meaning) of a field, from ``_spec_docs``; the schema's description when unlisted."""
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
    """The version map: each frozen version, what it added, and where it is served."""
    rows = ["| Version | Adds | Served at |", "|---|---|---|"]
    rows += [f"| {v} | {VERSION_NOTES.get(v, '')} | `{version_id(v)}` |" for v in known_versions()]
    rows.append(
        "| any (canonical) | A small schema that dispatches on `schema_version` to the frozen "
        "file of that version, so a receipt of every version validates against it. "
        f"| `{canonical_id()}` |"
    )
    return "\n".join(rows)


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
