"""Fixtures for the site tests: small receipts and reports written in tmp_path."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

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


def tested_receipt(cases: dict[str, tuple[list[float], list[float]]], *, answer: str = "an answer",
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


@pytest.fixture
def site_inputs(tmp_path: Path) -> tuple[Path, Path]:
    """receipts/ with two savings receipts and one TESTED receipt whose answers hold <script>;
    reports/ with Report 001 (token_savings) and Report 002 (receipt_sheets)."""
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    # skill, control, baseline output tokens per case, chosen by hand:
    # alpha vs control: 1-50/100 = 0.50, 1-30/60 = 0.50, 1-90/60 = -0.50 → median +50%, mean +17%
    write_receipt(savings_receipt("alpha", {"q1": (50, 100, 80), "q2": (30, 60, 40), "q3": (90, 60, 100)}),
                  receipts / "alpha.json")
    # beta vs control: 1-25/100 = 0.75, 1-45/60 = 0.25, 1-30/60 = 0.50 → median +50%, min +25%, max +75%
    write_receipt(savings_receipt("beta", {"q1": (25, 100, 80), "q2": (45, 60, 40), "q3": (30, 60, 100)}),
                  receipts / "beta.json")
    write_receipt(tested_receipt({"c1": ([0.9, 0.8, 0.85], [0.5, 0.55, 0.45])},
                                 answer="<script>alert('x')</script>"), receipts / "tested.json")
    write_report(reports, "001-savings.md", """
        number: 1
        slug: savings
        title: Savings <b>test</b>
        date: 2026-01-02
        summary: First.
        receipts: [alpha, beta.json]
        sections:
          - type: token_savings
        """, body="## Prose\n\nSome <script>alert(1)</script> text.\n")
    write_report(reports, "002-sheets.md", """
        number: 2
        slug: sheets
        title: Sheets
        date: 2026-02-03
        receipts: [tested]
        sections:
          - type: receipt_sheets
        """)
    return receipts, reports
