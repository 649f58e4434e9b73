"""``driftproof view`` parity with the site's sheet (issue 14, item 5) and each receipt's
headline figure (issue 16, item 8), in text, Markdown and JSON.

Expected values are read by hand from the sources: NVIDIA's benchmarks.json (cuopt-install),
skill-creator's nebius benchmark.json (``evals_skill_loaded: 6`` of ``evals_total: 9``), and
Report 001's published caveman saving (median +50%, mean +46% against the terse control).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from factories import case, imported, make_receipt, run_main, view_formats
from receipt_docs import seal_document

from driftproof.pages.receipt_tables import receipt_tables
from driftproof.pages.sheet import sheet
from driftproof.receipt import parse_receipt, read_receipt
from driftproof.render.sheet import sheet_text

REPO = Path(__file__).resolve().parents[1]
NVIDIA = REPO / "receipts/nvidia-7149a88-cuopt-install.json"
CAVEMAN = REPO / "receipts/caveman-2b10489-caveman.json"
NEBIUS = REPO / "receipts/skill-creator-nebius-skills-iteration-1-12a0aae8.json"


def test_aggregates_only_view_shows_every_figure_the_site_sheet_shows(capsys: Any) -> None:
    r = read_receipt(NVIDIA)
    site = receipt_tables("nvidia-7149a88-cuopt-install", r, NVIDIA.read_bytes())
    assert site.figures is not None
    views = view_formats(NVIDIA, capsys)
    doc = json.loads(views["json"])
    json_rows = [
        [f["dimension"], f["agent"], f["score"], f["uplift"], f["count"], f["note"]]
        for f in doc["source_figures"]
    ]
    site_rows = [[c.text for c in row.cells] for row in site.figures.rows]
    assert json_rows == site_rows and len(site_rows) == 10
    for row in site_rows:
        line = [cell for cell in row if cell]
        assert any(all(cell in ln for cell in line) for ln in views["text"].splitlines()), row
        assert any(all(cell in ln for cell in line) for ln in views["markdown"].splitlines()), row
    # by hand from benchmarks.json, cuopt-install: Correctness, codex: score_pct 97, uplift_pct 22
    assert ["Correctness", "codex", "97.0", "22.0", "1", ""] in json_rows
    for fmt in ("text", "markdown", "json"):
        assert (
            "7149a886d50da8db72cdc1f20ff01cefeadfe6a9" in views[fmt]
            and "6f6c3946e835520844d2b770bf8d91faf701a526" in views[fmt]
        )
    # the site's results page leads with the source's average (a newcomer found view leading
    # with a count of figures instead): the one headline, as the source printed it
    assert doc["headline"]["label"] == "source figures" and doc["headline"]["value"].startswith(
        "the source's average uplift 48 percentage points; its 10 uplifts, by dimension and "
        'agent, in "Figures as the source printed them"'
    )


def test_skill_fired_rate_is_shown_beside_the_score(capsys: Any) -> None:
    views = view_formats(NEBIUS, capsys)
    doc = json.loads(views["json"])
    (with_skill,) = [a for a in doc["arms"] if a["arm"] == "with skill"]
    # nebius benchmark.json: evals_skill_loaded 6 of evals_total 9
    assert with_skill["skill_fired"] == "6 of 9 observed draws (67%)"
    (base,) = [a for a in doc["arms"] if a["arm"] == "baseline"]
    assert base["skill_fired"] == "not recorded"
    assert (
        "6 of 9 observed draws (67%)" in views["text"]
        and "6 of 9 observed draws (67%)" in views["markdown"]
    )


def test_site_receipt_page_shows_the_per_arm_skill_fired_rate_as_view_does() -> None:
    # the site's receipt page left out the arms table that view prints (README: the sheet
    # shows the per-arm skill-fired rate and refusals); nebius: evals_skill_loaded 6 of 9
    from driftproof.site.html import page_env, receipt_files

    name = "skill-creator-nebius-skills-iteration-1-12a0aae8"
    pages = receipt_files(name, read_receipt(NEBIUS), NEBIUS.read_bytes(), [], page_env())
    html = pages[f"receipts/{name}/index.html"].decode()
    assert "skill fired" in html and "6 of 9 observed draws (67%)" in html
    assert "refusals" in html


def test_token_receipt_headline_is_the_token_saving(capsys: Any) -> None:
    views = view_formats(CAVEMAN, capsys)
    head = json.loads(views["json"])["headline"]
    assert head["label"] == "output-token saving"
    # Report 001: median +50% (mean +46%) against the terse control (__terse__)
    assert "terse control: median +50% over 10 cases (mean +46%" in head["value"]
    for fmt in ("text", "markdown"):
        assert "median +50%" in views[fmt]


def test_output_tokens_per_case_match_the_site_sheet() -> None:
    r = read_receipt(CAVEMAN)
    site = receipt_tables("caveman-2b10489-caveman", r, CAVEMAN.read_bytes())
    s = sheet(r)
    col = next(i for i, c in enumerate(site.cases.columns) if c.label.startswith("output tokens"))
    site_tokens = [row.cells[col].text.replace(" / ", " · ") for row in site.cases.rows]
    assert [c.output_tokens for c in s.cases] == site_tokens


def _with_refusal() -> dict[str, Any]:
    doc = make_receipt([case("c1", [0.8, 0.9, 1.0], [0.5, 0.6, 0.7])])
    doc = copy.deepcopy(doc)
    doc.pop("seal")
    d = doc["cases"][0]["arms"]["baseline"]["draws"][1]
    d.update(
        score=None,
        judge_samples=[],
        lost={"reason": "the model refused", "kind": "refusal"},
        refusal={"text": "I can't help with that.", "category": "policy"},
    )
    return seal_document(doc)


def test_refusals_are_counted_per_arm(tmp_path: Path, capsys: Any) -> None:
    p = tmp_path / "r.json"
    p.write_text(json.dumps(_with_refusal()), encoding="utf-8")
    views = view_formats(p, capsys)
    arms = {a["arm"]: a for a in json.loads(views["json"])["arms"]}
    assert (
        arms["baseline"]["refusals"] == "1 of 3 draws"
        and arms["with skill"]["refusals"] == "none of 3 draws"
    )
    assert arms["baseline"]["lost"] == "1 (refusal)"
    assert "1 of 3 draws" in views["text"] and "1 of 3 draws" in views["markdown"]


def test_a_judged_receipt_headline_is_its_lift() -> None:
    # with skill 0.8, 0.9, 1.0 (mean 0.9), baseline 0.5, 0.6, 0.7 (mean 0.6): lift +0.300;
    # 1,600 characters = 400 skill tokens: +0.750 per 1,000
    s = sheet(
        parse_receipt(json.dumps(make_receipt([case("c1", [0.8, 0.9, 1.0], [0.5, 0.6, 0.7])])))
    )
    assert s.headline.label == "lift" and s.headline.value.startswith("+0.300")
    # the label once, then the figure (it read "+0.750 per 1,000 skill tokens" after a
    # "per 1,000 tokens" label in view, and after "per 1,000 skill tokens" on the site)
    assert "; value per 1,000 skill tokens +0.750 (400 skill tokens" in s.headline.value
    assert s.headline.value.count("per 1,000") == 1
    assert s.lift_per_1k.startswith("+0.750 (") and "per 1,000" not in s.lift_per_1k
    lines = [" ".join(x.split()) for x in sheet_text(s).splitlines()]
    assert all(x.count("per 1,000") <= 1 for x in lines)
    assert any(x.startswith("value per 1,000 skill tokens +0.750 (") for x in lines)


def test_a_lift_without_skill_tokens_labels_its_missing_value() -> None:
    # Report 003's receipt records no skill token count: no value per 1,000 skill tokens; the
    # headline ended with a bare "n/a (skill tokens not recorded)"
    s = sheet(read_receipt(NEBIUS))
    assert s.headline.value.endswith(
        "; value per 1,000 skill tokens n/a (skill tokens not recorded)"
    )


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_untrusted_source_figure_text_is_escaped(tmp_path: Path, capsys: Any, fmt: str) -> None:
    doc = json.loads(NVIDIA.read_text(encoding="utf-8"))
    doc.pop("seal")
    doc["source_figures"]["rows"][0]["dimension"] = "<b>|x\x1b[31m"
    p = tmp_path / "n.json"
    p.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    code, out, err = run_main(["view", str(p), "--format", fmt], capsys)
    assert code == 0, err
    assert "\x1b" not in out and "\\x1b" in out
    if fmt == "markdown":
        assert "<b>" not in out and "\\<b\\>\\|x" in out


def test_a_lift_that_rounds_to_zero_reads_as_the_badge_diff_and_run_print_it() -> None:
    # c1: with skill .5 .5 .5, baseline .5 .5 .501: lift -0.000333; c2: .6 against .6, lift 0.
    # Suite lift -0.000167; per 1,000 skill tokens (1,600 characters: 400 tokens) -0.000417.
    # Each rounds to zero at three places: "+0.000", as format_lift (badge, diff, the Action,
    # the run summary) prints it; view printed "0.000". The value per 1,000 tokens beside a lift
    # that reads +0.000 reads +0.000 too (not −0.00042 beside a lift of +0.000)
    cases = [case("c1", [0.5, 0.5, 0.5], [0.5, 0.5, 0.501]), case("c2", [0.6] * 3, [0.6] * 3)]
    s = sheet(parse_receipt(json.dumps(make_receipt(cases)).encode(), "r.json"))
    assert s.lift == "+0.000" and s.lift_per_1k.startswith("+0.000 (400 skill tokens")
    assert [c.lift for c in s.cases] == ["+0.000", "+0.000"]
    assert s.breakdown.summary[0].endswith("over 2 included cases: +0.000")
    assert [(b.lift, b.lift_without) for b in s.breakdown.rows] == [("+0.000", "+0.000")] * 2
    assert s.context.interval.startswith("suite lift +0.000, ")


def test_a_source_that_printed_no_figure_still_shows_its_own_verdict(capsys: Any) -> None:
    # NVIDIA's benchmarks.json, skill "skill": "verdict": "PASS", "has_results": false, no
    # agent. view's headline cited "Figures as the source printed them", which view never
    # showed, nor the source's PASS, both on the site's page for the same receipt
    path = REPO / "receipts/nvidia-7149a88-skill.json"
    site = receipt_tables("nvidia-7149a88-skill", read_receipt(path), path.read_bytes())
    assert site.figures is not None and site.figures.rows == ()
    origin = {f.label: f.value for f in site.model.source_origin}
    assert origin["the source's own verdict"] == "PASS"
    views = view_formats(path, capsys)
    for fmt in ("text", "markdown"):
        text = views[fmt]
        assert "no uplift printed" in text  # as the site's results page says it
        head = "Figures as the source printed them (no band" if fmt == "text" else "## Figures as"
        after = text[text.index(head) :]
        assert "the source's own verdict" in after and "PASS" in after
        assert "none: the source printed no figure for this skill" in after


def test_a_run_summary_shows_each_figure_the_source_printed(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # agentskills.io's benchmark.json prints only run_summary: with_skill pass_rate mean 0.83
    # (stddev 0.06), time_seconds 45.0 (12.0), tokens 3800 (400); without_skill 0.33 (0.10),
    # 32.0 (8.0), 2100 (300); delta 0.50, 13.0, 1700. view said "0 figures" and "none: the
    # source printed no figure for this skill"
    src = shared / "data/interop/skill-creator/agentskills-spec-examples/benchmark.json"
    path = imported("skill-creator", src, tmp_path, capsys)
    views = view_formats(path, capsys)
    doc = json.loads(views["json"])
    rows = [[f["dimension"], f["agent"], f["score"], f["uplift"]] for f in doc["source_figures"]]
    assert rows == [
        ["pass_rate", "with skill", "mean 0.83; stddev 0.06", "–"],
        ["time_seconds", "with skill", "mean 45.0; stddev 12.0", "–"],
        ["tokens", "with skill", "mean 3800; stddev 400", "–"],
        ["pass_rate", "without skill", "mean 0.33; stddev 0.1", "–"],
        ["time_seconds", "without skill", "mean 32.0; stddev 8.0", "–"],
        ["tokens", "without skill", "mean 2100; stddev 300", "–"],
        ["pass_rate", "delta", "–", "0.5"],
        ["time_seconds", "delta", "–", "13.0"],
        ["tokens", "delta", "–", "1700"],
    ]
    site = receipt_tables(path.stem, read_receipt(path), path.read_bytes())
    assert site.figures is not None
    assert [[c.text for c in x.cells][:4] for x in site.figures.rows] == rows
    # its columns name a measure and an arm, not NVIDIA's dimension and agent
    heads = ["measure", "arm", "value as printed", "delta as printed"]
    assert [c.label for c in site.figures.columns] == heads
    assert site.figures.caption.startswith(
        "Figures as the source printed them, per measure and arm"
    )
    assert "| measure | arm | value as printed | delta as printed |" in views["markdown"]
    assert doc["headline"]["value"].startswith("delta as printed: pass_rate 0.5; time_seconds 13.0")
    for fmt in ("text", "markdown"):
        assert "no figure" not in views[fmt] and "mean 0.83; stddev 0.06" in views[fmt]
    # where they were read: git hash-object of benchmark.json
    origin = {f.label: f.value for f in site.model.source_origin}
    assert origin["file"] == "benchmark.json (git blob 1c48ea3d46ca9958ee33d25de57117650ec75155)"
    assert origin["units, as the source states them"] == (
        "not stated by the source, apart from each measure's name"
    )  # not NVIDIA's "score: …; uplift: …"


def test_an_nvidia_uplift_reads_percentage_points_in_view_as_on_the_site(capsys: Any) -> None:
    # benchmarks.json's uplift_pct is a difference of two percent scores (score_pct with the
    # skill minus without): percentage points, as the site's figures section says; view said "%"
    views = view_formats(NVIDIA, capsys)
    for fmt in ("text", "markdown"):
        assert "score in %; uplift in percentage points" in views[fmt]
        assert "uplift in %" not in views[fmt]


def test_arms_table_says_once_that_skill_fired_is_beside_the_score(capsys: Any) -> None:
    # at 390 px the header "skill fired (beside the score, never in it)" ran down the column
    # under a caption saying the same; the header is "skill fired", the caveat said once beside
    # the table on the site and in view's text and Markdown
    caveat = "how often the skill fired sits beside the score, never in it"
    arms = receipt_tables("caveman-2b10489-caveman", read_receipt(CAVEMAN)).arms
    assert arms is not None and caveat in arms.caption
    assert [c.label for c in arms.columns][4] == "skill fired"
    views = view_formats(CAVEMAN, capsys)
    assert f"\nArms ({caveat})\n" in views["text"]
    assert f"Arms ({caveat})" in views["markdown"]
    assert [c for c in views["text"].split(f"Arms ({caveat})")[1].splitlines() if c][0].split()[
        :5
    ] == ["arm", "draws", "lost", "refusals", "skill"]


def test_a_receipt_with_no_case_row_says_so_under_cases_not_a_bare_header(capsys: Any) -> None:
    # NVIDIA's printed aggregates hold no case row (benchmarks.json prints counts, no case ids):
    # view printed the case table's header with no row under it; the site leaves the table out
    views = view_formats(NVIDIA, capsys)
    text = views["text"].splitlines()
    assert text[text.index("Cases") + 1] == "  none: the receipt holds no case row"
    md = views["markdown"].split("## Cases", 1)[1].split("##", 1)[0]
    assert "none: the receipt holds no case row" in md and "| case |" not in md


def test_view_and_the_results_page_lead_an_aggregates_only_receipt_alike() -> None:
    # a newcomer found view leading with "10 figures as the source printed them" where the
    # results page led with the source's average uplift, and "0 figures …" where it said none
    from driftproof.pages.results import headline as results_headline
    from driftproof.pages.sheet import sheet
    from driftproof.receipt import read_receipt

    receipts = Path(__file__).resolve().parents[1] / "receipts"
    said = {}
    for name in ("accelerated-computing-cudf", "digital-health-clinical-asr-setup"):
        r = read_receipt(receipts / f"nvidia-7149a88-{name}.json")
        view = sheet(r, path=receipts / f"nvidia-7149a88-{name}.json").headline.value
        said[name] = view
        site = results_headline(r)
        assert view == site.replace("on its page", 'in "Figures as the source printed them"')
    assert said["digital-health-clinical-asr-setup"] == "no uplift printed"
    assert said["accelerated-computing-cudf"].startswith("the source's average uplift 11 ")
