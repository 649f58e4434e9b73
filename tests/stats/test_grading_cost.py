"""The grader's cost per judged draw and at each price tier, worked out by hand."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from driftproof.run.config import judge_usd
from driftproof.stats.grading_cost import cost_per_judged_draw, price_tiers


def _receipt(overhead: Any, price: Any = None) -> Any:
    judge = None if price is False else SimpleNamespace(price=price)
    return SimpleNamespace(economics=SimpleNamespace(judge_overhead=overhead), judge=judge)


def _overhead(usd: float | None, counted: int = 4, cached: Any = (None, None)) -> Any:
    return SimpleNamespace(
        usd=usd,
        judged_draws_counted=counted,
        input_tokens=2_000_000,
        output_tokens=500_000,
        cache_read_input_tokens=cached[0],
        cache_creation_input_tokens=cached[1],
    )


def _price(cache_read: float | None = None, cache_write: float | None = None) -> Any:
    return SimpleNamespace(
        input_usd_per_mtok=3.0,
        output_usd_per_mtok=15.0,
        cache_read_usd_per_mtok=cache_read,
        cache_write_usd_per_mtok=cache_write,
        tier=None,
    )


def test_recorded_cost_per_draw() -> None:
    # $0.80 over 4 judged draws = $0.20 a draw
    assert cost_per_judged_draw(_receipt(_overhead(0.80))) == pytest.approx((0.20, "recorded"))


def test_priced_at_the_frozen_price() -> None:
    price = _price()
    # 2 Mtok × $3 + 0.5 Mtok × $15 = $13.50 over 4 draws = $3.375 a draw
    per_draw, basis = cost_per_judged_draw(_receipt(_overhead(None), price))
    assert basis == "priced"
    assert per_draw == pytest.approx(3.375)


def test_cached_judge_tokens_are_priced_at_the_cache_prices_as_run_prices_them() -> None:
    # Found: the plan priced every input token at the input price, where run prices the
    # cache reads and writes apart, so a pilot that recorded no cost was planned at $3.375 a draw.
    # 2 Mtok input of which 1 Mtok cache reads and 0.4 Mtok cache writes, 0.5 Mtok output at
    # $3 in, $15 out, $0.30 cache read, $3.75 cache write: 0.6 × 3 + 1 × 0.30 + 0.4 × 3.75
    # + 0.5 × 15 = 1.80 + 0.30 + 1.50 + 7.50 = $11.10 over 4 draws = $2.775 a draw
    r = _receipt(_overhead(None, cached=(1_000_000, 400_000)), _price(0.30, 3.75))
    per_draw, basis = cost_per_judged_draw(r)
    assert basis == "priced"
    assert per_draw == pytest.approx(2.775)
    usage = {"input": 2_000_000, "output": 500_000, "cache_read": 1_000_000}
    assert judge_usd((3.0, 15.0, 0.30, 3.75), {**usage, "cache_creation": 400_000}) == (
        pytest.approx(11.10)
    )
    # no cache price of its own: the cached parts are priced as input, $13.50 as before
    r = _receipt(_overhead(None, cached=(1_000_000, 400_000)), _price())
    assert cost_per_judged_draw(r) == pytest.approx((3.375, "priced"))


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
