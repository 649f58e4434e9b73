"""Words on the receipt sheet a newcomer found broken: a count of 1 said in the plural, an opaque
column head, and a heading that read as broken (view and the site alike)."""

from __future__ import annotations

from pathlib import Path

from driftproof.pages.receipt_tables import receipt_tables
from driftproof.pages.sheet import sheet
from driftproof.receipt import read_receipt
from driftproof.render.sheet import sheet_text

RECEIPTS = Path(__file__).resolve().parents[1] / "receipts"
TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


def _origin(name: str) -> dict[str, str]:
    return {f.label: f.value for f in sheet(read_receipt(RECEIPTS / name)).source_origin}


def test_the_sources_verdict_says_a_count_of_one_in_the_singular() -> None:
    # NVIDIA's benchmarks.json: aiq-research has "tasks": 3, "attempts_per_task": 1,
    # "pass_threshold_pct": 50.0, "average_uplift_pct": 18.1 (the mean of its rows' uplift_pct, in
    # percentage points; it read "18.1%"); it read "1 attempts per task"
    assert _origin("nvidia-7149a88-aiq-research.json")["the source's own verdict"] == (
        "PASS (pass threshold 50%, 3 tasks, 1 attempt per task, "
        "average uplift 18.1 percentage points)"
    )
    # cuopt-install: "tasks": 1, "attempts_per_task": 1 (it read "1 tasks, 1 attempts per task")
    verdict = _origin("nvidia-7149a88-cuopt-install.json")["the source's own verdict"]
    assert verdict.startswith("PASS (pass threshold 50%, 1 task, 1 attempt per task, ")


def test_the_printed_count_column_is_named_as_the_source_prints_it() -> None:
    # the BENCHMARK.md table heads the column "Num" and says nowhere what it counts; the sheet
    # headed it "count column (as printed)"
    path = RECEIPTS / "nvidia-7149a88-aiq-research.json"
    tables = receipt_tables("nvidia-7149a88-aiq-research", read_receipt(path), b"")
    assert tables.figures is not None
    heads = [c.label for c in tables.figures.columns]
    assert heads[4] == "Num, as printed (the source does not say what it counts)"
    assert "count column" not in sheet_text(tables.model)


def test_the_grading_cost_heading_reads_plainly_in_view_and_on_the_site() -> None:
    # "What grading cost (apart from every figure about the skill)" read as broken
    heading = "What grading cost (kept apart from the skill's figures)"
    text = sheet_text(sheet(read_receipt(RECEIPTS / "nvidia-7149a88-aiq-research.json")))
    assert f"\n{heading}\n" in text and "apart from every figure" not in text
    body = (TEMPLATES / "pages/_sheet_body.html").read_text(encoding="utf-8")
    assert f"<summary>{heading}</summary>" in body


def test_draws_per_arm_read_alike_in_view_and_on_the_site() -> None:
    # NVIDIA's benchmarks.json, hsb-app: "attempts_per_task": 2 and no per-run result; view said
    # "2" beside arms of "0 drawn" while the site said what the receipt holds too
    path = RECEIPTS / "nvidia-7149a88-hsb-app.json"
    r = read_receipt(path)
    view = {f.label: f.value for f in sheet(r).provenance}
    site = receipt_tables("nvidia-7149a88-hsb-app", r, b"").facts
    assert site is not None
    # a newcomer read "2; the receipt holds no per-run result" as a contradiction: the 2 is the
    # source's "attempts_per_task", draws it ran and printed aggregates of
    said = (
        "2, as the source ran them; it printed aggregates only, so the receipt holds no per-run "
        "result"
    )
    assert view["draws per arm"] == site.draws == said
    assert view["judge samples per draw"] == site.judge_samples
