"""The receipt sheet (driftproof.pages.sheet) and ``driftproof view``, on hand-worked receipts.

Expected strings are worked out by hand in the comments (three decimals, D-13 for unknowns).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from factories import case, make_receipt
from receipt_docs import body_of, draw_doc, seal_document

from driftproof.cli import cli
from driftproof.pages.sheet import receipt_breakdown, sheet
from driftproof.pages.words import Fact, fmt
from driftproof.receipt import Receipt, _bounds, parse_receipt, write_receipt
from driftproof.render.sheet import breakdown_document, sheet_json
from driftproof.render.sheet import sheet_markdown as render_markdown
from driftproof.render.sheet import sheet_text as render_text
from driftproof.wording import NO_SEPARATION, NOT_ENOUGH_DRAWS, SMOKE_RUN

C1 = case("c1", [0.80, 0.82, 0.84], [0.50, 0.52, 0.54])  # lift +.30, helps
C2 = case("c2", [0.60, 0.61, 0.62], [0.70, 0.71, 0.72])  # lift −.10, hurts
C3 = case("c3", [0.50, 0.52, 0.54], [0.60, 0.62, 0.64])  # lift −.10, hurts


def mk(cases: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    return make_receipt(copy.deepcopy(cases), **kw)


def read(doc: dict[str, Any]) -> Receipt:
    return parse_receipt(json.dumps(doc).encode(), "t.json")


def facts(fs: tuple[Fact, ...]) -> dict[str, str]:
    return {f.label: f.value for f in fs}


def test_fmt() -> None:
    assert fmt(0.1 / 3, signed=True) == "+0.033" and fmt(-0.1) == "−0.100"
    assert fmt(-0.0001, signed=True) == "0.000" and fmt(None) == "–"


@pytest.mark.parametrize(
    ("chars", "tokens", "per_1k"),
    [
        # lift .10 (.71 − .61); 2000 chars → ceil(2000/4) = 500 tokens → .10 ÷ .5 = +0.200
        (2000, "500", "+0.200"),
        # 1601 chars → ceil(400.25) = 401 tokens → .10 ÷ .401 = .249377 → +0.249
        (1601, "401", "+0.249"),
        # 40 chars → 10 tokens → .10 ÷ .01 = +10.000
        (40, "10", "+10.000"),
    ],
)
def test_value_per_1000_skill_tokens(chars: int, tokens: str, per_1k: str) -> None:
    s = sheet(read(mk([case("a", [0.70, 0.71, 0.72], [0.60, 0.61, 0.62])], skill_text="y" * chars)))
    assert s.lift == "+0.100"
    assert s.lift_per_1k == f"{per_1k} ({tokens} skill tokens: characters ÷ 4, rounded up)"


def test_readings() -> None:
    assert facts(sheet(read(mk([C1]))).reading)["reading"] == "passing"
    r = facts(sheet(read(mk([C1, C2]))).reading)
    assert r["reading"] == "regressed" and r["sentence"] == "hurts: c2"
    # STATISTICS-NOTES C5: with .71 .72 .74, baseline .69 .70 .72: Δ +.02, sd .01528 each, bands
    # overlap; resolution .03055 + 2·.01247 = .05549 ≥ .05 → underpowered; 5 draws per arm needed.
    s = sheet(read(mk([case("c5", [0.71, 0.72, 0.74], [0.69, 0.70, 0.72])])))
    r = facts(s.reading)
    assert (r["reading"], r["sentence"], r["draws per arm needed"]) == (
        "UNDERPOWERED",
        NOT_ENOUGH_DRAWS,
        "5",
    )
    assert s.cases[0].verdict == "underpowered"
    # C4: .51 .52 .53 vs .50 .51 .52: Δ .01 ≤ .02, resolution .03633 < .05 → no separation
    s = sheet(read(mk([case("c4", [0.51, 0.52, 0.53], [0.50, 0.51, 0.52])])))
    assert facts(s.reading)["sentence"] == NO_SEPARATION and s.cases[0].verdict == NO_SEPARATION
    s = sheet(read(mk([C1], level="DECLARED")))
    r = facts(s.reading)
    assert r["reading"] == "no verdict" and "below TESTED" in r["why"]
    assert s.lift == "+0.300 (context only: the receipt has no verdict)"
    s = sheet(read(mk([C1, case("c5", [None] * 3, [0.5] * 3)], level="DECLARED")))
    assert s.lift == (  # one bracket: c5 has no measured with-skill draw, so C1's +.30 alone
        "+0.300 (over 1 of 2 cases: case c5 has no measured draw in an arm; "
        "context only: the receipt has no verdict)"
    )
    assert s.cases[0].verdict == "no verdict"
    s = sheet(read(mk([C1], level="UNVERIFIED", preset="quick")))
    r = facts(s.reading)
    assert (r["reading"], r["sentence"]) == ("no verdict", SMOKE_RUN)
    assert (
        facts(s.provenance)["verification level"]
        == "UNVERIFIED: made by an offline run (the demo's simulated lane or the test stub), a "
        "smoke run or a stopped run, or regraded by the stub judge; never given a verdict (smoke "
        "run: counts as below TESTED)"
    )


def test_a_receipt_that_measured_nothing_reads_not_measured() -> None:
    # D-17: every draw lost (the factory's reason): no verdict, "not measured", not UNDERPOWERED
    s = sheet(read(mk([case("c1", [None, None, None], [None, None, None])])))
    r = facts(s.reading)
    assert (r["reading"], r["sentence"], r["why"]) == (
        "no verdict",
        "not measured",
        "not measured: 6 of 6 draws lost to timeout after 2 retries",
    )
    assert "UNDERPOWERED" not in render_text(s)


def test_case_rows_checks_and_lost_draws() -> None:
    c = case("c1", [0.80, 0.82, None], [0.50, 0.52, 0.54])
    c["arms"]["with_skill"]["draws"][0]["checks"] = [
        {"name": "subject", "kind": "regex", "pass": True},
        {"name": "429", "kind": "must_include", "pass": False},
    ]
    c["arms"]["baseline"]["draws"][0]["checks"] = [
        {"name": "subject", "kind": "regex", "pass": False}
    ]
    # the lost draw's checks (its answer is not the arm's: a server that dropped the skill) are
    # not counted in the arm's
    c["arms"]["with_skill"]["draws"][2]["checks"] = [{"name": "x", "kind": "regex", "pass": True}]
    s = sheet(read(mk([c])))
    row = s.cases[0]
    # with skill: .80 .82 measured (mean .81, sd .014142), one lost; baseline .52 ± .02
    assert (
        row.with_skill == "0.810 ± 0.014 (n = 2, 1 lost)"
        and row.baseline == "0.520 ± 0.020 (n = 3)"
    )
    assert row.lift == "+0.290" and row.anchor == "case-c1"
    assert row.checks == "with skill 1/2 passed · baseline 0/1 passed"
    assert row.lost == "with skill 1 of 3"  # the count; the reason is in the Lost draws list
    assert [(d.case_id, d.arm, d.draw, d.reason) for d in s.lost_draws] == [
        ("c1", "with skill", "3", "timeout after 2 retries")
    ]  # the receipt's third draw (index 2) reads draw 3: people count from 1
    assert "  c1, with skill, draw 3: timeout after 2 retries" in render_text(s)
    # the JSON sheet names it "draw", never "index": the receipt's own index is 2
    assert json.loads(sheet_json(s))["lost_draws"] == [
        {"case_id": "c1", "arm": "with skill", "draw": "3", "reason": "timeout after 2 retries"}
    ]
    # the checks never decide: a lost draw protects the case instead (D-9)
    assert row.verdict == "inconclusive"


def test_control_delta_and_grading_cost_apart() -> None:
    c = case("c1", [0.80, 0.82, 0.84], [0.50, 0.52, 0.54])
    c["arms"]["control"] = case("x", [0.70, 0.72, 0.74], [0.0])["arms"]["with_skill"]
    overhead = {
        "input_tokens": 12000,
        "output_tokens": 800,
        "usd": 0.016,
        "judged_draws_counted": 6,
        "judged_draws_missing_usage": 1,
    }
    arms = {
        n: {"label": None, "instruction": None, "system_prompt_sha256": None}
        for n in ("with_skill", "baseline")
    }
    arms["control"] = {
        "label": "__terse__",
        "instruction": "Answer concisely.",
        "system_prompt_sha256": None,
    }
    s = sheet(read(mk([c], judge_overhead=overhead, arms=arms)))
    # with skill .82 − control .72 = +.100 over one case
    assert s.control_delta == "+0.100 (with skill minus control, equal weight over 1 case)"
    assert s.cases[0].control == "0.720 ± 0.020 (n = 3)"
    cost = facts(s.judge_cost)
    assert cost["judge tokens"] == "12,000 input, 800 output"
    assert cost["grading cost"].startswith("$0.0160")
    assert cost["draws counted"] == "6 counted, 1 with no token counts from the judge"
    skill_side = " ".join([s.lift, s.lift_per_1k, s.control_delta or ""])
    assert "$" not in skill_side and "12,000" not in skill_side
    assert facts(sheet(read(mk([C1]))).judge_cost) == {"grading cost": "not recorded"}


def test_provenance_unknown_stays_unknown() -> None:
    doc = mk([C1])
    doc["run"]["harness"] = {"name": "claude-code", "version": "2.1.272 (Claude Code)"}
    doc["run"]["capture"] = "text"
    p = facts(sheet(read(seal_document(doc))).provenance)
    assert p["harness"] == "claude-code 2.1.272 (Claude Code)" and p["capture mode"] == "text"
    assert p["suite sha256"] == "not recorded" and p["verification level"] == (
        "TESTED: run by Driftproof against the real model under the full method, graded by the "
        "fixed judge; the only level that can earn a verdict"
    )
    assert p["judge"].startswith("claude-haiku-4-5-20251001 (provider anthropic, surface api)")


def test_breakdown_in_the_sheet() -> None:
    b = sheet(read(mk([C1, C2, C3]))).breakdown
    # suite (.30 − .10 − .10)/3 = +.033; without c1: −.100 → c1 carries
    assert b.summary == (
        "Measured lift, equal weight per case over 3 included cases: +0.033",
        "Helps (separates upward): c1",
        "Hurts (separates downward): c2, c3",
        "Carries the positive measured lift: c1 (removing it leaves −0.100)",
    )
    r1 = b.rows[0]
    assert (r1.with_skill, r1.baseline, r1.lift, r1.counts, r1.lift_without, r1.label) == (
        "0.820 ± 0.020",
        "0.520 ± 0.020",
        "+0.300",
        "3/3/0 · 3/3/0",
        "−0.100",
        "helps",
    )
    assert b.rows[1].lift_without == "+0.100"
    s = sheet(read(mk([C1, C2, C3], level="DECLARED")))
    assert s.breakdown.summary[1] == (
        "No case is said to help or hurt, and none is named as carrying the lift: the "
        "receipt's verification level, DECLARED, is below TESTED"
    )  # it read "No helps, hurts or carrier assertion: below TESTED (DECLARED)"


def test_size_limit_keeps_the_sheet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = mk([C1, C2])
    doc.pop("seal")
    path = tmp_path / "r.json"
    write_receipt(body_of(doc), path)
    size = path.stat().st_size
    monkeypatch.setattr(_bounds, "BREAKDOWN_MAX_BYTES", size - 1)
    r = parse_receipt(path.read_bytes(), str(path))
    s = sheet(r, path=path)
    assert not s.breakdown.available and s.breakdown.rows == ()
    assert (
        f"the receipt is {size} bytes, over the lift breakdown's size limit of {size - 1} bytes"
        in s.breakdown.label
    )
    assert facts(s.reading)["reading"] == "regressed" and s.lift == "+0.100" and len(s.cases) == 2
    assert "size limit" in breakdown_document(
        receipt_breakdown(r, path=path), name="r.json", fmt="text"
    )


def test_cli_text_markdown_json_show_the_page_model(tmp_path: Path) -> None:
    doc = mk([C1, C2, case("c3", [0.5, 0.52, None], [0.6, 0.62, 0.64])])
    doc["cases"][2]["arms"]["with_skill"]["draws"][2]["lost"]["reason"] = (
        "c|<b>\x1b[31m"  # untrusted text
    )
    doc.pop("seal")
    path = tmp_path / "r.json"
    write_receipt(body_of(doc), path)
    s = sheet(parse_receipt(path.read_bytes(), str(path)), path=path)
    runner = CliRunner()
    text = runner.invoke(cli, ["view", str(path)])
    assert text.exit_code == 0, text.output
    assert text.output == render_text(s)
    for row in s.cases[:2]:  # every number of the page model is printed
        for value in (row.with_skill, row.baseline, row.lift, row.verdict, row.lost):
            assert value in text.output
    for line in s.breakdown.summary:
        assert line in text.output
    assert s.lift in text.output and s.lift_per_1k in text.output
    assert "\x1b" not in text.output and "c|<b>\\x1b[31m" in text.output
    md = runner.invoke(cli, ["view", str(path), "--format", "markdown"])
    assert md.exit_code == 0 and md.output == render_markdown(s)
    assert "c\\|\\<b\\>\\\\x1b\\[31m" in md.output and "<b>" not in md.output
    js = runner.invoke(cli, ["view", str(path), "--format", "json"])
    assert js.exit_code == 0 and json.loads(js.output) == json.loads(
        json.dumps(dataclasses.asdict(s))
    )


def test_cli_refuses_a_bad_receipt(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    res = CliRunner().invoke(cli, ["view", str(bad)])
    assert res.exit_code != 0


def test_aggregates_only_sheet() -> None:
    doc = mk([case("a", [], [])])
    for c in doc["cases"]:
        c["arms"]["with_skill"]["draws"] = c["arms"]["baseline"]["draws"] = []
    doc["judge"] = None
    doc["uncertainty_unavailable"] = "aggregates_only"
    doc["source_figures"] = {"source": "test"}
    s = sheet(read(seal_document(doc)))
    assert s.lift == "n/a" and s.lift_per_1k == "n/a (400 skill tokens)"
    assert s.breakdown.summary == () and s.breakdown.label == (
        "Lift by case: unavailable, aggregates only: the source printed figures and no draw score"
    )


class _Rows(HTMLParser):
    """Text of each ``<tr>`` of each ``<table>`` of a page, keyed by table id, plus <p> texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[str]] = {}
        self.paragraphs: list[str] = []
        self._table: str | None = None
        self._row: list[str] | None = None
        self._p: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._table = dict(attrs).get("id") or ""
            self.tables[self._table] = []
        elif tag == "tr":
            self._row = []
        elif tag in ("p", "dd"):
            self._p = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr" and self._row is not None and self._table is not None:
            self.tables[self._table].append(" ".join(" ".join(self._row).split()))
            self._row = None
        elif tag in ("p", "dd") and self._p is not None:
            self.paragraphs.append(" ".join("".join(self._p).split()))
            self._p = None

    def handle_data(self, data: str) -> None:
        if self._row is not None:
            self._row.append(data)
        if self._p is not None:
            self._p.append(data)


