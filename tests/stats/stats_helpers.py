"""Helpers for the statistical core tests: the hand-worked vectors and receipt models built in
memory."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from receipt_docs import draw_doc, judge_sample_doc

from driftproof.receipt import Receipt

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
if not SHARED.exists():
    SHARED = Path(os.environ.get("DRIFTPROOF_SHARED", "../shared")).resolve()
VECTORS_FILE = SHARED / "cases" / "verdicts.json"


def load_vectors() -> dict[str, Any]:
    """verdicts.json, or an empty shell when ../shared is not laid beside the checkout."""
    if not VECTORS_FILE.exists():
        return {"cases": [], "receipt_wide": {}}
    return json.loads(VECTORS_FILE.read_text(encoding="utf-8"))


def model(doc: dict[str, Any]) -> Receipt:
    """The pydantic model of a receipt document, without the load edge's schema and seal checks
    (the model holds the schema's rules; ``factories.edited`` builds past them)."""
    return Receipt.model_validate(doc)


def legacy_arm(samples: list[float], generation_sd: float | None = None) -> dict[str, Any]:
    """One draw judged several times (a legacy band), with an optional recorded generation.sd."""
    js = [judge_sample_doc(s, reply=str(s), reported_model="judge") for s in samples]
    return {
        "draws": [draw_doc(0, answer="answer", judge_samples=js)],
        "generation": {"sd": generation_sd} if generation_sd is not None else None,
    }


def legacy_case(
    cid: str, with_skill: list[float], baseline: list[float], generation_sd: float | None = None
) -> dict[str, Any]:
    """A case of a legacy receipt: each arm one draw with the given judge samples."""
    return {
        "id": cid,
        "prompt": f"prompt of {cid}",
        "prompt_sha256": None,
        "rubric_sha256": "1" * 64,
        "threshold": None,
        "arms": {
            "with_skill": legacy_arm(with_skill, generation_sd),
            "baseline": legacy_arm(baseline, generation_sd),
        },
    }
