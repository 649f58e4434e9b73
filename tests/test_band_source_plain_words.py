"""A band source of draws in readers' words: "bands across draws" in view and the results table;
a comparison, the Action's table with it, names it "generation" and its legend gives the word
before them ("generation: bands across draws: …"); a band of one scored draw has no spread."""

from __future__ import annotations

import json
from pathlib import Path

from factories import case, make_receipt, run_main

from driftproof import action
from driftproof.pages.band_sources import band_facts, band_legend
from driftproof.pages.comparison import compare_receipts, report_rows
from driftproof.pages.results import results_rows
from driftproof.receipt import Receipt, read_receipt
from driftproof.render.comparison import comparison_json

ROOT = Path(__file__).resolve().parents[1]
#: claude-plugin-eval's probe: one run per case arm, band source "generation" (as recorded)
ONE_RUN = ROOT / "receipts" / "claude-plugin-eval-probe-plugin-8955eb63.json"
LEGEND = (
    "bands across draws: the band is the spread of the per-draw scores, each draw a separate "
    "answer of the arm."
)
THREE = [case("c1", [0.80, 0.85, 0.90], [0.50, 0.55, 0.60])]


def _write(tmp_path: Path, name: str, doc: dict[str, object]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_diff_names_generation_view_bands_across_draws_and_json_keeps_the_field(
    tmp_path: Path, capsys
) -> None:
    doc = make_receipt(THREE)
    assert doc["band_source"] == "generation"
    a, b = _write(tmp_path, "a.json", doc), _write(tmp_path, "b.json", doc)
    code, out, err = run_main(["diff", str(a), str(b)], capsys)
    assert code == 0, err
    assert f"\n  generation: {LEGEND}\n" in out  # method: "legacy or generation"
    assert "earlier (generation)" in out and "later (generation)" in out
    _, out, _ = run_main(["view", str(a)], capsys)
    lines = [x.split() for x in out.splitlines() if x.lstrip().startswith("band source")]
    assert [" ".join(x) for x in lines] == [f"band source {LEGEND}"]  # once, in full
    _, out, _ = run_main(["diff", "--format", "json", str(a), str(b)], capsys)
    assert json.loads(out)["band_sources"] == ["generation", "generation"]  # the field's values
    assert json.loads(out)["legend"] == [f"generation: {LEGEND}"]


def test_the_actions_job_summary_names_generation_as_its_legend_does() -> None:
    # found: its table's band source read "bands across draws" under a legend that describes
    # "generation" only (method: named beside its bands, "legacy or generation")
    r = Receipt.model_validate(make_receipt(THREE))
    text = action.summary_markdown(r, r, compare_receipts(r, r, a_name="a", b_name="b"))
    assert "| band source | generation | generation |\n" in text
    assert f"- generation: {LEGEND}\n" in text  # the comparison's legend
    assert "| bands across draws |" not in text


def test_a_comparison_says_a_band_source_the_receipt_names_none_of_is_not_recorded() -> None:
    # found: a receipt with no band source read "generation" in the comparison, as if recorded
    # (D-13: unknown stays unknown; method page: "not recorded" and, in brackets, the kind)
    named = Receipt.model_validate(make_receipt(THREE))
    none = Receipt.model_validate(make_receipt(THREE, band_source=None))
    c = compare_receipts(none, named, a_name="a", b_name="b")
    text = action.summary_markdown(none, named, c)
    assert "| band source | not recorded (generation) | generation |\n" in text
    assert report_rows(c)[0][1:3] == ["earlier (not recorded (generation))", "later (generation)"]
    # found: diff --format json gave only band_sources "generation", as if recorded
    names = json.loads(comparison_json(c))["band_names"]
    assert names == ["not recorded (generation)", "generation"]
    assert f"- generation: {LEGEND}\n" in text


def test_the_results_table_names_bands_across_draws() -> None:
    rows = results_rows({"r": Receipt.model_validate(make_receipt(THREE))})
    assert [row.band_source for row in rows] == ["bands across draws"]


def test_one_scored_draw_per_arm_says_no_band_has_a_spread(capsys) -> None:
    r = read_receipt(ONE_RUN)
    assert r.band_source == "generation"
    f = band_facts(r)
    assert f.short == "one scored draw per arm, no spread"
    assert f.source == (
        "one scored draw per arm, no spread: recorded as bands across draws; no arm holds more "
        "than one scored draw, so no band has a spread"
    )
    # the case table's caption: each band is one score, n = 1
    assert (
        band_legend(r) == "no arm holds more than one scored draw, so no band has a spread (n = 1)"
    )
    code, out, err = run_main(["view", str(ONE_RUN)], capsys)
    assert code == 0, err
    assert "spread of the per-draw scores" not in out
    assert f"band source {f.source}" in " ".join(out.split())


def test_one_scored_draw_per_arm_reads_alike_whatever_the_receipt_records() -> None:
    # the probe records bands across draws, skill-creator's import none: each held one scored
    # draw per arm and said why in its own words ("bands across draws, but no arm has more than
    # one scored draw"; "each arm holds one answer at most, scored as the source gave it"), and
    # two captions; now each says how it records its bands, then the method page's words
    why = "no arm holds more than one scored draw, so no band has a spread"
    method = " ".join((ROOT / "site_src/method.md").read_text(encoding="utf-8").split())
    assert f"*one scored draw per arm*: {why}," in method
    nebius = ROOT / "receipts" / "skill-creator-nebius-skills-iteration-1-12a0aae8.json"
    said = [(band_facts(r).source, band_legend(r)) for r in map(read_receipt, (ONE_RUN, nebius))]
    assert said == [
        (
            f"one scored draw per arm, no spread: recorded as bands across draws; {why}",
            f"{why} (n = 1)",
        ),
        (
            f"not recorded (one scored draw per arm, no spread): the receipt names none; {why}",
            f"{why} (n = 1)",
        ),
    ]