def _decimals(text: str) -> list[str]:
    return re.findall(r"[+\u2212-]?\d+\.\d+", text)


def test_site_page_and_cli_sheet_show_the_same_numbers(tmp_path: Path) -> None:
    from driftproof.site import build_site_files

    doc = mk([C1, C2, case("c3", [0.50, 0.52, None], [0.60, 0.62, 0.64])])
    doc.pop("seal")
    path = tmp_path / "r.json"
    write_receipt(body_of(doc), path)
    cli_text = CliRunner().invoke(cli, ["view", str(path)]).output
    page = build_site_files(
        {"r": path.read_bytes()},
        [],
        nav=[],
    )["receipts/r/index.html"].decode("utf-8")
    html = _Rows()
    html.feed(page)
    for cid in ("c1", "c2", "c3"):
        cli_rows = [line for line in cli_text.splitlines() if line.startswith(f"  {cid} ")]
        assert len(cli_rows) == 2  # the case table, then the breakdown table
        site_case = next(t for t in html.tables["table-cases-r"] if t.startswith(cid + " "))
        site_bd = next(t for t in html.tables["table-breakdown-r"] if t.startswith(cid + " "))
        assert _decimals(cli_rows[0]) == _decimals(site_case) and _decimals(site_case)
        assert _decimals(cli_rows[1]) == _decimals(site_bd) and _decimals(site_bd)
    # c1 by hand: .820 ± .020 and .520 ± .020, lift +.300; without c1 (−.10 − .11)/2 = −.105
    c1_bd = next(t for t in html.tables["table-breakdown-r"] if t.startswith("c1 "))
    assert _decimals(c1_bd) == ["0.820", "0.020", "0.520", "0.020", "+0.300", "−0.105"]
    # the suite lift, per 1,000 tokens, reading and breakdown summary: the same words in both
    for needle in (
        "+0.030",
        "value per 1,000 skill tokens +0.075",
        "regressed",
        "Measured lift, equal weight per case over 3 included cases: +0.030",
        "No case is named as carrying the lift: an included case lost draws",
    ):
        assert needle in cli_text and any(needle in p for p in html.paragraphs), needle


