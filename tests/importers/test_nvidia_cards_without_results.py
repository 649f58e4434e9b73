"""``import nvidia DIR`` on NVIDIA/skills' layout, where some skills' cards hold no results.

NVIDIA/skills @ 7149a886d50da8db72cdc1f20ff01cefeadfe6a9 has 344 ``skills/*/BENCHMARK.md``
cards; 19 hold no results table, and its ``.github/scripts/aggregate_benchmarks.py`` writes each
of them into ``benchmarks.json`` with ``"has_results": false`` and lists it under
``skills_without_results``. ``RAG_EVAL`` is the summary and results sections of one of them,
``skills/rag-eval/BENCHMARK.md``, as printed there; the other card is the shared data's real
``skills/cuopt-install/BENCHMARK.md``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import run_main

from driftproof.cli import cli

RAG_EVAL = """# Evaluation Report

Evaluation of the `rag-eval` skill before publication through NVSkills-Eval.

## Evaluation Summary

- Skill: `rag-eval`
- Evaluation date: 2026-05-29
- NVSkills-Eval profile: `external`
- Overall verdict: FAIL
- Tier 3 live agent evaluation: not available in this report

## Results

Tier 3 dimension rollup was not available in this report.
"""


def _repo(shared: Path, root: Path, *, cuopt: bool = True) -> Path:
    (root / "skills" / "rag-eval").mkdir(parents=True)
    (root / "skills" / "rag-eval" / "BENCHMARK.md").write_text(RAG_EVAL, encoding="utf-8")
    if cuopt:
        card = shared / "data/interop/nvidia/skills/cuopt-install/BENCHMARK.md"
        (root / "skills" / "cuopt-install").mkdir()
        shutil.copy(card, root / "skills" / "cuopt-install" / "BENCHMARK.md")
    return root


def _import(path: Path, out: Path) -> tuple[int, list[str], str]:
    res = CliRunner().invoke(cli, ["import", "nvidia", str(path), "--out-dir", str(out)])
    names = sorted(p.name for p in out.glob("*.json")) if out.exists() else []
    return res.exit_code, names, " ".join(res.output.split())


def test_a_card_without_results_is_skipped_by_name(shared: Path, tmp_path: Path) -> None:
    root = _repo(shared, tmp_path / "repo")
    code, names, said = _import(root, tmp_path / "out")
    assert (code, names) == (0, ["nvidia-cuopt-install-card.json"])
    card = root / "skills" / "rag-eval" / "BENCHMARK.md"
    assert (
        f"skipped {card}, a skill without results, as NVIDIA's catalogue marks it (has_results "
        "false): expected a results table (## Results or ## Results at a Glance) with figures; "
        "the card says: Tier 3 dimension rollup was not available in this report." in said
    )
    assert "- Overall verdict: FAIL" in said


def test_a_folder_of_cards_none_with_results_is_refused(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repo(shared, tmp_path / "repo", cuopt=False)
    out = tmp_path / "out"
    code, said, err = run_main(["import", "nvidia", str(root), "--out-dir", str(out)], capsys)
    assert code == 2 and not out.exists() and "skipped" not in said
    card = root / "skills" / "rag-eval" / "BENCHMARK.md"
    assert f"{card}: expected a results table" in " ".join(err.split())
