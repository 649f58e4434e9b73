"""A value the receipt does not record is not refused for being longer than a receipt field.

Found (round 14): the 200-character bound of a receipt's judge or run model, tool version or
epoch reducers was checked on the source's member whether or not the receipt records it, so a
file was refused for a value the receipt leaves out: claude plugin eval's ``judgeModel`` with no
llm grader, an Inspect scorer's model when another is read or a grader role names the model, a
value two Inspect logs disagree on, a blank model or grader. Each is now let through, listed as
not recorded; a value the receipt records is refused at its member as before
(test_long_source_names).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import test_dotnet_skills as dotnet
from factories import run_main

CPE = "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"
PF = "data/interop/promptfoo/sample-export.json"
INSPECT = "data/interop/inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"
PF_ARGS = ["--arm", "with_skill=openai:gpt-5", "--arm", "baseline=openai:gpt-5-mini"]
INSPECT_ARGS = ["inspect", "--skill-name", "s", "--with-skill"]
BLANK = " " * 201


def _imported(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    """The one receipt ``driftproof import ARGV`` writes, as JSON data."""
    out = tmp_path / "out"
    code, _, err = run_main(["import", *argv, "--out-dir", str(out), "--force"], capsys)
    assert code == 0, err
    (written,) = out.glob("*.json")
    return json.loads(written.read_text("utf-8"))


def _file(tmp_path: Path, name: str, doc: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def _real(shared: Path, rel: str) -> Any:
    return json.loads((shared / rel).read_text("utf-8"))


def _llm_grader(doc: Any) -> None:
    doc["cases"][0]["graders"].append({"name": "g", "type": "llm", "weight": 1, "config": {}})


def test_a_judge_model_with_no_llm_grader_is_not_held_to_the_bound(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the document's graders are a regex and a tool_used check: no model judged, so its
    # judgeModel is not recorded (the receipt's judge is the marker of none)
    doc = _real(shared, CPE)
    doc["suite"]["judgeModel"] = "j" * 201
    r = _imported(["claude-plugin-eval", _file(tmp_path, "a.json", doc)], tmp_path, capsys)
    assert r["judge"]["model"] == "unrecorded:claude-plugin-eval/graders"
    no_llm = "judge.model (the graders are regex and tool checks; no model judged)"
    assert r["provenance"]["unrecorded"][0] == no_llm


def _cpe(member: str, llm: bool) -> Callable[[Path], tuple[str, Any]]:
    def made(shared: Path) -> tuple[str, Any]:
        doc = _real(shared, CPE)
        doc["suite"][member] = BLANK
        if llm:
            _llm_grader(doc)
        return "claude-plugin-eval", doc

    return made


def _pf(provider: Any) -> Callable[[Path], tuple[str, Any]]:
    def made(shared: Path) -> tuple[str, Any]:
        doc = _real(shared, PF)
        doc["config"]["defaultTest"]["options"]["provider"] = provider
        return "promptfoo", doc

    return made


def _vally(shared: Path) -> tuple[str, Any]:
    return "vally", {**dotnet._vally(), "judgeModel": BLANK}


# (the source with a blank member of 201 characters, the receipt's place that reads none)
BLANKS = [
    (_cpe("modelOverride", llm=False), ("run", "model"), None),
    (_cpe("judgeModel", llm=True), ("judge", "model"), "unrecorded:claude-plugin-eval/graders"),
    (_pf(BLANK), ("judge", "model"), "unrecorded:promptfoo/grader"),
    (_pf({"id": BLANK}), ("judge", "model"), "unrecorded:promptfoo/grader"),
    (_vally, ("judge", "model"), "unrecorded:vally/judge"),
]


@pytest.mark.parametrize(("source", "place", "reads"), BLANKS)
def test_a_blank_model_not_recorded_is_not_held_to_the_bound(
    source: Callable[[Path], tuple[str, Any]],
    place: tuple[str, str],
    reads: str | None,
    shared: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tool, doc = source(shared)
    tail = [*PF_ARGS, "--skill-name", "s"] if tool == "promptfoo" else []
    r = _imported([tool, _file(tmp_path, "src.json", doc), *tail], tmp_path, capsys)
    assert r[place[0]][place[1]] == reads


def _scorers(ev: Any) -> None:  # a second scorer, not the one read ("match", the only scored)
    ev["scorers"].append({"name": "other", "options": {"model": "m" * 201}})


def _role(ev: Any) -> None:  # the grader role names the model: the scorer's is not read
    ev["model_roles"] = {"grader": "g"}
    ev["scorers"][0]["options"]["model"] = "m" * 201


@pytest.mark.parametrize(
    ("change", "judge"), [(_scorers, "unrecorded:inspect_ai/match"), (_role, "g")]
)
def test_an_inspect_scorer_model_not_read_is_not_held_to_the_bound(
    change: Callable[[Any], None],
    judge: str,
    shared: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = _real(shared, INSPECT)
    change(doc["eval"])
    r = _imported([*INSPECT_ARGS, _file(tmp_path, "log.json", doc)], tmp_path, capsys)
    assert r["judge"]["model"] == judge


# (what the with-skill log alone gives, the receipt's place and what it reads there, the
# not-recorded item that says why)
DISAGREE = [
    (
        ("model",),
        "m" * 201,
        ("run", "model", None),
        "run.model (the logs name no model, or different ones)",
    ),
    (
        ("packages", "inspect_ai"),
        "v" * 201,
        ("provenance", "tool_version", None),
        "provenance.tool_version (eval.packages.inspect_ai absent or different)",
    ),
    (
        ("model_roles", "grader"),
        "g" * 201,
        ("judge", "model", "unrecorded:inspect_ai/scorer"),  # no --scorer given
        "judge.model (the scorer records no grading model)",
    ),
    (
        ("config", "epochs_reducer"),
        ["r" * 201],
        ("source_report", "reducers", None),
        "the epoch reducers (the arms' logs declare different ones)",
    ),
]


@pytest.mark.parametrize(("member", "value", "place", "why"), DISAGREE)
def test_an_inspect_value_the_logs_disagree_on_is_not_held_to_the_bound(
    member: tuple[str, ...],
    value: Any,
    place: tuple[str, str, str | None],
    why: str,
    shared: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc, baseline = _real(shared, INSPECT), _file(tmp_path, "b.json", _real(shared, INSPECT))
    node = doc["eval"]
    for key in member[:-1]:
        node = node[key]
    node[member[-1]] = value
    argv = [*INSPECT_ARGS, _file(tmp_path, "a.json", doc), "--baseline", baseline]
    r = _imported(argv, tmp_path, capsys)
    assert r[place[0]].get(place[1]) == place[2]
    assert why in r["provenance"]["unrecorded"]
