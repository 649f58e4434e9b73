"""``plan`` gives the grading cost at the interactive and the batch price side by side (issue 17).

Pilot usage as in test_plan: 12,000 input and 2,000 output judge tokens over 24 judged draws
at $1/$5 per Mtok → $0.022, so $0.00091667 per judged draw. The two cases' spreads (sd .0101015
over 50 draws each) are pooled over 98 degrees of freedom, so each is bounded at its upper 60%
level (issue 37's calibration; 80% and 7 draws before): .0101015·√(98/χ²₀.₄(98)) = .0101015 ×
√(98/93.844) = .010323; at n = 6 each arm's 95% point .010323·√(11.0705/5) = .015360 resolves
(2 × .015360 × (1 + √(2/6)) = .048457 < .05), at n = 5 .010323·√(9.4877/4) = .015898 does not
(.051906) → 6 draws per arm → 6 × 2 cases × 2 arms = 24 answers → $0.022 interactive. Both
providers bill a batch request at half the interactive price → $0.011 batch.
"""

from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner
from factories import JUDGE, case, make_receipt

from driftproof.cli.plan import plan
from driftproof.pages.plan import plan_receipt
from driftproof.receipt import Receipt

TIGHT = case("tight", [0.59, 0.61] * 25, [0.49, 0.51] * 25)
MID = case("mid", [0.69, 0.71] * 25, [0.59, 0.61] * 25)
USAGE = {
    "input_tokens": 12000,
    "output_tokens": 2000,
    "usd": None,
    "judged_draws_counted": 24,
    "judged_draws_missing_usage": 0,
}


def _judge(tier):
    j = copy.deepcopy(JUDGE)
    j["scale"]["step"] = 0.01  # the pilots score on a 0.01 grid: rounding spread .0029 < .01
    j["price"] = {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 5.0, "tier": tier}
    return j


def test_an_interactive_pilot_gives_the_batch_cost_at_half():
    """An interactive pilot gives the batch cost at half."""
    p = plan_receipt(
        Receipt.model_validate(make_receipt([TIGHT, MID], judge_overhead=USAGE, judge=_judge(None)))
    )
    assert p.answer_calls == 24
    assert p.judge_usd == p.judge_usd_interactive == pytest.approx(0.022 / 24 * 24)
    assert p.judge_usd_batch == pytest.approx(0.022 / 24 * 24 / 2)


def test_a_batched_pilot_was_billed_at_the_batch_price():
    """A batched pilot was billed at the batch price."""
    p = plan_receipt(
        Receipt.model_validate(
            make_receipt([TIGHT, MID], judge_overhead=USAGE, judge=_judge("batch"))
        )
    )
    assert p.judge_usd == p.judge_usd_batch == pytest.approx(0.022 / 24 * 24)
    assert p.judge_usd_interactive == pytest.approx(0.022 / 24 * 24 * 2)


def test_plan_prints_both_tiers(tmp_path):
    """Plan prints both tiers."""
    path = tmp_path / "pilot.json"
    path.write_text(
        json.dumps(make_receipt([TIGHT, MID], judge_overhead=USAGE, judge=_judge("interactive")))
    )
    res = CliRunner().invoke(plan, [str(path)])
    assert res.exit_code == 0, res.output
    assert "Grading cost by price tier: interactive $0.02, batch $0.01 (run --batch" in res.output
    doc = json.loads(CliRunner().invoke(plan, [str(path), "--format", "json"]).output)
    assert doc["judge_usd_interactive"] == pytest.approx(0.022, abs=1e-6)
    assert doc["judge_usd_batch"] == pytest.approx(0.011, abs=1e-6)


def test_no_tier_cost_without_usage():
    """No tier cost without usage."""
    p = plan_receipt(Receipt.model_validate(make_receipt([TIGHT])))
    assert p.judge_usd_interactive is None and p.judge_usd_batch is None


def test_plan_prices_a_pilots_cached_judge_tokens_as_run_does(tmp_path):
    """Plan prices a pilot's cached judge tokens at the cache prices, as run does."""
    # Found: plan priced 1.2 Mtok input × $1 + 0.2 Mtok output × $5 = $2.20, taking the
    # 1 Mtok cache reads at the input price. At $0.10 a cached Mtok: 0.2 × $1 + 1 × $0.10
    # + 0.2 × $5 = $1.30 over 24 judged draws; 24 answers planned → $1.30, $0.65 batch.
    usage = {**USAGE, "input_tokens": 1_200_000, "output_tokens": 200_000}
    usage |= {"cache_read_input_tokens": 1_000_000, "cache_creation_input_tokens": 0}
    judge = _judge("interactive")
    judge["price"] |= {"cache_read_usd_per_mtok": 0.10, "cache_write_usd_per_mtok": 1.25}
    path = tmp_path / "pilot.json"
    path.write_text(json.dumps(make_receipt([TIGHT, MID], judge_overhead=usage, judge=judge)))
    res = CliRunner().invoke(plan, [str(path)])
    assert res.exit_code == 0, res.output
    assert "Estimated grading cost of a run of 6 draws per arm: $1.30 (" in res.output
    assert "Grading cost by price tier: interactive $1.30, batch $0.65 (" in res.output


def test_a_cost_past_the_largest_float_is_too_large_to_state(tmp_path):
    """A batched pilot's recorded $1e308 is $2e308 at the interactive price, past the largest
    float (about 1.8e308); a price of $1e308 per Mtok makes 12,000 tokens cost past it too.
    Neither prints "$inf", and the JSON holds null where no number can (it once stopped on a
    traceback)."""
    big = dict(USAGE, usd=1e308)
    path = tmp_path / "pilot.json"
    path.write_text(
        json.dumps(make_receipt([TIGHT, MID], judge_overhead=big, judge=_judge("batch")))
    )
    res = CliRunner().invoke(plan, [str(path)])
    assert res.exit_code == 0, res.output
    assert "inf" not in res.output
    assert (
        "Grading cost by price tier: interactive too large to state, batch $1e+308 (" in res.output
    )
    # $1e308 over 24 judged draws is $4.17e+306 a draw (it printed 307 digits and 6 places)
    assert (
        "per arm: $1e+308 (the pilot's recorded grading cost per judged draw ($4.17e+306)"
        in res.output
    )
    doc = json.loads(CliRunner().invoke(plan, [str(path), "--format", "json"]).output)
    assert doc["judge_usd_interactive"] is None  # named apart from an unknown cost's null
    assert doc["too_large_to_state"] == ["judge_usd_interactive"]
    assert doc["judge_usd_batch"] == pytest.approx(1e308)  # 1e308 / 24 judged draws × 24 answers
    judge = _judge(None)
    judge["price"]["input_usd_per_mtok"] = 1e308
    path.write_text(json.dumps(make_receipt([TIGHT, MID], judge_overhead=USAGE, judge=judge)))
    res = CliRunner().invoke(plan, [str(path)])
    assert (
        "Estimated grading cost of a run of 6 draws per arm: too large to state (the pilot's "
        "judge tokens" in res.output
    )
    assert "(too large to state) × 24 answers" in res.output and "inf" not in res.output
