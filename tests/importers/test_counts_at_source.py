"""A number a receipt cannot hold is refused where the source file gives it.

A receipt is sealed as RFC 8785 JSON, which holds an integer exactly only up to 2**53 - 1 =
9,007,199,254,740,991. A count past it (tokens a source counted), an integer past it among
figures kept as printed, or more checks in a case than a receipt keeps for one answer (200) is
refused naming the source file, the member's JSON pointer in THAT file and what was expected --
never the place it would have had in the receipt. Each case mutates one member of a real or
hand-built source the other importer tests read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from openai_evals_items import api_item, jsonl

from driftproof.cli import cli
from driftproof.errors import ImportError_

HUGE = 2**63 + 1  # 9,223,372,036,854,775,809: 19 digits
SAFE = 2**53 - 1  # 9,007,199,254,740,991
COUNT = "expected a count of at most 9,007,199,254,740,991"
EXACT = "an integer of at most 9,007,199,254,740,991 in size"
FIX = Path(__file__).resolve().parent / "fixtures" / "caveman"
SKILLS = FIX / "skills"
INTEROP = "data/interop"
PF = f"{INTEROP}/promptfoo/sample-export.json"
PF_ARMS = ["--arm", "with_skill=openai:gpt-5", "--arm", "baseline=openai:gpt-5-mini"]
SC = f"{INTEROP}/skill-creator/anthropic-schemas-examples/benchmark.json"
POP = f"{INTEROP}/inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"
CPE = f"{INTEROP}/claude-plugin-eval/aggregate-result.two-arm.json"

Source = Callable[[Path, Path], tuple[Path, list[str]]]


def _load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def _write(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _caveman(change: Callable[[Any], None]) -> Source:
    def make(shared: Path, tmp: Path) -> tuple[Path, list[str]]:
        doc = _load(FIX / "evals" / "snapshots" / "results.json")
        change(doc)
        return _write(tmp / "results.json", doc), ["caveman", "--skills", str(SKILLS)]

    return make


def _billed(doc: Any) -> None:
    # input 2**53 - 1 (a count a receipt holds) plus 2,600 cache-read tokens: billed past it
    doc["usage"]["ultracave"][1]["input_tokens"] = SAFE


def _promptfoo(change: Callable[[Any], None]) -> Source:
    def make(shared: Path, tmp: Path) -> tuple[Path, list[str]]:
        doc = _load(shared / PF)
        change(doc)
        return _write(tmp / "export.json", doc), ["promptfoo", *PF_ARMS, "--skill-name", "s"]

    return make


def _judge_sum(doc: Any) -> None:
    # two judged rows of 2**52 prompt tokens each: 2**53 is past what a receipt holds
    rows = [r for r in doc["results"]["results"] if isinstance(r.get("gradingResult"), dict)]
    for r in rows[:2]:
        r["gradingResult"]["tokensUsed"] = {"prompt": 2**52, "completion": 1}


def _skill_creator(change: Callable[[Any], None]) -> Source:
    def make(shared: Path, tmp: Path) -> tuple[Path, list[str]]:
        doc = _load(shared / SC)
        change(doc)
        (tmp / "it").mkdir()
        return _write(tmp / "it" / "benchmark.json", doc), ["skill-creator", "--skill-name", "s"]

    return make


def _summary_only(doc: Any) -> None:
    del doc["runs"]  # run_summary alone: its figures are kept as printed
    doc["run_summary"]["with_skill"]["tokens"]["max"] = HUGE


def _inspect(shared: Path, tmp: Path) -> tuple[Path, list[str]]:
    doc = _load(shared / POP)
    doc["samples"][0]["output"]["usage"]["output_tokens"] = HUGE
    return _write(tmp / "log.json", doc), ["inspect", "--skill-name", "s", "--with-skill"]


def _plugin_eval(shared: Path, tmp: Path) -> tuple[Path, list[str]]:
    doc = _load(shared / CPE)
    doc["aggregates"]["overallPassRate"] = HUGE
    return _write(tmp / "aggregate-result.json", doc), ["claude-plugin-eval"]


def _runs_per_case(shared: Path, tmp: Path) -> tuple[Path, list[str]]:
    doc = _load(shared / CPE)
    doc["cases"][0]["runsPerCase"] = HUGE
    return _write(tmp / "aggregate-result.json", doc), ["claude-plugin-eval"]


def _openai_evals(shared: Path, tmp: Path) -> tuple[Path, list[str]]:
    rows = [api_item("run_a", 1, 1.0), api_item("run_a", 2, 0.0)]
    rows[1]["sample"]["usage"]["completion_tokens"] = HUGE
    args = ["openai-evals", "--arm", "with_skill=run_a", "--grader", "quality"]
    return jsonl(tmp / "items.jsonl", rows), [*args, "--skill-name", "s"]


def _set(*path: Any) -> Callable[[Any], None]:
    def change(doc: Any) -> None:
        for key in path[:-2]:
            doc = doc[key]
        doc[path[-2]] = path[-1]

    return change


UC = ("usage", "ultracave", 1)
RR = ("results", "results", 0)
CASES = [
    (_caveman(_set(*UC, "output_tokens", HUGE)), "/usage/ultracave/1/output_tokens", COUNT),
    (
        _caveman(_set(*UC, "cache_read_input_tokens", HUGE)),
        "/usage/ultracave/1/cache_read_input_tokens",
        COUNT,
    ),
    (_caveman(_billed), "/usage/ultracave/1", COUNT),
    (
        _promptfoo(_set(*RR, "response", "tokenUsage", "completion", HUGE)),
        "/results/results/0/response/tokenUsage/completion",
        COUNT,
    ),
    (
        _promptfoo(_set(*RR, "response", "tokenUsage", "prompt", HUGE)),
        "/results/results/0/response/tokenUsage/prompt",
        COUNT,
    ),
    (_promptfoo(_judge_sum), "/results/results/1/gradingResult/tokensUsed/prompt", COUNT),
    (_skill_creator(_summary_only), "/run_summary/with_skill/tokens/max", EXACT),
    (_skill_creator(_set("runs", 0, "result", "tokens", HUGE)), "/runs/0/result/tokens", COUNT),
    (_inspect, "/samples/0/output/usage/output_tokens", COUNT),
    (_plugin_eval, "/aggregates/overallPassRate", EXACT),
    (_runs_per_case, "/cases/0/runsPerCase", EXACT),
    (_openai_evals, "/1/sample/usage/completion_tokens", COUNT),
]


@pytest.mark.parametrize(("make", "pointer", "words"), CASES)
def test_a_number_no_receipt_holds_is_refused_at_its_source_pointer(
    shared: Path, tmp_path: Path, make: Source, pointer: str, words: str
) -> None:
    src, args = make(shared, tmp_path)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["import", *args, str(src), "--out-dir", str(out)])
    assert isinstance(result.exception, ImportError_), (result.output, result.exception)
    (p,) = result.exception.problems
    assert (p.file, p.pointer) == (str(src), pointer), p.message
    assert words in p.message and "of the receipt" not in p.message, p.message
    assert not out.exists()


def test_a_count_a_receipt_holds_is_kept_to_the_last_token(shared: Path, tmp_path: Path) -> None:
    # 2**53 - 1 is the largest count a receipt holds: kept, never refused nor dropped
    doc = _load(shared / POP)
    doc["samples"][0]["output"]["usage"]["output_tokens"] = SAFE
    src = _write(tmp_path / "log.json", doc)
    out = tmp_path / "out"
    args = [
        "import",
        "inspect",
        "--skill-name",
        "s",
        "--with-skill",
        str(src),
        "--out-dir",
        str(out),
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, (result.output, result.exception)
    (receipt,) = out.iterdir()
    draw = _load(receipt)["cases"][0]["arms"]["with_skill"]["draws"][0]
    assert draw["tokens"]["output"] == 9_007_199_254_740_991


def test_a_case_with_more_checks_than_a_receipt_keeps_is_refused_in_the_case_file(
    tmp_path: Path,
) -> None:
    # the fixture's first case has 2 must_include and 1 must_not_include; 198 more make 201
    cases = _load(FIX / "evals" / "prompts" / "fidelity.json")
    cases["cases"][0]["checks"]["must_include"] += [f"3|q{i}" for i in range(198)]
    src = _write(tmp_path / "fidelity-cases.json", cases)
    snap = FIX / "evals" / "snapshots" / "fidelity.json"
    out = tmp_path / "out"
    args = ["import", "caveman", str(snap), "--skills", str(SKILLS), "--cases", str(src)]
    result = CliRunner().invoke(cli, [*args, "--out-dir", str(out)])
    assert isinstance(result.exception, ImportError_), (result.output, result.exception)
    (p,) = result.exception.problems
    assert (p.file, p.pointer) == (str(src), "/cases/0/checks"), p.message
    assert "expected at most 200 checks in one case" in p.message and "found 201" in p.message
    assert not out.exists()


def test_the_checks_bound_is_the_newest_schemas() -> None:
    from driftproof.receipt._bounds import DRAW_MAX_CHECKS
    from driftproof.receipt._versions import known_versions, schema_for, version_key

    newest = schema_for(max(known_versions(), key=version_key))
    assert newest["$defs"]["draw"]["properties"]["checks"]["maxItems"] == DRAW_MAX_CHECKS == 200
