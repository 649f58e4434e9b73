"""The edge of the endings table's budget reading (D-19), worked out by hand.

Each API lane's output-budget ending, as the official SDKs type it (anthropic's ``StopReason``
``max_tokens``; openai's Chat ``Choice.finish_reason`` ``length``; its Responses ``status``
``incomplete`` with ``IncompleteDetails.reason`` ``max_output_tokens``), is the output budget
when the reply reports at least 90% of the budget as output tokens, and the context window
below it (the table ``run --help`` prints). With a budget of 1,000 tokens, 90% is 900: a reply
reporting 900 output tokens reached it, one reporting 899 did not.
"""

from __future__ import annotations

from typing import get_args

import pytest
from anthropic.types import StopReason
from openai.types.chat.chat_completion import Choice
from openai.types.responses.response import IncompleteDetails

from driftproof.run.endings import lost_class

_CUTS = [
    ("anthropic", "max_tokens", get_args(StopReason)),
    ("chat", "length", get_args(Choice.model_fields["finish_reason"].annotation)),
    ("compatible", "length", get_args(Choice.model_fields["finish_reason"].annotation)),
    (
        "responses",
        "incomplete:max_output_tokens",
        {
            f"incomplete:{v}"
            for v in get_args(get_args(IncompleteDetails.model_fields["reason"].annotation)[0])
        },
    ),
]


@pytest.mark.parametrize(("lane", "ending", "typed"), _CUTS, ids=[c[0] for c in _CUTS])
def test_a_budget_ending_at_exactly_nine_tenths_of_the_budget_is_the_budget(lane, ending, typed):
    assert ending in typed  # the SDK's own value
    assert lost_class(lane, ending, output_tokens=900, budget=1000) == "truncated"
    assert lost_class(lane, ending, output_tokens=899, budget=1000) == "context_window"
