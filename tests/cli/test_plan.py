"""``driftproof plan`` and ``plan_receipt``, by hand.

Draws per arm from the spreads' upper bounds (issue 37), calls and grading cost, by hand (the
bounds' arithmetic: tests/stats/test_planning.py).
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import factories
import pytest
from click.testing import CliRunner
from factories import JUDGE, case

from driftproof.cli.plan import plan
from driftproof.errors import RefusalError
from driftproof.pages.plan import plan_receipt
from driftproof.receipt import Receipt
from driftproof.render.plan import headline, plan_text
from driftproof.wording import NO_DRAW_COUNT_REACHES

# The pilots below score on a 0.01 grid (one judge sample per draw), so their rounding spread
# .01/√12 = .0029 sits under every spread they measure and plays no part in their counts.
FINE_JUDGE = dict(JUDGE, scale={"worst": 0.0, "best": 1.0, "step": 0.01})


#: What the first line adds when keeping a run with no effect from reading underpowered sets
#: the count (a newcomer's issue: the first line gave the count, not what it buys).
_ALONE = (
    "(so that a run with no effect seldom reads underpowered; a true lift of 0.075 alone would be "
    "called at "
)


def make_receipt(cases: list[dict], **kw: object) -> dict:
    """The factory's receipt, judged on a 0.01 grid."""
    return factories.make_receipt(cases, judge=FINE_JUDGE, **kw)


# sd .01 in both arms over 3 draws: the upper 80% bounds are .0212 each, and the count from them
# (220) is more than 4 times the count the spreads themselves give, so the pilot must grow
TIGHT = case("tight", [0.60, 0.61, 0.62], [0.50, 0.51, 0.52])
# 50 draws per arm, 25 at ±.01 around the mean: sd .01·√(50/49) = .010102; 7 draws per arm
# (worked in tests/stats/test_planning.py for sd .01 over 50 draws; the 1% wider spread moves
# the resolution at 7 draws from .04888 to .04938, still under the floor, and at 6 draws it
# stays over it)
BIG = case("big", [0.59, 0.61] * 25, [0.49, 0.51] * 25)
# sd .0175 in both arms over 3 draws: lower 80% bounds .0175·.78825 = .0138 each (sum .0276,
# under the floor), upper ones .0175·2.1169 = .0370 each (sum .0741, over it): the pilot cannot
# tell; at 7 draws per arm the upper bound of the held sum .035 is .035/√(χ²₀.₂(6)/6) =
# .035/√(3.0701/6) = .04893 < .05, and at 6 it is .035/√(2.3425/5) = .05113: grow it to 7
MID = case("mid", [0.5, 0.5175, 0.535], [0.4, 0.4175, 0.435])
# sd .10 in both arms: even the lower bounds .0788 + .0788 ≥ .05 → no draw count reaches it
WIDE = case("wide", [0.5, 0.6, 0.7], [0.5, 0.6, 0.7])
# judge usage of the pilot: 12,000 input and 2,000 output tokens over 24 judged draws at $1/$5
# per Mtok
# → (12,000·1 + 2,000·5)/1e6 = $0.022, i.e. $0.00091667 per judged draw
USAGE = {
    "input_tokens": 12000,
    "output_tokens": 2000,
    "usd": None,
    "judged_draws_counted": 24,
    "judged_draws_missing_usage": 0,
}


def test_plan_takes_the_largest_count_and_names_unresolvable_cases() -> None:
    """Plan takes the largest count and names unresolvable cases."""
    p = plan_receipt(Receipt.model_validate(make_receipt([BIG, MID, WIDE], judge_overhead=USAGE)))
    assert [(c.case_id, c.draws_needed, c.no_draw_count, c.undecided) for c in p.cases] == [
        ("big", 7, False, False),
        ("mid", None, False, True),
        ("wide", None, True, False),
    ]
    assert p.draws_per_arm == 7
    assert p.no_count_cases == ("wide",) and p.undecided_cases == ("mid",)
    assert p.pilot_draws == 7
    # 7 draws × 3 cases × 2 arms = 42 answers; one judge sample each → 42 judge calls
    assert (p.answer_calls, p.judge_calls, p.arms) == (42, 42, ("with_skill", "baseline"))
    assert p.judge_usd == pytest.approx(0.022 / 24 * 42)


