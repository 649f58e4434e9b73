"""Which importer that needs options reads a file, judged by the file's top level alone.

An importer that cannot run without options (arms, a skill name) is never tried on a file another
importer refused; these checks name it instead, from the members its format always has:

- promptfoo: an output's ``results`` object holding ``results[]`` (with ``version``, ``stats``
  or ``prompts``), or a JSONL export whose first row holds ``testCase`` and ``provider``;
- Inspect AI: a ``.json`` log's ``eval`` object naming its ``task`` and ``model``, or an
  ``.eval`` zip holding ``header.json`` or ``_journal/start.json``;
- OpenAI Evals: an output item (``object`` ``eval.run.output_item``, or a ``run_id`` beside the
  data source item's id) alone, first in a JSON array, in a list page's ``data[]`` or on the
  first line of JSONL.

:func:`promptfoo_row_found` says what a JSONL line holds when it is not a promptfoo result;
:func:`unread_format` names a known format no importer reads (github-action-benchmark's data file:
``lastUpdate`` and ``entries``, each suite a list of runs holding ``commit``, ``date``, ``tool``
and ``benches``, as its ``DataJson`` and ``Benchmark`` types in src/write/types.ts and
src/extract.ts have them; a Driftproof receipt: ``schema_version`` and ``verification_level``;
skill-creator's ``evals.json``: ``evals[]``, each a ``prompt`` string and no object member).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from driftproof._json import json_kind

#: importer -> the options it needs, as a refusal says them.
OPTIONS_TO_GIVE = {
    "promptfoo": "give --arm with_skill=LABEL --arm baseline=LABEL and --skill-name NAME",
    "inspect": "give the log as --with-skill LOG or --baseline LOG, and --skill-name NAME",
    "openai-evals": "give --skill-name NAME",
}
#: The members naming an OpenAI Evals output item's data source item, in the order read.
ITEM_KEYS = ("datasource_item_id", "data_source_idx", "data_source_id")


def _first_row(doc: Any) -> Any:
    """The first record of a JSON array, of a list page's ``data[]``, or the object itself."""
    if isinstance(doc, list):
        return doc[0] if doc else None
    if isinstance(doc, dict) and isinstance(doc.get("data"), list) and "run_id" not in doc:
        return doc["data"][0] if doc["data"] else None
    return doc


def _promptfoo(doc: Any) -> bool:
    results = doc.get("results") if isinstance(doc, dict) else None
    if isinstance(results, dict) and isinstance(results.get("results"), list):
        return any(k in results for k in ("version", "stats", "prompts"))
    return isinstance(doc, dict) and "testCase" in doc and "provider" in doc  # a JSONL row


def _inspect(doc: Any) -> bool:
    spec = doc.get("eval") if isinstance(doc, dict) else None
    return isinstance(spec, dict) and "task" in spec and "model" in spec


def _openai_evals(doc: Any) -> bool:
    row = _first_row(doc)
    if not isinstance(row, dict):
        return False
    item = row.get("object") == "eval.run.output_item"
    return item or ("run_id" in row and any(k in row for k in ITEM_KEYS))


#: Members every line of promptfoo's JSONL export holds: one result each (``eval -o x.jsonl``
#: writes each stored EvalResult as a line: writeOutput in promptfoo's src/util).
PROMPTFOO_ROW = ("testCase", "provider")


def promptfoo_row_found(row: Any) -> str | None:
    """``None`` when ``row`` is a promptfoo JSONL result; else what it is instead, in words.

    An OpenAI Evals output item and a line of an oaieval run log are named as such; any other
    object by its first member names.
    """
    if isinstance(row, dict) and all(k in row for k in PROMPTFOO_ROW):
        return None
    if _openai_evals(row):
        return "an OpenAI Evals output item"
    if oaieval_line(row):
        return (
            "a line of an oaieval run log (the openai/evals repository's record of spec, "
            "final_report and event lines), which driftproof does not import"
        )
    if not isinstance(row, dict):
        return json_kind(row)
    if not row:
        return "an empty object"
    names = ", ".join(json.dumps(k[:40]) for k in list(row)[:6])
    return f"an object with members {names}" + (", …" if len(row) > 6 else "")


