"""The committed site against the site as it was before issue 35 (its files' sha256 in
``data/site-baseline.sha256``, search index left out): byte-identical but for the files
listed here, each with why it changed."""

from __future__ import annotations

import hashlib
from fnmatch import fnmatch
from pathlib import Path

import pytest
from site_fixtures import REPO

from driftproof.site import build_site

BASELINE = Path(__file__).parent / "data" / "site-baseline.sha256"

#: Every file that differs from the baseline (a path, or a pattern of paths), and why.
CHANGED = {
    # receipt schema 0.16 (a new version, listed and served)
    "spec/0.16/receipt.schema.json": "schema 0.16 added",
    "spec/SHA256SUMS": "schema 0.16 added",
    "spec/index.json": "schema 0.16 added",
    "spec/receipt.schema.json": "schema 0.16 added",
    # issue 35, reader fixes
    "*.html": "every page: the navigation is one list (site name first, two lines on a phone: "
    "Reports, Results, Receipts, Method, Neutrality, Interop, Receipt spec, Search; the readings "
    "page linked from the method's glossary instead) and every link names index.html (file://); "
    "receipt pages and reports 003 to 005: what a source did not record is named in words, not "
    "by receipt field (run.model reads model), and caveman's __terse__ arm reads the terse "
    "control; reports name no receipt field in their prose, captions or footer; an import's "
    "unrecorded row parts its fields with ';' (their words hold commas); the interop page "
    "says how promptfoo imports are named and what a single-arm import leaves out",
    "reports/004/report.json": "the skill-fired table's caption names no receipt field; the "
    "breakdown's columns",
    "reports/004/SHA256SUMS": "its report.json and breakdown CSV",
    "assets/site.css": "phone tables lead with receipt, skill and headline figure; navigation; "
    "column heads wrap, a long table scrolls in a box under a header that stays; on a phone "
    "the specification's fields table reads as a list; a date stays on one line; a sort button's "
    "arrow; a cell of one figure per arm wraps between them; a lost draw's reason wraps anywhere; "
    "a caption stays clear of its box's right-edge shadow; on a phone the lead tables' text "
    "lines are whole pixels (the sticky column's borders meet the rows') and a name breaks at "
    "its hyphens first; on a phone every scrolled table's rows are whole pixels tall too; the "
    "headline tables' lead three fit their box at any phone width, a folded group's box too",
    # wide tables: a sort button heads one column, a group's heading over several none
    "assets/sort.js": "columns counted across two header rows; each button titled Sort by …, "
    "with an arrow; a head reached by Tab is scrolled whole into its table's box",
    # the narrow chart labels a tick below 0 where its whiskers reach (-18%)
    "reports/001/chart-token-savings-narrow.svg": "a labelled tick below 0",
    "reports/001/chart-token-savings-narrow-dark.svg": "a labelled tick below 0",
    "reports/001/SHA256SUMS": "its narrow charts, its CSV and report.json",
    "sitemap.xml": "every page's address, the generated ones too (method.html, not method/); "
    "no lastmod (it was the build's fixed date for every page)",
    "sitemap.xml.gz": "every page's address; no lastmod",
    # issue 37: a badge's details carry no draw count of their own (it contradicted plan's)
    "badge/*.details.json": "no draws_needed or no_draw_count_reaches_floor member; the "
    "refusal names which test refused (below TESTED), no longer the reason's sentence again",
    # issue 36: caveman's judged fidelity snapshots (two receipts) and report 005
    "receipts/caveman-5c7e19a-judged-fidelity-caveman.json": "new receipt",
    "receipts/caveman-902028f-judged-fidelity-caveman.json": "new receipt",
    "badge/caveman-5c7e19a-judged-fidelity-caveman.json": "new receipt's badge",
    "badge/caveman-5c7e19a-judged-fidelity-caveman.svg": "new receipt's badge",
    "badge/caveman-902028f-judged-fidelity-caveman.json": "new receipt's badge",
    "badge/caveman-902028f-judged-fidelity-caveman.svg": "new receipt's badge",
    "receipts/SHA256SUMS": "two new receipts",
    "reports/005/SHA256SUMS": "report 005",
    "reports/005/cases-caveman-5c7e19a-judged-fidelity-caveman.csv": "report 005; its checks "
    "cells count the facts apart from the verbatim check",
    "reports/005/cases-caveman-902028f-judged-fidelity-caveman.csv": "report 005; as above",
    "reports/005/caveman-5c7e19a-judged-fidelity-caveman-fidelity-arms.csv": "report 005; the "
    "arm is named with skill, as everywhere else on its sheet",
    "reports/005/caveman-902028f-judged-fidelity-caveman-fidelity-arms.csv": "report 005; as above",
    "reports/005/report.json": "report 005; its tables as above, its fidelity caption says the "
    "facts are the rubric's",
    "feed.xml": "report 005 is the newest entry; each entry links its report page (index.html)",
    # draw numbers count from 1 where people read them: report 003's lost draw, index 0, is draw 1
    "reports/003/lost-skill-creator-nebius-skills-iteration-1-12a0aae8.csv": "lost draw 1, "
    "under the heading draw numbers",
    "reports/003/report.json": "its lost-draws table reads draw 1",
    "reports/003/SHA256SUMS": "its CSV and report.json",
    # a lift that rounds to zero reads +0.000 as the badge, diff and the run summary print it
    "reports/003/breakdown-skill-creator-nebius-skills-iteration-1-12a0aae8.csv": "+0.000",
    "reports/003/cases-skill-creator-nebius-skills-iteration-1-12a0aae8.csv": "+0.000; its lost "
    "draws cell counts them (the reason is in the lost-draws table)",
    # a case whose arms record no output tokens reads "not recorded", not "– / –"
    "reports/004/cases-claude-plugin-eval-probe-plugin-8955eb63.csv": "output tokens not recorded",
    # report 001: a saving of totals column; the terse control's ratio of totals moves into it
    "reports/001/token-savings.csv": "saving of totals column",
    "reports/001/report.json": "its savings table's saving of totals column and caption",
    # the lift breakdown's columns in plain words, its label column left out when no case may be
    # given a label
    "reports/004/breakdown-claude-plugin-eval-probe-plugin-8955eb63.csv": "breakdown columns",
    # a band chart says "judge score" only where the receipt names its judge's model: report
    # 003's grader is unnamed, report 004's a regular expression, so their axes read "mean score"
    **{
        f"reports/{n}/{name}-chart-bands{v}.svg": "axis reads mean score, not on the judge scale"
        for n, name in (
            ("003", "skill-creator-nebius-skills-iteration-1-12a0aae8"),
            ("004", "claude-plugin-eval-probe-plugin-8955eb63"),
        )
        for v in ("", "-dark", "-narrow", "-narrow-dark")
    },
    # report 002's download gives an uplift the source printed as -0.0 as -0.0, as the page does
    "reports/002/source-figures.csv": "-0.0 as printed",
    "reports/002/report.json": "-0.0 as printed",
    "reports/002/SHA256SUMS": "its CSV and report.json",
    # every chart's bars edged in its text colour (the light orange fill was 2.25:1 on white);
    # report 001's narrow charts and the band charts of 003 and 004 are listed above
    "reports/001/chart-token-savings.svg": "bars edged in the text colour",
    "reports/001/chart-token-savings-dark.svg": "bars edged in the text colour",
}