def test_a_loose_pilot_gets_its_count_and_the_advice_to_grow() -> None:
    """A loose pilot gets its count and the advice to grow.

    TIGHT alone: 220 draws per arm from its bounds, more than 4 × the 6 its spreads held
    give (tests/stats/test_planning.py). The headline says, in the order a person decides, the
    cheap step (a pilot of twice its 3 draws), why, then the count without it.
    """
    p = plan_receipt(Receipt.model_validate(make_receipt([TIGHT])))
    (c,) = p.cases
    assert not c.undecided and c.draws_needed == 220 and c.larger_pilot == 6
    assert p.draws_per_arm == 220 and p.answer_calls == 440 and p.larger_pilot == 6
    # "Run 220 draws per arm." first read as the step to take; "the receipt planned from is too
    # small a pilot" named the pilot twice, once as what plan reads
    assert headline(p) == (
        "Next, run a pilot of 6 draws per arm and plan again: this pilot is too small to show "
        "how much the scores vary from draw to draw, so to be safe the plan "
        f"asks for 220 draws per arm {_ALONE}{p.effect_alone}), and a pilot of 6 would likely cut "
        "that count. Or skip the pilot and run 220 draws per arm now."
    )
    method = (Path(__file__).parents[2] / "site_src" / "method.md").read_text(encoding="utf-8")
    quoted = method.split("for a run without it: *", 1)[1].split(" …*", 1)[0]  # the method's
    assert headline(p).startswith(" ".join(quoted.split()))
    lines = plan_text(p).splitlines()  # the commands in that order, calls, cost, case; why
    assert lines[1:3] == [
        "To run the pilot of 6 draws per arm first, give driftproof run --draws 6, then plan from "
        "its receipt.",
        "To draw each arm 220 times, give driftproof run --draws 220.",
    ]
    assert lines[3].startswith("Each run draws every arm from the start")
    # 6 draws × 1 case × 2 arms, 1 judge sample each (the pilot's); then the run's
    assert lines[4] == (
        "Calls for the pilot of 6 draws per arm: 12 answers over 1 case × 2 arms; judge calls 12."
    )
    assert lines[5].startswith(
        "Calls for a run of 220 draws per arm: 440 answers over 1 case × 2 arms; judge calls "
    )
    assert lines[6].startswith("Estimated grading cost of a run of 220 draws per arm: ")
    assert lines[7].startswith("  tight: 220 (pilot measured 3 with skill, 3 baseline; ")
    assert lines[8] == "Why this count:"
    assert lines[9].startswith("At 220 draws per arm a true lift of 0.075 gives a verdict with")
    # the line under the chance says which question 220 answers, apart from the 6 held spreads give
    assert lines[10] == (
        "This count is for a next run, sized from the spreads' upper bounds so that a run with no "
        "effect seldom reads underpowered and a true lift of 0.075 is called; the draws needed "
        "that diff and the Action give are for the bands already measured, so the two counts "
        "differ. Here keeping a run with no effect from reading underpowered sets it: a true "
        "lift of 0.075 alone would be called at 12 draws per arm, so a larger lift does not "
        "lower the count."
    )
    # The lift alone (bounds .0211693 each): called at n when its low end .075 − 1.645·.0211693·
    # √(2/n) clears both the floor and the 97.5% spreads 2·.0211693·√(χ²₀.₉₇₅(n−1)/(n−1)).
    # n = 12: low .060783, spreads √(21.920/11) = 1.41164 → .059767 < low; n = 11: low
    # .060151, spreads √(20.483/10) = 1.43119 → .060595 > low. So 12, under the 220 the
    # resolution needs; a lift at the floor is never called that surely: no such sentence.
    assert p.effect_alone == 12
    assert plan_receipt(Receipt.model_validate(make_receipt([TIGHT])), 0.05).effect_alone is None


