"""Receipts as JSON data, for tests and benchmarks that edit a document before writing it.

Not part of the receipt's API: writers build the model (:class:`ReceiptBody`) and call
:func:`~driftproof.receipt.write_receipt`. Each twin takes the arguments of its builder and
returns the built model dumped as a receipt is written (aliases applied, members left out when
unknown), so what it makes is what the model accepts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ParamSpec

from pydantic import BaseModel, ValidationError

from driftproof.errors import ReceiptError
from driftproof.receipt._build import build_draw, build_judge_sample, build_receipt
from driftproof.receipt._model import CURRENT_VERSION, Receipt, ReceiptBody, Seal
from driftproof.receipt._seal import SEAL_ALGORITHM, compute_seal, unsealable_values

__all__ = [
    "body_of",
    "draw_doc",
    "judge_sample_doc",
    "receipt_doc",
    "seal_document",
    "seal_receipt",
    "to_doc",
]

_P = ParamSpec("_P")


def to_doc(model: BaseModel) -> dict[str, Any]:
    """A built model as the JSON data a receipt is written with."""
    if isinstance(model, ReceiptBody):
        return model.to_json_dict()
    return model.model_dump(mode="json", by_alias=True)


def _as_doc(builder: Callable[_P, BaseModel]) -> Callable[_P, dict[str, Any]]:
    @functools.wraps(builder)
    def doc(*args: _P.args, **kwargs: _P.kwargs) -> dict[str, Any]:
        return to_doc(builder(*args, **kwargs))

    return doc


judge_sample_doc = _as_doc(build_judge_sample)
draw_doc = _as_doc(build_draw)
receipt_doc = _as_doc(build_receipt)


def seal_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``document`` with a fresh ``seal`` member (D-12)."""
    sealed = {k: v for k, v in document.items() if k != "seal"}
    sealed["seal"] = {"algorithm": SEAL_ALGORITHM, "sha256": compute_seal(sealed)}
    return sealed


def seal_receipt(body: ReceiptBody) -> Receipt:
    """``body`` sealed (D-12), not validated again and not written."""
    seal = Seal(algorithm=SEAL_ALGORITHM, sha256=compute_seal(body.to_json_dict()))
    members = {name: getattr(body, name) for name in ReceiptBody.model_fields}
    return Receipt.model_construct(body.model_fields_set | {"seal"}, **members, seal=seal)


def body_of(document: Mapping[str, Any], path: str | Path) -> ReceiptBody:
    """``document`` (JSON data, its seal ignored) read through the current model.

    Raises:
        ReceiptError: not of the current schema version (D-11), or holding a number no seal can
            cover (D-12), named by its JSON pointer.
        ReceiptError: the document does not fit the current model, named by the first
            misfit's JSON pointer.
    """
    if document.get("schema_version") != CURRENT_VERSION:
        raise ReceiptError.at(
            path,
            "/schema_version",
            f"expected {CURRENT_VERSION!r} (writers write the current schema version only), "
            f"found {document.get('schema_version')!r}",
        )
    for pointer, problem in unsealable_values(document)[:1]:
        raise ReceiptError.at(path, pointer, problem)
    try:
        return ReceiptBody.model_validate({k: v for k, v in document.items() if k != "seal"})
    except ValidationError as exc:
        first = exc.errors()[0]
        pointer = "".join(f"/{part}" for part in first["loc"])
        raise ReceiptError.at(path, pointer, str(first["msg"])) from None
