"""Diff of two receipts with 10,000 cases × 10 draws per arm, as a ratio to a bare numpy pass.

Run: .venv/bin/python benchmarks/diff_speed.py [--cases N] [--draws K]

Three timings (model once; compare best of 3; numpy best of 20):
- model: building the two in-memory ``Receipt`` models (pydantic validation, no files);
- compare: ``compare_receipts`` on those models (bands, verdict rule, lost-draw check);
- numpy: the same numbers as two (cases × draws) arrays: means, sample sds, Δ, separation, floor.
It prints seconds and the ratio compare / numpy. Nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt, build_receipt
from driftproof.wording import EFFECT_FLOOR, TOLERANCE

JUDGE = {
    "model": "judge",
    "provider": "anthropic",
    "surface": "api",
    "service": None,
    "sampling": None,
    "template_sha256": None,
    "scale": {"worst": 0.0, "best": 1.0, "step": 0.05},
    "price": None,
}


def _draw(i: int, score: float) -> dict[str, Any]:
    return {
        "index": i,
        "answer": None,
        "answer_sha256": None,
        "score": score,
        "judge_samples": [],
        "lost": None,
        "tokens": None,
        "checks": [],
        "captured_files": None,
        "skill_fired": None,
        "source_error": None,
    }


def _doc(with_scores: np.ndarray, base_scores: np.ndarray) -> dict[str, Any]:
    cases = []
    for c in range(with_scores.shape[0]):
        arms = {
            name: {"draws": [_draw(i, float(s)) for i, s in enumerate(m[c])], "generation": None}
            for name, m in (("with_skill", with_scores), ("baseline", base_scores))
        }
        cases.append(
            {
                "id": f"c{c}",
                "prompt": None,
                "prompt_sha256": None,
                "rubric_sha256": None,
                "threshold": None,
                "arms": arms,
            }
        )
    doc = build_receipt(
        level="TESTED",
        skill_name="bench",
        skill_text="x" * 400,
        cases=cases,
        judge=JUDGE,
        band_source="generation",
        generations_per_arm=with_scores.shape[1],
    ).to_json_dict()
    doc["seal"] = {
        "algorithm": "sha256-rfc8785",
        "sha256": "0" * 64,
    }  # in memory only: never read back
    return doc


def numpy_pass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The rule on bare arrays: Δ, sample sds, separation (touching overlaps) and the floor."""
    delta = b.mean(axis=1) - a.mean(axis=1)
    sum_sd = a.std(axis=1, ddof=1) + b.std(axis=1, ddof=1)
    return (np.abs(delta) - sum_sd > TOLERANCE) & (np.abs(delta) >= EFFECT_FLOOR - TOLERANCE)


def best_of(fn, n: int = 3) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(n):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--draws", type=int, default=10)
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    shape = (args.cases, args.draws)
    wa, ba = (np.clip(np.round(rng.normal(0.7, 0.03, shape), 2), 0, 1) for _ in range(2))
    wb = np.clip(
        np.round(wa + rng.normal(0.0, 0.03, shape) + rng.choice([0, 0.1], size=(args.cases, 1)), 2),
        0,
        1,
    )
    bb = np.clip(np.round(rng.normal(0.7, 0.03, shape), 2), 0, 1)
    docs = (_doc(wa, ba), _doc(wb, bb))
    t_model, (ra, rb) = best_of(lambda: tuple(Receipt.model_validate(d) for d in docs), n=1)
    t_compare, comp = best_of(lambda: compare_receipts(ra, rb, a_name="a", b_name="b"))
    t_numpy, called = best_of(lambda: numpy_pass(wa, wb), n=20)
    ours = sum(v.verdict in ("improved", "regressed") for v in comp.rows)
    assert ours == int(called.sum()), "the core and the bare numpy pass disagree"
    print(f"{args.cases} cases × {args.draws} draws per arm, two receipts")
    print(
        f"  building the two Receipt models:   {t_model:8.3f} s  (pydantic; not part of the diff)"
    )
    print(f"  compare_receipts (the diff core):  {t_compare:8.3f} s")
    print(f"  bare numpy pass, same numbers:     {t_numpy:8.5f} s")
    print(f"  ratio compare / numpy:             {t_compare / t_numpy:8.0f}×")
    print(f"  cases called: {ours} (both agree)")


if __name__ == "__main__":
    main()
