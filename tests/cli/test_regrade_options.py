"""``regrade``'s judge options are read as ``run`` reads them.

``--judge-base-url``: one the SDKs' HTTP client cannot parse is a usage error naming the option,
never a traceback, and a ``file:`` URL is not taken. Found: ``regrade --judge-base-url
'http://[::1'`` ended in ``httpx2.InvalidURL: Invalid port``; ``file:///etc/passwd`` went on to
read the receipt. ``--judge-timeout``: a finite number of seconds.
"""

from __future__ import annotations

import pytest
from factories import run_main


def _regrade(tmp_path, capsys, *options: str) -> tuple[int, str]:
    """``regrade`` of a stand-in receipt and suite with ``options``: exit status and stderr."""
    receipt, suite = tmp_path / "r.json", tmp_path / "suite.json"
    receipt.write_text("{}")
    suite.write_text("{}")
    argv = ["regrade", str(receipt), "--rubric", str(suite), "--out", str(tmp_path / "o.json")]
    code, _, err = run_main([*argv, *options], capsys)
    return code, err


@pytest.mark.parametrize(
    "url", ["http://[::1", "http://999.1.1.1/v1", "file:///etc/passwd", "http://h:0/v1"]
)
def test_a_judge_base_url_run_would_refuse_is_a_usage_error(tmp_path, capsys, url):
    code, err = _regrade(tmp_path, capsys, "--judge-base-url", url)
    assert code == 2
    assert err.splitlines()[-1] == (
        "error: Invalid value for --judge-base-url: expected an http or https URL such as "
        f"http://localhost:8000/v1, found {url!r}"
    )
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("seconds", ["nan", "inf", "1e400"])
def test_a_judge_timeout_that_is_no_finite_number_is_a_usage_error(tmp_path, capsys, seconds):
    # nan was taken: every judge call "timed out after nan s" and each graded answer was lost
    code, err = _regrade(tmp_path, capsys, "--judge-timeout", seconds)
    assert code == 2
    assert err.splitlines()[-1] == (
        f"error: Invalid value for '--judge-timeout': {seconds!r} is not a finite number."
    )