def test_ten_pooled_cases_state_the_level_and_its_error_rates() -> None:
    """Ten pooled cases state the level and its error rates.

    Ten cases with draws −.019, 0 and +.019 around the mean in both arms (sd .019), pooled over
    20 degrees of freedom: 127 draws per arm at the 60% bound (tests/stats/test_planning.py).
    The level line states the pooled level and the existence test's rates at 20 degrees of
    freedom (checked against simulation there).
    """
    cases = [case(f"c{i}", [0.581, 0.60, 0.619], [0.481, 0.50, 0.519]) for i in range(10)]
    p = plan_receipt(Receipt.model_validate(make_receipt(cases)))
    assert p.draws_per_arm == 127 and p.pooled_level == 0.6 and p.larger_pilot is None
    assert p.existence is not None and p.existence.df == 20
    text = plan_text(p)
    assert text.startswith(f"Run 127 draws per arm {_ALONE}{p.effect_alone}).\n")
    assert "\nTo draw each arm 127 times, give driftproof run --draws 127.\n" in text
    assert "upper 60% bound 0.0201" in text
    # the rates at 20 degrees of freedom: a count at 0.040 (upper 60% bounds under the floor)
    # 95.5%, none there (lower 50% bounds at it) 1.7%; none at 0.0625 96.8%, a count there 1.5%
    # (each within .002 of 400,000 simulated pilots in tests/stats/test_planning.py). The line
    # was one 120-word sentence with a parenthesis in it: now short sentences, the same figures
    assert (
        "A spread pooled over 20 or more degrees of freedom is taken at its upper 60% confidence "
        "bound, any other at its upper 80% bound. A case of a run at this count with no effect "
        "reads underpowered at most 10% of the time when the true spreads are no wider than "
        "the bounds; a run reads underpowered when any one case does, so more often. A case has "
        "no count only when even the lower bounds of its spreads reach the "
        "floor: the lower 50% bound (the median-unbiased value) of a spread taken at its upper "
        "60% bound, the lower 80% bound of any other. At the pooled 20 degrees of freedom per "
        "arm, two equal spreads summing to 0.040 get a count 95% of the time; 2% of the time "
        "they are wrongly named as having none. Two summing to 0.0625 are named as having none "
        "97% of the time; 2% of the time they wrongly get a count. In between, the pilot cannot "
        "tell."
    ) in text.split("\n")


def test_the_method_page_says_the_10_percent_bound_is_per_case() -> None:
    """The bound holds per case; a run reads underpowered when any case does, so more often
    (an independent simulation gave 23% of 20-case runs)."""
    page = Path(__file__).resolve().parents[2] / "site_src" / "method.md"
    text = " ".join(page.read_text("utf-8").split())
    assert "at which a run whose true spreads are those bounds" not in text
    assert "at which a case whose true spreads are those bounds, with no effect at all" in text
    assert "a run reads underpowered when any one of its cases does" in text


def test_recorded_usd_is_used_when_present() -> None:
    """Recorded usd is used when present."""
    usage = dict(USAGE, usd=0.048)  # $0.002 per judged draw
    p = plan_receipt(Receipt.model_validate(make_receipt([BIG], judge_overhead=usage)))
    assert p.draws_per_arm == 7
    assert p.judge_usd == pytest.approx(0.002 * 7 * 1 * 2)


def test_cost_unknown_without_usage() -> None:
    """Cost unknown without usage."""
    p = plan_receipt(Receipt.model_validate(make_receipt([BIG])))
    assert p.judge_usd is None and "no judge usage" in p.cost_note


def test_aggregates_only_is_refused() -> None:
    r = Receipt.model_validate(
        make_receipt(
            [], uncertainty_unavailable="aggregates_only", source_figures={"source": "test"}
        )
    )
    with pytest.raises(RefusalError, match="aggregates-only"):
        plan_receipt(r)


