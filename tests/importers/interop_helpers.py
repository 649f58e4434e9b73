"""Helpers for the skill-creator, NVIDIA, promptfoo, Inspect and summary-json importer tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from driftproof.receipt import Receipt, parse_receipt, seal_document


def sealed(doc: dict[str, Any]) -> Receipt:
    """Seal an importer's document and read it back through the one load edge."""
    return parse_receipt(json.dumps(seal_document(doc)).encode("utf-8"), "<imported>")


def scores(arm: Any) -> list[float | None]:
    """Per-draw scores of a case arm, ``None`` for a lost draw."""
    return [d.score for d in arm.draws]


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
