"""``plan``'s test across cases says why its cut-off is 15% for one pilot and 5% for another."""

from __future__ import annotations

import factories
import pytest
from factories import JUDGE, case

from driftproof.pages.plan import plan_receipt
from driftproof.receipt import Receipt
from driftproof.render.plan import plan_text

FINE_JUDGE = dict(JUDGE, scale={"worst": 0.0, "best": 1.0, "step": 0.01})


def _across(with_skill: list[float], baseline: list[float]) -> str:
    cases = [case(f"c{i}", with_skill, baseline) for i in range(4)]
    r = Receipt.model_validate(factories.make_receipt(cases, judge=FINE_JUDGE))
    (line,) = [x for x in plan_text(plan_receipt(r)).splitlines() if x.startswith("Across")]
    return line


@pytest.mark.parametrize(
    ("draws", "said"),
    [
        # 3 + 3 draws per case: fewer than 10 over both arms, each arm's own test is weak
        (
            3,
            "p = 1.000, 15% or over: the cases' spreads agree. The cut-offs are 5% and 15% "
            "because a case has fewer than 10 draws over its two arms, too few for each arm's own "
            "test to catch spreads that differ; with 10 or more in every case the cut-off is 5%.",
        ),
        # 5 + 5 draws per case: 10 over both arms
        (
            5,
            "p = 1.000, 5% or over: the cases' spreads agree. The cut-off is 5% because every "
            "case has 10 or more draws over its two arms, enough for each arm's own test; a "
            "pilot with fewer is held to 15%.",
        ),
    ],
)
def test_the_cut_off_comes_with_its_reason(draws: int, said: str) -> None:
    # every case has the same spreads in both arms, so Bartlett's statistic is 0 and p is 1
    step = [-0.02, -0.01, 0.0, 0.01, 0.02] if draws == 5 else [-0.01, 0.0, 0.01]
    line = _across([0.6 + d for d in step], [0.5 + d for d in step])
    assert line.endswith(said)
