"""Fixtures for importer tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from caveman_snapshot import small_snapshot, write_snapshot


@pytest.fixture
def snapshot_files(tmp_path: Path) -> tuple[Path, Path]:
    """results.json and skills/ of :func:`small_snapshot`, written in tmp_path."""
    return write_snapshot(tmp_path, small_snapshot())
