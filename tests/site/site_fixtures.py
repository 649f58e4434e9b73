"""Builders for the site tests: small receipts and reports (imported by name, not as conftest)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from driftproof.receipt import draw_doc, judge_sample_doc, receipt_doc, write_receipt

REPO = Path(__file__).resolve().parents[2]

JUDGE = {
    "model": "claude-haiku-4-5-20251001", "provider": "anthropic", "surface": "api",
    "service": "https://api.anthropic.com", "sampling": {"temperature": 1.0}, "template_sha256": "0" * 64,
    "scale": {"worst": 0.0, "best": 1.0, "step": 0.05}, "price": None,
}


def scored_arm(scores: list[float], answer: str = "an answer") -> dict[str, Any]:
    """An arm with one draw per score, each judged once with that score."""
    return {"draws": [draw_doc(i, answer=f"{answer} {i}", judge_samples=[judge_sample_doc(s, reply=str(s))])
                      for i, s in enumerate(scores)], "generation": None}


def token_arm(output: int, answer: str = "an answer") -> dict[str, Any]:
    """One unscored draw with an output-token count (as caveman imports carry)."""
    return {"draws": [draw_doc(0, answer=answer, tokens={"input": None, "output": output, "counted_by": "o200k_base"})],
            "generation": None}


def scored_receipt(cases: dict[str, tuple[list[float], list[float]]], *, answer: str = "an answer",
                   skill: str = "demo-skill") -> dict[str, Any]:
    """An unsealed TESTED receipt document with a judge; cases: id → (with-skill, baseline) scores."""
    docs = [{"id": cid, "prompt": f"prompt {cid}", "prompt_sha256": None, "rubric_sha256": "1" * 64,
             "threshold": None, "arms": {"with_skill": scored_arm(w, answer), "baseline": scored_arm(b)}}
            for cid, (w, b) in cases.items()]
    return receipt_doc(level="TESTED", skill_name=skill, skill_text="x" * 1600, cases=docs, model="claude-sonnet-4-5",
                       provider="anthropic", surface="api", judge=JUDGE, band_source="generation",
                       generations_per_arm=3, judge_samples_per_generation=1)


def savings_receipt(skill: str, tokens: dict[str, tuple[int, int, int]], *, answer: str = "short") -> dict[str, Any]:
    """A DECLARED receipt with a control arm; tokens: case id → (skill, control, baseline) output tokens."""
    docs = [{"id": cid, "prompt": f"question {cid}", "prompt_sha256": None, "rubric_sha256": None, "threshold": None,
             "arms": {"with_skill": token_arm(s, answer), "control": token_arm(c), "baseline": token_arm(b)}}
            for cid, (s, c, b) in tokens.items()]
    spec = {"label": None, "instruction": None, "system_prompt_sha256": None}
    return receipt_doc(level="DECLARED", skill_name=skill, skill_text="y" * 400, cases=docs,
                       arms={"with_skill": dict(spec, label=skill), "baseline": dict(spec, label="__baseline__"),
                             "control": dict(spec, label="__terse__")})


def write_report(reports: Path, name: str, front: str, body: str = "Some prose.\n") -> Path:
    reports.mkdir(parents=True, exist_ok=True)
    path = reports / name
    path.write_text("---\n" + textwrap.dedent(front).strip() + "\n---\n" + body, encoding="utf-8")
    return path
