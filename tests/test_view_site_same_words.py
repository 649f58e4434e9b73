"""A fact that ``view`` and the site both show reads the same in both, and a table cell's short
form is the head of the full words: the band source, an aggregates-only receipt's arms, and a
run's preset (a newcomer read them three ways for one receipt)."""

from __future__ import annotations

import hashlib
import html
import json
from pathlib import Path
from typing import Any

from factories import case, make_receipt, run_main

from driftproof.pages.results import results_rows
from driftproof.receipt import Receipt, read_receipt
from driftproof.site.html import page_env, receipt_files, results_page_from_rows

ROOT = Path(__file__).resolve().parents[1]
NVIDIA = ROOT / "receipts" / "nvidia-7149a88-cudaq-guide.json"  # printed aggregates only
NEBIUS = ROOT / "receipts" / "skill-creator-nebius-skills-iteration-1-12a0aae8.json"
CAVEMAN = ROOT / "receipts" / "caveman-2b10489-caveman.json"  # no grader
PROBE = ROOT / "receipts" / "claude-plugin-eval-probe-plugin-8955eb63.json"  # one run per arm


def _view(path: Path, capsys: Any) -> dict[str, str]:
    """``view``'s "What produced it" facts, label to value, whitespace folded."""
    code, out, err = run_main(["view", str(path)], capsys)
    assert code == 0, err
    block = out.split("\nWhat produced it\n")[1].split("\n\n")[0]
    facts = {}
    for line in block.splitlines():
        label, value = line.strip().split("  ", 1)
        facts[label] = " ".join(value.split())
    return facts


def _page(path: Path) -> str:
    pages = receipt_files("t", read_receipt(path), path.read_bytes(), [], page_env())
    return html.unescape(pages["receipts/t/index.html"].decode())


def test_the_band_source_reads_the_same_in_view_the_page_and_the_results_table(
    capsys: Any,
) -> None:
    # view said "none (no judged score)" where the page said "none: aggregates only, …"; the
    # skill-creator page said "not recorded (the receipt names none; …)" where the results
    # table said "not recorded (one scored draw per arm, no spread)"
    cases = [
        (NVIDIA, "none (aggregates only)", "the source printed no per-run score"),
        (CAVEMAN, "none (no judged score)", "the receipt has no band"),
        (
            NEBIUS,
            "not recorded (one scored draw per arm, no spread)",
            "the receipt names none; no arm holds more than one scored draw, so no band has a "
            "spread",
        ),
        # view said "bands across draws, but no arm has …" beside the table's "one scored draw …";
        # and the two said why in two ways ("each arm holds one answer at most, scored as the
        # source gave it"): the method's words, after how each records its bands
        (
            PROBE,
            "one scored draw per arm, no spread",
            "recorded as bands across draws; no arm holds more than one scored draw, so no band "
            "has a spread",
        ),
    ]
    for path, short, why in cases:
        full = f"{short}: {why}"
        assert _view(path, capsys)["band source"] == full
        assert f"<dt>band source</dt><dd>{full}</dd>" in _page(path)
        assert [row.band_source for row in results_rows({"r": read_receipt(path)})] == [short]
    # the method page gives the short forms a receipt naming no band source is shown with
    method = " ".join((ROOT / "site_src" / "method.md").read_text(encoding="utf-8").split())
    assert "*not recorded (one scored draw per arm, no spread)*" in method


def test_an_aggregates_only_receipts_arms_say_they_hold_no_per_run_result(capsys: Any) -> None:
    # "draws per arm 2; the receipt holds no per-run result" sat above arms "0 drawn, 0 scored"
    code, out, _ = run_main(["view", str(NVIDIA)], capsys)
    arms = out.split("\nArms (")[1].split("\n\n")[0].splitlines()[2:]  # past title and head
    assert [" ".join(a.split()) for a in arms] == [
        "with skill no per-run result (aggregates only) – – – –",
        "baseline no per-run result (aggregates only) – – – –",
    ]
    # the site's page shows no arms table for printed figures: no draw count there either
    page = _page(NVIDIA)
    assert "0 drawn" not in out + page and "0 scored" not in out + page


def test_no_preset_says_a_full_run_or_an_import(capsys: Any, tmp_path: Path) -> None:
    # "preset none" gave no hint that it means a full run, not run --quick
    doc = make_receipt([case("c1", [0.8, 0.85, 0.9], [0.5, 0.55, 0.6])])
    assert doc["run"]["preset"] is None and doc.get("provenance") is None
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert _view(path, capsys)["preset"] == "none (a full run, not --quick)"
    # an import was never a driftproof run: it has no preset of ours
    assert _view(NEBIUS, capsys)["preset"] == "none (imported: the source's own run)"
    assert "<dt>preset</dt><dd>none (imported: the source's own run)</dd>" in _page(NEBIUS)


