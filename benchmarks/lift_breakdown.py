"""Lift breakdown and receipt sheet cost, as ratios to reading the receipt (not a timed test).

A receipt of 50 cases × 5 draws per arm × 5 judge samples per draw (issue 10's scale)
is written to a temporary file, read (schema, seal, model), broken down and turned into a
sheet. Prints each step's time as a ratio to the read.
"""

from __future__ import annotations

import random
import tempfile
import timeit
from pathlib import Path

from driftproof.pages.sheet import sheet
from driftproof.receipt import (
    ReceiptBody,
    build_draw,
    build_judge_sample,
    build_receipt,
    read_receipt,
    write_receipt,
)
from driftproof.stats.breakdown import lift_breakdown

JUDGE = {
    "model": "claude-haiku-4-5-20251001",
    "provider": "anthropic",
    "surface": "api",
    "service": None,
    "sampling": None,
    "template_sha256": "0" * 64,
    "scale": {"worst": 0.0, "best": 1.0, "step": 0.05},
    "price": None,
}


def _arm(rng: random.Random, centre: float) -> dict:
    draws = []
    for i in range(5):
        samples = [
            build_judge_sample(
                round(min(1.0, max(0.0, rng.gauss(centre, 0.05))) / 0.05) * 0.05,
                reply=f"{i}-{k}",
                reported_model=JUDGE["model"],
            )
            for k in range(5)
        ]
        draws.append(build_draw(i, answer=f"answer {rng.random()}", judge_samples=samples))
    return {"draws": draws, "generation": None}


def _best(fn, repeat: int = 5) -> float:
    """Best of repeat runs, in seconds (stdlib timeit, one call per run)."""
    return min(timeit.repeat(fn, number=1, repeat=repeat))


def bench_receipt(n: int = 50) -> ReceiptBody:
    """The benchmark receipt: ``n`` cases x 5 draws x 5 judge samples, seed 7."""
    rng = random.Random(7)
    cases = [
        {
            "id": f"c{i:02d}",
            "prompt": f"p{i}",
            "prompt_sha256": None,
            "rubric_sha256": "1" * 64,
            "threshold": None,
            "arms": {"with_skill": _arm(rng, 0.7), "baseline": _arm(rng, 0.6)},
        }
        for i in range(n)
    ]
    return build_receipt(
        level="TESTED",
        skill_name="bench",
        skill_text="x" * 4000,
        cases=cases,
        model="m",
        provider="anthropic",
        surface="api",
        judge=JUDGE,
        band_source="generation",
        generations_per_arm=5,
        judge_samples_per_generation=5,
    )


def main() -> None:
    body = bench_receipt()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.json"
        write_receipt(body, path)
        r = read_receipt(path)
        read = _best(lambda: read_receipt(path))
        bd = _best(lambda: lift_breakdown(r, size_bytes=path.stat().st_size))
        bd_canon = _best(lambda: lift_breakdown(r))
        sh = _best(lambda: sheet(r, path=path))
        size = path.stat().st_size
    print(f"receipt: 50 cases x 5 draws x 5 judge samples, {size:,} bytes")
    print(f"lift breakdown / read          = {bd / read:.2f}")
    print(
        f"lift breakdown (no path) / read = {bd_canon / read:.2f}  "
        "(sizes the canonical JSON itself)"
    )
    print(f"whole sheet / read             = {sh / read:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (200, 2000):
            write_receipt(bench_receipt(n), Path(tmp) / f"{n}.json")
        small, large = (read_receipt(Path(tmp) / f"{n}.json") for n in (200, 2000))
    ratio = _best(lambda: lift_breakdown(large), 3) / _best(lambda: lift_breakdown(small), 3)
    print(f"lift breakdown, 2,000 cases / 200 cases = {ratio:.1f}  (linear: about 10)")


if __name__ == "__main__":
    main()
