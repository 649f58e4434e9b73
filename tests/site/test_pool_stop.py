"""A stop during a site build waits for the render workers before the stage is removed.

Found: Ctrl-C during `reports build` left a half-built `.site.build-XXXX` beside --out: a
worker still rendering when the build removed its stage made the folder again.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from driftproof.site.receipt_jobs import POOL_FROM, job_pool


def test_a_stop_during_the_wait_still_leaves_no_worker_running(monkeypatch) -> None:
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: the jobs run in the build's own process")
    calls: list[dict[str, object]] = []
    real = ProcessPoolExecutor.shutdown

    def shutdown(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs)
        if len(calls) == 1:  # a second Ctrl-C arrives as the build waits for its workers
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "shutdown", shutdown)
    with pytest.raises(KeyboardInterrupt), job_pool(POOL_FROM) as submit:
        done = submit(abs, -3)
        raise KeyboardInterrupt  # the first Ctrl-C, in the build
    assert len(calls) == 2 and done.done()  # run, or cancelled before it started: none running