def oaieval_line(row: Any) -> bool:
    """Whether ``row`` is a line of an oaieval run log: its spec, final_report or an event."""
    return isinstance(row, dict) and (
        isinstance(row.get("spec"), dict) or "final_report" in row or "event_id" in row
    )


_CHECKS: dict[str, Callable[[Any], bool]] = {
    "promptfoo": _promptfoo,
    "inspect": _inspect,
    "openai-evals": _openai_evals,
}


def _parsed(raw: bytes) -> Any:
    """The whole document, else the first line of JSONL, else ``None``."""
    for text in (raw, next((s for s in raw.split(b"\n") if s.strip()), b"")):
        try:
            return json.loads(text)
        except (ValueError, UnicodeDecodeError, RecursionError):
            pass
    return None


def fitting(path: Path) -> list[str]:
    """The importers of :data:`OPTIONS_TO_GIVE` whose format the file ``path`` has, sorted.

    The caller bounds the file's size; a file that cannot be read fits none.
    """
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist())
            return ["inspect"] if names & {"header.json", "_journal/start.json"} else []
        doc = _parsed(path.read_bytes())
    except (OSError, zipfile.BadZipFile, NotImplementedError, UnicodeDecodeError):
        return []  # UnicodeDecodeError: a member name marked UTF-8 that is not
    return sorted(name for name, fits in _CHECKS.items() if fits(doc))


#: The members of each run in github-action-benchmark's data file and their JSON kinds (its
#: ``Benchmark`` type: ``commit: Commit``, ``date: number``, ``tool: ToolType``, ``benches: []``).
_BENCHMARK_RUN = {
    "commit": "an object",
    "date": "a number",
    "tool": "a string",
    "benches": "an array",
}


def _action_benchmark(doc: Any) -> bool:
    stamped = isinstance(doc, dict) and json_kind(doc.get("lastUpdate")) == "a number"
    suites = doc.get("entries") if stamped else None
    if not isinstance(suites, dict) or not all(isinstance(x, list) for x in suites.values()):
        return False
    runs = [x for suite in suites.values() for x in suite]
    return bool(runs) and all(
        isinstance(x, dict) and all(json_kind(x.get(k)) == v for k, v in _BENCHMARK_RUN.items())
        for x in runs
    )


def _receipt(doc: Any) -> bool:
    return isinstance(doc, dict) and "schema_version" in doc and "verification_level" in doc


def _skill_creator_cases(doc: Any) -> bool:
    evals = doc.get("evals") if isinstance(doc, dict) else None
    return (
        isinstance(evals, list)
        and bool(evals)
        and all(  # results: an object per configuration
            isinstance(e, dict)
            and isinstance(e.get("prompt"), str)
            and not any(isinstance(v, dict) for v in e.values())
            for e in evals
        )
    )


#: Formats no importer reads, as a refusal names them, each with the check that recognises it.
_UNREAD: dict[str, Callable[[Any], bool]] = {
    "a github-action-benchmark data file (one value per benchmark and commit, for a "
    "dashboard's charts)": _action_benchmark,
    "a Driftproof receipt already (driftproof view, validate and diff read it)": _receipt,
    "skill-creator's evals.json, the test cases and not their results (driftproof run reads "
    "it as a suite; the results are in the iteration's folder)": _skill_creator_cases,
}


def unread_format(path: Path) -> str | None:
    """The known format of the file ``path`` that no importer reads, in words; ``None``: none.

    The caller bounds the file's size; a file that cannot be read, or is not one JSON document
    (JSONL whose first line would fit, say), has none.
    """
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    return next((what for what, fits in _UNREAD.items() if fits(doc)), None)
