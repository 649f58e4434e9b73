"""A batch's results read against its counts, the counts as the providers' SDK types define them.

Anthropic's ``MessageBatchRequestCounts``: ``processing``, ``succeeded``, ``errored``,
``canceled``, ``expired``; its results file has one line per request, whatever its result type.
OpenAI's ``BatchRequestCounts``: ``total``, ``completed``, ``failed``; ``output_file_id`` holds
"the outputs of successfully executed requests", ``error_file_id`` "the outputs of requests with
errors". Lines short of a count the batch could have sent are a broken read; ``total`` is no kind
of line, and a count above the requests sent is no count.
"""

from __future__ import annotations

from collections import Counter

import pytest

from driftproof.run.batch import BatchStatus
from driftproof.run.batch_io import describe, shortfall

OPENAI_PARTS = {"output file": "completed"}


def _anthropic(**counts: int) -> BatchStatus:
    return BatchStatus("msgbatch_1", "ended", True, {"processing": 0, **counts})


@pytest.mark.parametrize("kind", ["succeeded", "errored", "canceled", "expired"])
def test_each_anthropic_result_type_is_a_line_of_the_results(kind):
    st = _anthropic(**{kind: 2})
    assert shortfall(st, Counter({"results": 2}), {}, 2) == ""
    assert shortfall(st, Counter({"results": 1}), {}, 2) == (
        "its results hold 1 line, where the batch counts 2 results"
    )


def test_all_four_anthropic_counts_add_up_to_the_lines_wanted():
    st = _anthropic(succeeded=2, errored=1, canceled=1, expired=1)
    assert shortfall(st, Counter({"results": 5}), {}, 5) == ""
    assert shortfall(st, Counter({"results": 4}), {}, 5) == (
        "its results hold 4 lines, where the batch counts 5 results"
    )


def test_openai_error_file_lines_count_toward_the_results_and_total_does_not():
    st = BatchStatus("batch_1", "completed", True, {"total": 3, "completed": 2, "failed": 1})
    whole = Counter({"output file": 2, "error file": 1})
    assert shortfall(st, whole, OPENAI_PARTS, 3) == ""
    # the error file read short: 2 lines where completed + failed is 3
    assert shortfall(st, Counter({"output file": 2}), OPENAI_PARTS, 3) == (
        "its results hold 2 lines, where the batch counts 3 results"
    )


def test_openai_output_file_short_of_completed_is_named_by_its_part():
    st = BatchStatus("batch_1", "completed", True, {"total": 3, "completed": 2, "failed": 1})
    held = Counter({"output file": 1, "error file": 2})  # as many lines, in the wrong part
    assert shortfall(st, held, OPENAI_PARTS, 3) == (
        "its output file holds 1 line, where the batch counts 2 completed"
    )


def test_a_count_equal_to_the_requests_sent_is_a_count_and_one_above_is_not():
    st = BatchStatus("batch_1", "completed", True, {"total": 4, "completed": 4, "failed": 0})
    assert shortfall(st, Counter(), OPENAI_PARTS, 4) == (
        "its results came back empty, where the batch counts 4 results"
    )
    assert shortfall(st, Counter(), OPENAI_PARTS, 3) == ""


def test_a_batch_that_failed_has_no_lines_to_count():
    st = BatchStatus("batch_1", "failed", True, {"total": 2, "completed": 2}, failed="bad file")
    assert shortfall(st, Counter(), OPENAI_PARTS, 2) == ""


def test_a_count_the_batch_does_not_give_is_no_count_to_fall_short_of():
    st = BatchStatus("batch_1", "completed", True, {"total": 2})  # completed, failed not given
    assert shortfall(st, Counter(), OPENAI_PARTS, 2) == ""


def test_the_progress_line_names_each_batch_its_state_and_counts_printable_only():
    statuses = [
        BatchStatus("msgbatch_\x1b[2J", "in_progress", False, {"processing": 3, "succeeded": 1}),
        BatchStatus("batch_2", "validating", False),
    ]
    assert describe(statuses) == (
        "msgbatch_?[2J in_progress: processing 3, succeeded 1; batch_2 validating"
    )
