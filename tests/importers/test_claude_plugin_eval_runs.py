"""claude plugin eval runs whose score their graders cannot confirm, and runs that contradict
themselves, on the real two-arm document changed one member at a time.

Read by hand from ``data/interop/claude-plugin-eval/aggregate-result.two-arm.json``: one case;
its with run scores 1 (``passed`` true, ``costUsd`` 0.045988999999999995, ``judgeCostUsd`` 0)
with the scored grader ``criteria`` (weight 1, passed) and the unscored ``skill-fired``
(``Skill called 1x``); its without run scores 0 with ``criteria`` failed. A run's score is the
weighted share of its scored graders that passed; where that share is undefined the run is not
measured (a lost draw), never given the score it claims.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import write_json

from driftproof.errors import ImportError_
from driftproof.importers import get_importer
from driftproof.importers.claude_plugin_eval import ClaudePluginEvalOptions

DOC = "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"
Change = Callable[[dict[str, Any]], Any]


def _with(doc: dict[str, Any]) -> dict[str, Any]:
    run: dict[str, Any] = doc["cases"][0]["arms"]["with"][0]
    return run


def _zero_weights(doc: dict[str, Any]) -> None:
    case = doc["cases"][0]
    for g in [
        *case["graders"],
        *(g for a in ("with", "without") for g in case["arms"][a][0]["graders"]),
    ]:
        g["weight"] = 0


def _import(shared: Path, tmp_path: Path, change: Change) -> tuple[Path, Callable[[], Any]]:
    doc = json.loads((shared / DOC).read_text("utf-8"))
    change(doc)
    path = write_json(tmp_path / "aggregate-result.json", doc)
    return path, lambda: get_importer("claude-plugin-eval")(path, ClaudePluginEvalOptions())


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (_zero_weights, "the weights of its scored graders add up to 0"),
        (lambda d: _with(d)["graders"][0].update(weight=None), "records no weight of 0 or more"),
        (lambda d: _with(d)["graders"][0].update(score=1), "records a score of its own"),
        (lambda d: _with(d).update(graders=[]), "it records no grader results"),
    ],
)
def test_a_score_its_graders_cannot_confirm_is_a_lost_draw(
    shared: Path, tmp_path: Path, change: Change, why: str
) -> None:
    _, run = _import(shared, tmp_path, change)
    (got,) = run()
    draw = got.body.cases[0].arms.with_skill.draws[0]
    assert draw.score is None and draw.lost is not None and draw.lost.kind == "unscored"
    assert draw.lost.reason.startswith("the source's score 1 could not be checked: ")
    assert why in draw.lost.reason


def test_a_grader_defined_without_a_weight_leaves_the_scores_standing(
    shared: Path, tmp_path: Path
) -> None:
    _, run = _import(shared, tmp_path, lambda d: d["cases"][0]["graders"][0].update(weight=None))
    (got,) = run()
    arms = got.body.cases[0].arms
    assert (arms.with_skill.draws[0].score, arms.baseline.draws[0].score) == (1.0, 0.0)


def test_a_skill_grader_with_a_minimum_reads_its_explained_count(
    shared: Path, tmp_path: Path
) -> None:
    # config min 2: passed no longer says whether the skill fired; "Skill called 1x" says it did
    def least_two(doc: dict[str, Any]) -> None:
        doc["cases"][0]["graders"][1]["config"]["min"] = 2

    _, run = _import(shared, tmp_path, least_two)
    (got,) = run()
    assert got.body.cases[0].arms.with_skill.draws[0].skill_fired is True


@pytest.mark.parametrize(
    ("change", "pointer", "words"),
    [
        (lambda d: d.update(cases=[]), "/cases", "expected at least one case"),
        (
            lambda d: d["cases"][0]["arms"].update(without=[]),
            "/cases/0/arms/without",
            "expected at least one run",
        ),
        (
            lambda d: _with(d).update(passed=False),
            "/cases/0/arms/with/0/passed",
            "expected true, as the run's score is 1",
        ),
        (
            lambda d: _with(d).update(judgeCostUsd=1.0),
            "/cases/0/arms/with/0/judgeCostUsd",
            "expected at most the run's costUsd (0.045988999999999995)",
        ),
    ],
)
def test_a_document_that_contradicts_itself_is_refused(
    shared: Path, tmp_path: Path, change: Change, pointer: str, words: str
) -> None:
    path, run = _import(shared, tmp_path, change)
    with pytest.raises(ImportError_) as e:
        run()
    p = e.value.problems[0]
    assert (p.file, p.pointer) == (str(path), pointer) and p.message.startswith(words)


def test_a_blank_run_error_stores_no_words_as_the_sources(shared: Path, tmp_path: Path) -> None:
    _, run = _import(shared, tmp_path, lambda d: _with(d).update(error="  "))
    (got,) = run()
    draw = got.body.cases[0].arms.with_skill.draws[0]
    assert draw.lost is not None and draw.lost.kind == "source_error"
    assert draw.source_error is None  # the source gave no words; the lost reason says so
    assert draw.lost.reason == "source error: the source recorded an empty error"
