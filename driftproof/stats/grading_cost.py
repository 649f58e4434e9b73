"""The grader's cost of a planned run, from a pilot's recorded usage (D-13: unknown stays so)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from driftproof.receipt import JudgePrice, Receipt

#: Batch price ÷ interactive price: Anthropic Message Batches bill "50% of standard API
#: prices", the OpenAI Batch API a 50% discount (their pricing pages).
BATCH_PRICE_RATIO = 0.5

#: What a cost per judged draw rests on, or why there is none.
Basis = Literal["recorded", "priced", "no usage", "no price"]


def price_tuple(p: JudgePrice) -> tuple[float | None, ...]:
    """``p`` as (input, output, cache read, cache write) USD per million tokens.

    A cache member is ``None`` when the price has none of its own.
    """
    return (
        p.input_usd_per_mtok,
        p.output_usd_per_mtok,
        p.cache_read_usd_per_mtok,
        p.cache_write_usd_per_mtok,
    )


def tokens_usd(
    price: Sequence[float | None], inp: int, out: int, cache_read: int = 0, cache_creation: int = 0
) -> float:
    """US dollars for tokens at ``price``: the one pricing of tokens, for ``run`` and ``plan``.

    ``price`` is (input, output[, cache read, cache write]) USD per million tokens, as
    ``--judge-price`` and :func:`price_tuple` give it; ``inp`` counts all input tokens, of which
    ``cache_read`` and ``cache_creation`` are the cached parts; a cache part with no price of its
    own (missing or ``None``) is priced as input; ``out`` counts output tokens.
    """
    p_in, p_out = price[0] or 0.0, price[1] or 0.0
    p_read = price[2] if len(price) > 2 and price[2] is not None else p_in
    p_write = price[3] if len(price) > 3 and price[3] is not None else p_in
    uncached = max(0, inp - cache_read - cache_creation)
    return (uncached * p_in + cache_read * p_read + cache_creation * p_write + out * p_out) / 1e6


def cost_per_judged_draw(r: Receipt) -> tuple[float | None, Basis]:
    """US dollars per judged draw of pilot ``r``, and what it rests on.

    ``recorded``: the grading cost the pilot recorded; ``priced``: its judge tokens at the judge
    price frozen in the receipt (:func:`tokens_usd`, cache reads and writes at their own price);
    else ``None`` with the reason.
    """
    oh = r.economics.judge_overhead
    if oh is None or oh.judged_draws_counted <= 0:
        return None, "no usage"
    if oh.usd is not None:
        return oh.usd / oh.judged_draws_counted, "recorded"
    if r.judge is None or r.judge.price is None:
        return None, "no price"
    cached = (oh.cache_read_input_tokens or 0, oh.cache_creation_input_tokens or 0)
    usd = tokens_usd(price_tuple(r.judge.price), oh.input_tokens, oh.output_tokens, *cached)
    return usd / oh.judged_draws_counted, "priced"


def price_tiers(r: Receipt, usd: float | None) -> tuple[float | None, float | None]:
    """``usd`` at the interactive and at the batch price; ``(None, None)`` when it is unknown.

    ``usd`` is billed at the pilot's tier; a pilot with no tier recorded ran interactive.
    """
    if usd is None:
        return None, None
    batched = r.judge is not None and r.judge.price is not None and r.judge.price.tier == "batch"
    return (usd / BATCH_PRICE_RATIO, usd) if batched else (usd, usd * BATCH_PRICE_RATIO)
