"""``plan``'s test across cases: when the cases' spreads are pooled, and why its cut-off is 15%
for one pilot and 5% for another."""

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


def test_a_homogeneous_pilot_says_its_spreads_are_pooled() -> None:
    """A homogeneous pilot says its spreads are pooled.

    Four cases with draws ±.01 around .60 (with skill) and .50 (baseline): sd .01 in every
    case and arm, the same means, so the cases agree. Pooled over 8 degrees of freedom: 12 draws
    per arm (worked in tests/stats/test_planning.py), where each case alone would ask the pilot
    to grow to 6.
    """
    cases = [case(f"c{i}", [0.59, 0.60, 0.61], [0.49, 0.50, 0.51]) for i in range(4)]
    p = plan_receipt(Receipt.model_validate(factories.make_receipt(cases, judge=FINE_JUDGE)))
    assert p.draws_per_arm == 12 and p.undecided_cases == ()
    text = plan_text(p)
    assert text.startswith("Run 12 draws per arm (so that a run with no effect seldom reads ")
    # equal spreads: Bartlett's statistic is 0, p = 1; named by what it checks, not its name
    assert (
        "With skill: the spreads of the 4 cases agree, so they are pooled: 0.0100 over 8 "
        "degrees of freedom, upper 80% bound 0.0132. Every case is planned from it, as a test of "
        "whether the cases' spreads differ by more than chance gives p = 1.000 (had it been "
        "under 5%, they would be kept apart)." in text.split("\n")
    )
    assert "Baseline: the spreads of the 4 cases agree, so they are pooled" in text
