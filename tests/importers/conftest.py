"""Fixtures shared by the importer tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from openai_evals_items import FIXTURE


@pytest.fixture
def items(shared: Path) -> Path:
    """promptfoo's real fixture of OpenAI Evals output items (JSONL)."""
    return shared / FIXTURE
