"""How well ``plan`` sizes a run from a small pilot (issue 37).

For each setting (pilot draws per arm × per-draw spread σ, the same σ in both arms) it draws
``--trials`` pilots of one case: per-draw scores ~ Normal(0.60, σ), rounded to 0.01 (a mean of
judge samples on a 0.05 grid) and clipped to the 0..1 scale. Each pilot is sized by the
product's own planner (``driftproof.stats.planning.size_case``). When it gives a count n, one
run of n draws per arm is simulated twice the same way, with a true lift of 1.5× the floor
(0.075) and with none, and each is read by the product's rule (``driftproof.stats.case_verdict``,
with-skill arm against baseline, D-6). Printed per setting:

- resolved at 0.075: share of pilots whose planned run calls the lift improved; a pilot whose
  plan gives no count counts as not resolved (targets: ≥ 95% from 5-draw pilots, ≥ 90% from
  3-draw pilots, where a count exists, σ 0.015 and 0.019);
- underpowered under no effect: share of planned runs (pilots with a count) that read
  underpowered with no true lift (target ≤ 10%);
- says no count: share of pilots for which the plan says no number of draws resolves the
  floor (target ≥ 90% where none exists: σ 0.032, the two spreads alone 0.064);
- false calls: share of pilots whose planned run with no true lift is called improved or
  regressed; a pilot with no count makes no run and so no call (target ≤ 1%).

    .venv/bin/python benchmarks/plan_calibration.py [--trials N] [--seed S] [--level L]

``--level`` replaces the confidence level of the spread bounds (default: the product's).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from driftproof.stats import band_of_scores, case_verdict
from driftproof.stats.planning import DEFAULT_EFFECT, SPREAD_LEVEL, size_case

#: Times a pilot is grown to the size the plan names before the plan is taken as it stands.
FOLLOW_UPS = 5
SETTINGS = ((3, 0.015), (3, 0.019), (3, 0.032), (5, 0.015), (5, 0.019), (5, 0.032))


def _scores(rng: np.random.Generator, mean: float, sigma: float, n: int) -> list[float]:
    return np.clip(np.round(rng.normal(mean, sigma, size=n), 2), 0.0, 1.0).tolist()


def _run(rng: np.random.Generator, sigma: float, n: int, lift: float) -> str:
    base = band_of_scores(_scores(rng, 0.60, sigma, n))
    return case_verdict(base, band_of_scores(_scores(rng, 0.60 + lift, sigma, n))).verdict


def setting(
    rng: np.random.Generator, pilot: int, sigma: float, trials: int, level: float
) -> dict[str, float]:
    """One setting: per pilot, the plan from the pilot alone, and, where the plan says the pilot
    cannot tell, the plan after growing the pilot to the size it names, up to
    :data:`FOLLOW_UPS` times."""
    c = dict.fromkeys(
        (
            "resolved",
            "none",
            "undecided",
            "weak",
            "false",
            "runs",
            "resolved2",
            "none2",
            "weak2",
            "false2",
            "runs2",
            "pilot2",
        ),
        0,
    )
    draws: list[int] = []
    for _ in range(trials):
        ws, bs = _scores(rng, 0.60, sigma, pilot), _scores(rng, 0.60, sigma, pilot)
        w, b = band_of_scores(ws), band_of_scores(bs)
        assert w.sd is not None and b.sd is not None
        plan = size_case(w.sd, pilot, b.sd, pilot, level=level)
        first = plan
        size = pilot
        for _ in range(FOLLOW_UPS):
            if not plan.undecided or plan.pilot_draws is None:
                break
            more = plan.pilot_draws - size
            ws, bs = ws + _scores(rng, 0.60, sigma, more), bs + _scores(rng, 0.60, sigma, more)
            size = plan.pilot_draws
            w, b = band_of_scores(ws), band_of_scores(bs)
            assert w.sd is not None and b.sd is not None
            plan = size_case(w.sd, size, b.sd, size, level=level)
        c["pilot2"] += size
        c["none"] += first.no_draw_count
        c["undecided"] += first.undecided
        c["none2"] += plan.no_draw_count
        if plan.draws is None:
            continue
        n = plan.draws
        draws.append(n)
        resolved = _run(rng, sigma, n, DEFAULT_EFFECT) == "improved"
        null = _run(rng, sigma, n, 0.0)
        weak, false = null == "underpowered", null in ("improved", "regressed")
        c["runs2"] += 1
        c["resolved2"] += resolved
        c["weak2"] += weak
        c["false2"] += false
        if first.draws is not None:
            c["runs"] += 1
            c["resolved"] += resolved
            c["weak"] += weak
            c["false"] += false
    out = {k: v / trials for k, v in c.items()}
    out["weak"] = c["weak"] / c["runs"] if c["runs"] else float("nan")
    out["weak2"] = c["weak2"] / c["runs2"] if c["runs2"] else float("nan")
    out["median_draws"] = float(np.median(draws)) if draws else float("nan")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--level", type=float, default=SPREAD_LEVEL)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    print(
        f"Pilots per setting: {args.trials}; seed {args.seed}; spread bounds at the upper "
        f"{args.level:.0%} level; planned for a lift of {DEFAULT_EFFECT:.3f}.\n"
    )
    print(
        "| pilot draws | σ per draw | resolved at 0.075 | underpowered, no effect | says no "
        "count | cannot tell yet | false calls | after growing the pilot as told (up to 5 times): "
        "resolved | underpowered | says no count | false calls | mean pilot draws "
        "| median draws planned |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for pilot, sigma in SETTINGS:
        r = setting(rng, pilot, sigma, args.trials, args.level)
        print(
            f"| {pilot} | {sigma:.3f} | {r['resolved']:.1%} | {r['weak']:.1%} | {r['none']:.1%} "
            f"| {r['undecided']:.1%} | {r['false']:.2%} | {r['resolved2']:.1%} "
            f"| {r['weak2']:.1%} | {r['none2']:.1%} | {r['false2']:.2%} | {r['pilot2']:.1f} "
            f"| {r['median_draws']:.0f} |"
        )
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
