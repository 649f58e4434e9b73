"""`driftproof import caveman` refuses what caveman's own snapshot contract refuses.

caveman's ``evals/snapshot_contract.py`` requires the metadata members ``generated_at``,
``claude_cli_version``, ``model``, ``n_prompts`` and ``terse_prefix``, the four texts each a
non-empty string, and every prompt a non-empty string. Its ``llm_run.py`` writes only
``metadata``, ``prompts``, ``arms`` and ``usage``; in metadata also ``lang``, ``eval_set`` and, on
a partial run, ``error``; in a usage cell the four token counts and ``total_cost_usd``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from caveman_snapshot import small_snapshot, write_snapshot

from driftproof.errors import ImportError_
from driftproof.importers.caveman import CavemanOptions, import_caveman

_USAGE = {
    "input_tokens": 3,
    "output_tokens": 4,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
    "total_cost_usd": 0.01,
}


def _with_usage(d: dict[str, Any]) -> None:
    d["usage"] = {arm: [dict(_USAGE), dict(_USAGE)] for arm in d["arms"]}


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["metadata"].pop(key)


def _set_meta(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["metadata"].__setitem__(key, value)


def _usage_extra(d: dict[str, Any]) -> None:
    _with_usage(d)
    d["usage"]["caveman"][1]["runs"] = 3


REFUSED: list[tuple[str, Callable[[dict[str, Any]], None], str, str]] = [
    ("metadata runs", _set_meta("runs", 3), "/metadata/runs", 'found "runs"'),
    ("top-level member", lambda d: d.__setitem__("judge", "x"), "/judge", 'found "judge"'),
    ("usage cell member", _usage_extra, "/usage/caveman/1/runs", 'found "runs"'),
    ("no model", _drop("model"), "/metadata/model", "found no member"),
    ("no generated_at", _drop("generated_at"), "/metadata/generated_at", "found no member"),
    ("no terse_prefix", _drop("terse_prefix"), "/metadata/terse_prefix", "found no member"),
    (
        "no claude_cli_version",
        _drop("claude_cli_version"),
        "/metadata/claude_cli_version",
        "found no member",
    ),
    ("empty terse_prefix", _set_meta("terse_prefix", ""), "/metadata/terse_prefix", "empty"),
    ("empty model", _set_meta("model", ""), "/metadata/model", "found an empty string"),
    ("null model", _set_meta("model", None), "/metadata/model", "found null"),
    ("empty prompt", lambda d: d["prompts"].__setitem__(1, ""), "/prompts/1", "non-empty"),
]


@pytest.mark.parametrize(("label", "mutate", "ptr", "words"), REFUSED, ids=[r[0] for r in REFUSED])
def test_what_the_contract_refuses_is_refused_at_its_pointer(
    tmp_path: Path, label: str, mutate: Callable[[dict[str, Any]], None], ptr: str, words: str
) -> None:
    doc = small_snapshot()
    mutate(doc)
    snap, skills = write_snapshot(tmp_path, doc)
    with pytest.raises(ImportError_) as info:
        import_caveman(snap, CavemanOptions(skills_dir=skills))
    (problem,) = info.value.problems
    assert (problem.file, problem.pointer) == (str(snap), ptr)
    assert "expected" in problem.message and words in problem.message


@pytest.mark.parametrize(
    "extra",
    [
        {"lang": "en"},
        {"eval_set": "length"},
        {"lang": "en", "eval_set": "length"},
    ],
)
def test_every_member_the_runner_writes_still_reads(tmp_path: Path, extra: dict[str, Any]) -> None:
    doc = small_snapshot()
    doc["metadata"] |= extra
    _with_usage(doc)
    snap, skills = write_snapshot(tmp_path, doc)
    (item,) = import_caveman(snap, CavemanOptions(skills_dir=skills))
    assert item.body.to_json_dict()["run"]["model"] == "claude-opus-4-6"


def test_a_partial_run_with_its_error_still_reads(tmp_path: Path) -> None:
    doc = small_snapshot()
    doc["metadata"]["error"] = "caveman prompt 1: timed out"
    doc["arms"]["caveman"][1] = None
    snap, skills = write_snapshot(tmp_path, doc)
    (item,) = import_caveman(snap, CavemanOptions(skills_dir=skills))
    lost = item.body.to_json_dict()["cases"][1]["arms"]["with_skill"]["draws"][0]
    assert lost["answer"] is None


def test_the_real_snapshot_has_every_member_the_contract_requires(shared: Path) -> None:
    doc = json.loads((shared / "data/caveman/evals/snapshots/results.json").read_text("utf-8"))
    assert set(doc) == {"metadata", "prompts", "arms"}
    required = {"generated_at", "claude_cli_version", "model", "terse_prefix"}
    assert required | {"n_prompts"} == set(doc["metadata"])
    assert all(isinstance(doc["metadata"][k], str) and doc["metadata"][k] for k in required)
