"""Each arm of a case that records a threshold reads pass, fail or borderline against it, where
a person reads the case's arms: `view`'s case table, the site's receipt page and its case page.
Scores chosen by hand, three per arm, sample sd 0.05 (deviations ±0.05 and 0):
with skill 0.75/0.80/0.85 → 0.800 ± 0.050, wholly above 0.70: pass; baseline 0.65/0.70/0.75 →
0.700 ± 0.050, the mean at 0.70: borderline; at threshold 0.90 the with-skill band's top,
0.850, is below it: fail. A case with no threshold, or an arm with one draw, reads no outcome.
A threshold of 0.7004 is printed as recorded: at three places it read 0.700, where the baseline's
band 0.65 to 0.75 is borderline but the with-skill band 0.75 to 0.85, wholly above it, passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import case, make_receipt, run_main
from site_fixtures import REPO

from driftproof.site import build_site

PASS = "0.800 ± 0.050 (n = 3), pass against threshold 0.700"
BORDERLINE = "0.700 ± 0.050 (n = 3), borderline against threshold 0.700"
FAIL = "0.800 ± 0.050 (n = 3), fail against threshold 0.900"
CLOSE = (
    "0.800 ± 0.050 (n = 3), pass against threshold 0.7004",
    "0.700 ± 0.050 (n = 3), borderline against threshold 0.7004",
)
SCORES = ([0.75, 0.80, 0.85], [0.65, 0.70, 0.75])


@pytest.fixture
def receipt(tmp_path: Path) -> Path:
    cases = [
        case("held", *SCORES) | {"threshold": 0.7},
        case("high", *SCORES) | {"threshold": 0.9},
        case("none", *SCORES),
        case("one", [0.8], SCORES[1]) | {"threshold": 0.7},
        case("close", *SCORES) | {"threshold": 0.7004},
        # a lost draw at the worst score, 0: .75 .80 .85 0 reads .600 ± .402, reaching 0.70
        case("lost", [*SCORES[0], None], SCORES[1]) | {"threshold": 0.7},
        # .90 .95 1.0 and a lost draw: at 0, .7125 ± .4768, low .2357; at 1, low .9146: pass
        case("kept", [0.90, 0.95, 1.00, None], SCORES[1]) | {"threshold": 0.2},
    ]
    path = tmp_path / "receipts" / "t.json"
    path.parent.mkdir()
    path.write_text(json.dumps(make_receipt(cases)), encoding="utf-8")
    return path


def test_view_gives_each_arms_outcome_against_the_threshold(receipt: Path, capsys) -> None:
    code, out, err = run_main(["view", "--format", "markdown", str(receipt)], capsys)
    assert code == 0, err
    cases = out.split("\n## Cases\n", 1)[1].split("\n## ", 1)[0]
    rows = {x.split("|")[1].strip(): x for x in cases.splitlines() if x.startswith("| ")}
    assert f"| {PASS} | {BORDERLINE} |" in rows["held"]
    assert f"| {FAIL} | 0.700 ± 0.050 (n = 3), fail against threshold 0.900 |" in rows["high"]
    assert "| 0.800 ± 0.050 (n = 3) | 0.700 ± 0.050 (n = 3) |" in rows["none"]
    # one draw has no spread: no outcome; the other arm has one
    assert f"| 0.800 (n = 1) | {BORDERLINE} |" in rows["one"]
    assert "against threshold" not in rows["none"]
    assert f"| {CLOSE[0]} | {CLOSE[1]} |" in rows["close"]
    assert "| 0.800 ± 0.050 (n = 3, 1 lost), borderline against threshold 0.700 |" in rows["lost"]
    assert "| 0.950 ± 0.050 (n = 3, 1 lost), pass against threshold 0.200 |" in rows["kept"]


def test_the_sites_receipt_and_case_pages_give_it(receipt: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")
    (tmp_path / "reports").mkdir()
    out = tmp_path / "site"
    build_site(receipt.parent, tmp_path / "reports", out, config_file=REPO / "mkdocs.yml")
    sheet = (out / "receipts" / "t" / "index.html").read_text(encoding="utf-8")
    assert PASS in sheet and BORDERLINE in sheet and FAIL in sheet
    assert CLOSE[0] in sheet and CLOSE[1] in sheet
    page = (out / "receipts" / "t" / "cases" / "held" / "index.html").read_text(encoding="utf-8")
    assert PASS in page and BORDERLINE in page
    page = (out / "receipts" / "t" / "cases" / "close" / "index.html").read_text(encoding="utf-8")
    assert CLOSE[0] in page and CLOSE[1] in page
    page = (out / "receipts" / "t" / "cases" / "none" / "index.html").read_text(encoding="utf-8")
    assert "0.800 ± 0.050 (n = 3)" in page and "against threshold" not in page


@pytest.mark.parametrize(
    "level", [{"level": "UNVERIFIED", "preset": "quick"}, {"level": "DECLARED"}]
)
def test_a_receipt_with_no_verdict_reads_no_outcome(level, tmp_path: Path, capsys) -> None:
    # found: a smoke run's case row read "pass against threshold 0.700" beside "no verdict", its
    # lift "context only: the receipt has no verdict" (method: "A smoke run gives no verdict")
    path = tmp_path / "s.json"
    doc = make_receipt([case("held", *SCORES) | {"threshold": 0.7}], **level)
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = run_main(["view", "--format", "markdown", str(path)], capsys)
    assert code == 0, err
    assert "| 0.800 ± 0.050 (n = 3) | 0.700 ± 0.050 (n = 3) |" in out
    assert "against threshold" not in out