def test_cli_plan_text_and_exit(tmp_path: Path) -> None:
    f = tmp_path / "pilot.json"
    f.write_text(json.dumps(make_receipt([BIG, MID, WIDE], judge_overhead=USAGE)), encoding="utf-8")
    res = CliRunner().invoke(plan, [str(f)])
    assert res.exit_code == 0
    lines = res.output.splitlines()
    # one step (mid's pilot must grow to 7, worked above), the count big needs (7, worked
    # above), which the calls and cost are for, then the case no count resolves
    assert lines[0] == (
        "Grow the pilot to 7 draws per arm and plan again: it is too small to plan mid. The "
        "cases it can plan need 7 draws per arm, the count the calls and cost below are for. The "
        "two arms' spreads of wide add up to the floor or more, even at their lower bounds: no "
        "number of draws resolves it; reduce its spread or drop it."
    )
    # means .6/.5, .5175/.4175 and .6/.6 per arm: stdev(.6, .5175, .6) = .0476 with skill,
    # stdev(.5, .4175, .6) = .0914 baseline, band √(.0476² + .0914²) = .1030; with the draw part
    # (mean sd²/n: .0000020, .000102, .00333 → .001146) out, √(.00112 + .00720) = .0912 ≥ .05:
    # "More cases, …", as context on its own line
    why = lines.index("Why this count:")  # the reasoning, after what to run, cost and cases
    assert lines[why + 1].startswith("Draws work case by case: ")
    assert (
        "Its comparison band in this pilot, one spread: each arm's spread of its cases' mean "
        "scores (0.048 with skill, 0.091 baseline) added in quadrature, is 0.103, at or above "
        "the 0.05 floor" in lines[why + 1]
    )
    assert lines[why + 2].startswith("At 7 draws per arm a true lift of 0.075 gives a verdict with")
    assert lines[1] == "To draw each arm 7 times, give driftproof run --draws 7."  # the grown pilot
    assert f"{NO_DRAW_COUNT_REACHES}: wide" in lines
    assert (
        "Calls for a run of 7 draws per arm: 42 answers over 3 cases × 2 arms; judge calls 42."
        in lines
    )
    assert any(
        x.startswith("Estimated grading cost of a run of 7 draws per arm: $0.04 (") for x in lines
    )  # 0.0385 → $0.04


def test_cli_plan_effect_at_the_floor_says_half(tmp_path: Path) -> None:
    """Cli plan effect at the floor says half."""
    f = tmp_path / "pilot.json"
    f.write_text(json.dumps(make_receipt([BIG])), encoding="utf-8")
    res = CliRunner().invoke(plan, [str(f), "--effect", "0.05"])
    assert res.exit_code == 0
    assert "a true lift of 0.050 gives a verdict" in res.output
    assert "called only about half the time at any number of draws" in res.output


def test_cli_plan_lift_above_the_floor_is_not_said_to_be_called_half_the_time(tmp_path) -> None:
    # The pilot's spreads are 0.010 per arm; at the plan's 27 draws a true lift of 0.055 is
    # called when the measured gap reaches 0.05 (the bands, 0.02 wide together, are then apart):
    # by hand P = Φ(0.005 / (0.010·sqrt(2/27))) = Φ(1.84) ≈ 0.97, far from "about half", which
    # holds only for a lift at the floor itself. The plan printed both, side by side.
    f = tmp_path / "pilot.json"
    f.write_text(json.dumps(make_receipt([BIG])), encoding="utf-8")
    res = CliRunner().invoke(plan, [str(f), "--effect", "0.055"])
    assert res.exit_code == 0
    said = re.search(
        r"At 27 draws per arm a true lift of 0\.055 gives a verdict with a chance "
        r"of (\d+)%",
        res.output,
    )
    assert said is not None and 94 <= int(said.group(1)) <= 99  # 97% by hand, ±1,000 runs' noise
    assert "half the time" not in res.output


@pytest.mark.parametrize("given", ["0", "0.0001", "0.0499", "1.01", "nan"])
def test_cli_plan_refuses_an_effect_under_the_floor_naming_the_option(tmp_path, given) -> None:
    # 0.0001 planned "a true lift of 0.000" (a lift under the floor is never called a change),
    # and "nan" was refused with the receipt's path in front, as if the file were at fault
    f = tmp_path / "pilot.json"
    f.write_text(json.dumps(make_receipt([BIG])), encoding="utf-8")
    res = CliRunner().invoke(plan, [str(f), "--effect", given])
    assert res.exit_code == 2 and res.stdout == ""
    assert "Invalid value for '--effect': " in res.stderr and str(f) not in res.stderr
    assert ("not a finite number" if given == "nan" else "range 0.05<=x<=1.0") in res.stderr
    with pytest.raises(RefusalError, match=r"--effect must be a lift from 0\.05 \(the effect"):
        plan_receipt(Receipt.model_validate(make_receipt([BIG])), float(given))


