"""A reply whose HTTP status is a success other than 200 OK is never graded: 206 Partial Content
sends part of a resource, 202 Accepted a request not yet acted on, and 203 a body a proxy
changed (RFC 9110, 15.3). Only 200 says the body is the answer the API documents; a batch's
result line is read only at 200 likewise. Before, the SDKs took any 2xx and the answer was
graded."""

from __future__ import annotations

import pytest
from run_helpers import _ok
from shape_replies import _draws, _message, _mini


@pytest.mark.parametrize("status", [202, 203, 206])
def test_a_success_other_than_200_loses_the_draw_naming_its_status(
    loopback, suite_file, tmp_path, status
):
    loopback.script.shape = lambda path, req, is_judge, text: (
        None if is_judge else (status, _message(text), {})
    )
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.status, len(d.attempts)) == (None, "error", status, 1)
        assert d.lost.reason == (
            f"HTTP {status}: a status other than 200 OK is not read as an answer;"
            " not retryable, 1 attempt"
        )


def test_a_grade_sent_with_206_is_an_invalid_sample(loopback, suite_file, tmp_path):
    loopback.script.shape = lambda path, req, is_judge, text: (
        (206, _ok(path, req["model"], text, req), {}) if is_judge else None
    )
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="chat")
    for d in _draws(r):
        assert (d.score, d.lost.kind) == (None, "unscored")
        assert d.judge_samples[0].invalid_reason == (
            "judge call failed: HTTP 206: a status other than 200 OK is not read as an answer;"
            " not retryable, 1 attempt"
        )
