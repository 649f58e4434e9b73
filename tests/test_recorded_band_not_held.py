"""A receipt that records one answer per arm judged several times but holds no judge sample.

Its bands are worked out again from what it holds (D-18): each is the one score its source gave
that answer, with no spread. diff, view, the pages and export say so, and say once, in plain
words, that the recorded band source is not what the receipt holds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from factories import make_receipt, run_action
from receipt_docs import draw_doc, seal_document

from driftproof.cli import cli
from driftproof.importers.summary_json import export_summary_json
from driftproof.pages.sheet import sheet
from driftproof.receipt import read_receipt
from driftproof.render.sheet import sheet_text
from driftproof.site.html import page_env, receipt_files

OLD = Path(__file__).parent / "receipt" / "fixtures" / "0.13" / "valid-basic.json"
NOT_HELD = (
    "recorded as one answer per arm judged several times, but the receipt holds no judge "
    "sample, so each band is the one score the source gave"
)


def _one_score(score: float) -> dict[str, Any]:
    return {"draws": [draw_doc(0, answer=f"answer {score}", score=score)], "generation": None}


def _receipt(tmp_path: Path) -> Path:
    """c1: with skill 0.8, baseline 0.5; c2: 0.6, 0.7; band source recorded ``legacy``."""
    cases = [
        {
            "id": cid,
            "prompt": f"prompt of {cid}",
            "prompt_sha256": None,
            "rubric_sha256": "1" * 64,
            "threshold": None,
            "arms": {"with_skill": _one_score(w), "baseline": _one_score(b)},
        }
        for cid, w, b in (("c1", 0.8, 0.5), ("c2", 0.6, 0.7))
    ]
    doc = make_receipt(
        cases, band_source="legacy", judge_samples_per_generation=None, level="UNVERIFIED"
    )
    path = tmp_path / "recorded.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _migrated(tmp_path: Path) -> Path:
    """The 0.13 fixture (one draw per arm, read as ``legacy`` on migration) with its judge
    samples taken out, each draw keeping its score (0.5 and 0.84), as an import would hold it."""
    doc = json.loads(OLD.read_text(encoding="utf-8"))
    for c in doc["cases"]:
        for arm in c["arms"].values():
            for d in arm["draws"]:
                d["judge_samples"] = []
    doc["verification_level"] = "UNVERIFIED"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    return path


def test_diff_heads_and_keys_the_bands_as_one_score_and_says_the_record_differs(
    tmp_path: Path,
) -> None:
    # diff headed both columns "bands across one answer's judge samples" and keyed them "one
    # answer per arm, judged several times: the band measures the judge, not the model."
    path = _receipt(tmp_path)
    out = CliRunner().invoke(cli, ["diff", str(path), str(path)]).output
    header = next(line for line in out.splitlines() if line.startswith("case "))
    assert header.split("  ")[1] == "earlier (one score per answer, as the source gave it)"
    assert "later (one score per answer, as the source gave it)" in header
    assert "c1    0.800 (one draw, no spread)" in out
    assert (
        "  one answer per arm, with one score as its source gave it and no judge sample: "
        "each band is that one score, with no spread.\n"
    ) in out
    assert out.count(f"  {path}: {NOT_HELD}.\n") == 1
    assert "measures the judge" not in out and "across one answer's judge samples" not in out
    assert "not like for like" not in out


def test_view_of_a_migrated_receipt_says_one_score_and_the_record_once(tmp_path: Path) -> None:
    # view said "band source one answer per arm" and "one answer per arm, judged several times:
    # the band measures the judge" beside "the receipt holds no judge sample"
    r = read_receipt(_migrated(tmp_path))
    assert r.schema_version == "0.13" and r.band_source == "legacy"
    text = sheet_text(sheet(r))
    lines = [" ".join(x.split()) for x in text.splitlines() if "band source" in x]
    # once, as a labelled fact, the results table's cell its head
    # then what one scored draw per arm leaves, in the method's words, as every such receipt
    why = "no arm holds more than one scored draw, so no band has a spread"
    assert lines == [f"band source one scored draw per arm, no spread: {NOT_HELD}; {why}"]
    assert (
        "  judge samples per draw        not recorded; the receipt holds no judge sample "
        "(each score as the source gave it)\n"
    ) in text
    assert text.count("judged several times") == 1
    assert "measures the judge" not in text


def test_the_pages_say_one_score_and_the_record_once(tmp_path: Path) -> None:
    path = _receipt(tmp_path)
    pages = receipt_files("t", read_receipt(path), path.read_bytes(), [], page_env())
    index = pages["receipts/t/index.html"].decode()
    case = pages["receipts/t/cases/c1/index.html"].decode()
    assert (
        "Cases of demo-skill: no arm holds more than one scored draw, so no band has a spread "
        "(n = 1); lift is with skill minus baseline"
    ) in index
    for page in (index, case):
        assert page.count("judged several times") == 1 and NOT_HELD in page
        assert "measures the judge" not in page and "one answer per arm</td>" not in page


def test_export_writes_each_answer_s_one_score(tmp_path: Path) -> None:
    doc = export_summary_json(read_receipt(_receipt(tmp_path)))
    assert [c["arms"] for c in doc["cases"]] == [
        {"with_skill": [{"score": 0.8}], "baseline": [{"score": 0.5}]},
        {"with_skill": [{"score": 0.6}], "baseline": [{"score": 0.7}]},
    ]
    assert doc["generations_per_arm"] == 1 and doc["judge_samples_per_generation"] is None


def test_the_action_names_the_band_source_in_plain_words(tmp_path: Path, monkeypatch: Any) -> None:
    # the Action's job summary printed the recorded field: "| band source | legacy | legacy |"
    old, new = _migrated(tmp_path), _receipt(tmp_path)
    _, summary = run_action(tmp_path, monkeypatch, old, new, None)
    assert (
        "| band source | one score per answer, as the source gave it "
        "| one score per answer, as the source gave it |\n"
    ) in summary  # as the comparison's columns and legend name it
    assert "legacy" not in summary
    assert summary.count(NOT_HELD) == 2  # once for each receipt, each named
    assert f"- old.json: {NOT_HELD}.\n" in summary