def test_cli_plan_refuses_a_legacy_pilot() -> None:
    # one answer per arm judged 5 times: plan read the judge's samples as 5 draws and sized a
    # run of draws from the judge's agreement; the file is at fault, so its path leads
    f = Path(__file__).parent.parent / "receipt" / "fixtures" / "0.3.1" / "valid-basic.json"
    res = CliRunner().invoke(plan, [str(f)])
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        f"error: {f}: No case in this receipt has two measured answers in both arms, and one "
        "answer cannot size a run of draws: plan sizes a run from how far a case's score moves "
        "from one answer to the next (a band over one answer's judge samples measures the judge "
        "alone). Run a pilot with driftproof run, which draws each arm at least 3 times, and "
        "plan from its receipt.\n"
    )


def test_cli_plan_refuses_an_ungraded_import_of_one_answer_per_arm_without_naming_a_judge() -> None:
    # caveman's import holds no score (the first thing it lacks); it said "its judge's samples"
    f = Path(__file__).parents[2] / "receipts" / "caveman-2b10489-caveman.json"
    res = CliRunner().invoke(plan, [str(f)])
    assert res.exit_code == 2 and "no scored draw" in res.stderr and "judge's" not in res.stderr


def test_cli_plan_json(tmp_path: Path) -> None:
    """Cli plan json."""
    f = tmp_path / "pilot.json"
    f.write_text(json.dumps(make_receipt([BIG])), encoding="utf-8")
    res = CliRunner().invoke(plan, [str(f), "--format", "json"])
    doc = json.loads(res.output)
    assert doc["draws_per_arm"] == 7 and doc["judge_usd"] is None
    assert doc["effect"] == pytest.approx(0.075) and doc["spread_level"] == 0.8
    assert doc["headline"].startswith(f"Run 7 draws per arm {_ALONE}")


def test_cli_plan_refuses_aggregates_only(tmp_path: Path) -> None:
    """Cli plan refuses aggregates only."""
    f = tmp_path / "agg.json"
    f.write_text(
        json.dumps(
            make_receipt(
                [], uncertainty_unavailable="aggregates_only", source_figures={"source": "test"}
            )
        ),
        encoding="utf-8",
    )
    res = CliRunner().invoke(plan, [str(f)])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"error: {f}: plan refuses an aggregates-only receipt")


def test_plan_with_single_draws_is_refused_as_one_answer_per_arm(tmp_path):
    """Plan with single draws refuses, as for any receipt of one answer per arm."""
    # one measured draw per arm: no spread to hold; the method draws each arm "at least three
    # times", as run does
    from click.testing import CliRunner

    from driftproof.cli import cli

    p = tmp_path / "pilot.json"
    p.write_text(json.dumps(make_receipt([case("c1", [0.7], [0.5]), case("c2", [0.6], [0.55])])))
    res = CliRunner().invoke(cli, ["plan", str(p)])
    assert (res.exit_code, res.stdout) == (2, "")
    assert "No case in this receipt has two measured answers in both arms" in res.stderr
    assert res.stderr.endswith(
        "Run a pilot with driftproof run, which draws each arm at least 3 times, and plan from "
        "its receipt.\n"
    )


def test_a_pilot_whose_spreads_disagree_says_so() -> None:
    """A pilot whose spreads disagree says so."""
    # BIG (sd .0101 over 50 draws), MID (.0175 over 3), WIDE (.10 over 3): the variances span a
    # factor of 100, Bartlett's p is far under 5%
    p = plan_receipt(Receipt.model_validate(make_receipt([BIG, MID, WIDE])))
    assert p.pools[0] is not None and not p.pools[0].pooled
    text = plan_text(p)
    assert (
        "With skill: the spreads of the 3 cases disagree (a test of whether the cases' spreads "
        "differ by more than chance gives p " in text
    )
    assert "so each case is planned from its own spread" in text


