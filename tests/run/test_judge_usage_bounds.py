"""Judge replies reporting usage too large to sum (each count a receipt can hold, their sum not:
2**53 or more) are counted as draws missing usage, the largest first, so that the receipt seals;
a regrade sums the same way. Before, the sum was sealed as it came: the receipt was refused at
/economics/judge_overhead after every call was made, and every resume met the same refusal."""

from __future__ import annotations

import json

from run_helpers import SUITE, run_lane

from driftproof.receipt import read_receipt
from driftproof.receipt._bounds import JSON_SAFE_INTEGER
from driftproof.run.grading import Usage
from driftproof.run.providers.base import Reply
from driftproof.run.sealing import judge_overhead

BIG = JSON_SAFE_INTEGER  # 2**53 - 1: one count a receipt holds; two of them summed it cannot


def _usage(n: int, reported: bool = True) -> dict:
    return {"reported": reported, "input": n, "output": n, "cache_read": 0}


def test_usage_too_large_to_sum_is_counted_as_missing_the_largest_first():
    usages = (_usage(BIG), _usage(100), _usage(BIG - 100), _usage(0, False))
    oh = judge_overhead([{"judge_usage": u} for u in usages], (1.0, 5.0))
    # 100 and BIG - 100 sum to BIG, the most a receipt holds; BIG more does not fit: that draw
    # is missing usage, as the unreported one is
    assert (oh["judged_draws_counted"], oh["judged_draws_missing_usage"]) == (2, 2)
    assert (oh["input_tokens"], oh["output_tokens"]) == (BIG, BIG)


def test_a_judge_reporting_usage_too_large_to_sum_still_seals_the_receipt(
    loopback, suite_file, tmp_path
):
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))

    def shape(path, req, is_judge, text):
        if not is_judge:
            return None
        grade = {"type": "tool_use", "id": "t", "name": "record_grade", "input": json.loads(text)}
        reply = {"type": "message", "role": "assistant", "model": req["model"], "content": [grade]}
        usage = {"input_tokens": BIG, "output_tokens": BIG}
        return 200, reply | {"stop_reason": "tool_use", "usage": usage}, {}

    loopback.script.shape = shape
    r = read_receipt(run_lane(tmp_path, "anthropic", "api"))
    oh = r.economics.judge_overhead
    # 6 draws, each 5 samples of BIG: no draw's usage can be summed, each is missing usage
    assert (oh.judged_draws_counted, oh.judged_draws_missing_usage) == (0, 6)
    assert (oh.input_tokens, oh.output_tokens) == (0, 0)


def test_a_judge_reply_reporting_only_one_count_is_summed_and_marked_reported():
    # a reply that reports output tokens alone (no input count) is still reported usage: summed
    # as 0 input and its output, not dropped as unreported
    usage = Usage()
    usage.add(Reply("{}", output_tokens=7))
    usage.add(Reply("{}", input_tokens=11))
    assert (usage.doc["reported"], usage.doc["input"], usage.doc["output"]) == (True, 11, 7)
    none = Usage()
    none.add(Reply("{}", input_tokens=0))  # a reported 0 input is unrecorded: nothing reported
    assert none.doc["reported"] is False
