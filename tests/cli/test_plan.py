"""``driftproof plan`` and ``plan_receipt``: draws per arm (D-5), calls and grading cost, by
hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import case, make_receipt

from driftproof.cli.plan import plan
from driftproof.errors import RefusalError
from driftproof.plan import plan_receipt
from driftproof.receipt import Receipt
from driftproof.wording import MORE_CASES, NO_DRAW_COUNT_REACHES

# sd .01 in both arms: X = 4·.0002/(.05 − .02)² = .889 → 2 draws per arm
TIGHT = case("tight", [0.60, 0.61, 0.62], [0.50, 0.51, 0.52])
# sd .0175 in both arms (deviations ±.0175): X = 4·2·.00030625/(.05 − .035)² = 10.89 → 11
MID = case("mid", [0.5, 0.5175, 0.535], [0.4, 0.4175, 0.435])
# sd .10 in both arms: .20 ≥ .05 → no draw count reaches the floor
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
    p = plan_receipt(Receipt.model_validate(make_receipt([TIGHT, MID, WIDE], judge_overhead=USAGE)))
    assert [(c.case_id, c.draws_needed, c.no_draw_count) for c in p.cases] == [
        ("tight", 3, False),
        ("mid", 11, False),
        ("wide", None, True),
    ]  # D-5 gives tight 2; a run's minimum is 3
    assert p.draws_per_arm == 11
    assert p.no_count_cases == ("wide",)
    # 11 draws × 3 cases × 2 arms = 66 answers; one judge sample each → 66 judge calls
    assert (p.answer_calls, p.judge_calls, p.arms) == (66, 66, ("with_skill", "baseline"))
    assert p.judge_usd == pytest.approx(0.022 / 24 * 66)


def test_recorded_usd_is_used_when_present() -> None:
    usage = dict(USAGE, usd=0.048)  # $0.002 per judged draw
    p = plan_receipt(Receipt.model_validate(make_receipt([TIGHT], judge_overhead=usage)))
    assert p.draws_per_arm == 3  # D-5 gives 2, raised to the run's minimum of 3 (issue 16)
    assert p.judge_usd == pytest.approx(0.002 * 3 * 1 * 2)


def test_cost_unknown_without_usage() -> None:
    p = plan_receipt(Receipt.model_validate(make_receipt([TIGHT])))
    assert p.judge_usd is None and "no judge usage" in p.cost_note


def test_cases_that_disagree_give_a_case_count() -> None:
    """Case means .52 and .82 in each arm (sd .01 within): s = stdev(.52, .82) = .21213 per arm,
    band = sqrt(2)·.21213 = .30 ≥ .05 and the draw part is tiny → the cases disagree (D-8).
    Cases needed: smallest N with .30/√N < .05 → N > 36 → 37 (36 gives exactly .05, at the
    floor)."""
    a = case("a", [0.51, 0.52, 0.53], [0.50, 0.51, 0.52])
    b = case("b", [0.81, 0.82, 0.83], [0.80, 0.81, 0.82])
    p = plan_receipt(Receipt.model_validate(make_receipt([a, b])))
    assert p.cases_disagree and p.sentence == MORE_CASES
    assert p.cases_needed == 37
    assert p.draws_per_arm == 3  # sd .01 each: X = .889 → 2, raised to the run's minimum of 3


def test_aggregates_only_is_refused() -> None:
    r = Receipt.model_validate(
        make_receipt([], uncertainty_unavailable="aggregates_only", source_figures={"a": 1})
    )
    with pytest.raises(RefusalError, match="aggregates-only"):
        plan_receipt(r)


def test_cli_plan_text_and_exit(tmp_path: Path) -> None:
    f = tmp_path / "pilot.json"
    f.write_text(
        json.dumps(make_receipt([TIGHT, MID, WIDE], judge_overhead=USAGE)), encoding="utf-8"
    )
    res = CliRunner().invoke(plan, [str(f)])
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert lines[0] == "11 draws per arm resolve the 0.05 effect floor, spreads held."
    assert lines[1] == f"{NO_DRAW_COUNT_REACHES}: wide"
    assert "Calls: 66 answers over 3 cases × 2 arms; judge calls 66." in lines
    assert any(x.startswith("Estimated grading cost: $0.06 (") for x in lines)  # 0.0605 → $0.06


def test_cli_plan_json(tmp_path: Path) -> None:
    f = tmp_path / "pilot.json"
    f.write_text(json.dumps(make_receipt([TIGHT])), encoding="utf-8")
    res = CliRunner().invoke(plan, [str(f), "--format", "json"])
    doc = json.loads(res.output)
    assert doc["draws_per_arm"] == 3 and doc["judge_usd"] is None


def test_cli_plan_refuses_aggregates_only(tmp_path: Path) -> None:
    f = tmp_path / "agg.json"
    f.write_text(
        json.dumps(
            make_receipt([], uncertainty_unavailable="aggregates_only", source_figures={"a": 1})
        ),
        encoding="utf-8",
    )
    res = CliRunner().invoke(plan, [str(f)])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"error: {f}: plan refuses an aggregates-only receipt")


def test_plan_with_single_draws_says_unknown_not_impossible(tmp_path):
    # one measured draw per arm: no spread to hold, so the draw count is unknown, not "none"
    from click.testing import CliRunner
    from factories import case, make_receipt

    from driftproof.cli import cli

    p = tmp_path / "pilot.json"
    p.write_text(json.dumps(make_receipt([case("c1", [0.7], [0.5]), case("c2", [0.6], [0.55])])))
    res = CliRunner().invoke(cli, ["plan", str(p)])
    assert res.exit_code == 0, res.output
    first = res.output.splitlines()[0]
    assert first.startswith("Unknown: no case has two measured draws in both arms")
    assert "c1: unknown" in res.output and "c2: unknown" in res.output