def test_a_zero_spread_pilot_is_planned_at_the_grid_rounding_spread() -> None:
    """A zero spread pilot is planned at the grid rounding spread.

    One case, 3 draws per arm, every score .5, on the factory's grid (step .05, one judge
    sample per draw). Each arm's spread is planned at .05/√12 = .0144338, not 0. Over 2 degrees
    of freedom χ²₀.₂(2) = −2·ln .8 = .446287 and χ²₀.₈(2) = −2·ln .2 = 3.21888: upper 80% bounds
    .0144338/√(.446287/2) = .030556 each (sum .06111 ≥ .05), lower ones .0144338/√(3.21888/2) =
    .011377 each (sum .02275 < .05): the pilot cannot tell, and at twice its draws (6, 5 degrees
    of freedom, χ²₀.₂(5) = 2.3425) the upper bounds' sum is 2·.0144338/√(2.3425/5) = .04218 <
    .05: grow it to 6. Taking the spreads as 0 said "Run 3 draws per arm".
    """
    flat = case("flat", [0.5, 0.5, 0.5], [0.5, 0.5, 0.5])
    p = plan_receipt(Receipt.model_validate(factories.make_receipt([flat])))
    (c,) = p.cases
    assert (c.draws_needed, c.undecided, c.pilot_draws) == (None, True, 6)
    assert p.draws_per_arm is None and p.rounding_spread == pytest.approx(0.0144338, rel=1e-5)
    assert c.bounds == pytest.approx((0.030556, 0.030556), rel=1e-4)
    text = plan_text(p)
    assert text.startswith("Grow the pilot to 6 draws per arm and plan again: it is too small")
    assert "planned at that instead, for flat." in text and "0.0144" in text
    # the pilot's growth is not the run's draw count: the cost line does not say "no draw count"
    # after the headline named one
    assert text.splitlines()[4] == (
        "Estimated grading cost: unknown (the plan sets no draw count for the run yet, so there "
        "is nothing to cost)."
    )


def test_the_headline_names_at_most_five_cases() -> None:
    """The headline names at most five cases.

    Seven cases as WIDE (no draw count) and BIG (7 draws per arm, worked above): one step,
    run 7 for the case that can resolve, then five of the seven ids and "and 2 more".
    """
    wide = [case(f"w{i}", [0.5, 0.6, 0.7], [0.5, 0.6, 0.7]) for i in range(7)]
    p = plan_receipt(Receipt.model_validate(make_receipt([BIG, *wide])))
    assert p.no_count_cases == tuple(f"w{i}" for i in range(7))
    assert headline(p) == (
        f"Run {p.draws_per_arm} draws per arm for the cases that can resolve {_ALONE}"
        "3). The two arms' "  # BIG's lift alone: 3, the fewest draws a run takes
        "spreads of w0, w1, w2, w3, w4 and 2 more add up to the floor or more, even at their "
        "lower bounds: no number of draws resolves them; reduce their spread or drop them."
    )


def test_the_method_page_quotes_plans_no_count_headline_as_plan_prints_it() -> None:
    # the method page quoted "the spreads of X and Y alone exceed the floor", words plan had
    # stopped printing; two wide cases named X and Y give plan's own headline to compare
    wide = [case(n, [0.5, 0.6, 0.7], [0.5, 0.6, 0.7]) for n in ("X", "Y")]
    said = headline(plan_receipt(Receipt.model_validate(factories.make_receipt(wide))))
    method = (Path(__file__).parents[2] / "site_src" / "method.md").read_text(encoding="utf-8")
    quoted = " ".join(method.split("The headline names those cases: *", 1)[1].split("*")[0].split())
    assert said == quoted[0].upper() + quoted[1:]


def test_a_count_past_what_a_receipt_holds_names_no_run_option() -> None:
    # 1,200 draws per arm: more than a receipt's 1,000 per arm, so "give driftproof run --draws
    # 1200" would be refused; plan says why no one run can draw it
    p = plan_receipt(Receipt.model_validate(factories.make_receipt([MID])))
    decided = tuple(dataclasses.replace(c, undecided=False) for c in p.cases)
    p = dataclasses.replace(p, draws_per_arm=1200, cases=decided, pilot_draws=None)
    lines = plan_text(p).splitlines()
    assert "--draws" not in plan_text(p)
    assert (
        "A receipt holds at most 1,000 draws per arm, so no one run can draw each arm 1,200 "
        "times: narrow the spreads (a steadier judge or case) first."
    ) in lines
