"""The grader's cost of a planned run, from a pilot's recorded usage (D-13: unknown stays so)."""

from __future__ import annotations

from typing import Literal

from driftproof.receipt import Receipt

#: Batch price ÷ interactive price: Anthropic Message Batches bill "50% of standard API
#: prices", the OpenAI Batch API a 50% discount (their pricing pages).
BATCH_PRICE_RATIO = 0.5

#: What a cost per judged draw rests on, or why there is none.
Basis = Literal["recorded", "priced", "no usage", "no price"]


def cost_per_judged_draw(r: Receipt) -> tuple[float | None, Basis]:
    """US dollars per judged draw of pilot ``r``, and what it rests on.

    ``recorded``: the grading cost the pilot recorded; ``priced``: its judge tokens at the judge
    price frozen in the receipt (USD per million tokens); else ``None`` with the reason.
    """
    oh = r.economics.judge_overhead
    if oh is None or oh.judged_draws_counted <= 0:
        return None, "no usage"
    if oh.usd is not None:
        return oh.usd / oh.judged_draws_counted, "recorded"
    if r.judge is None or r.judge.price is None:
        return None, "no price"
    p = r.judge.price
    usd = (oh.input_tokens * p.input_usd_per_mtok + oh.output_tokens * p.output_usd_per_mtok) / 1e6
    return usd / oh.judged_draws_counted, "priced"


def price_tiers(r: Receipt, usd: float | None) -> tuple[float | None, float | None]:
    """``usd`` at the interactive and at the batch price; ``(None, None)`` when it is unknown.

    ``usd`` is billed at the pilot's tier; a pilot with no tier recorded ran interactive.
    """
    if usd is None:
        return None, None
    batched = r.judge is not None and r.judge.price is not None and r.judge.price.tier == "batch"
    return (usd / BATCH_PRICE_RATIO, usd) if batched else (usd, usd * BATCH_PRICE_RATIO)
