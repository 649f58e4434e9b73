"""Report 005 (caveman PR #579's judged fidelity snapshots) and the ``fidelity`` section.

Expected values are counted by hand from the two ``fidelity.json`` files of
``data/caveman/history`` (SOURCE.md section 3): ten prompts, nine with two facts and the git
rebase prompt with three, 21 facts, every one ``"pass": true``, every ``fidelity`` 100; no
baseline or terse arm in either file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import REPO

from driftproof.errors import SiteBuildError
from driftproof.importers._text import finish
from driftproof.importers.caveman import CavemanOptions, import_caveman
from driftproof.receipt import compute_seal, parse_receipt, read_receipt
from driftproof.receipt._seal import SEAL_ALGORITHM
from driftproof.site.html import make_env
from driftproof.site.inputs import parse_report
from driftproof.site.sections import SectionContext, section_types

REPORT = "005-caveman-judged-fidelity.md"
HISTORY = "data/caveman/history"
COMMITS = {
    "902028f": "902028f2aba2c642a49664cf2b68ad4ccf78497f",
    "5c7e19a": "5c7e19a099b7df86b9d8debac6b75784d80fe88c",
}


def _fresh(shared: Path, short: str) -> Any:
    base = shared / HISTORY / f"pr579-{short}" / "evals"
    rubrics = base / "prompts" / "rubrics.json"
    (item,) = import_caveman(
        base / "snapshots" / "fidelity.json",
        CavemanOptions(
            skills_dir=shared / "data/caveman/at-snapshot-2b10489/skills",
            source_commit=COMMITS[short],
            rubrics=rubrics if rubrics.exists() else None,
        ),
    )
    doc = finish(item.body, item.repairs).to_json_dict()
    doc["seal"] = {"algorithm": SEAL_ALGORITHM, "sha256": compute_seal(doc)}
    return parse_receipt(json.dumps(doc).encode("utf-8"), "<test>")


def _render(receipts: dict[str, Any], section: str = "fidelity") -> tuple[str, Any]:
    env = make_env([REPO / "templates" / "pages", REPO / "templates" / "theme"])

    class _Report:
        source = "reports/999-test.md"

    ctx = SectionContext(report=_Report(), receipts=receipts, env=env, root="../..")
    sec = section_types()[section]
    out = sec.render(sec.Params(), ctx)
    return str(out.html), out.tables


def _name(short: str) -> str:
    return f"caveman-{short}-judged-fidelity-caveman"


def test_report_005_front_matter_and_its_committed_receipts(shared: Path) -> None:
    known = [p.stem for p in (REPO / "receipts").glob("*.json")]
    report, problems = parse_report((REPO / "reports" / REPORT).read_bytes(), REPORT, known)
    assert problems == [] and report is not None
    assert report.number == 5 and list(report.receipts) == [_name(s) for s in COMMITS]
    assert [s.type for s in report.sections] == ["fidelity", "receipt_sheets"]
    for short in COMMITS:
        committed = read_receipt(REPO / "receipts" / f"{_name(short)}.json")
        fresh = _fresh(shared, short)

        def body(r: Any) -> dict[str, Any]:  # all but the seal and the path given to the import
            d = r.to_json_dict()
            d.pop("seal")
            d["provenance"].pop("document")
            return d

        assert body(committed) == body(fresh)
        assert committed.provenance is not None
        assert committed.provenance.document == (
            f"../shared/{HISTORY}/pr579-{short}/evals/snapshots/fidelity.json"
        )


def test_fidelity_section_shows_the_pass_rates(shared: Path) -> None:
    receipts = {_name(s): _fresh(shared, s) for s in COMMITS}
    html, tables = _render(receipts)
    # 902028f prints "fidelity": 100.0 for every prompt, 5c7e19a 100: the mean of either, worked
    # out here, is 100%, in the rate's format (it read "100.0%" and "100%", each as printed)
    assert [[[c.text for c in row.cells] for row in t.rows] for t in tables] == [
        [
            ["baseline", "not recorded", "not recorded", "not recorded"],
            ["control", "not recorded", "not recorded", "not recorded"],
            ["with skill", "21 / 21", "100%", "100%"],
        ]
    ] * 2
    assert "claude-haiku-4-5" in html and "claude-opus-4-8" in html
    assert "Failures: none." in html


def test_fidelity_section_refuses_a_receipt_without_checks() -> None:
    r = read_receipt(REPO / "receipts" / "caveman-2b10489-caveman.json")  # length snapshot
    with pytest.raises(SiteBuildError, match="fidelity needs caveman fidelity imports"):
        _render({"caveman-2b10489-caveman": r})


def test_sheet_links_promise_answers_only_where_the_receipt_holds_them() -> None:
    # Report 005 says "the answers are not in these files": caveman's fidelity.json holds the
    # judgments only (no answer text); the length snapshot (Report 001) holds each answer.
    names = [_name("902028f"), "caveman-2b10489-caveman"]
    receipts = {n: read_receipt(REPO / "receipts" / f"{n}.json") for n in names}
    html, _ = _render(receipts, "receipt_sheets")
    first, second = html.split("(receipt caveman-2b10489-caveman)")
    assert "Full receipt sheet (this receipt holds no answer text)</a>" in first
    assert "with every answer" not in first
    assert "Full receipt sheet, with every answer</a>" in second


def test_report_005_numbers_other_reports_as_the_site_does() -> None:
    text = (REPO / "reports" / REPORT).read_text(encoding="utf-8")
    assert "Report 001" in text
    assert not any(f"Report {n}" in text.replace(f"Report 00{n}", "") for n in range(1, 10))
