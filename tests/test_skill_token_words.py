"""The value per 1,000 skill tokens never reads as zero when it is not, and its token count reads
in the singular at one; an empty SKILL.md counts 0 tokens (D-14: ceil(characters ÷ 4)).

Found: a one-character SKILL.md printed "1 skill tokens" (sheet) and "skill 1 tokens" (run's
summary); a lift of +0.100 over a 1,000,001-token skill printed "+0.000" per 1,000 tokens; the
receipt builder counted an empty SKILL.md as 1 token."""

from __future__ import annotations

import copy

import pytest
from factories import case, make_receipt
from pydantic import ValidationError

from driftproof.pages.badge import workflow_outputs
from driftproof.pages.sheet import sheet
from driftproof.pages.words import format_lift, format_per_1k
from driftproof.receipt import Receipt, skill_tokens

# lift .10: .71 − .61
LIFT_10 = case("a", [0.70, 0.71, 0.72], [0.60, 0.61, 0.62])


def _receipt(chars: int) -> Receipt:
    return Receipt.model_validate(make_receipt([copy.deepcopy(LIFT_10)], skill_text="y" * chars))


def test_one_skill_token_is_singular() -> None:
    # 1 character → ceil(1/4) = 1 token → .10 ÷ .001 = +100.000
    s = sheet(_receipt(1))
    assert s.lift_per_1k == "+100.000 (1 skill token: characters ÷ 4, rounded up)"


def test_one_skill_token_in_the_run_summary() -> None:
    from render.test_run_summary import _printed

    said = "per 1,000 skill tokens +100.000 (skill 1 token at four characters a token);"
    assert said in _printed(_receipt(1))


def test_a_tiny_value_per_1000_tokens_never_reads_as_zero() -> None:
    # 4,000,004 characters → 1,000,001 tokens → .10 ÷ 1,000.001 = .0000999999, two significant
    # digits: .00010, printed to its sixth place as +0.000100
    r = _receipt(4_000_004)
    assert sheet(r).lift_per_1k.startswith("+0.000100 (1,000,001 skill tokens")
    assert workflow_outputs(r)["value-per-1k"] == "+0.000100"


def test_never_zero_keeps_signs_zero_and_ordinary_values() -> None:
    assert format_per_1k(-0.0004, -0.1) == "−0.00040"
    assert format_per_1k(0.0, 0.1) == "+0.000"
    assert format_per_1k(0.0012, 0.1) == "+0.001"
    assert format_lift(0.0004) == "+0.000"  # a lift itself keeps its three places
    # beside a lift that itself reads +0.000 the value reads +0.000 too, not -0.00042 beside it
    assert format_per_1k(-0.00042, -0.000167) == "+0.000"


def test_an_empty_skill_md_is_0_tokens_and_no_receipt_holds_it() -> None:
    assert [skill_tokens(t) for t in ("", "x", "xxxx", "xxxxx")] == [0, 1, 1, 2]
    with pytest.raises(ValidationError, match="skill.tokens"):
        make_receipt([copy.deepcopy(LIFT_10)], skill_text="")
