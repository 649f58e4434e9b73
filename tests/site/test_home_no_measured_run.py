"""The home page says, as the results page does, when no receipt on the site is a measured run:
it said nothing of it, so a reader of the home page alone took the reports for measurements."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from factories import case, make_receipt
from receipt_docs import seal_document
from site_fixtures import REPO

from driftproof.site import build_site

#: The results page's sentence, written out by hand (no apostrophe or ampersand to escape): it
#: named imports, printed aggregates and smoke runs only, though a stub run, or a run that
#: measured nothing, is no measured run either and may be on the site
SAID = (
    "No measured run is committed yet: every receipt on this site is an import, printed "
    "aggregates, a smoke run, a stub run or a run that measured nothing, and none of them gets "
    "a verdict."
)


def test_a_site_of_imports_says_so_on_its_home_page_in_the_results_pages_words(
    tmp_path: Path,
) -> None:
    receipts, reports, out = tmp_path / "receipts", tmp_path / "reports", tmp_path / "site"
    receipts.mkdir()
    reports.mkdir()
    # caveman's import: DECLARED, its source's own run, never a measured one
    name = "caveman-2b10489-caveman.json"
    shutil.copy(REPO / "receipts" / name, receipts / name)
    # and a stub run: the stub provider's fixed answers, no model's (UNVERIFIED, as it seals)
    doc = make_receipt([case("c1", [0.6, 0.7, 0.8], [0.5, 0.6, 0.7])])
    doc["run"]["provider"], doc["verification_level"] = "stub", "UNVERIFIED"
    (receipts / "stub-run.json").write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    build_site(receipts, reports, out, config_file=REPO / "mkdocs.yml", cache_dir=None)
    home = (out / "index.html").read_text(encoding="utf-8")
    results = (out / "results/index.html").read_text(encoding="utf-8")
    assert f"<p>{SAID}</p>" in results
    # the stub run is listed, with no lift and no verdict
    assert "no model answered: the stub provider&#39;s fixed answers" in results
    assert f'<p class="notice">{SAID} <a href="results/index.html">The results page</a>' in home


def test_a_site_with_a_measured_run_says_nothing_of_the_kind(built_site: Path) -> None:
    # the committed receipts and a TESTED receipt scored by a judge (conftest's report 999)
    assert SAID not in (built_site / "index.html").read_text(encoding="utf-8")
    assert SAID not in (built_site / "results/index.html").read_text(encoding="utf-8")
