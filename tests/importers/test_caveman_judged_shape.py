"""caveman's judged fidelity snapshot and its rubrics.json refused where their shape is not the
one judge.py writes (``{"metadata": {...}, "fidelity": {arm: {prompt: cell}}}``, each cell
``{risk, fidelity, facts[], verbatim_ok, verbatim_missing[]}``; the rubrics ``{"version": 1,
"rubrics": [{prompt, risk, facts[], verbatim[]}]}``), on PR #579's real files
(../shared/data/caveman/history, SOURCE.md) changed one member at a time: the file, the JSON
pointer and the expectation are named, and nothing is written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from driftproof._json import pointer
from driftproof.cli.import_ import import_group
from driftproof.errors import ImportError_

HISTORY = "data/caveman/history/pr579-902028f/evals"
SKILLS_AT = "data/caveman/at-snapshot-2b10489/skills"
TCP = "What's the difference between TCP and UDP?"  # the snapshot's third prompt


def _tcp(doc: dict[str, Any]) -> dict[str, Any]:
    cell: dict[str, Any] = doc["fidelity"]["caveman"][TCP]
    return cell


def _reordered(doc: dict[str, Any]) -> None:
    # a second arm judging the same prompts in another order
    cells = doc["fidelity"]["caveman"]
    doc["fidelity"]["ultra"] = dict(reversed(list(cells.items())))


def _at(*parts: Any) -> str:
    return pointer(["fidelity", *parts])


SNAP: list[tuple[str, Any, str, str]] = [
    ("metadata", lambda d: d.update(metadata=[]), "/metadata", "expected an object (the snap"),
    (
        "grader",
        lambda d: d["metadata"].update(judge_model="claude haiku"),
        "/metadata/judge_model",
        "expected a model id, optionally followed by a note in brackets",
    ),
    ("no arm", lambda d: d.update(fidelity={}), "/fidelity", "expected an object of arm -> "),
    (
        "controls only",
        lambda d: d.update(fidelity={"__baseline__": d["fidelity"]["caveman"]}),
        "/fidelity",
        "expected at least one skill arm",
    ),
    (
        "arm name",
        lambda d: d["fidelity"].update(Caveman=d["fidelity"]["caveman"]),
        _at("Caveman"),
        "expected a skill arm name of lowercase letters",
    ),
    (
        "no prompts",
        lambda d: d["fidelity"].update(caveman={}),
        _at("caveman"),
        "expected an object of prompt -> judged facts",
    ),
    ("order", _reordered, _at("ultra"), "expected the prompts of /fidelity/caveman, in the same"),
    (
        "cell",
        lambda d: d["fidelity"]["caveman"].update({TCP: 100}),
        _at("caveman", TCP),
        "expected an object, found a number",
    ),
    (
        "verbatim_ok",
        lambda d: _tcp(d).update(verbatim_ok="yes"),
        _at("caveman", TCP, "verbatim_ok"),
        "expected true or false, found a string",
    ),
    (
        "verbatim_missing",
        lambda d: _tcp(d).update(verbatim_missing="UDP"),
        _at("caveman", TCP, "verbatim_missing"),
        "expected a list of tokens",
    ),
]
RUBRICS: list[tuple[str, Any, str, str]] = [
    ("version", lambda r: r.update(version=2), "", "expected caveman's rubrics file"),
    ("rubric", lambda r: r["rubrics"].__setitem__(0, "x"), "/rubrics/0", "expected an object"),
    (
        "prompt twice",
        lambda r: r["rubrics"][1].update(prompt=r["rubrics"][0]["prompt"]),
        "/rubrics/1/prompt",
        "expected a prompt no other rubric has; /rubrics/0 has it too",
    ),
    (
        "facts",
        lambda r: r["rubrics"][0].update(facts="x"),
        "/rubrics/0/facts",
        "expected a list of strings",
    ),
]


@pytest.mark.parametrize(
    ("in_rubrics", "edit", "where", "words"),
    [(False, *x[1:]) for x in SNAP] + [(True, *x[1:]) for x in RUBRICS],
    ids=[x[0] for x in SNAP + RUBRICS],
)
def test_a_shape_judge_py_does_not_write_is_refused(
    shared: Path, tmp_path: Path, in_rubrics: bool, edit: Any, where: str, words: str
) -> None:
    base = shared / HISTORY
    doc = json.loads((base / "snapshots/fidelity.json").read_text("utf-8"))
    rub = json.loads((base / "prompts/rubrics.json").read_text("utf-8"))
    edit(rub if in_rubrics else doc)
    snap, rubrics = tmp_path / "fidelity.json", tmp_path / "rubrics.json"
    snap.write_text(json.dumps(doc), encoding="utf-8")
    rubrics.write_text(json.dumps(rub), encoding="utf-8")
    out = tmp_path / "r"
    args = [str(snap), "--skills", str(shared / SKILLS_AT), "--rubrics", str(rubrics)]
    result = CliRunner().invoke(import_group, ["caveman", *args, "--out", str(out)])
    assert isinstance(result.exception, ImportError_), result.output
    (p,) = result.exception.problems
    assert (p.file, p.pointer) == (str(rubrics if in_rubrics else snap), where)
    assert p.message.startswith(words) and not out.exists()
