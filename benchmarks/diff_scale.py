"""`driftproof diff` of two sealed TESTED receipts at N and 10 × N cases, as a ratio.

Run: .venv/bin/python benchmarks/diff_scale.py [--cases N] [--draws K] [--profile]

Writes two receipts of N cases and two of 10 × N (K draws per arm, 3 judge samples a draw,
scores on a 0.05 grid) to a temporary folder, then times the whole command as the CLI runs it
(read and check both files, seal included; compare; the paired test and the noise-alone
reading; the text), best of 3 at each size. Prints both times and their ratio
(linear: about 10). ``--profile`` prints the ten costliest functions of the large diff.
Nothing here is a pass/fail test; the default N = 200 stays far from the 10,000-case scale.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from driftproof.cli import cli
from driftproof.receipt import build_draw, build_judge_sample, build_receipt, compute_seal

JUDGE = {
    "model": "judge-1",
    "provider": "anthropic",
    "surface": "api",
    "service": None,
    "sampling": None,
    "template_sha256": None,
    "scale": {"worst": 0.0, "best": 1.0, "step": 0.05},
    "price": None,
}
SAMPLES = 3


def _arm(rng: random.Random, mean: float, draws: int) -> dict[str, Any]:
    out = []
    for j in range(draws):
        samples = [min(1.0, max(0.0, round(rng.gauss(mean, 0.05) / 0.05) * 0.05)) for _ in "abc"]
        out.append(
            build_draw(j, judge_samples=[build_judge_sample(s, reply=f"{s:.2f}") for s in samples])
        )
    return {"draws": out, "generation": None}


def _receipt(cases: int, draws: int, seed: int) -> bytes:
    rng = random.Random(seed)
    docs = [
        {
            "id": f"case-{i:05d}",
            "prompt": "p",
            "prompt_sha256": None,
            "rubric_sha256": None,
            "threshold": None,
            "arms": {"with_skill": _arm(rng, 0.7, draws), "baseline": _arm(rng, 0.6, draws)},
        }
        for i in range(cases)
    ]
    doc = build_receipt(
        level="TESTED",
        skill_name="bench",
        skill_text="skill",
        cases=docs,
        judge=JUDGE,
        band_source="generation",
        generations_per_arm=draws,
        judge_samples_per_generation=SAMPLES,
    ).to_json_dict()
    doc["seal"] = {"algorithm": "sha256-rfc8785", "sha256": compute_seal(doc)}
    return json.dumps(doc).encode()


def _diff(a: Path, b: Path) -> None:
    result = CliRunner().invoke(cli, ["diff", str(a), str(b)])
    assert result.exit_code in (0, 1), result.output


def _best(fn, n: int) -> float:
    best = float("inf")
    for _ in range(n):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--draws", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths: dict[int, tuple[Path, Path]] = {}
        for n in (args.cases, 10 * args.cases):
            pair = (Path(tmp, f"a{n}.json"), Path(tmp, f"b{n}.json"))
            for seed, p in enumerate(pair):
                p.write_bytes(_receipt(n, args.draws, seed))
            paths[n] = pair
        small = _best(lambda: _diff(*paths[args.cases]), 3)
        large = _best(lambda: _diff(*paths[10 * args.cases]), 3)
        print(f"diff, {args.draws} draws per arm, {SAMPLES} judge samples a draw")
        print(f"  {args.cases:>6} cases: {small:8.2f} s")
        print(f"  {10 * args.cases:>6} cases: {large:8.2f} s")
        print(f"  ratio: {large / small:6.1f}× for 10× the cases (linear: about 10)")
        if args.profile:
            prof = cProfile.Profile()
            prof.runcall(_diff, *paths[10 * args.cases])
            pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
