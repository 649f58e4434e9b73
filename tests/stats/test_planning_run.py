"""Sizing a whole run from a pilot receipt (:func:`~driftproof.stats.planning.size_run`), by hand.

The page model words these numbers (tests/cli/test_plan.py); here they are the statistics' own.
"""

from __future__ import annotations

import factories
import pytest
from factories import JUDGE, case

from driftproof.receipt import Receipt
from driftproof.stats import case_bands
from driftproof.stats.planning import size_run

# sd .01 in both arms over 3 draws: 220 draws per arm (tests/stats/test_planning.py); a case of
# one draw per arm has no spread to size from. Judged on a .01 grid, one sample per draw.
TIGHT = case("tight", [0.60, 0.61, 0.62], [0.50, 0.51, 0.52])
LONE = case("lone", [0.5], [0.5])
FINE = dict(JUDGE, scale={"worst": 0.0, "best": 1.0, "step": 0.01})
# $0.048 recorded over 24 judged draws: $0.002 per judged draw
USAGE = {
    "input_tokens": 12000,
    "output_tokens": 2000,
    "usd": 0.048,
    "judged_draws_counted": 24,
    "judged_draws_missing_usage": 0,
}


def test_a_run_is_sized_counted_and_costed() -> None:
    r = Receipt.model_validate(
        factories.make_receipt([TIGHT, LONE], judge=FINE, judge_overhead=USAGE)
    )
    z = size_run(r, case_bands(r), 0.075)
    tight, lone = z.cases
    assert lone is None and tight is not None and tight.draws == 220
    assert z.draws_per_arm == 220
    # 200,000 simulated draws per arm ÷ 220 = 909 runs per case (under 1,000)
    assert z.trials == 909 and z.least_chance == tight.chance is not None
    # 220 draws × 2 cases × 2 arms = 880 answers, one judge sample each; 880 × $0.002 = $1.76
    assert (z.answers, z.judge_calls) == (880, 880)
    assert (z.usd_per_draw, z.basis) == (pytest.approx(0.002), "recorded")
    assert z.judge_usd == pytest.approx(1.76)
    # the .01 grid's rounding spread .0029 is under both measured spreads (.01)
    assert z.rounding_spread is None and z.rounded_cases == () and z.draw_step == 0.01


def test_a_flat_pilot_is_sized_at_the_rounding_spread_with_nothing_to_count() -> None:
    # every score .5 on the factory's .05 grid: planned at .05/√12 = .0144338, too few draws to
    # tell whether a count exists (tests/cli/test_plan.py), so no calls, no cost, no chance
    r = Receipt.model_validate(factories.make_receipt([case("flat", [0.5] * 3, [0.5] * 3)]))
    z = size_run(r, case_bands(r), 0.075)
    assert z.rounding_spread == pytest.approx(0.0144338, rel=1e-5) and z.rounded_cases == ("flat",)
    assert z.draws_per_arm is None and z.trials == 1000 and z.least_chance is None
    assert (z.answers, z.judge_calls, z.judge_usd) == (None, None, None)
    assert z.pooled_level is None and z.existence is None
