"""The method page's glossary: one word per thing, and the schema's word beside it (issue 18,
item 3). Every term the brief names has a row, and "case" and "passing", which the site uses;
"draw" says that the schema calls it a generation; every schema path the glossary names is a
field of the receipt model."""

from __future__ import annotations

import re
import types
import typing
from pathlib import Path

from pydantic import BaseModel

from driftproof.receipt import Receipt

METHOD = Path(__file__).resolve().parents[2] / "site_src" / "method.md"
TERMS = {
    "arm",
    "draw",
    "judge sample",
    "lost draw",
    "band",
    "effect floor",
    "threshold",
    "lift",
    "receipt",
    "seal",
    "verification level",
    "preset",
    "capture mode",
    "harness",
    "carrier",
    "case",
    "passing",
    "skill fired",
}


def _rows() -> dict[str, list[str]]:
    text = METHOD.read_text(encoding="utf-8")
    section = text.split("## Glossary", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.fullmatch(r"\*\*(.+)\*\*", cells[0]) if len(cells) == 3 else None
        if m:
            rows[m.group(1)] = cells
    return rows


def _model_of(annotation: object) -> type[BaseModel] | None:
    """The pydantic model inside ``X | None``, ``list[X]`` or ``X``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType, list):
        for arg in typing.get_args(annotation):
            found = _model_of(arg)
            if found is not None:
                return found
    return None


def _is_field(path: str) -> bool:
    """``path`` names a field of the receipt model; ``draws[]…`` is read inside an arm."""
    if path.startswith("draws[]"):
        path = "cases[].arms.<arm>." + path
    model: type[BaseModel] | None = Receipt
    for part in path.replace("[]", "").replace("<arm>", "with_skill").split("."):
        if model is None or part not in model.model_fields:
            return False
        model = _model_of(model.model_fields[part].annotation)
    return True


def test_every_term_has_one_row() -> None:
    assert set(_rows()) == TERMS


def test_a_draw_is_what_the_schema_calls_a_generation() -> None:
    draw = _rows()["draw"]
    assert "generation" in draw[1] and draw[2].startswith("a *generation*")
    assert "`run.generations_per_arm`" in draw[2]


def test_a_case_is_what_the_method_calls_a_task() -> None:
    # the method's text says "task" where the product says "case"; the glossary must join them
    assert "the method calls it a *task*" in _rows()["case"][1]


def test_every_schema_path_named_is_a_receipt_field() -> None:
    paths = [
        p
        for cells in _rows().values()
        for p in re.findall(r"`([a-z0-9_\[\]<>.]+)`", cells[2])
        if "." in p or p in Receipt.model_fields
    ]
    assert {"run.capture", "seal.sha256", "draws[].lost.reason"} <= set(paths)
    assert [p for p in paths if not _is_field(p)] == []


def test_the_threshold_row_gives_the_outcomes_as_the_method_reads_them() -> None:
    # method: "the case outcome still comes from the mean and spread of its scores against the
    # threshold … so a mean exactly at the threshold reads borderline"
    row = _rows()["threshold"]
    for words in (
        "*pass* when its whole band (mean − spread) lies above it",
        "*fail* when its whole band (mean + spread) lies below it",
        "*borderline* when the band reaches or straddles it",
        "a mean exactly at the threshold is borderline",
    ):
        assert words in row[1]
    assert row[2] == "`cases[].threshold`"


def test_the_path_check_refuses_a_wrong_path() -> None:
    assert not _is_field("run.generations")
    assert not _is_field("cases[].arms.with_skill.drawz[]")
