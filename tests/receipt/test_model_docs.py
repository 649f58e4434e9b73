"""Every receipt model field is documented, and the specification page shows those docstrings."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from driftproof.receipt import Receipt, Run
from driftproof.receipt._spec_page import _nested, model_field_docs

PAGE = Path(__file__).resolve().parents[2] / "site_src" / "receipt-spec.md"


def _models(model: type[BaseModel], seen: dict[str, type[BaseModel]]) -> dict[str, type[BaseModel]]:
    seen[model.__name__] = model
    for info in model.model_fields.values():
        inner, _ = _nested(info.annotation)
        if inner is not None and inner.__name__ not in seen:
            _models(inner, seen)
    return seen


def test_every_field_of_every_receipt_model_has_a_docstring() -> None:
    models = _models(Receipt, {})
    assert {"Draw", "JudgeSample", "Run", "ArmSpec", "Regrade", "Seal"} <= set(models)
    missing = [
        f"{cls.__name__}.{name}"
        for cls in models.values()
        for name, info in cls.model_fields.items()
        if not (info.description or "").strip()
    ]
    assert missing == []


def test_the_docstring_sits_under_its_own_field() -> None:
    # issue 18: endpoint_attempts' docstring once sat under transcripts
    fields = Run.model_fields
    assert "requests" in str(fields["endpoint_attempts"].description).lower()
    assert "transcripts" in str(fields["transcripts"].description).lower()


def test_the_page_shows_the_model_docstrings() -> None:
    page = PAGE.read_text(encoding="utf-8")
    docs = model_field_docs()
    assert len(docs) > 150
    for path, doc in docs.items():
        if path.startswith("regrade.original_runner."):
            continue  # the page words the second use of Runner on its own
        row = next(line for line in page.splitlines() if line.startswith(f"| `{path}` |"))
        assert row.endswith(f"| {doc} |"), path
