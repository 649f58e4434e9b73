"""``import nvidia DIR``: which folders are read, and nothing recognised skipped in silence.

The shared data lays out NVIDIA/skills' root (benchmarks.json beside skills/*/BENCHMARK.md) and
SkillEvaluator's output (sparkpath-0.3.0/*/BENCHMARK.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import run_main

from driftproof.cli import cli

NVIDIA = "data/interop/nvidia"
CARDS = ["nvidia-accelerated-computing-cudf-card.json", "nvidia-cuopt-install-card.json"]


def _imported(path: Path, out: Path) -> tuple[int, list[str], str]:
    res = CliRunner().invoke(cli, ["import", "nvidia", str(path), "--out-dir", str(out)])
    names = sorted(p.name for p in out.glob("*.json")) if out.exists() else []
    return res.exit_code, names, " ".join(res.output.split())


def test_a_folder_of_skill_folders_is_read(shared: Path, tmp_path: Path) -> None:
    # found: refused with "expected BENCHMARK.md or skills/*/BENCHMARK.md in this directory"
    assert _imported(shared / NVIDIA / "skills", tmp_path / "a")[:2] == (0, CARDS)
    evaluator = shared / NVIDIA / "skillevaluator/sparkpath-0.3.0"
    assert _imported(evaluator, tmp_path / "b")[:2] == (
        0,
        ["nvidia-academic-warning-card.json", "nvidia-training-plan-interpretation-card.json"],
    )


def test_the_benchmarks_json_beside_the_cards_is_imported_too(shared: Path, tmp_path: Path) -> None:
    # found: the 2 cards were imported and the catalogue beside them skipped in silence
    doc = json.loads((shared / NVIDIA / "benchmarks.json").read_text(encoding="utf-8"))
    code, names, _ = _imported(shared / NVIDIA, tmp_path / "o")
    assert code == 0
    assert [n for n in names if n.endswith("-card.json")] == CARDS
    assert len(names) == len(CARDS) + doc["skill_count"] == 2 + 343
    assert "nvidia-cuopt-install.json" in names  # the catalogue's row of a carded skill


def test_a_folder_holding_none_is_refused_naming_each_kind(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    argv = ["import", "nvidia", str(shared / NVIDIA / "skillevaluator"), "--out-dir", str(out)]
    code, _, err = run_main(argv, capsys)
    assert code == 2 and not out.exists()
    assert (
        "expected BENCHMARK.md, skills/*/BENCHMARK.md, */BENCHMARK.md or benchmarks.json in this "
        "directory"
    ) in " ".join(err.split())


def test_help_says_which_folders_are_read() -> None:
    res = CliRunner().invoke(cli, ["import", "nvidia", "--help"], terminal_width=200)
    said = " ".join(res.output.split())
    assert (
        "A folder is read as its BENCHMARK.md, else each skills/*/BENCHMARK.md, else each "
        "*/BENCHMARK.md (a skills/ folder, SkillEvaluator's output), with the benchmarks.json "
        "beside."
    ) in said


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a failure writes nothing into the checkout
