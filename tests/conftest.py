"""Root fixtures. Builders live in ``factories.py`` (import them from there)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from factories import JUDGE, SHARED, arm, case, make_receipt  # noqa: F401  (re-exported for older imports)
from hypothesis import HealthCheck, settings

# No property test is timed: on a loaded 2-core machine one example can take a second.
settings.register_profile("untimed", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("untimed")

# A job started in the background by a shell without job control (`make test &`, nohup, some
# CI runners) has Ctrl-C ignored, and every child process inherits that: the tests of Ctrl-C
# need Python's own handler, as in a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def shared() -> Path:
    """The ../shared folder (read-only reference material)."""
    if not SHARED.exists():
        pytest.skip("../shared is not laid beside this checkout")
    return SHARED
