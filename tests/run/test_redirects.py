"""A base URL that redirects its calls elsewhere: the run follows no redirect. Each draw is lost
with the redirect's status and where it points, and nothing is sent there; the receipt names the
one service that answered. Before, the SDKs followed it: answers and grades came from another
server than the base URL the receipt records as the service, and were graded as its."""

from __future__ import annotations

import pytest
from run_helpers import Loopback
from shape_replies import _draws, _mini


@pytest.fixture
def elsewhere():
    srv = Loopback()
    yield srv
    srv.close()


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_never_followed_and_loses_the_draw_naming_where_it_points(
    loopback, elsewhere, suite_file, tmp_path, status
):
    target = f"{elsewhere.url}/v1/messages"
    loopback.script.shape = lambda path, req, is_judge, text: (
        None if is_judge else (status, {"moved": True}, {"location": target})
    )
    r, _ = _mini(tmp_path, suite_file)
    assert sum(elsewhere.script.requests.values()) == 0
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.status, len(d.attempts)) == (None, "error", status, 1)
        assert d.lost.reason == (
            f'HTTP {status}: {{"moved": true}}; the server redirects to {target}, and a run '
            "follows no redirect: check the base URL; not retryable, 1 attempt"
        )
