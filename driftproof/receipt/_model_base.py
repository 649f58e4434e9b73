"""The base of every receipt model: strict, frozen, documented field by field.

Every field carries a docstring under it; ``use_attribute_docstrings`` makes it the field's
description, which the receipt specification page shows (one source for the field docs).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

#: 64 lowercase hex digits of a SHA-256 digest (the schema's ``$defs/sha256``).
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
#: An RFC 3339 date-time as the schema's pattern states it.
DateTime = Annotated[
    str,
    StringConstraints(
        max_length=64,
        pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
        r"(Z|[+-][0-9]{2}:[0-9]{2})$",
    ),
]
#: A UTC offset, ``+HH:MM`` or ``-HH:MM`` (v0.15).
UtcOffset = Annotated[str, StringConstraints(pattern=r"^[+-][0-9]{2}:[0-9]{2}$")]
#: A score on the unit scale, 0 to 1 inclusive (D-1).
Unit = Annotated[float, Field(ge=0, le=1)]
#: A count that is at least one (draws per arm, judge samples per draw, SKILL.md tokens).
Positive = Annotated[int, Field(ge=1)]
#: A count that may be zero (tokens, bytes, indices, answers read).
Count = Annotated[int, Field(ge=0)]
#: A spread, a price or a wait, never negative.
NonNegative = Annotated[float, Field(ge=0)]
#: An HTTP status of a failed call, 100 to 999 (v0.15).
HttpStatus = Annotated[int, Field(ge=100, le=999)]


def _v015(**constraints: Any) -> Any:
    """Added in 0.15 or later: absent when unknown (D-13), so an omitting receipt keeps its seal."""
    return Field(default=None, exclude_if=lambda v: v is None, **constraints)


class _Model(BaseModel):
    """Strict like the frozen schema: no member it does not name, and no coercion.

    A ``"1"`` is not an integer, a ``"no"`` not a boolean; the parity test holds the model and
    the schema together.
    """

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        populate_by_name=True,
        strict=True,
        use_attribute_docstrings=True,
    )
