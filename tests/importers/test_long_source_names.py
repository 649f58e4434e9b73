"""A name or version longer than the receipt holds is refused at the source's own pointer.

Probe (round 13): a 201-character model, plugin name or tool version was refused as "cannot be
converted: the value it gives at /run/model of the receipt is not valid there", naming a place
of the receipt, not of the file the user gave. The receipt schema holds run.model, skill.name,
judge.model and provenance.tool_version to 200 characters, run.harness.version to 100.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import test_dotnet_skills as dotnet
import test_skill_eval_harness as harness
from factories import run_main

CPE = "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"
PF = "data/interop/promptfoo/sample-export.json"
INSPECT = "data/interop/inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"
SV = "data/interop/dotnet-skills/skill-validator-results/run-2026-02-20T20-44-00-817Z/results.json"
SC = "data/interop/skill-creator"
ASE = f"{SC}/anthropic-schemas-examples/benchmark.json"
NEBIUS = f"{SC}/nebius-skills-workspace/evals/iteration-1/benchmark.json"
NV = "data/interop/nvidia/benchmarks.json"
CARD = "data/interop/nvidia/skillevaluator/golden-e70f0e3/benchmark_pass/BENCHMARK.md"
PF_ARGS = ["--arm", "with_skill=openai:gpt-5", "--arm", "baseline=openai:gpt-5-mini"]


def _real(rel: str, change: Callable[[Any], Any] = lambda _: None) -> Callable[[Path], Any]:
    """The real file at ``rel``, after ``change`` (which adds the member a case probes)."""

    def read(shared: Path) -> Any:
        doc = json.loads((shared / rel).read_text("utf-8"))
        change(doc)
        return doc

    return read


def _llm_grader(doc: Any) -> None:  # a judge model is read only beside an llm grader
    doc["suite"]["judgeModel"] = "claude-haiku-5"
    doc["cases"][0]["graders"].append({"name": "g", "type": "llm", "weight": 1, "config": {}})


#: The judge models: the receipt's judge.model holds 200 characters, and a longer one was cut to
#: 200 and recorded as the source's (found: each of these wrote a receipt naming another model)
JUDGES = [
    (["claude-plugin-eval"], _real(CPE, _llm_grader), ("suite", "judgeModel"), 200, []),
    (
        ["promptfoo"],
        _real(PF, lambda d: d["config"]["defaultTest"]["options"].update(provider="p")),
        ("config", "defaultTest", "options", "provider"),
        200,
        [*PF_ARGS, "--skill-name", "s"],
    ),
    (
        ["promptfoo"],
        _real(PF, lambda d: d["config"]["defaultTest"]["options"].update(provider={"id": "p"})),
        ("config", "defaultTest", "options", "provider", "id"),
        200,
        [*PF_ARGS, "--skill-name", "s"],
    ),
    (
        ["inspect", "--skill-name", "s", "--with-skill"],
        _real(INSPECT, lambda d: d["eval"].update(model_roles={"grader": {"model": "m"}})),
        ("eval", "model_roles", "grader", "model"),
        200,
        [],
    ),
    (
        ["inspect", "--skill-name", "s", "--with-skill"],
        _real(INSPECT, lambda d: d["eval"].update(model_roles={"grader": "m"})),
        ("eval", "model_roles", "grader"),
        200,
        [],
    ),
    (
        ["inspect", "--skill-name", "s", "--with-skill"],
        _real(INSPECT, lambda d: d["eval"]["scorers"][0]["options"].update(model="m")),
        ("eval", "scorers", 0, "options", "model"),
        200,
        [],
    ),
]


# (argv before the file, the source, its member, the longest the receipt holds, argv after)
CASES = [
    (["claude-plugin-eval"], _real(CPE), ("claudeVersion",), 100, []),
    (["claude-plugin-eval"], _real(CPE), ("suite", "plugins", 0, "name"), 200, []),
    (["claude-plugin-eval"], _real(CPE), ("suite", "modelOverride"), 200, []),
    (
        ["promptfoo"],
        _real(PF),
        ("metadata", "promptfooVersion"),
        200,
        [*PF_ARGS, "--skill-name", "s"],
    ),
    (["inspect", "--skill-name", "s", "--with-skill"], _real(INSPECT), ("eval", "model"), 200, []),
    (
        ["inspect", "--skill-name", "s", "--with-skill"],
        _real(INSPECT),
        ("eval", "packages", "inspect_ai"),
        200,
        [],
    ),
    (["skill-validator"], _real(SV), ("model",), 200, []),
    (["vally"], lambda _: dotnet._vally(), ("model",), 200, []),
    (["vally"], lambda _: dotnet._vally(), ("judgeModel",), 200, []),
    (
        ["inspect", "--skill-name", "s", "--with-skill"],
        _real(INSPECT),
        ("eval", "config", "epochs_reducer", 0),
        200,
        [],
    ),
    (["nvidia"], _real(NV), ("skills", 0, "skill"), 200, []),
    (["skill-creator"], _real(ASE), ("metadata", "skill_name"), 200, []),
    (["skill-creator"], _real(NEBIUS), ("skill_name",), 200, []),
    # found: each cut the skill's name to its first 200 characters, saying nothing
    (["skill-validator"], _real(SV), ("verdicts", 0, "skillName"), 200, []),
    (["skill-eval-harness"], lambda _: harness._report(), ("skill_name",), 200, []),
    # found (round 14): an epoch reducer's name over 200 characters was refused at a place of the
    # receipt, /source_report/figures/0/reducer, not of the log
    (
        ["inspect", "--skill-name", "s", "--with-skill"],
        _real(INSPECT),
        ("reductions", 0, "reducer"),
        200,
        [],
    ),
    (
        ["inspect", "--skill-name", "s", "--with-skill"],
        _real(INSPECT),
        ("results", "scores", 0, "reducer"),
        200,
        [],
    ),
]


@pytest.mark.parametrize(("head", "source", "member", "most", "tail"), CASES + JUDGES)
def test_a_string_one_past_the_receipts_bound_is_refused_at_its_pointer(
    head: list[str],
    source: Callable[[Path], Any],
    member: tuple[Any, ...],
    most: int,
    tail: list[str],
    shared: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = source(shared)
    node = doc
    for key in member[:-1]:
        node = node[key]
    out = tmp_path / "out"
    for size, refused in ((most, False), (most + 1, True)):
        node[member[-1]] = "m" * size
        path = tmp_path / f"src-{size}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        argv = ["import", *head, str(path), *tail, "--out-dir", str(out), "--force"]
        code, _, err = run_main(argv, capsys)
        if not refused:
            assert code == 0, err
            continue
        pointer = "/" + "/".join(map(str, member))
        assert code == 2
        assert (
            err == f"error: {path}: {pointer}: expected at most {most} characters, found {size}\n"
        )


def test_a_long_plugin_name_the_receipt_need_not_name_the_skill_by_is_kept(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # With --skill-name the plugin's name is not the skill's: the receipt keeps it whole among
    # the source's details (no bound there), as it did before a name over 200 was refused
    doc = _real(CPE)(shared)
    doc["suite"]["plugins"][0]["name"] = "p" * 201
    path = tmp_path / "src.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    argv = ["import", "claude-plugin-eval", str(path), "--skill-name", "probe"]
    code, _, err = run_main([*argv, "--out-dir", str(tmp_path / "out")], capsys)
    assert code == 0, err
    (written,) = (tmp_path / "out").glob("*.json")
    receipt = json.loads(written.read_text("utf-8"))
    assert receipt["skill"]["name"] == "probe"
    assert receipt["provenance"]["details"]["plugins"][0]["name"] == "p" * 201


def test_a_skill_name_too_long_in_evals_json_is_refused_there(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # found: a 300-character skill_name was kept as its first 200 characters, saying nothing
    bench = json.loads((shared / NEBIUS).read_text("utf-8"))
    del bench["skill_name"]  # the name is then read from the evals.json beside it
    evals = json.loads((shared / SC / "nebius-skills-workspace/evals/evals.json").read_text())
    evals["skill_name"] = "s" * 300
    (tmp_path / "benchmark.json").write_text(json.dumps(bench), encoding="utf-8")
    (tmp_path / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
    argv = ["import", "skill-creator", str(tmp_path / "benchmark.json"), "--out-dir"]
    code, _, err = run_main([*argv, str(tmp_path / "out")], capsys)
    assert (code, err) == (
        2,
        f"error: {tmp_path / 'evals.json'}: /skill_name: expected at most 200 characters, "
        "found 300\n",
    )


def test_a_card_skill_name_too_long_is_refused_at_its_line(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # found: "- Skill: <300 characters>" named the receipt's skill by its first 200, saying nothing
    lines = (shared / CARD).read_text("utf-8").split("\n")
    assert lines[10] == "- Skill: `demo-skill`"
    lines[10] = "- Skill: `" + "s" * 201 + "`"
    card = tmp_path / "s" / "BENCHMARK.md"
    card.parent.mkdir()
    card.write_text("\n".join(lines), encoding="utf-8")
    code, _, err = run_main(["import", "nvidia", str(card), "--out-dir", str(tmp_path)], capsys)
    assert (code, err) == (
        2,
        f"error: {card}: line 11: expected a skill name of at most 200 characters (the most a "
        f"receipt keeps), found '{'s' * 200}'\n",
    )


def test_more_epoch_reducers_than_a_receipt_holds_are_refused_at_their_list(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # found: 21 reducers were kept as the first 20 (a receipt holds 20), saying nothing
    doc = json.loads((shared / INSPECT).read_text("utf-8"))
    doc["eval"]["config"]["epochs_reducer"] = [f"r{i}" for i in range(21)]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    argv = ["import", "inspect", "--skill-name", "s", "--with-skill", str(path), "--out-dir"]
    code, _, err = run_main([*argv, str(tmp_path / "out")], capsys)
    assert (code, err) == (
        2,
        f"error: {path}: /eval/config/epochs_reducer: expected at most 20 items, found 21\n",
    )


def test_a_card_named_by_a_folder_name_too_long_is_refused_there(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a card with no "- Skill:" line is named by its folder: a folder name of 201 characters
    # (Linux allows 255) named the receipt's skill by its first 200, saying nothing
    lines = (shared / CARD).read_text("utf-8").split("\n")
    del lines[10]  # "- Skill: `demo-skill`"
    card = tmp_path / ("s" * 201) / "BENCHMARK.md"
    card.parent.mkdir()
    card.write_text("\n".join(lines), encoding="utf-8")
    code, _, err = run_main(["import", "nvidia", str(card), "--out-dir", str(tmp_path)], capsys)
    assert (code, err) == (
        2,
        f"error: {card}: expected a '- Skill: <name>' line naming the skill, or a folder name "
        "of at most 200 characters to name it by, found 201\n",
    )
    assert list(tmp_path.glob("*.json")) == []


def test_a_skill_eval_harness_model_too_long_is_refused_at_its_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # found: every run's model of 201 characters was recorded as the model by its first 200
    doc = harness._report()
    for row in doc["results"]:
        row["model"] = "m" * 201
    path = tmp_path / "benchmark.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    argv = ["import", "skill-eval-harness", str(path), "--out-dir", str(tmp_path / "out")]
    assert run_main(argv, capsys)[::2] == (
        2,
        f"error: {path}: /results/0/model: expected at most 200 characters, found 201\n",
    )
