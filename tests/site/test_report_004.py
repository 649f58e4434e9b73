"""Report 004 (the two-arm ``claude plugin eval`` sample) and the ``skill_fired`` section.

Expected values are read by hand from
``data/interop/claude-plugin-eval/aggregate-result.two-arm.json``: the with run scored 1 and its
``skill-fired`` grader passed ("Skill called 1x"); the without run scored 0 and has no such grader.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import REPO, build_args
from site_html import table_rows

from driftproof.cli import main
from driftproof.importers import Imported
from driftproof.importers._text import finish
from driftproof.importers.claude_plugin_eval import import_claude_plugin_eval
from driftproof.receipt import compute_seal, parse_receipt, read_receipt
from driftproof.receipt._seal import SEAL_ALGORITHM
from driftproof.site.html import make_env
from driftproof.site.inputs import parse_report
from driftproof.site.sections import SectionContext, section_types

NAME = "claude-plugin-eval-probe-plugin-8955eb63"
REPORT = "004-claude-plugin-eval-probe.md"
TWO_ARM = "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"


def _sealed(item: Imported) -> Any:
    doc = finish(item.body, item.repairs).to_json_dict()
    doc["seal"] = {"algorithm": SEAL_ALGORITHM, "sha256": compute_seal(doc)}
    return parse_receipt(json.dumps(doc).encode("utf-8"), "<test>")


def _render(receipts: dict[str, Any]) -> tuple[str, Any]:
    env = make_env([REPO / "templates" / "pages", REPO / "templates" / "theme"])

    class _Report:
        source = "reports/999-test.md"

    ctx = SectionContext(report=_Report(), receipts=receipts, env=env, root="../..")
    sec = section_types()["skill_fired"]
    out = sec.render(sec.Params(), ctx)
    return str(out.html), out.tables


def test_report_004_front_matter_and_its_committed_receipt(shared: Path) -> None:
    known = [p.stem for p in (REPO / "receipts").glob("*.json")]
    report, problems = parse_report((REPO / "reports" / REPORT).read_bytes(), REPORT, known)
    assert problems == [] and report is not None
    assert report.number == 4 and list(report.receipts) == [NAME]
    assert [s.type for s in report.sections] == ["skill_fired", "receipt_sheets"]
    committed = read_receipt(REPO / "receipts" / f"{NAME}.json")
    fresh = _sealed(import_claude_plugin_eval(shared / TWO_ARM)[0])
    assert committed.provenance is not None and fresh.provenance is not None
    assert committed.provenance.document_sha256 == fresh.provenance.document_sha256
    assert committed.cases == fresh.cases and committed.arms == fresh.arms

    def body(r: Any) -> dict[str, Any]:  # everything but the seal and the path the import was given
        d = r.to_json_dict()
        d.pop("seal")
        d["provenance"].pop("document")
        d.pop("schema_version")  # the committed receipt keeps the version it was written in
        return d

    assert body(committed) == body(fresh)
    assert committed.provenance.document == "../shared/" + TWO_ARM  # as given to the import command


def test_skill_fired_section_on_the_two_arm_receipt(shared: Path) -> None:
    r = _sealed(import_claude_plugin_eval(shared / TWO_ARM)[0])
    html, (arms, cases) = _render({NAME: r})
    # the run without the plugin has no skill-fired grader: whether the skill fired is not
    # recorded, in the words the receipt's sheet uses for it ("not observed" here, "not
    # recorded" on the sheet, named one missing figure twice)
    assert [[c.text for c in row.cells] for row in arms.rows] == [
        [NAME, "with skill", "with", "1 of 1 (100%)"],
        [NAME, "baseline", "without", "not recorded"],
    ]
    assert [[c.text for c in row.cells] for row in cases.rows] == [
        ["first-case", "with skill", "1.000 (n = 1)", "1 of 1 (100%)", "none"],
        ["first-case", "baseline", "0.000 (n = 1)", "not recorded", "none"],
    ]
    assert "verification level DECLARED is below TESTED" in html  # the no-verdict reason, stated


def test_skill_fired_section_keeps_lost_runs_out_and_names_the_unrecorded_arm(
    shared: Path, tmp_path: Path
) -> None:
    doc = json.loads((shared / TWO_ARM).read_text(encoding="utf-8"))
    case = doc["cases"][0]
    case["arms"]["with"] = [copy.deepcopy(case["arms"]["with"][0]) for _ in range(3)]
    case["arms"]["with"][1]["graders"][1]["passed"] = False  # the skill did not fire
    case["arms"]["with"][2]["error"] = "turn cap reached <script>"  # kept out of the figures
    doc["suite"]["ablation"] = "none"
    del case["arms"]["without"]
    doc["costUsd"] = 3 * case["arms"]["with"][0]["costUsd"]  # the suite's cost covers its runs
    src = tmp_path / "aggregate-result.json"
    src.write_text(json.dumps(doc), encoding="utf-8")
    html, (arms, cases) = _render({"x": _sealed(import_claude_plugin_eval(src)[0])})
    assert [c.text for c in arms.rows[0].cells][3] == "1 of 2 (50%)"
    assert [c.text for c in arms.rows[1].cells][3] == "arm not recorded by the source"
    with_row, base_row = ([c.text for c in row.cells] for row in cases.rows)
    assert with_row[3] == "1 of 2 (50%)"
    # the lost run counted, its reason given on the receipt's page, where the count links
    assert with_row[4] == "1 of 3"
    assert cases.rows[0].cells[4].link == "../../receipts/x/index.html#table-lost-x"
    assert base_row[2] == "not recorded"
    assert "turn cap reached" not in html


def test_make_reports_publishes_report_004(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    reports.mkdir()
    shutil.copy(REPO / "receipts" / f"{NAME}.json", receipts)
    shutil.copy(REPO / "reports" / REPORT, reports)
    out = tmp_path / "site"
    try:
        main(build_args(receipts, reports, out))
    except SystemExit as exc:
        assert not exc.code, capsys.readouterr().err
    page = (out / "reports/004/index.html").read_text(encoding="utf-8")
    rows = table_rows(page, "table-skill-fired-arms")
    assert rows[0][1:] == ["with skill", "with", "1 of 1 (100%)"]
    assert rows[1][1:] == ["baseline", "without", "not recorded"]  # as the sheet's arms table
    assert "not observed" not in page
    assert (out / "reports/004/skill-fired-cases.csv").is_file()
    # the prose pointed to "the table above the sheet": the tables come after it on the page
    prose = page.index("so its rate is not recorded.")
    assert "above the sheet" not in page
    assert prose < page.index('id="table-skill-fired-arms"')
    assert "further down" in page[prose : prose + 200]
