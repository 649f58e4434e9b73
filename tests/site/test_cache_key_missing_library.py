"""The render cache's code key is made even where a rendering library's metadata is missing.

mkdocs is a listed rendering library the package never imports, so an install without its
metadata (``pip install --no-deps``, a vendored copy) still renders every page: its site build
must not stop on a traceback, and the missing library must change the key, so an entry made
with it is not served.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator
from pathlib import Path

import pytest

from driftproof.site import receipt_jobs


@pytest.fixture
def fresh_key() -> Iterator[None]:
    receipt_jobs._package_key.cache_clear()
    yield
    receipt_jobs._package_key.cache_clear()


def test_a_library_without_metadata_is_keyed_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_key: None
) -> None:
    with_all = receipt_jobs.code_key(tmp_path)
    receipt_jobs._package_key.cache_clear()
    real = importlib.metadata.version

    def version(name: str) -> str:
        if name == "mkdocs":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    without = receipt_jobs.code_key(tmp_path)
    assert len(without) == 64 and without != with_all
