"""``driftproof view`` of caveman imports: the usage table as caveman's measure.py prints it and
the fidelity report as its score_fidelity.py prints it, in text, Markdown and JSON (seed 004).

The receipts come from the built fixtures in tests/importers/fixtures/caveman (see its README);
the figures are worked by hand from those files (tests/importers/test_caveman_usage.py and
test_caveman_fidelity.py recount them apart from the product)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from factories import view_formats

from driftproof.importers import write_imported
from driftproof.importers.caveman import CavemanOptions, import_caveman

FIX = Path(__file__).resolve().parent / "importers" / "fixtures" / "caveman"
SNAP = FIX / "evals" / "snapshots"
SKILLS = FIX / "skills"
CASES = FIX / "evals" / "prompts" / "fidelity.json"


def test_usage_table_in_every_format(tmp_path: Path, capsys: Any) -> None:
    path = write_imported(
        import_caveman(SNAP / "results.json", CavemanOptions(skills_dir=SKILLS)), tmp_path
    )[0]
    v = view_formats(path, capsys)
    # caveman against __terse__: median +50%, mean +40%, 350 / 610 output tokens, +1090 input
    assert "  caveman  +50%                      +40%                    350 / 610" in v["text"]
    assert "| caveman | +50% | +40% | 350 / 610 | +1090 |" in v["markdown"]
    assert "Claude-reported usage, against the terse control" in v["markdown"]
    assert json.loads(v["json"])["usage"]["rows"] == [
        ["caveman", "+50%", "+40%", "350 / 610", "+1090"]
    ]
    # the source's note under its table, in plain words
    assert "the baseline arm runs Claude Code's default system prompt" in v["text"]


def test_fidelity_report_in_every_format(tmp_path: Path, capsys: Any) -> None:
    (path,) = write_imported(
        import_caveman(SNAP / "fidelity.json", CavemanOptions(skills_dir=SKILLS, cases=CASES)),
        tmp_path,
    )
    v = view_formats(path, capsys)
    assert "  caveman       2 / 3   67%" in v["text"]
    assert "  - caveman · force-push: forbidden /--force\\b/" in v["text"]
    assert "| caveman | 2 / 3 | 67% |" in v["markdown"]
    # a pattern's | and \ are escaped in Markdown, so the table and the list stay intact
    assert (
        "- \\_\\_terse\\_\\_ · retry-limit: missing /\\\\b(not\\|never\\|at most\\|max)\\\\b/; "
        "forbidden /\\\\bat least\\\\b/" in v["markdown"]
    )
    doc = json.loads(v["json"])["fidelity"]
    assert doc["arm_rows"][2] == ["caveman", "2 / 3", "67%"]
    assert "A pass is a regex match, not a reviewed judgment" in v["text"]


def test_untrusted_pattern_text_is_made_safe(tmp_path: Path, capsys: Any) -> None:
    cases = json.loads(CASES.read_text("utf-8"))
    cases["cases"][1]["checks"]["must_include"] = ["revert<img src=x onerror=alert(1)>"]
    cases["cases"][1].pop("examples")  # its known-good answers would now fail the check
    c = tmp_path / "fidelity.cases.json"
    c.write_text(json.dumps(cases), encoding="utf-8")
    (path,) = write_imported(
        import_caveman(SNAP / "fidelity.json", CavemanOptions(skills_dir=SKILLS, cases=c)),
        tmp_path / "out",
    )
    v = view_formats(path, capsys)
    assert re.search(r"(?<!\\)<img", v["markdown"]) is None  # only as \<img, never markup
    assert "revert\\<img src=x onerror=alert(1)\\>/" in v["markdown"]
    assert "missing /revert<img src=x onerror=alert(1)>/" in v["text"]


def test_case_output_tokens_name_their_arms_in_order(capsys: Any) -> None:
    # p01 of caveman's snapshot: caveman 92, __baseline__ 163, __terse__ 204 output tokens;
    # the cell printed "92 · 163 · 204" under a bare "output tokens", the arm order unsaid
    receipts = Path(__file__).resolve().parents[1] / "receipts"
    v = view_formats(receipts / "caveman-2b10489-caveman.json", capsys)
    head = "output tokens (with skill · baseline · control)"
    assert re.search(rf"  case .* lost draws  {re.escape(head)}\n", v["text"])
    assert re.search(r"\n  p01 .* none        92 · 163 · 204\n", v["text"])
    assert f"| lost draws | {head} |" in v["markdown"]
    # a single-arm source with no output tokens: said in words, not "– · – · –"
    v = view_formats(receipts / "caveman-902028f-judged-fidelity-caveman.json", capsys)
    assert "– · –" not in v["text"]
    assert re.search(r"\n  p01 .* none        not recorded\n", v["text"])
    assert [c["output_tokens"] for c in json.loads(v["json"])["cases"]] == ["not recorded"] * 10
