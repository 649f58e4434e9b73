"""Reports 002 and 003 and the ``source_figures`` section, on the committed receipts.

Expected values come from the source files (each literal says where), not from the code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from driftproof.receipt import read_receipt
from driftproof.site.html import make_env
from driftproof.site.inputs import parse_report
from driftproof.site.sections import SectionContext, section_types

ROOT = Path(__file__).resolve().parents[2]
NEBIUS = "skill-creator-nebius-skills-iteration-1-12a0aae8"


def _known() -> list[str]:
    return [p.stem for p in (ROOT / "receipts").glob("*.json")]


def _report(name: str):
    path = ROOT / "reports" / name
    report, problems = parse_report(path.read_bytes(), str(path), _known())
    assert problems == [] and report is not None
    return report


def test_report_002_lists_every_catalogue_skill_as_printed() -> None:
    r = _report("002-nvidia-skill-catalogue.md")
    assert len(r.receipts) == 343  # benchmarks.json "skill_count": 343
    assert [s.type for s in r.sections] == ["source_figures"]
    receipts = {n: read_receipt(ROOT / "receipts" / f"{n}.json") for n in r.receipts}
    assert all(
        x.is_aggregates_only and x.verification_level == "DECLARED" for x in receipts.values()
    )
    assert (
        sum(len(x.source_figures.rows) for x in receipts.values()) == 3210
    )  # "result_row_count": 3210
    cudf = receipts["nvidia-7149a88-accelerated-computing-cudf"].source_figures
    assert cudf.commit == "7149a886d50da8db72cdc1f20ff01cefeadfe6a9"  # nvidia/SOURCE.md


def test_source_figures_section_renders_printed_cells(shared: Path) -> None:
    from interop_helpers import sealed

    from driftproof.importers.nvidia import import_nvidia

    card = sealed(import_nvidia([shared / "data/interop/nvidia/skills/cuopt-install"])[0])
    env = make_env([ROOT / "templates" / "pages", ROOT / "templates" / "theme"])

    class _Report:
        source = "reports/999-test.md"

    ctx = SectionContext(report=_Report(), receipts={"card": card}, env=env, root="../..")
    sec = section_types()["source_figures"]
    out = sec.render(sec.Params(), ctx)
    files, table = out.tables
    # cuopt-install BENCHMARK.md: | Correctness | 1 | 100% (+70%) | 97% (+22%) |
    row = [
        r
        for r in table.rows
        if r.cells[1].text == "Correctness" and r.cells[3].text == "claude-code"
    ][0]
    assert (row.cells[4].text, row.cells[5].text, row.cells[6].text) == (
        "100%",
        "+70%",
        "% (as printed)",
    )
    assert len(table.rows) == 10 and "+70%" in str(out.html)
    # git hash-object skills/cuopt-install/BENCHMARK.md
    assert files.rows[0].cells[3].text == "07e8e6facea53bd77355adae2fd3a4cbc5f890a4"


def test_report_003_receipt_matches_the_workspace() -> None:
    r = _report("003-skill-creator-nebius-workspace.md")
    assert r.receipts == (NEBIUS,) and [s.type for s in r.sections] == ["receipt_sheets"]
    rec = read_receipt(ROOT / "receipts" / f"{NEBIUS}.json")
    assert (
        rec.verification_level == "DECLARED" and len(rec.cases) == 9
    )  # benchmark.json evals[] 0..8
    fired = [c.arms.with_skill.draws[0].skill_fired for c in rec.cases]
    assert fired.count(False) == 3  # summary.with_skill.evals_skill_failed_to_load: 3
    from driftproof.stats import suite_lift

    # paired over the 8 tasks with both arms: with (6.2 − 1.0) / 8 = 0.65, without 4.683 / 8 =
    # 0.585375
    assert suite_lift(rec) == pytest.approx(0.65 - 0.585375)
    assert "+0.065" in (ROOT / "reports" / "003-skill-creator-nebius-workspace.md").read_text(
        encoding="utf-8"
    )


def test_interop_page_documents_every_importer_of_this_area() -> None:
    from driftproof.cli.import_ import SUBCOMMANDS

    page = (ROOT / "site_src" / "interop.md").read_text(encoding="utf-8")
    for name in ("skill-creator", "nvidia", "promptfoo", "inspect", "summary-json", "caveman"):
        assert name in SUBCOMMANDS
        assert f"driftproof import {name}" in page
    assert "never earn verdicts" in page and "driftproof export summary-json" in page


def test_report_002_page_shows_one_row_per_skill_with_the_printed_figures(tmp_path):
    # benchmarks.json, skill accelerated-computing-cudf: Security/claude-code score_pct 92.0,
    # uplift_pct 12.0; Effectiveness/codex 86.0 with uplift -0.0 (as the JSON writes it) -- read
    # from the source by hand.
    import re

    from driftproof.site.publish import build_site

    repo = Path(__file__).resolve().parents[2]

    out = tmp_path / "site"
    build_site(repo / "receipts", repo / "reports", out, config_file=repo / "mkdocs.yml")
    html = (out / "reports" / "002" / "index.html").read_text(encoding="utf-8")
    row = re.search(r'<tr id="skill-accelerated-computing-cudf">(.*?)</tr>', html, re.S).group(1)
    cells = re.findall(r"<td>(.*?)</td>", row)
    assert cells[0] == "92.0 (12.0)" and cells[7] == "86.0 (-0.0)"
    assert html.count('<tr id="skill-') == 343


def test_an_aggregates_only_sheet_shows_the_printed_figures_not_an_empty_case_table():
    # benchmarks.json, accelerated-computing-cudf: Security/claude-code score_pct 92.0, uplift_pct
    # 12.0 (read by hand)
    from driftproof.pages.receipt_tables import receipt_tables

    path = (
        Path(__file__).resolve().parents[2]
        / "receipts"
        / "nvidia-7149a88-accelerated-computing-cudf.json"
    )
    sheet = receipt_tables(
        "nvidia-7149a88-accelerated-computing-cudf", read_receipt(path), path.read_bytes()
    )
    first = [c.text for c in sheet.figures.rows[0].cells]
    assert first[:4] == ["Security", "claude-code", "92.0", "12.0"]
    assert len(sheet.figures.rows) == 10


def test_the_interop_page_lists_every_per_run_importer_as_declared() -> None:
    # skill-validator, Vally and skill-eval-harness carry a draw per run, DECLARED, too
    page = (ROOT / "site_src" / "interop.md").read_text("utf-8")
    rule = " ".join(
        page.split("- **Per-run sources are DECLARED.**", 1)[1].split("\n- **")[0].split()
    )
    for source in ("skill-validator", "Vally", "skill-eval-harness", "summary-json", "Inspect"):
        assert source in rule.split(" record a score")[0], source
