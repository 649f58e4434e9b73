"""Report 001's front matter and the figures its prose quotes (checked against the receipts)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from driftproof.receipt import read_receipt
from driftproof.stats.savings import percent, token_savings

REPO = Path(__file__).resolve().parents[1]
CAVEMAN_RECEIPT = "caveman-2b10489-caveman.json"
REPORT = REPO / "reports" / "001-caveman-against-the-terse-control.md"


def _front_and_body() -> tuple[dict, str]:
    text = REPORT.read_text(encoding="utf-8")
    m = re.match(r"\A---\n(.*?)\n---\n(.*)\Z", text, re.S)
    assert m is not None
    return yaml.safe_load(m.group(1)), m.group(2)


def test_front_matter_names_committed_receipts_and_the_token_savings_section() -> None:
    fm, _ = _front_and_body()
    assert (fm["number"], fm["slug"]) == (1, "caveman-against-the-terse-control")
    assert str(fm["date"]) == "2026-11-29"
    for name in fm["receipts"]:
        assert read_receipt(REPO / "receipts" / f"{name}.json").verification_level == "DECLARED"
    assert fm["sections"] == [{"type": "token_savings", "receipts": fm["receipts"]}]


def test_the_report_parses_with_the_site_loader() -> None:
    from driftproof.site.inputs import parse_report

    names = [p.stem for p in (REPO / "receipts").glob("*.json")]
    report, problems = parse_report(REPORT.read_bytes(), str(REPORT), names)
    assert problems == [] and report is not None


def test_figures_quoted_in_the_prose_are_the_computed_ones() -> None:
    fm, body = _front_and_body()
    prose = " ".join(body.split())
    arms = {
        a.skill: a
        for a in token_savings(
            [read_receipt(REPO / "receipts" / f"{n}.json") for n in fm["receipts"]]
        )
    }
    c = arms["caveman"].vs_control
    assert c is not None
    assert f"median saving was {percent(c.median)} (mean {percent(c.mean)})" in prose
    assert (
        f"ten answers used {c.skill_tokens:,} output tokens, "
        f"where the control's used {c.reference_tokens:,}" in prose
    )
    assert f"smallest saving was {percent(c.min)}" in prose and f"largest {percent(c.max)}" in prose
    for skill in ("caveman-cn", "caveman-es", "compress"):
        s = arms[skill].vs_control
        assert s is not None
        assert re.search(rf"`{skill}` (saved )?a median {re.escape(percent(s.median))}", prose), (
            skill
        )
    es = arms["caveman-es"].vs_control
    assert es is not None and es.min is not None
    longer = [v for _, v in es.per_case if v is not None and v < 0]
    assert len(longer) == 3 and f"by up to {round(-es.min * 100)}%" in prose
    cp = arms["compress"].vs_control
    assert cp is not None and cp.min is not None and cp.max is not None
    assert f"from {round(-cp.min * 100)}% longer to {round(cp.max * 100)}% shorter" in prose
    a = arms["caveman"]
    assert a.control_tokens is not None and a.control_vs_baseline is not None
    assert (
        f"used {a.control_tokens:,} tokens against the baseline's {a.baseline_tokens:,}, "
        f"{round(-a.control_vs_baseline * 100)}% more" in prose
    )
    assert f"median saving against the baseline is {percent(a.vs_baseline.median)}" in prose
    assert f"about {read_receipt(REPO / 'receipts' / CAVEMAN_RECEIPT).skill.tokens} tokens" in prose