#: Hand-written pages now written as NAME.html, not NAME/index.html (use_directory_urls: false).
MOVED = ("decisions", "interop", "method", "neutrality", "receipt-spec", "search")


def test_the_committed_site_differs_from_the_baseline_only_where_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")  # as `make reports` sets it
    out = tmp_path / "site"
    build_site(REPO / "receipts", REPO / "reports", out, config_file=REPO / "mkdocs.yml")
    before = {}
    for line in BASELINE.read_text(encoding="utf-8").splitlines():
        digest, path = line.split("  ", 1)
        before[path] = digest
    for name in MOVED:
        before[f"{name}.html"] = before.pop(f"{name}/index.html")
    now = {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in out.rglob("*")
        if p.is_file() and not p.relative_to(out).as_posix().startswith("pagefind/")
    }
    differ = {p for p in before.keys() | now.keys() if before.get(p) != now.get(p)}
    unexplained = sorted(p for p in differ if not any(fnmatch(p, k) for k in CHANGED))
    assert unexplained == []
    # every page changed (navigation), and no data file but those listed: receipts, badges,
    # CSV, report JSON, charts and sums are byte for byte as before
    assert {p for p in now if p.endswith(".html")} <= differ
    data = sorted(p for p in differ if not p.endswith(".html"))
    assert [p for p in data if not p.endswith(".details.json")] == sorted(
        k for k in CHANGED if "*" not in k
    )
