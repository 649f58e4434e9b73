"""``driftproof view`` shows an imported receipt's source report (schema 0.16, issue 36): the
source's figures as it gave them, its decision apart from any verdict, its stages with a stage
that did not run kept apart from a fail, and the revision it evaluated.

Expected values are read by hand from the source files; each literal says where.
"""

from __future__ import annotations

from pathlib import Path

from interop_helpers import sealed

from driftproof.importers.dotnet_skills import import_skill_validator
from driftproof.importers.nvidia import import_nvidia
from driftproof.pages.sheet import sheet
from driftproof.render.sheet import sheet_markdown, sheet_text

SE = "data/interop/nvidia/skillevaluator"


def test_view_shows_the_card_figures_tiers_and_revision(shared: Path, tmp_path: Path) -> None:
    text = (shared / SE / "golden-e70f0e3/benchmark_fail/BENCHMARK.md").read_text("utf-8")
    row = "| Tier 3 | Live agent evaluation | **FAIL** | 2 agent(s); 8 task(s) |"
    card = tmp_path / "demo-skill" / "BENCHMARK.md"
    card.parent.mkdir()
    card.write_text(text.replace(row, "| Tier 3 | Live agent evaluation | **NOT RUN** | - |"))
    out = sheet_text(sheet(sealed(import_nvidia([card])[0])))
    assert "The source's own figures and decision" in out
    assert "Overall verdict: FAIL" in out  # "> ❌ **Overall verdict: FAIL — Publication blocked**"
    lines = [" ".join(x.split()) for x in out.splitlines()]
    assert "Tier 1 (Static validation) FAILED" in lines
    assert "Tier 3 (Live agent evaluation) did not run" in lines


def test_view_shows_the_stated_uplift_and_rounding(shared: Path) -> None:
    f = shared / SE / "sparkpath-0.3.0/training-plan-interpretation/BENCHMARK.md"
    md = sheet_markdown(sheet(sealed(import_nvidia([f])[0])))
    # "| Correctness | 36% → 67% (+32 points) |": the stated +32, printed rounded
    # every figure was printed rounded: said once under the table; no figure has an interval
    assert "| Correctness (claude-code) | whole run | difference | +32 points |\n" in md
    assert ", Correctness (claude-code), Correctness (codex), " in md
    assert md.count("printed rounded") == 1 and "): printed rounded\n" in md
    assert "85746b6f99c0252700162bdf00ebddc7f8c10f55" in md  # Evaluated source revision


def test_view_shows_the_interval_in_full(shared: Path) -> None:
    run = "data/interop/dotnet-skills/skill-validator-results/run-2026-02-20T20-44-00-817Z"
    out = sheet_text(sheet(sealed(import_skill_validator(shared / run / "results.json")[0])))
    # confidenceInterval {low 0.75, high 0.7747535879247773, level 0.95}
    assert "0.75 to 0.7747535879247773 (95%)" in out
    assert "Improvement score 76.0% meets threshold of 10.0% (significant)" in out
