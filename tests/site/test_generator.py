"""The pure generator: build_site_files on fixture receipts and reports (no mkdocs)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from site_fixtures import load_inputs
from site_html import cells_of_row, table_rows

from driftproof.receipt import known_versions, schema_bytes
from driftproof.receipt._canonical import canonical_schema_bytes
from driftproof.site import build_site_files

NAV = [{"title": "Reports", "url": ""}, {"title": "Method", "url": "method/"}]


@pytest.fixture(scope="module")
def files(shared_site_inputs: tuple[Path, Path]) -> dict[str, bytes]:
    inputs = load_inputs(*shared_site_inputs)
    return build_site_files(inputs.receipts, inputs.reports, nav=NAV)


def test_every_expected_path_is_generated(files: dict[str, bytes]) -> None:
    for path in (
        "reports/001/index.html",
        "reports/002/index.html",
        "reports/latest/index.html",
        "reports/001/token-savings.csv",
        "reports/001/output-tokens-per-case.csv",
        "reports/001/report.json",
        "reports/001/SHA256SUMS",
        "reports/001/chart-token-savings.svg",
        "reports/001/chart-token-savings-dark.svg",
        "receipts/alpha.json",
        "receipts/alpha/index.html",
        "receipts/index.html",
        "receipts/SHA256SUMS",
        "spec/receipt.schema.json",
        "spec/index.json",
        "spec/SHA256SUMS",
        "spec/versions/index.html",
        "feed.xml",
        "results/index.html",
        "badge/alpha.json",
        "badge/tested.details.json",
    ):
        assert path in files, path


def test_token_savings_table_holds_hand_worked_values(files: dict[str, bytes]) -> None:
    html = files["reports/001/index.html"].decode()
    rows = {tuple(c[:2]): c for c in table_rows(html, "table-token-savings")}
    # alpha vs control: savings 0.50, 0.50, -0.50 → median +50%, mean +17%, min −50%, max +50%;
    # totals 170 skill tokens vs 220 control tokens: 1 - 170/220 = .227 → +23% of totals.
    assert rows["alpha", "vs terse control"][2:6] == ["+50%", "+17%", "\u221250%", "+50%"]
    assert rows["alpha", "vs terse control"][7:] == ["3", "170", "220", "+23%"]
    # the control alone: 220 tokens against the baseline's 80 + 40 + 100 = 220 → +0%, a saving
    # of totals only, with no per-case figure
    assert rows["terse control alone", "vs baseline"][2:] == ["–"] * 6 + ["220", "220", "+0%"]
    # beta vs control: 0.75, 0.25, 0.50 → median +50%, min +25%, max +75%; stdev 0.25 → 25%.
    assert rows["beta", "vs terse control"][2:7] == ["+50%", "+50%", "+25%", "+75%", "25%"]
    # alpha vs baseline: 1-50/80 = .375, 1-30/40 = .25, 1-90/100 = .10 → median +25%.
    assert rows["alpha", "vs baseline"][2] == "+25%"
    case = cells_of_row(html, "case-q1")
    assert case[:4] == ["q1", "80", "100", "50"]


def test_csv_and_json_hold_the_tables_at_full_precision(files: dict[str, bytes]) -> None:
    rows = list(csv.reader(io.StringIO(files["reports/001/token-savings.csv"].decode())))
    assert rows[0][:3] == ["skill", "against", "median"]
    beta = next(r for r in rows if r[:2] == ["beta", "vs terse control"])
    assert float(beta[2]) == pytest.approx(0.5) and float(beta[6]) == pytest.approx(0.25)
    doc = json.loads(files["reports/001/report.json"])
    assert [r["name"] for r in doc["receipts"]] == ["alpha", "beta"]
    assert {t["id"] for t in doc["tables"]} == {"token-savings", "output-tokens-per-case"}


def test_sha256sums_match_the_published_bytes(files: dict[str, bytes]) -> None:
    for sums in ("reports/001/SHA256SUMS", "receipts/SHA256SUMS", "spec/SHA256SUMS"):
        lines = files[sums].decode().splitlines()
        assert lines
        for line in lines:
            digest, path = line.split("  ")
            assert hashlib.sha256(files[path]).hexdigest() == digest, path
    listed = {line.split("  ")[1] for line in files["reports/001/SHA256SUMS"].decode().splitlines()}
    assert {"receipts/alpha.json", "receipts/beta.json", "reports/001/token-savings.csv"} <= listed


def test_receipts_are_published_byte_for_byte(
    files: dict[str, bytes], shared_site_inputs: tuple[Path, Path]
) -> None:
    receipts, _ = shared_site_inputs
    for name in ("alpha", "beta", "tested"):
        assert files[f"receipts/{name}.json"] == (receipts / f"{name}.json").read_bytes()


def test_every_schema_version_is_served_byte_identical() -> None:
    files = build_site_files({}, [], nav=NAV)
    versions = known_versions()
    # D-11 (revised): the canonical id serves the dispatching schema; every version its own file
    assert files["spec/receipt.schema.json"] == canonical_schema_bytes()
    assert (
        json.loads(files["spec/receipt.schema.json"])["$id"]
        == "https://driftproof.dev/spec/receipt.schema.json"
    )
    for v in versions:
        assert files[f"spec/{v}/receipt.schema.json"] == schema_bytes(v)
    index = json.loads(files["spec/index.json"])
    assert index["current"] == versions[-1] and sorted(index["versions"]) == sorted(versions)
    assert "reports/latest/index.html" not in files


def test_untrusted_text_is_escaped(files: dict[str, bytes]) -> None:
    sheet = files[
        "receipts/tested/cases/c1/index.html"
    ].decode()  # the case's evidence page holds the answers
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in sheet
    assert "<script>alert" not in sheet
    report = files["reports/001/index.html"].decode()
    assert (
        "Some &lt;script&gt;alert(1)&lt;/script&gt; text." in report
    )  # prose: markdown-it html=False
    assert "<script>alert" not in report
    assert "Savings &lt;b&gt;test&lt;/b&gt;" in report  # titles too


def test_home_listing_and_feed_list_reports_newest_first(
    files: dict[str, bytes], shared_site_inputs: tuple[Path, Path]
) -> None:
    from driftproof.site import home_listing
    from driftproof.site.html import page_env

    inputs = load_inputs(*shared_site_inputs)
    listing = str(home_listing(inputs.reports, page_env()))
    assert listing.index("reports/002/") < listing.index("reports/001/")
    feed = ET.fromstring(files["feed.xml"])
    ns = {"a": "http://www.w3.org/2005/Atom"}
    ids = [e.findtext("a:id", namespaces=ns) for e in feed.findall("a:entry", ns)]
    assert ids == ["tag:driftproof.dev,2026:report-002", "tag:driftproof.dev,2026:report-001"]
    assert feed.findtext("a:updated", namespaces=ns) == "2026-02-03T00:00:00Z"
    assert b"url=../002/index.html" in files["reports/latest/index.html"]


def test_receipt_sheet_shows_bands_and_reading_from_the_core(files: dict[str, bytes]) -> None:
    html = files["reports/002/index.html"].decode()
    row = cells_of_row(html, "tested-case-c1")
    # with skill 0.9, 0.8, 0.85: mean 0.85, sd 0.05; baseline 0.5, 0.55, 0.45: mean 0.50, sd 0.05;
    # bands 0.80–0.90 and 0.45–0.55 are apart and 0.35 ≥ 0.05: the case helps (D-4, D-6).
    assert row[1] == "0.850 ± 0.050 (n = 3)" and row[2] == "0.500 ± 0.050 (n = 3)"
    assert row[3] == "+0.350" and row[4] == "helps"
    assert '<p class="verdict">passing: helps: c1' in html
    # the band chart draws the same band as whiskers, and says so in its alt text
    assert (
        "reports/002/tested-chart-bands.svg" in files
        and "reports/002/tested-chart-bands-dark.svg" in files
    )
    assert "c1: with skill 0.850 (0.800 to 0.900); baseline 0.500 (0.450 to 0.550)." in html


def test_the_receipt_page_labels_the_judges_provider_and_surface(files: dict[str, bytes]) -> None:
    # the judge line read "claude-haiku-4-5-20251001 (anthropic, api)": two bare words a reader
    # could not place; they are labelled as the answering model's provider and surface are
    html = files["receipts/tested/index.html"].decode()
    assert (
        "<dt>judge</dt><dd>claude-haiku-4-5-20251001 (provider anthropic, surface api); "
        f"template sha256 {'0' * 64}</dd>"
    ) in html


def test_two_builds_are_byte_identical(site_inputs: tuple[Path, Path]) -> None:
    a = load_inputs(*site_inputs)
    first = build_site_files(a.receipts, a.reports, nav=NAV)
    second = build_site_files(a.receipts, a.reports, nav=NAV)
    assert first.keys() == second.keys()
    assert [p for p in first if first[p] != second[p]] == []


def test_case_page_numbers_draws_from_one(files: dict[str, bytes]) -> None:
    page = files["receipts/tested/cases/c1/index.html"].decode()
    # the receipt's draw index 0 is the first draw: people read "draw 1", never "draw 0"
    assert '<section class="draw" aria-label="with skill, draw 1">' in page
    assert "<h3>with skill, draw 1</h3>" in page and "<h3>baseline, draw 1</h3>" in page
    assert "draw 0" not in page


def test_the_reports_folder_page_says_so_when_the_site_has_no_numbered_report(
    files: dict[str, bytes],
) -> None:
    # the demo's site has no report: its reports page said they were "listed, newest first, on
    # the home page", which lists none
    empty = build_site_files({}, [], nav=NAV)["reports/index.html"].decode()
    assert "newest first" not in empty
    assert (
        '<p>This site has no numbered report. Its receipts are listed on <a href="../receipts/'
        'index.html">the receipts page</a>.</p>'
    ) in empty
    assert '<meta http-equiv="refresh" content="0; url=../receipts/index.html">' in empty
    held = files["reports/index.html"].decode()  # a site with reports: as before
    assert "The numbered reports are listed, newest first, on" in held
