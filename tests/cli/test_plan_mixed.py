"""``plan`` on a pilot whose cases sit at two spreads (the test across cases), by hand."""

from __future__ import annotations

import factories
from factories import JUDGE, case

from driftproof.pages.plan import plan_receipt
from driftproof.receipt import Receipt
from driftproof.render.plan import headline, plan_text

FINE_JUDGE = dict(JUDGE, scale={"worst": 0.0, "best": 1.0, "step": 0.01})


def test_a_mixed_pilot_plans_its_quiet_cases_apart() -> None:
    """A mixed pilot plans its quiet cases apart.

    Five cases with draws ±.01 around the mean (sd .01) and five with ±.04 (sd .04), both arms,
    3 draws. Each arm's own test pools them (p = .175) but the test across cases over both arms
    rejects (p = .0011; tests/stats/test_planning_across.py), so every case is planned from its
    own spreads: the quiet cases get 220 draws per arm, the noisy ones no count (lower 80%
    bounds .0315 each). Pooled, all ten would have been named as having no count.
    """
    quiet = [case(f"q{i}", [0.59, 0.60, 0.61], [0.49, 0.50, 0.51]) for i in range(5)]
    noisy = [case(f"n{i}", [0.56, 0.60, 0.64], [0.46, 0.50, 0.54]) for i in range(5)]
    r = Receipt.model_validate(factories.make_receipt(quiet + noisy, judge=FINE_JUDGE))
    p = plan_receipt(r)
    assert p.draws_per_arm == 220
    assert p.no_count_cases == tuple(f"n{i}" for i in range(5))
    assert p.pools[0] is not None and not p.pools[0].pooled and p.pooled_level is None
    # the quiet cases' 220 is over 4 × the 6 their spreads give, so a pilot of 6 comes first;
    # the lift alone at their own spreads (sd .01 over 3 draws, as TIGHT in test_plan.py): 12
    # "run 220 draws per arm for the cases that can resolve now" read as cases resolving now
    assert p.larger_pilot == 6 and headline(p).startswith(
        "Next, run a pilot of 6 draws per arm and plan again: this pilot is too small to show "
        "how much the scores vary from draw to draw, so to be safe the plan asks for 220 draws per "
        "arm (so that a run with no effect seldom reads underpowered; a true lift of 0.075 alone "
        "would be called at 12), and a pilot of 6 would likely cut that count. Or "
        "skip the pilot and run 220 draws "
        "per arm now, for the cases that can resolve. The two arms' spreads of n0, n1, n2, n3 "
        "and n4 add up to the floor or more"
    )
    text = plan_text(p)
    assert (
        "With skill: the spreads of the 10 cases agree within this arm (a test of whether the "
        "cases' spreads differ by more than chance gives p = 0.175), but not across cases over "
        "both arms (below), so each case is planned from its own spread." in text
    )
    assert (
        "Across cases, each case's spread over both arms (each arm scaled to its pooled "
        "spread): a test of whether the cases' spreads differ by more than chance gives "
        "p = 0.001, under 5%: the cases' spreads "
        "disagree and are not pooled. The cut-offs are 5% and 15% because a case has fewer than "
        "10 draws over its two arms" in text
    )


def test_a_pilot_to_grow_beside_a_case_with_no_spread_says_to_grow_it() -> None:
    # issue: the first line said "Unknown: no case has two measured draws in both arms" of a pilot
    # whose other case had three in each, and never said to grow the pilot. The case of sd .0175
    # in both arms over 3 draws needs a pilot of 7 draws per arm (worked beside MID in
    # tests/cli/test_plan.py); the case of one draw per arm has no spread.
    mid = case("mid", [0.5, 0.5175, 0.535], [0.4, 0.4175, 0.435])
    one = case("one", [0.6], [0.5])
    p = plan_receipt(Receipt.model_validate(factories.make_receipt([mid, one], judge=FINE_JUDGE)))
    assert headline(p) == (
        "Grow the pilot to 7 draws per arm and plan again: it is too small to plan mid. Some "
        "cases have no spread to plan from (fewer than two draws in an arm)."
    )