def test_a_regrade_of_an_import_says_no_full_run(capsys: Any, tmp_path: Path, shared: Path) -> None:
    # a plain regrade of caveman's import (its answers were claude -p's, run by caveman's own
    # script) read "none (a full run, not --quick)": the regrade carries the original's preset,
    # and it records no word of whether the original was a run or an import
    lines = (shared / "data/caveman/evals/prompts/en.txt").read_text(encoding="utf-8")
    by_hash = {hashlib.sha256(p.encode()).hexdigest(): p for p in lines.splitlines()}
    cases = [
        {"id": c["id"], "prompt": by_hash[c["prompt_sha256"]], "rubric": "Score 1 if right."}
        for c in json.loads(CAVEMAN.read_text(encoding="utf-8"))["cases"]
    ]
    suite, out = tmp_path / "suite.json", tmp_path / "regraded.json"
    suite.write_text(json.dumps({"format": "driftproof-suite/1", "name": "c", "cases": cases}))
    argv = ["regrade", str(CAVEMAN), "--rubric", str(suite), "--out", str(out)]
    code, _, err = run_main([*argv, "--judge-provider", "stub", "--judge-model", "j"], capsys)
    assert code == 0, err
    # a newcomer could not tell which receipt "the regraded receipt" was: the original is meant
    said = "none (the original receipt, whose answers this regrade graded again, named none)"
    assert _view(out, capsys)["preset"] == said


def test_a_results_row_reading_underpowered_gives_the_methods_words() -> None:
    # the results row read "UNDERPOWERED" and the why alone; the method gives each UNDERPOWERED
    # receipt its words. Three cases, each arm's draws alike (sd 0, Δ 0: no separation), means
    # 0.9, 0.3, 0.6 in each arm: s = 0.3, band √(0.09 + 0.09) = 0.424 ≥ 0.05 with no draw part
    # to take out: the cases disagree. One case, with skill .5 .7 .6 (sd 0.1), baseline
    # .5 .6 .55 (sd 0.05): overlap, and the spreads alone reach the floor (0.15 ≥ 0.05)
    wide = [case(c, [m] * 3, [m] * 3) for c, m in (("c1", 0.9), ("c2", 0.3), ("c3", 0.6))]
    one = [case("c1", [0.5, 0.7, 0.6], [0.5, 0.6, 0.55])]
    docs = {"w": make_receipt(wide), "u": make_receipt(one)}
    rows = results_rows({n: Receipt.model_validate(d) for n, d in docs.items()})
    said = {r.receipt: (r.reading, r.reason) for r in rows}
    assert said["w"][0] == "UNDERPOWERED"
    assert said["w"][1].startswith(
        "More cases, not more draws, are needed to conclude at this effect floor. Why: "
    )
    assert said["u"][0] == "UNDERPOWERED: no draw count reaches the floor"
    assert said["u"][1].startswith("Not enough draws to conclude at this effect floor. Why: ")
    # the page said UNDERPOWERED "means the draws could not have shown" a change, as if more
    # draws always settled it
    page = results_page_from_rows(rows, page_env()).decode()
    assert "its words say whether more draws or more cases are needed" in page


def test_a_recorded_cost_near_the_largest_float_reads_as_a_short_figure(
    capsys: Any, tmp_path: Path
) -> None:
    # a recorded grading cost of $1e308 printed as its 309 digits and 4 places in view (text,
    # Markdown, JSON) and on the receipt's page; the largest float is about 1.8e308, so it is a
    # figure (three significant figures from a billion), not "too large to state"
    usage = {"input_tokens": 1000, "output_tokens": 200, "judged_draws_counted": 6}
    for usd, said in ((1e308, "$1e+308"), (2.5e9, "$2.5e+09"), (0.0123, "$0.0123")):
        overhead = usage | {"judged_draws_missing_usage": 0, "usd": usd}
        doc = make_receipt([case("c1", [0.8, 0.9, 0.7], [0.5, 0.6, 0.4])], judge_overhead=overhead)
        path = tmp_path / "r.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        cost = f"{said} (a floor: usage the judge's answered samples reported)"
        for form in ("text", "markdown", "json"):
            code, out, err = run_main(["view", "--format", form, str(path)], capsys)
            assert code == 0 and cost in out, err
        assert f"<dt>grading cost</dt><dd>{cost}</dd>" in _page(path)
