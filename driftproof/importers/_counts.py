"""Counts, figures and texts a source recorded, checked against what a receipt can hold.

A receipt is sealed as RFC 8785 JSON, which holds an integer exactly only up to
:data:`~driftproof.receipt._bounds.JSON_SAFE_INTEGER` (2**53 - 1) in magnitude. A larger one a
source gives is refused where the source gives it (file and JSON pointer), never dropped and
never passed on to fail later at a place of the receipt.
"""

from __future__ import annotations

from typing import Any, Protocol, Self, TypeGuard, TypeVar

from driftproof.errors import ImportError_
from driftproof.receipt._bounds import JSON_SAFE_INTEGER, quote
from driftproof.wording import is_blank


class Where(Protocol):
    """A place in a source file (:class:`driftproof.importers._common.Where`)."""

    def __truediv__(self, key: Any) -> Self: ...

    def fail(self, message: str) -> ImportError_: ...


_S = TypeVar("_S", bound=str | None)
_T = TypeVar("_T")
#: The words a count past :data:`JSON_SAFE_INTEGER` is refused with.
COUNT_TOO_BIG = f"expected a count of at most {JSON_SAFE_INTEGER:,}"


def is_count(value: Any) -> TypeGuard[int]:
    """Whether ``value`` is a count a source recorded: an integer >= 0 (``true`` is no count)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def count_at(value: Any, where: Where) -> TypeGuard[int]:
    """Whether ``value`` is a count (:func:`is_count`) a receipt can hold.

    Raises:
        ImportError_: a count past :data:`JSON_SAFE_INTEGER`, naming ``where``.
    """
    if not is_count(value):
        return False
    if value > JSON_SAFE_INTEGER:
        raise where.fail(f"{COUNT_TOO_BIG}, found an integer of {len(str(value))} digits")
    return True


def source_tokens(
    usage: Any, input_key: str, output_key: str, where: Where
) -> dict[str, Any] | None:
    """The draw tokens a source counted: ``usage``'s two counts, else ``None`` (D-13).

    ``where`` is the place of ``usage``; each count is read by :func:`count_at`; a count
    absent or null is unknown.

    Raises:
        ImportError_: a count that is no whole number of 0 or more (true, -3, 2.5, "12") or
            past :data:`JSON_SAFE_INTEGER`, at ``where`` / its key.
    """
    if not isinstance(usage, dict):
        return None
    ins, outs = usage.get(input_key), usage.get(output_key)
    for key, value in ((input_key, ins), (output_key, outs)):
        if value is not None and not is_count(value):
            raise (where / key).fail(f"expected a token count of 0 or more, found {quote(value)}")
    counted = count_at(ins, where / input_key)
    if count_at(outs, where / output_key) and counted:
        return {"input": ins, "output": outs, "counted_by": "source"}
    return None


def within(text: _S, where: Where, most: int = 200) -> _S:
    """``text`` (``None`` passes) when it has at most ``most`` characters: what a receipt holds.

    Raises:
        ImportError_: a longer text, at ``where``.
    """
    if text is not None and len(text) > most:
        raise where.fail(f"expected at most {most} characters, found {len(text):,}")
    return text


def exact_integer(value: int, where: Where) -> None:
    """Refuse an integer (a figure a source gives) whose magnitude a receipt cannot hold exactly.

    Raises:
        ImportError_: ``|value|`` past :data:`JSON_SAFE_INTEGER`, naming ``where``.
    """
    if abs(value) > JSON_SAFE_INTEGER:
        raise where.fail(
            f"expected a number a receipt holds exactly: an integer of at most "
            f"{JSON_SAFE_INTEGER:,} in size, found one of {len(str(abs(value)))} digits"
        )


def sealable(value: Any, where: Where) -> None:
    """Refuse an integer anywhere in ``value`` (a figure kept as printed) a receipt cannot hold.

    Raises:
        ImportError_: the first integer (depth first, in document order) whose magnitude is
            past :data:`JSON_SAFE_INTEGER`, at its own place under ``where``.
    """
    stack: list[tuple[Any, Where]] = [(value, where)]
    while stack:
        node, here = stack.pop()
        if isinstance(node, dict):
            stack.extend(reversed([(v, here / k) for k, v in node.items()]))
        elif isinstance(node, list):
            stack.extend(reversed([(v, here / i) for i, v in enumerate(node)]))
        elif isinstance(node, int) and not isinstance(node, bool):
            exact_integer(node, here)


def add_tokens(
    totals: dict[str, int], used: dict[str, Any], keys: tuple[str, str], where: Where
) -> None:
    """Add ``used``'s input and output counts to ``totals``' ``input_tokens`` / ``output_tokens``.

    ``keys`` are the source's names of the two counts under ``where``.

    Raises:
        ImportError_: a sum past :data:`JSON_SAFE_INTEGER`, at the count that took it there.
    """
    for side, key in zip(("input", "output"), keys, strict=True):
        totals[f"{side}_tokens"] += used[side]
        if (total := totals[f"{side}_tokens"]) > JSON_SAFE_INTEGER:
            raise (where / key).fail(
                f"{COUNT_TOO_BIG} summed over the file up to here, found {total:,}"
            )


def is_name(value: Any) -> TypeGuard[str]:
    """Whether ``value`` names something: a string that is not blank (:func:`is_blank`)."""
    return isinstance(value, str) and not is_blank(value)


def unblank(value: _T, where: Where, what: str) -> _T:
    """``value`` unless it is a blank text (:func:`is_blank`: ``""``, ``"   "``), naming nothing.

    Raises:
        ImportError_: a blank text at ``where``, saying it expected ``what``.
    """
    if isinstance(value, str) and is_blank(value):
        raise where.fail(f"expected {what}, found the blank text {quote(value)}")
    return value


def stated(text: Any, where: Where, most: int = 200) -> str | None:
    """``text`` when a string that is not blank (checked by :func:`within`), else ``None``.

    A blank text (``""``, ``"   "``) names nothing: the caller records its field as unknown
    (D-13), never as the value.
    """
    return within(text, where, most) if is_name(text) else None


def named(text: str, where: Where, what: str, most: int | None = 200) -> str:
    """``text``, a name the receipt needs, when it is not blank (:func:`is_name`).

    It is held to ``most`` characters by :func:`within` (``None``: not held, as a case name
    that becomes an id by :func:`~driftproof.importers._common.case_id_for`).

    Raises:
        ImportError_: a blank ``text`` at ``where``, saying it expected ``what``; or a longer
            one (:func:`within`).
    """
    if not is_name(text):
        raise where.fail(f"expected {what}, found the blank text {quote(text)}")
    return text if most is None else within(text, where, most)
