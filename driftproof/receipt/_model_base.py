"""The base of every receipt model: strict, frozen, documented field by field.

Every field carries a docstring under it; ``use_attribute_docstrings`` makes it the field's
description, which the receipt specification page shows (one source for the field docs).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["_Model", "_v015"]


def _v015() -> Any:
    """A member 0.15 added: optional in the schema, so absent when unknown (D-13), and left
    out of the dump when ``None`` so a receipt that omits it round-trips to the same seal."""
    return Field(default=None, exclude_if=lambda v: v is None)


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, use_attribute_docstrings=True
    )
