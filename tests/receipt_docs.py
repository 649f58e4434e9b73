"""Receipts as JSON data, for tests that edit a document before sealing or writing it.

Import as ``from receipt_docs import draw_doc``. Each ``*_doc`` takes the arguments of its
builder in :mod:`driftproof.receipt` and returns the built model dumped as a receipt is written
(aliases applied, members left out when unknown), so what it makes is what the model accepts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec

from pydantic import BaseModel

from driftproof.receipt import (
    ReceiptBody,
    build_draw,
    build_judge_sample,
    build_receipt,
    compute_seal,
)

__all__ = ["body_of", "draw_doc", "judge_sample_doc", "receipt_doc", "seal_document"]

_P = ParamSpec("_P")


def _as_doc(builder: Callable[_P, BaseModel]) -> Callable[_P, dict[str, Any]]:
    @functools.wraps(builder)
    def doc(*args: _P.args, **kwargs: _P.kwargs) -> dict[str, Any]:
        model = builder(*args, **kwargs)
        if isinstance(model, ReceiptBody):
            return model.to_json_dict()
        return model.model_dump(mode="json", by_alias=True)

    return doc


judge_sample_doc = _as_doc(build_judge_sample)
draw_doc = _as_doc(build_draw)
receipt_doc = _as_doc(build_receipt)


def seal_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``document`` with a fresh ``seal`` member (D-12)."""
    sealed = {k: v for k, v in document.items() if k != "seal"}
    sealed["seal"] = {"algorithm": "sha256-rfc8785", "sha256": compute_seal(sealed)}
    return sealed


def body_of(document: Mapping[str, Any]) -> ReceiptBody:
    """``document`` (JSON data, its seal left out) read through the model's own validation.

    Raises:
        pydantic.ValidationError: the document does not fit the current model.
    """
    return ReceiptBody.model_validate({k: v for k, v in document.items() if k != "seal"})


def regrade_doc(kind: str, answers: int, calls: int, **more: Any) -> dict[str, Any]:
    """A receipt's ``regrade`` member: ``kind`` (rubric | judge) over ``answers`` answers, all
    graded, none carried, in ``calls`` judge calls; ``more`` adds or replaces members."""
    return {
        "kind": kind,
        "original_seal": "a" * 64,
        "original_runner": {"name": "driftproof", "version": "0.1"},
        "runner_version": "0.2",
        "revised_suite_sha256": None,
        "original_grader": {},
        "answers_read": answers,
        "answers_graded": answers,
        "answers_carried": 0,
        "logical_judge_calls": calls,
        "runner_attempts": calls,
        **more,
    }
