"""What noise alone gives a pull-request gate at the draws ``plan`` sizes from an A/A pilot.

A team lead gating a suite of many cases asks how often an unchanged skill would fail the job:
the chance that two runs at the planned draws read at least one case regressed, and how many
regressed cases ``fail-on: beyond-noise`` needs. The per-case rate here is the statistics notes'
published one (section 6.2: false improved + regressed 6.9% at a spread of .05 over 3 draws,
N(.70, σ) rounded to .01, 200,000 replicates; regressed alone is half of it by symmetry), and
the suite figures are its binomial, worked in the test.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from pathlib import Path

import pytest
from factories import JUDGE, case, make_receipt
from receipt_docs import seal_document

from driftproof.pages.plan import plan_receipt
from driftproof.receipt import parse_receipt
from driftproof.render.plan import plan_json, plan_text
from driftproof.stats.aa import gate_noise

RATE = 0.069 / 2  # a false "regressed" per case at σ .05, 3 draws per arm
CASES = 20


def _tail(k: int) -> float:
    """P(at least k of CASES cases regressed) under Binomial(CASES, RATE)."""
    return 1.0 - math.fsum(
        math.comb(CASES, j) * RATE**j * (1 - RATE) ** (CASES - j) for j in range(k)
    )


def test_a_suite_at_three_draws_is_the_binomial_of_the_published_rate() -> None:
    # 20 cases: expected 20 × .0345 = .69; at least one 1 − .9655^20 = .50; at least 2 .150 and
    # at least 3 .030, so beyond-noise needs 3 regressed cases (the first tail under 5%)
    assert (_tail(2), _tail(3)) == (
        pytest.approx(0.150, abs=0.005),
        pytest.approx(0.030, abs=0.005),
    )
    grid = (0.01, (0.0, 1.0))  # the grader's .05 over 5 judge samples, on a 0-1 scale
    n = gate_noise([(0.70, 0.05, 0.05)] * CASES, 3, grid)
    # 2,000 pairs a case: the sum's Monte Carlo sd is √(20 × .0345 × .9655 / 2,000) = .018
    assert n.draws == 3 and n.cases == CASES and n.trials == 2000
    assert n.expected == pytest.approx(CASES * RATE, abs=0.06)
    assert n.at_least_one == pytest.approx(_tail(1), abs=0.04)
    assert n.fewest_beyond == 3


def test_a_case_with_no_spread_is_left_out() -> None:
    n = gate_noise([None, (0.70, 0.05, 0.05)], 3, (0.01, (0.0, 1.0)))
    assert n.cases == 1 and n.per_case[0] == 0.0


FINE = dict(JUDGE, scale={"worst": 0.0, "best": 1.0, "step": 0.01})  # one sample: a .01 grid
# 50 draws per arm at ±.02 around .60: spread .0202 in both runs
STEADY = [0.58, 0.62] * 25


def _plan(aa: bool):
    doc = make_receipt([case("c1", STEADY, STEADY), case("c2", STEADY, STEADY)], judge=FINE)
    doc["run"]["aa"] = aa
    return plan_receipt(parse_receipt(json.dumps(seal_document(doc)).encode(), "p.json"))


def test_plan_from_an_aa_pilot_gives_the_gates_noise_at_its_count() -> None:
    p = _plan(aa=True)
    n = p.draws_per_arm
    assert n is not None and n >= 19
    # a false regression needs the two means .05 apart, at least .04 of it beyond rounding (half
    # a .01 step each side): at spreads .0202 over n ≥ 19 draws that is .04 / (.0202·√(2/n)) ≥
    # 6.1 standard errors, a chance under 2e-9 a case, so none is simulated and the chance of at
    # least one is under 0.01%; one regressed case is then already beyond noise
    text = " ".join(plan_text(p).split())
    assert (
        "Noise alone, for a gate of two runs at the planned count: if every case's true mean "
        "were the same in both, the gate would read, on average, fewer than 0.01 regressed "
        "cases per comparison (of the 2 cases with a spread in both arms) at the A/A run's "
        f"spreads and {n} draws per arm (pooled where they are pooled; "
        "simulated as diff does). The chance of at least one is under 0.01%: how often a gate "
        "that fails on any regressed case, as the Action does by default, would fail the job "
        "with nothing changed; fail-on: beyond-noise fails it from 1 regressed case on."
    ) in text
    said = json.loads(plan_json(p))["noise_alone"]
    # pairs a case as diff simulates them (2,000), but no more than fit in the 200,000 simulated
    # draws per arm the plan's chance of a verdict takes: at 164 draws, 1,219 (a count of
    # thousands simulated 2,000 pairs of each case for minutes)
    assert n == 164 and 200_000 // n == 1219
    assert said == {
        "draws": n,
        "cases": 2,
        "expected": 0.0,
        "at_least_one": 0.0,
        "fewest_beyond": 1,
        "trials_per_case": 1219,
    }


def test_plan_from_a_pilot_with_a_baseline_gives_no_gate_noise() -> None:
    p = _plan(aa=False)
    assert "Noise alone" not in plan_text(p) and json.loads(plan_json(p))["noise_alone"] is None


def _regressed_share(sd: float, n: int, trials: int, seed: int) -> float:
    """An independent simulation of the rule: two runs of ``n`` draws N(.6, sd) rounded to .01,
    regressed when the bands are apart (touching overlaps) and the mean fell by the floor."""
    rnd, hits = random.Random(seed), 0
    for _ in range(trials):
        runs = [[round(rnd.gauss(0.6, sd), 2) for _ in range(n)] for _ in "ab"]
        (ma, sa), (mb, sb) = ((statistics.fmean(x), statistics.stdev(x)) for x in runs)
        hits += mb - ma < 0 and abs(mb - ma) - (sa + sb) > 1e-9 and abs(mb - ma) >= 0.05 - 1e-9
    return hits / trials


def test_cases_no_count_resolves_raise_the_gates_noise_as_the_docs_say() -> None:
    # ten steady cases (spread .0055 over 5 draws) beside ten wide ones (.50 .60 .70 .55 .65:
    # spread .0791): plan sizes the steady ones at 4 draws per arm and names the wide ones as
    # resolved by no count; the steady ones cannot regress by noise (.05 is 15 standard errors
    # out), and each wide one regresses at the rate of an independent simulation, so the chance
    # of at least one is 1 − (1 − rate)^10 (the method page: "about a 15% chance")
    steady = case("t", [0.60, 0.61, 0.60, 0.61, 0.60], [0.61, 0.60, 0.61, 0.60, 0.61])
    wide = case("w", [0.50, 0.60, 0.70, 0.55, 0.65], [0.52, 0.62, 0.72, 0.57, 0.67])
    cases = [dict(steady, id=f"t{i}") for i in range(10)] + [
        dict(wide, id=f"w{i}") for i in range(10)
    ]
    doc = make_receipt(cases, judge=FINE)
    doc["run"]["aa"] = True
    p = plan_receipt(parse_receipt(json.dumps(seal_document(doc)).encode(), "p.json"))
    assert p.draws_per_arm == 4 and len(p.no_count_cases) == 10 and p.noise is not None
    rate = _regressed_share(0.0791, 4, 20_000, seed=5)  # Monte Carlo sd about .0009
    assert p.noise.at_least_one == pytest.approx(1 - (1 - rate) ** 10, abs=0.03)
    method = (Path(__file__).parents[2] / "site_src" / "method.md").read_text(encoding="utf-8")
    assert "about a 15% chance of failing an unchanged skill" in " ".join(method.split())
    assert 0.13 <= 1 - (1 - rate) ** 10 <= 0.17


def test_an_aa_pilot_no_count_resolves_still_gives_the_gates_noise_at_its_own_draws() -> None:
    # 20 cases at .65, .70, .75 in both runs: spread .05 over 3 draws, each run's pooled at .05
    # over 40 degrees of freedom; two such spreads sum to .10, past .0625, so no count resolves
    # any case. A gate at the pilot's own 3 draws then meets the published rate in every case:
    # expected 20 × .0345 = .69, at least one 1 − .9655^20 = .50, beyond-noise from 3 (above)
    wide = [0.65, 0.70, 0.75]
    doc = make_receipt([case(f"c{i}", wide, wide) for i in range(CASES)], judge=FINE)
    doc["run"]["aa"] = True
    p = plan_receipt(parse_receipt(json.dumps(seal_document(doc)).encode(), "p.json"))
    assert p.draws_per_arm is None and len(p.no_count_cases) == CASES
    n = p.noise
    assert n is not None and n.draws == 3 and n.cases == CASES
    assert n.expected == pytest.approx(CASES * RATE, abs=0.06)
    assert n.at_least_one == pytest.approx(_tail(1), abs=0.04)
    assert n.fewest_beyond == 3
    text = " ".join(plan_text(p).split())
    assert (
        "Noise alone, for a gate of two runs at the pilot's own draws, the most it measured in an "
        "arm, as no count is planned (driftproof run --draws 3 gives each run as many): if every "
        "case's true mean were the same in both"
    ) in text
    assert "at the A/A run's spreads and 3 draws per arm" in text
    assert json.loads(plan_json(p))["noise_alone"]["draws"] == 3
