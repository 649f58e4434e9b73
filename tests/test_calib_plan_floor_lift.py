"""`driftproof plan --effect 0.05`: the printed chance of a verdict, checked by an independent
simulation.

Pilot: 6 cases, 5 draws per arm, scores on the judge's 0.05 grid: with skill [.70 .70 .70 .70 .75],
baseline [.60 .60 .60 .60 .65]. By hand each arm's sd is sqrt(4·.01² + .04²)/2 = .022361 (mean
.61 and .71; deviations −.01 ×4 and +.04), so each arm's spread over both arms reaches the floor
only at many draws: the plan prints 1,781 draws per arm.

The simulation is written from the method's words, not from driftproof/stats. A true lift of
exactly 0.05 on the score scale: the baseline draw scores .60 or .65 (one grid step) with
probability q = .2764 of .65, so its sd is .05·sqrt(q(1 − q)) = .02236, the pilot's own spread;
the with-skill draw is the same draw one grid step up. Band = mean ± sample sd (ddof 1), apart
when |Δ| − (sd_A + sd_B) > 1e-9, a verdict when apart and |Δ| ≥ 0.05 − 1e-9 (D-3, D-4). At 1,781
draws the bands are narrow (spread sum ≈ .045 against a gap ≈ .05) and the measured gap falls
either side of the floor about equally often: a verdict about half the time, as the plan's own
next sentence says ("called only about half the time at any number of draws"). The plan prints
"a chance of under 1%".
"""

from __future__ import annotations

import json
from pathlib import Path

import factories
import numpy as np
from click.testing import CliRunner
from factories import case

from driftproof.cli.plan import plan

WITH = [0.70, 0.70, 0.70, 0.70, 0.75]
BASE = [0.60, 0.60, 0.60, 0.60, 0.65]
RUNS = 1500


def _printed(tmp_path: Path) -> tuple[int, float]:
    """The plan's draws per arm and its chance of a verdict at a true lift of 0.05."""
    pilot = tmp_path / "pilot.json"
    doc = factories.make_receipt([case(f"c{i}", WITH, BASE) for i in range(6)])
    pilot.write_text(json.dumps(doc), encoding="utf-8")
    result = CliRunner().invoke(plan, ["--format", "json", "--effect", "0.05", str(pilot)])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    return int(out["draws_per_arm"]), float(out["p_verdict"])


def _simulated(n: int) -> float:
    """Share of runs in which a case with a true lift of exactly 0.05 gives a verdict."""
    rng = np.random.default_rng(20261205)
    q = 0.2764
    base = 0.60 + 0.05 * (rng.random((RUNS, n)) < q)
    with_skill = 0.65 + 0.05 * (rng.random((RUNS, n)) < q)
    sa, sb = base.std(axis=1, ddof=1), with_skill.std(axis=1, ddof=1)
    delta = with_skill.mean(axis=1) - base.mean(axis=1)
    apart = np.abs(delta) - (sa + sb) > 1e-9
    return float(np.mean(apart & (np.abs(delta) >= 0.05 - 1e-9)))


def test_plan_chance_of_a_verdict_at_the_floor_matches_simulation(tmp_path: Path) -> None:
    n, printed = _printed(tmp_path)
    assert n > 1000  # the pilot's spreads sum to about .045: a long run
    simulated = _simulated(n)
    assert 0.40 < simulated < 0.65  # about half (0.54 here); simulation error ±0.013
    assert abs(printed - simulated) <= 0.10, (
        f"plan prints a {printed:.0%} chance of a verdict at a true lift of 0.05 and "
        f"{n} draws per arm; simulation of the rule gives {simulated:.1%}"
    )


def test_plan_says_why_it_simulates_fewer_runs_at_many_draws(tmp_path: Path) -> None:
    # 1,781 draws per arm: 200,000 simulated draws per arm ÷ 1,781 = 112.3, so 112 runs per case
    # (1,000 at 200 draws or fewer); it printed "112 runs per case" with no word of why
    pilot = tmp_path / "pilot.json"
    doc = factories.make_receipt([case(f"c{i}", WITH, BASE) for i in range(6)])
    pilot.write_text(json.dumps(doc), encoding="utf-8")
    result = CliRunner().invoke(plan, ["--effect", "0.05", str(pilot)])
    assert result.exit_code == 0, result.output
    assert (
        "(simulated, 112 runs per case, as many as fit in 200,000 simulated draws per arm, at "
        "the pilot's own spreads, pooled where they are pooled)"
    ) in result.output
