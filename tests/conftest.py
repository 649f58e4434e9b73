"""Root fixtures. Builders live in ``factories.py`` (import them from there)."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import JUDGE, SHARED, arm, case, make_receipt  # noqa: F401  (re-exported for older imports)
from hypothesis import HealthCheck, settings

# No property test is timed: on a loaded 2-core machine one example can take a second.
settings.register_profile("untimed", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("untimed")


@pytest.fixture
def shared() -> Path:
    """The ../shared folder (read-only reference material)."""
    if not SHARED.exists():
        pytest.skip("../shared is not laid beside this checkout")
    return SHARED
