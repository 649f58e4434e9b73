"""Helpers for the skill-creator, NVIDIA, promptfoo, Inspect and summary-json importer tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from driftproof.importers import Imported
from driftproof.importers._text import finish
from driftproof.importers.promptfoo import PromptfooOptions, import_promptfoo
from driftproof.receipt import Receipt, ReceiptBody, compute_seal, parse_receipt
from driftproof.receipt._seal import SEAL_ALGORITHM

#: Texts that name nothing: empty, spaces, and characters that show as nothing (a zero-width
#: space U+200B; a byte-order mark U+FEFF, a space and a word joiner U+2060), which were taken
#: as names where only what str.isspace calls white space was blank.
BLANK_TEXTS = ["", "   ", "\u200b", "\ufeff \u2060"]


def sealed(item: Imported | ReceiptBody | list[Imported] | dict[str, Any]) -> Receipt:
    """Seal an importer's receipt (its only one, for a list), finished as it is written, and
    read it back through the one load edge."""
    if isinstance(item, list):
        (item,) = item
    if isinstance(item, Imported):
        item = finish(item.body, item.repairs)
    doc = item.to_json_dict() if isinstance(item, ReceiptBody) else dict(item)
    doc["seal"] = {"algorithm": SEAL_ALGORITHM, "sha256": compute_seal(doc)}
    return parse_receipt(json.dumps(doc).encode("utf-8"), "<imported>")


def docs(items: list[Imported]) -> list[dict[str, Any]]:
    """Each imported receipt as JSON data, finished as it is written."""
    return [finish(i.body, i.repairs).to_json_dict() for i in items]


def scores(arm: Any) -> list[float | None]:
    """Per-draw scores of a case arm, ``None`` for a lost draw."""
    return [d.score for d in arm.draws]


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def nvidia_card(shared: Path, tmp_path: Path, real: str, old: str, new: str) -> Path:
    """The real card ``real`` (under ``shared``) with ``old`` replaced by ``new``, written as
    ``skills/demo/BENCHMARK.md``."""
    text = (shared / real).read_text(encoding="utf-8")
    assert old in text
    f = tmp_path / "skills" / "demo" / "BENCHMARK.md"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text.replace(old, new), encoding="utf-8")
    return f


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def summary_doc(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """A summary-json file of ``cases`` with the least else its format asks for."""
    return {
        "format": "driftproof-summary-json",
        "format_version": "1",
        "harness": {"name": "h", "version": "1"},
        "skill": {"name": "s"},
        "model": "m",
        "judge": {"model": "j"},
        "cases": cases,
    }


def read_json(path: Path) -> Any:
    """The JSON document at ``path``."""
    return json.loads(path.read_text(encoding="utf-8"))


def refused_at(call: Any, pointer: str) -> str:
    """The one problem's message of the ImportError_ ``call()`` raises, at ``pointer``."""
    import pytest

    from driftproof.errors import ImportError_

    with pytest.raises(ImportError_) as exc:
        call()
    (p,) = exc.value.problems
    assert p.pointer == pointer
    return p.message


#: The promptfoo sample's providers as the two arms (promptfoo/sample-export.json).
PROMPTFOO_ARMS = {"with_skill": "openai:gpt-5-mini", "baseline": "openai:gpt-5"}


def promptfoo_sample(shared: Path) -> dict[str, Any]:
    """promptfoo/sample-export.json, parsed, for a test to change."""
    doc: dict[str, Any] = json.loads(
        (shared / "data/interop/promptfoo/sample-export.json").read_text("utf-8")
    )
    return doc


def promptfoo_import(doc: dict[str, Any], tmp_path: Path) -> Any:
    """``doc`` imported as promptfoo with :data:`PROMPTFOO_ARMS` (a skill named ``s``)."""
    path = write_json(tmp_path / "out.json", doc)
    return import_promptfoo(path, PromptfooOptions(arms=PROMPTFOO_ARMS, skill_name="s"))
