"""``--judge-price IN,OUT[,CACHE_READ,CACHE_WRITE]`` (run, regrade) refuses an empty field.

Found: ``--judge-price 1,,5`` was read as IN 1, OUT 5 (the empty field dropped), so a price
missing a field was frozen in the receipt with the others shifted into its place.
"""

from __future__ import annotations

import pytest
from factories import run_main


@pytest.mark.parametrize("command", ["run", "regrade"])
@pytest.mark.parametrize("price", ["1,,5", "1,5,", "1,5,0.1,,1.25"])
def test_a_price_with_an_empty_field_is_refused_saying_what_was_found(
    tmp_path, capsys, command, price
):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text("{}")
    b.write_text("{}")
    argv = {
        "run": ["run", str(a), "--skill", str(b), "--model", "m", "--provider", "stub"],
        "regrade": ["regrade", str(a), "--rubric", str(b)],
    }[command]
    out = tmp_path / "o.json"
    code, _, err = run_main([*argv, "--out", str(out), "--judge-price", price], capsys)
    assert code == 2
    assert err.splitlines()[-1] == (
        "error: Invalid value for '--judge-price': expected IN,OUT[,CACHE_READ,CACHE_WRITE] in "
        f"USD per million tokens, e.g. 1.0,5.0 or 1.0,5.0,0.1,1.25, found {price!r}"
    )
    assert not out.exists()


def test_the_help_names_the_one_price_every_known_judge_is_frozen_at():
    """``run --help`` states one default price for all known judges; a judge priced otherwise
    would make it untrue. Anthropic's price list for Claude Haiku 4.5: $1 input, $5 output,
    cache reads 0.1x input, 5-minute cache writes 1.25x input, per million tokens."""
    from driftproof.run.run_plan import JUDGE_PRICE_HELP, KNOWN_BATCH_PRICES, KNOWN_PRICES

    assert set(KNOWN_PRICES.values()) == {(1.0, 5.0, 0.1, 1.25)}
    assert set(KNOWN_BATCH_PRICES.values()) == {(0.5, 2.5, 0.05, 0.625)}
    assert "1,5,0.1,1.25, half that when batched" in " ".join(JUDGE_PRICE_HELP.split())
