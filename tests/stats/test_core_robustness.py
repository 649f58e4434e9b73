"""No receipt the model accepts crashes the reading, the comparison, the plan or the printers."""

from __future__ import annotations

import json

from factories import case, make_receipt
from hypothesis import given, settings
from hypothesis import strategies as st
from stats_helpers import model

from driftproof.errors import RefusalError
from driftproof.pages.comparison import compare_receipts, exit_status
from driftproof.pages.plan import plan_receipt
from driftproof.render.comparison import comparison_json as to_json
from driftproof.render.comparison import comparison_markdown as to_markdown
from driftproof.render.comparison import comparison_text as to_text
from driftproof.stats import receipt_reading, suite_lift
from driftproof.stats.codes import Status

score = st.one_of(st.none(), st.integers(0, 100).map(lambda i: i / 100))
arm_scores = st.lists(score, min_size=0, max_size=5)
cases = st.lists(st.tuples(arm_scores, arm_scores), min_size=0, max_size=4)
level = st.sampled_from(["UNVERIFIED", "DECLARED", "TESTED"])


def _receipt(cs, lvl, source):
    return model(
        make_receipt(
            [case(f"c{i}", w, b) for i, (w, b) in enumerate(cs)], level=lvl, band_source=source
        )
    )


@settings(max_examples=60, deadline=None)
@given(cases, cases, level, level, st.sampled_from(["generation", "legacy", None]))
def test_no_receipt_crashes_the_core(ca, cb, la, lb, source) -> None:
    a, b = _receipt(ca, la, source), _receipt(cb, lb, "generation")
    reading = receipt_reading(a)
    assert reading.status in tuple(Status)
    suite_lift(a)
    c = compare_receipts(a, b, a_name="a", b_name="b")
    assert exit_status(c) in (0, 1, 5)
    assert bool(c.refusals) == (exit_status(c) == 5)  # no verdict: 5 (2 is for bad input)
    to_text(c)
    to_markdown(c)
    json.loads(to_json(c))
    # plan refuses a receipt with no case of two measured answers in both arms: one answer
    # cannot size a run of draws, whatever its band source says (a legacy band is one answer's
    # judge samples; its draws, where it holds several, are answers)
    answers = [(sum(x is not None for x in w), sum(x is not None for x in bb)) for w, bb in ca]
    refused = not any(min(pair) > 1 for pair in answers)
    try:
        plan_receipt(a)
    except RefusalError:
        assert refused
    else:
        assert not refused
