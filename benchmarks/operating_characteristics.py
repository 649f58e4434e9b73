"""How often the verdict rule calls a change.

Unchanged cases (A/A) and true shifts of 0.05 and 0.10.

Each replicate draws per-draw scores for two receipts' with-skill arms of one case from
Normal(0.70, σ) and Normal(0.70 + shift, σ), rounded to 0.01 (a mean of judge samples on a
0.05 grid) and clipped to the 0..1 judge scale, and applies the product's own rule
(``driftproof.stats.case_verdict``). It prints a Markdown table to stdout:

    .venv/bin/python benchmarks/operating_characteristics.py [--replicates N] [--seed S]

"called" = improved or regressed. For the A/A rows that is the false-alarm rate; for the
shifted rows it is the detection rate (all detections are "improved" unless noted in the
"wrong way" column).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from driftproof.stats import band_of_scores, case_verdict

SIGMAS = (0.02, 0.03, 0.05)
DRAWS = (3, 5, 10)
SHIFTS = (0.0, 0.05, 0.10)


def cell(
    rng: np.random.Generator, sigma: float, n: int, shift: float, reps: int
) -> dict[str, float]:
    a = np.clip(np.round(rng.normal(0.70, sigma, size=(reps, n)), 2), 0.0, 1.0)
    b = np.clip(np.round(rng.normal(0.70 + shift, sigma, size=(reps, n)), 2), 0.0, 1.0)
    counts: dict[str, int] = {}
    for i in range(reps):
        v = case_verdict(band_of_scores(a[i].tolist()), band_of_scores(b[i].tolist()))
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    return {k: c / reps for k, c in counts.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=20261129)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    print(
        f"Replicates per cell: {args.replicates}; seed {args.seed}; "
        "scores ~ Normal(0.70 (+shift), σ), "
        "rounded to 0.01, clipped to 0..1.\n"
    )
    print(
        "| σ per draw | draws per arm | true shift | change called | wrong way "
        "| below effect floor "
        "| underpowered | no separation |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for sigma in SIGMAS:
        for n in DRAWS:
            for shift in SHIFTS:
                r = cell(rng, sigma, n, shift, args.replicates)
                called = r.get("improved", 0.0) + r.get("regressed", 0.0)
                wrong = r.get("regressed", 0.0) if shift > 0 else float("nan")
                wrong_txt = "—" if shift == 0 else f"{100 * wrong:.1f}%"
                print(
                    f"| {sigma:.2f} | {n} | {shift:.2f} | {100 * called:.1f}% | {wrong_txt} "
                    f"| {100 * r.get('below effect floor', 0.0):.1f}% "
                    f"| {100 * r.get('underpowered', 0.0):.1f}% "
                    f"| {100 * r.get('no separation', 0.0):.1f}% |"
                )
    print(f"\n({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
