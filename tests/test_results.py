"""The results page model and page (issue 9; D-7, D-14; method "A smoke run gives no verdict").

Readings and lifts are worked out by hand from the per-draw scores (see tests/test_badge.py for
the same bands): PASSING lifts +0.30 with 400 skill tokens -> +0.75 per 1,000 tokens.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from factories import JUDGE, case, imported, make_receipt

from driftproof.pages.results import RESULTS_PAGE, results_rows, rows_and_badge_files
from driftproof.receipt import Receipt, read_receipt
from driftproof.site.html import results_page_from_rows

ROOT = Path(__file__).resolve().parents[1]
PASSING = [case("c1", [0.80, 0.85, 0.90], [0.50, 0.55, 0.60])]
REGRESSED = [case("c1", [0.50, 0.55, 0.60], [0.80, 0.85, 0.90])]


def receipt(
    cases: list[dict[str, Any]], *, skill: str = "demo-skill", model: str | None = None, **kw: Any
) -> Receipt:
    doc = make_receipt(copy.deepcopy(cases), **kw)
    doc["skill"]["name"] = skill
    if model is not None:
        doc["run"]["model"] = model
    return Receipt.model_validate(
        doc
    )  # the model alone: these tests are about the page, not the seal


def receipts() -> dict[str, Receipt]:
    return {
        "zeta-pass": receipt(PASSING, skill="zeta"),
        "alpha-smoke": receipt(PASSING, skill="alpha", level="UNVERIFIED", preset="quick"),
        "alpha-reg": receipt(REGRESSED, skill="alpha", model="claude-haiku-4-5"),
        "beta-agg": receipt(
            [],
            skill="beta",
            level="DECLARED",
            uncertainty_unavailable="aggregates_only",
            source_figures={"source": "test"},
            band_source=None,
        ),
        "beta-declared": receipt(PASSING, skill="Beta", level="DECLARED"),
    }


def test_rows_in_server_side_order() -> None:
    rows = results_rows(receipts())
    # measured runs first (skill case-insensitive, then model, then receipt); then the rest by
    # source ("printed aggregates" < "smoke run") (issue 15: the page leads with what was measured)
    assert [r.receipt for r in rows] == [
        "alpha-reg",
        "beta-declared",
        "zeta-pass",
        "beta-agg",
        "alpha-smoke",
    ]
    assert [r.measured for r in rows] == [True, True, True, False, False]


def test_row_values() -> None:
    rows = {r.receipt: r for r in results_rows(receipts())}
    p = rows["zeta-pass"]
    assert (p.skill, p.model, p.surface, p.level, p.band_source) == (
        "zeta",
        "claude-sonnet-4-5",
        "api",
        "TESTED",
        "bands across draws",
    )
    assert (p.reading, p.lift_text, p.value_text) == ("passing", "+0.300", "+0.750")
    assert p.lift == pytest.approx(0.30) and p.value_per_1k == pytest.approx(0.75)
    assert not p.context_only
    assert p.sheet_url == "receipts/zeta-pass/"
    assert rows["alpha-reg"].reading == "regressed" and rows["alpha-reg"].lift_text == "−0.300"
    smoke = rows["alpha-smoke"]
    assert smoke.reading == "Smoke run, no verdict" and smoke.smoke and smoke.context_only
    agg = rows["beta-agg"]
    assert (agg.reading, agg.band_source, agg.lift_text, agg.value_text) == (
        "no verdict",
        "none (aggregates only)",
        "–",
        "–",
    )
    dec = rows["beta-declared"]
    assert dec.reading == "no verdict" and dec.lift_text == "+0.300" and dec.context_only


class _Table(HTMLParser):
    """Collects the results table's body rows as cell texts, with links and data-sort values."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.links: list[str] = []
        self.sorts: list[str] = []
        self.scripts = 0
        self._in_body = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and "src" not in a:
            self.scripts += 1
        if tag == "tbody":
            self._in_body = True
        elif self._in_body and tag == "tr":
            self.rows.append([])
        elif self._in_body and tag in ("td", "th"):
            self._cell = []
            if a.get("data-sort"):
                self.sorts.append(a["data-sort"] or "")
        elif self._in_body and tag == "a":
            self.links.append(a.get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._in_body = False
        elif tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def results_page(rs: dict[str, Receipt], env: Any) -> bytes:
    return results_page_from_rows(results_rows(rs), env)


def results_site_files(rs: dict[str, Receipt], env: Any) -> dict[str, bytes]:
    # as the site builds them: each receipt's row and badge files, then the page from the rows
    rows, badges = rows_and_badge_files(rs)
    return {RESULTS_PAGE: results_page_from_rows(rows, env), **badges}


def _env() -> Any:
    from driftproof.site.html import page_env

    env = page_env()
    env.globals.update(site_name="Driftproof", site_nav=[{"title": "Results", "url": "results/"}])
    return env


def test_page_reads_without_javascript_and_links_each_sheet() -> None:
    html = results_page(receipts(), _env()).decode()
    t = _Table()
    t.feed(html)
    assert t.scripts == 0  # no inline script; only the optional sort.js
    order = ["alpha-reg", "beta-declared", "zeta-pass", "beta-agg", "alpha-smoke"]
    assert [r[0] for r in t.rows] == order
    # measured (issue 35: receipt, skill and headline figure first): receipt, skill, lift,
    # reading (with why), per 1,000 tokens, model, surface, level, band source, counts
    zeta = t.rows[2]
    assert zeta[:3] == ["zeta-pass", "zeta", "+0.300"] and zeta[3].startswith("passing")
    assert zeta[4:8] == ["+0.750", "claude-sonnet-4-5", "api", "TESTED"]
    assert zeta[8] == "bands across draws"
    # imports and smoke runs: receipt, skill, headline figure, model, level, reading, band source
    assert (
        t.rows[4][2] == "lift +0.300 (context only: a smoke run)"
        and t.rows[4][5] == "Smoke run, no verdict"
    )
    assert t.rows[3][2] == "no uplift printed" and t.rows[3][5:] == [
        "no verdict",
        "none (aggregates only)",
    ]
    assert t.links == [f"../receipts/{n}/index.html" for n in order]
    # numeric cells carry data-sort for the progressive-enhancement sort
    assert [float(s) for s in t.sorts][:2] == [pytest.approx(-0.30), pytest.approx(-0.75)]
    assert "Measured runs, by skill" in html and html.index("Measured runs") < html.index(
        "Imports, printed aggregates"
    )
    # no row is only dashes
    assert all(any(c not in ("", "–") for c in r[1:]) for r in t.rows)
    assert 'class="sortable stack"' in html
    # passing is a receipt's reading over its cases (zeta-pass: c1 separated upward, none down)
    assert (
        "A receipt reads <em>passing</em> when at least one of its cases separated upward under "
        "the rule (with the skill above without it) and none downward, and <em>regressed</em> "
        "when a case separated downward: it counts the receipt's cases, not draws or checks, "
        "and passing does not mean every case passed."
    ) in html


def test_page_escapes_untrusted_text() -> None:
    evil = receipt(PASSING, skill='<script>alert("x")</script>', model="<b>m</b>")
    html = results_page({"evil": evil}, _env()).decode()
    assert "<script>alert" not in html and "<b>m</b>" not in html
    assert "&lt;script&gt;" in html


def test_site_files_include_badges_per_receipt() -> None:
    files = results_site_files(receipts(), _env())
    assert RESULTS_PAGE in files
    assert json.loads(files["badge/alpha-smoke.json"]) == {
        "schemaVersion": 1,
        "label": "driftproof",
        "message": "Smoke run, no verdict",
        "color": "lightgrey",
    }
    assert json.loads(files["badge/zeta-pass.json"])["message"] == "passing"
    assert len([p for p in files if p.startswith("badge/")]) == 3 * 5


def test_each_receipt_is_read_once_for_its_row_and_badge_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 19: the row and the three badge files share one reading per receipt; with a
    # reading per file (as before) five receipts were read 20 times. The files are the same.
    import driftproof.pages.badge as badge_mod
    import driftproof.pages.results as results_mod

    before = results_site_files(receipts(), _env())
    calls: list[str] = []
    real = badge_mod.badge_reading

    def counted(r: Receipt) -> Any:
        calls.append(r.skill.name)
        return real(r)

    monkeypatch.setattr(badge_mod, "badge_reading", counted)
    monkeypatch.setattr(results_mod, "badge_reading", counted)
    assert results_site_files(receipts(), _env()) == before
    assert len(calls) == 5


def test_committed_receipts_all_read_no_verdict() -> None:
    # The committed caveman receipts are DECLARED imports with no judge: no verdict, no lift (D-15).
    paths = sorted((ROOT / "receipts").glob("*.json"))
    if not paths:
        pytest.skip("no committed receipts")
    rows = results_rows({p.stem: read_receipt(p) for p in paths})
    assert len(rows) == len(paths)
    for r in rows:
        if r.level != "TESTED":
            assert r.reading in ("no verdict", "Smoke run, no verdict")


def test_imports_show_the_headline_figure_their_source_printed() -> None:
    # Issue 15: no row is only dashes. The figures are the sources' own: caveman's measure.py
    # gives a median saving of 50% against the terse control and 45% against the baseline on
    # snapshot 2b10489 (Report 001); skill-creator's benchmark.json summary prints mean pass
    # rates 0.689 (9 runs with the skill) and 0.585 (8 runs without it) (Report 003).
    names = [
        "caveman-2b10489-caveman",
        "skill-creator-nebius-skills-iteration-1-12a0aae8",
        "nvidia-7149a88-doca-flow",
    ]
    rows = {
        r.receipt: r
        for r in results_rows({n: read_receipt(ROOT / "receipts" / f"{n}.json") for n in names})
    }
    assert not any(r.measured for r in rows.values())
    assert rows["caveman-2b10489-caveman"].headline.startswith(
        "median output-token saving +50% against the control, +45% against the baseline (10 cases"
    )
    # The two means are over different cases (case 2 has no scored run without the skill), so
    # 0.689 - 0.585 = +0.104 is no lift; the lift beside them is over the 8 cases with a run in
    # both arms, by hand from the receipt's per-case pass rates: (0.6 + 0.2 + 0 + 0 + 0.4 - 0.6
    # + 0.75 - 0.833) / 8 = +0.065, as the receipt's page and badge say.
    assert rows["skill-creator-nebius-skills-iteration-1-12a0aae8"].headline == (
        "mean pass rate with the skill 0.689 over 9 cases, one scored draw each; without it "
        "0.585 over 8 cases, one scored draw each (over different cases, so not to be "
        "subtracted; lift over the 8 cases measured in both arms "
        "+0.065)"
    )
    nvidia = rows["nvidia-7149a88-doca-flow"].headline
    # benchmarks.json's own summary figure for doca-flow, average_uplift_pct 40.6 (its ten
    # uplifts 0 + 0 + 55 + 50 + 23 + 45 + 73 + 75 + 23 + 62 = 406, over 10), leads; its first
    # two rows (Security, 0.0 for both agents) led before, read as the skill's figure; the ten
    # are on the receipt's page (a row of all ten made the index 332,745 px tall on a phone)
    assert nvidia == (
        "the source's average uplift 40.6 percentage points; its 10 uplifts, by dimension and "
        "agent, on its page"
    )
    assert " percentage points" in nvidia and " %" not in nvidia


def test_band_source_and_counts_come_from_the_receipt_fields() -> None:
    # Report 003's receipt records no band source and no counts, and holds no judge sample: the
    # page must not restate the legacy legend ("judged several times") for it (issue 15, item 5).
    from driftproof.pages.band_sources import band_facts

    r = read_receipt(ROOT / "receipts/skill-creator-nebius-skills-iteration-1-12a0aae8.json")
    f = band_facts(r)
    # one wording for one shape: a receipt that records its source as bands across draws and
    # holds one scored draw per arm read "one scored draw per arm, no spread" beside this
    assert f.short == "not recorded (one scored draw per arm, no spread)"
    assert f.draws == "not recorded; the receipt holds 1 per case and arm"
    assert (
        f.judge_samples
        == "not recorded; the receipt holds no judge sample (each score as the source gave it)"
    )
    assert "several times" not in f.source
    recorded = receipt(PASSING)  # band_source generation, 3 draws per arm, each judged by samples
    g = band_facts(recorded)
    assert g.short == "bands across draws" and g.source.startswith(
        "bands across draws: the band is the spread of the per-draw scores"
    )
    assert "several" not in g.source  # a one-draw arm (Report 004) must not read as several draws
    # a run whose stopping rule drew 3 draws for one arm and 4 for another records no count:
    # "varies", as the sheet says it, not "not recorded"
    adaptive = band_facts(receipt([case("c1", [0.8, 0.85, 0.9, 0.8], [0.5, 0.55, 0.6])]))
    assert adaptive.draws == "varies; the receipt holds 3 to 4 per case and arm"


def test_a_run_that_measured_nothing_sits_with_the_imports_labelled_not_measured() -> None:
    """D-17 (issue 33, item 5; issue 35): a TESTED run whose six draws were all lost (the
    factory's reason, "timeout after 2 retries") is never listed under measured runs."""
    nothing = receipt([case("c1", [None, None, None], [None, None, None])], skill="zeta")
    rows = results_rows({**receipts(), "zeta-nothing": nothing})
    row = next(r for r in rows if r.receipt == "zeta-nothing")
    why = "not measured: 6 of 6 draws lost to timeout after 2 retries"
    assert (row.measured, row.source, row.reading, row.status) == (
        False,
        "not measured",
        "not measured",
        "no verdict",
    )
    assert (row.headline, row.reason) == (why, why)
    html = results_page({**receipts(), "zeta-nothing": nothing}, _env()).decode()
    t = _Table()
    t.feed(html)
    # after the measured runs, among the other sources by name ("not measured" < "printed …")
    order = ["alpha-reg", "beta-declared", "zeta-pass", "zeta-nothing", "beta-agg", "alpha-smoke"]
    assert [r[0] for r in t.rows] == order
    # imports and smoke runs (issue 35): receipt, skill, headline figure, model, level, reading
    assert t.rows[3][2] == why and t.rows[3][5] == "not measured"
    assert html.index("zeta-nothing") > html.index("Imports, printed aggregates")


@pytest.mark.parametrize(
    ("provider", "grader", "said"),
    [
        ("stub", "anthropic", "no model answered: the stub provider's fixed answers"),
        # a model's answers graded by the stub (run --judge-provider stub) were listed as measured
        ("openai", "stub", "no model graded: the stub judge's fixed scores"),
    ],
)
def test_a_stub_run_sits_with_the_imports_saying_no_model_answered(provider, grader, said) -> None:
    # the stub answers from fixed text and grades by a hash of the request: its lift measures no
    # model (README: "no request made to a model"), so it is never listed under measured runs
    judge = {**JUDGE, "provider": grader}
    stub = receipt([case("c1", [0.9, 0.8, 0.85], [0.5, 0.55, 0.45])], skill="zeta", judge=judge)
    stub = stub.model_copy(update={"run": stub.run.model_copy(update={"provider": provider})})
    rows = results_rows({**receipts(), "zeta-stub": stub})
    row = next(r for r in rows if r.receipt == "zeta-stub")
    assert (row.measured, row.source, row.headline) == (False, "stub run", said)
    html = results_page({**receipts(), "zeta-stub": stub}, _env()).decode()
    assert html.index("zeta-stub") > html.index("Imports, printed aggregates")


def test_simulated_runs_are_never_headed_or_captioned_measured() -> None:
    # the demo's site (every page under "SIMULATED DATA: ... nothing here is a measurement")
    # headed its runs "Measured runs, by skill" and captioned each "every measured receipt"
    def simulated(r: Receipt) -> Receipt:
        return r.model_copy(update={"run": r.run.model_copy(update={"provider": "simulated"})})

    demo = {"v1": simulated(receipt(PASSING)), "v2": simulated(receipt(REGRESSED))}
    html = results_page(demo, _env()).decode()
    assert (
        '<h2 id="measured-h">Simulated runs, by skill (drawn at random, not measured)</h2>' in html
    )
    assert (
        "demo-skill: every simulated receipt (drawn at random, not a measurement), by model and "
        "receipt"
    ) in html
    assert "measured receipt" not in html and "Measured runs" not in html
    # each row's reading repeated the long reason the caption already says; its first clause
    # stays (these runs' answers are simulated and another judge scored them)
    assert html.count('<span class="meta">simulated: no model answered</span>') == 2
    assert "drew these answers at random" not in html
    # nothing but runs: no empty section of imports
    assert "Imports, printed aggregates" not in html
    # beside a measured run, the heading says both, and a measured-only page is unchanged
    mixed = results_page({**demo, "real": receipt(PASSING, skill="zeta")}, _env()).decode()
    assert '<h2 id="measured-h">Runs, by skill: measured, and simulated at random</h2>' in mixed
    # each group's caption says what its own receipts are: zeta's one receipt is measured
    assert "demo-skill: every simulated receipt (drawn at random, not a measurement)" in mixed
    assert "zeta: every measured receipt, by model and receipt" in mixed
    both = results_page({**demo, "real": receipt(PASSING)}, _env()).decode()
    assert "demo-skill: every receipt, measured or simulated at random, by model" in both
    real = results_page({"real": receipt(PASSING)}, _env()).decode()
    assert '<h2 id="measured-h">Measured runs, by skill</h2>' in real
    assert "demo-skill: every measured receipt, by model and receipt" in real


def test_a_group_counts_its_receipts_in_words() -> None:
    row = results_rows({"a": receipt(PASSING)})[0]
    one = dataclasses.replace(row, measured=False, source="one-tool")
    many = [dataclasses.replace(one, source="big-tool", receipt=f"r{i}") for i in range(1000)]
    html = results_page_from_rows([one, *many], _env()).decode()
    assert 'one-tool <span class="meta">(1 receipt)</span>' in html
    assert 'big-tool <span class="meta">(1,000 receipts)</span>' in html
    assert "<summary>Show all 1,000 receipts from big-tool</summary>" in html


def test_a_run_summary_import_shows_the_deltas_its_source_printed(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # agentskills.io's benchmark.json prints run_summary.delta: pass_rate 0.50, time_seconds
    # 13.0, tokens 1700; the row said "no uplift printed"
    spec = shared / "data/interop/skill-creator/agentskills-spec-examples/benchmark.json"
    path = imported("skill-creator", spec, tmp_path, capsys)
    (row,) = results_rows({"spec": read_receipt(path)})
    assert row.headline == (
        "delta as printed: pass_rate 0.5; time_seconds 13.0; and 1 more on its page"
    )


def test_the_imports_caption_does_not_say_every_figure_was_printed_by_its_source() -> None:
    # the caption said "each receipt's headline figure as its source printed it" over a mean
    # worked out from the scores (skill-validator's "mean score with the skill 1.000" rescales
    # its judge's 1 to 5 scores; its own figure is "Improvement score 76.0%")
    name = "skill-creator-nebius-skills-iteration-1-12a0aae8"
    r = read_receipt(ROOT / "receipts" / f"{name}.json")
    html = results_page({name: r}, _env()).decode()
    assert "headline figure as its source printed it<" not in html
    assert (
        "each receipt's headline figure, as its source printed it or worked out from what it "
        in html
    )


def test_a_model_not_recorded_reads_as_on_every_other_page() -> None:
    # the results table showed "–" for a model the receipts index and the sheet call "not recorded"
    name = "claude-plugin-eval-probe-plugin-8955eb63"
    (row,) = results_rows({name: read_receipt(ROOT / "receipts" / f"{name}.json")})
    assert (row.model, row.surface) == ("not recorded", "cli")


def test_the_value_per_token_column_has_the_sheets_and_the_methods_name() -> None:
    # "value per 1,000 skill tokens" on the sheet, in view and in the method's glossary; the
    # results page's intro and column said "value per 1,000 tokens"
    html = results_page(receipts(), _env()).decode()
    assert '<th scope="col" class="num">value per 1,000 skill tokens</th>' in html
    assert "per 1,000 tokens" not in html