def test_size_bytes_decides_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    r = read(mk([C1, C2]))
    monkeypatch.setattr(_bounds, "BREAKDOWN_MAX_BYTES", 1000)
    assert sheet(r, size_bytes=1000).breakdown.available
    assert sheet(r, size_bytes=1001).breakdown.label.startswith(
        "Lift by case: unavailable, the receipt is 1001 bytes, "
        "over the lift breakdown's size limit of 1000 bytes"
    )


def test_a_receipt_without_judged_scores_claims_no_band_source(tmp_path):
    # caveman-style: answers and tokens, no judge, no score -> no band, so no band source is shown
    import json as _json

    from receipt_docs import receipt_doc, seal_document

    from driftproof.pages.sheet import sheet
    from driftproof.receipt import parse_receipt

    arm = {
        "draws": [
            draw_doc(0, answer="a", tokens={"input": None, "output": 3, "counted_by": "o200k_base"})
        ],
        "generation": None,
    }
    doc = receipt_doc(
        level="DECLARED",
        skill_name="s",
        skill_text="x",
        model="m",
        cases=[
            {
                "id": "p01",
                "prompt": "q",
                "prompt_sha256": None,
                "rubric_sha256": None,
                "threshold": None,
                "arms": {"with_skill": arm, "baseline": arm},
            }
        ],
    )
    s = sheet(parse_receipt(_json.dumps(seal_document(doc)).encode()))
    assert s.legend == "none (no judged score): the receipt has no band"
    assert ("band source", s.legend) in [(f.label, f.value) for f in s.provenance]


