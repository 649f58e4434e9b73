"""The grader's cost per judged draw and at each price tier, worked out by hand."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from driftproof.stats.grading_cost import cost_per_judged_draw, price_tiers


def _receipt(overhead: Any, price: Any = None) -> Any:
    judge = None if price is False else SimpleNamespace(price=price)
    return SimpleNamespace(economics=SimpleNamespace(judge_overhead=overhead), judge=judge)


def _overhead(usd: float | None, counted: int = 4) -> Any:
    return SimpleNamespace(
        usd=usd, judged_draws_counted=counted, input_tokens=2_000_000, output_tokens=500_000
    )


def test_recorded_cost_per_draw() -> None:
    # $0.80 over 4 judged draws = $0.20 a draw
    assert cost_per_judged_draw(_receipt(_overhead(0.80))) == pytest.approx((0.20, "recorded"))


def test_priced_at_the_frozen_price() -> None:
    price = SimpleNamespace(input_usd_per_mtok=3.0, output_usd_per_mtok=15.0, tier=None)
    # 2 Mtok × $3 + 0.5 Mtok × $15 = $13.50 over 4 draws = $3.375 a draw
    per_draw, basis = cost_per_judged_draw(_receipt(_overhead(None), price))
    assert basis == "priced"
    assert per_draw == pytest.approx(3.375)


def test_no_usage_and_no_price() -> None:
    assert cost_per_judged_draw(_receipt(None)) == (None, "no usage")
    assert cost_per_judged_draw(_receipt(_overhead(1.0, counted=0))) == (None, "no usage")
    assert cost_per_judged_draw(_receipt(_overhead(None), price=False)) == (None, "no price")
    assert cost_per_judged_draw(_receipt(_overhead(None), price=None)) == (None, "no price")


def test_price_tiers() -> None:
    interactive = SimpleNamespace(tier="interactive")
    batch = SimpleNamespace(tier="batch")
    # billed interactive: batch is half; billed batch: interactive is double
    assert price_tiers(_receipt(None, interactive), 10.0) == (10.0, 5.0)
    assert price_tiers(_receipt(None, None), 10.0) == (10.0, 5.0)
    assert price_tiers(_receipt(None, batch), 10.0) == (20.0, 10.0)
    assert price_tiers(_receipt(None, batch), None) == (None, None)
