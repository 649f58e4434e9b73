"""Integers past 2**53 - 1 in the sources of dotnet/skills (skill-validator, Vally), NVIDIA
(benchmarks.json and BENCHMARK.md cards), skill-eval-harness and summary-json: refused at the
source's own place, as the other importers refuse them.

A receipt is sealed as RFC 8785 JSON, which holds an integer exactly only up to 2**53 - 1 =
9,007,199,254,740,991. 2**53 itself is one past it (it is also what 2**53 + 1 becomes as a
float, so a source printing it may have meant either). Each case sets one member of a real
file (or of the fixture the importer's own tests read) to 2**53 or 10**30 and expects the
refusal at that member's pointer; before, some were sealed (the figure kept as
9007199254740992.0), some refused at a place of the receipt ("the value it gives at
/source_figures/summary/tasks of the receipt"), some at a sibling whose cross-check ran first.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import test_dotnet_skills as dotnet
import test_skill_eval_harness as harness
import test_summary_json as summary
from factories import run_main

COUNT = "expected a count of at most 9,007,199,254,740,991, found an integer of {digits} digits"
EXACT = (
    "expected a number a receipt holds exactly: an integer of at most 9,007,199,254,740,991 in "
    "size, found one of {digits} digits"
)
SV = "data/interop/dotnet-skills/skill-validator-results/run-2026-02-20T20-44-00-817Z/results.json"
NV = "data/interop/nvidia/benchmarks.json"
CARD = "data/interop/nvidia/skillevaluator/golden-e70f0e3/benchmark_pass/BENCHMARK.md"


def _real(rel: str) -> Callable[[Path], Any]:
    return lambda shared: json.loads((shared / rel).read_text("utf-8"))


def _fixture(make: Callable[[], Any]) -> Callable[[Path], Any]:
    return lambda shared: copy.deepcopy(make())


# (tool, the source, its member set to the integer, the words expected before the digits)
CASES = [
    ("skill-validator", _real(SV), "/verdicts/0/scenarios/0/improvementScore", EXACT),
    ("skill-validator", _real(SV), "/verdicts/0/scenarios/0/breakdown/tokenReduction", EXACT),
    ("skill-validator", _real(SV), "/verdicts/0/normalizedGain", EXACT),
    ("skill-validator", _real(SV), "/verdicts/0/confidenceInterval/high", EXACT),
    ("vally", _fixture(dotnet._vally), "/verdicts/0/wins", COUNT),
    ("vally", _fixture(dotnet._vally), "/verdicts/0/confidenceInterval/high", EXACT),
    ("skill-eval-harness", _fixture(harness._report), "/paired_summary/interval/upper", EXACT),
    (
        "skill-eval-harness",
        _fixture(harness._report),
        "/paired_summary/noise_check/cases_needed_for_alpha",
        COUNT,
    ),
    ("summary-json", _fixture(lambda: summary.DOC), "/judge/scale/step", EXACT),
    ("nvidia", _real(NV), "/skills/0/tasks", COUNT),
    ("nvidia", _real(NV), "/skills/0/attempts_per_task", COUNT),
    ("nvidia", _real(NV), "/results/0/num", COUNT),
]


def _set(doc: Any, pointer: str, value: int) -> None:
    *parents, last = [int(k) if k.isdigit() else k for k in pointer.split("/")[1:]]
    for key in parents:
        doc = doc[key]
    doc[last] = value


@pytest.mark.parametrize(("big", "digits"), [(2**53, 16), (10**30, 31)])
@pytest.mark.parametrize(("tool", "source", "pointer", "words"), CASES)
def test_an_integer_past_the_safe_range_is_refused_at_the_source_member(
    shared: Path,
    tmp_path: Path,
    capsys: Any,
    tool: str,
    source: Callable[[Path], Any],
    pointer: str,
    words: str,
    big: int,
    digits: int,
) -> None:
    doc = source(shared)
    _set(doc, pointer, big)
    path = tmp_path / "source.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run_main(["import", tool, str(path), "--out-dir", str(out)], capsys)
    assert code == 2 and not out.exists()
    assert err == f"error: {path}: {pointer}: {words.format(digits=digits)}\n"


@pytest.mark.parametrize("line", ["- Tasks: {} evaluation tasks", "- Attempts per task: {}"])
@pytest.mark.parametrize("big", [2**53, 10**30])
def test_a_card_count_past_the_safe_range_is_refused_at_its_line(
    shared: Path, tmp_path: Path, capsys: Any, line: str, big: int
) -> None:
    # the card's line 15 is "- Tasks: 8 evaluation tasks (6 positive, 2 negative)", line 17
    # "- Attempts per task: 3"
    lines = (shared / CARD).read_text("utf-8").split("\n")
    at = 15 if line.startswith("- Tasks") else 17
    assert lines[at - 1].startswith(line.format("8" if at == 15 else "3"))
    lines[at - 1] = lines[at - 1].replace(" 8 " if at == 15 else " 3", f" {big} ", 1).rstrip()
    card = tmp_path / "s" / "BENCHMARK.md"
    card.parent.mkdir()
    card.write_text("\n".join(lines), encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run_main(["import", "nvidia", str(card), "--out-dir", str(out)], capsys)
    assert code == 2 and not out.exists()
    assert err == (
        f"error: {card}: line {at}: expected a count of at most 9,007,199,254,740,991, "
        f"found '{big}'\n"
    )


def test_a_card_count_of_thousands_of_digits_is_refused_not_a_traceback(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # int() refuses a string of more than 4,300 digits: "- Attempts per task: 999…9" (5,000
    # nines) ended in a ValueError traceback, not a refusal at its line
    lines = (shared / CARD).read_text("utf-8").split("\n")
    assert lines[16] == "- Attempts per task: 3"
    lines[16] = "- Attempts per task: " + "9" * 5000
    card = tmp_path / "s" / "BENCHMARK.md"
    card.parent.mkdir()
    card.write_text("\n".join(lines), encoding="utf-8")
    code, _, err = run_main(["import", "nvidia", str(card), "--out-dir", str(tmp_path)], capsys)
    assert code == 2
    assert err.startswith(f"error: {card}: line 17: expected a count of at most 9,007,199,254,")