def test_a_figure_not_printed_shows_one_character_on_the_sheet_and_the_site() -> None:
    """A figure the source did not print is ``–`` on the sheet and on the site's figure table.

    A committed NVIDIA card's first printed row with its uplift taken out: the sheet's uplift
    cell and the site's figure-table uplift cell (and the row of a card with no figure) agree.
    """
    from driftproof.pages.printed_figures import figure_rows, printed_rows

    path = sorted((Path(__file__).parents[1] / "receipts").glob("nvidia-*.json"))[0]
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["source_figures"]["rows"] = [dict(doc["source_figures"]["rows"][0], uplift=None)]
    r = Receipt.model_validate(doc)
    (row,) = figure_rows("s", printed_rows(r) or [])
    assert sheet(r).source_figures[0].uplift == row[5][0] == "–"
    assert figure_rows("s", [])[0][4:6] == (("–", ""), ("–", ""))


def test_a_negative_zero_uplift_keeps_its_sign_in_the_figure_download() -> None:
    """NVIDIA's benchmarks.json prints the codex Effectiveness uplift of
    accelerated-computing-cudf as ``-0.0`` (``"uplift_pct": -0.0``); the download's "Uplift as
    printed" column gives ``-0.0`` as the page does, not the sealed value's ``0.0``.
    """
    from driftproof.pages.printed_figures import figure_rows, printed_rows

    path = Path(__file__).parents[1] / "receipts" / "nvidia-7149a88-accelerated-computing-cudf.json"
    r = Receipt.model_validate(json.loads(path.read_text(encoding="utf-8")))
    rows = {(x[1][0], x[3][0]): x for x in figure_rows("s", printed_rows(r) or [])}
    assert rows["Effectiveness", "codex"][5] == ("-0.0", "-0.0")
    assert rows["Security", "codex"][5] == ("0.0", "0.0")
    assert rows["Security", "claude-code"][5] == ("12.0", "12.0")
