"""Cross-family reading (neutrality): lift first, raw scores as background, never ranked."""

from __future__ import annotations

import copy
import json

from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof.pages.cross_family import GRADER_NOTE, cross_family
from driftproof.receipt import parse_receipt


def _receipt(provider: str, model: str, cases, suite: str | None = "a" * 64):
    doc = make_receipt(copy.deepcopy(cases))
    doc["run"]["provider"], doc["run"]["model"] = provider, model
    doc["suite"]["sha256"] = suite
    return parse_receipt(json.dumps(seal_document(doc)).encode(), "t.json")


# OpenAI model: lift .82 − .52 = +.30, raw with-skill .82, baseline .52 (higher raw scores)
GPT = (
    "gpt.json",
    _receipt("openai", "gpt-5", [case("c1", [0.80, 0.82, 0.84], [0.50, 0.52, 0.54])]),
)
# Anthropic model: lift .71 − .61 = +.10, raw with-skill .71, baseline .61
CLAUDE = (
    "claude.json",
    _receipt(
        "anthropic", "claude-sonnet-4-5", [case("c1", [0.70, 0.71, 0.72], [0.60, 0.61, 0.62])]
    ),
)


def test_lift_leads_and_order_is_never_by_score() -> None:
    cf = cross_family([GPT, CLAUDE])
    assert [x.family for x in cf.rows] == ["Anthropic", "OpenAI"]
    # ordered by family name, not by lift or raw score (GPT has both higher)
    assert [x.model for x in cf.rows] == ["claude-sonnet-4-5", "gpt-5"]
    assert [x.model for x in cross_family([CLAUDE, GPT]).rows] == ["claude-sonnet-4-5", "gpt-5"]
    assert [(x.lift, x.background_with_skill, x.background_baseline) for x in cf.rows] == [
        ("+0.100", "0.710", "0.610"),
        ("+0.300", "0.820", "0.520"),
    ]
    # 1600 chars → 400 tokens: +.10/.4 = +.250, +.30/.4 = +.750
    assert [x.lift_per_1k for x in cf.rows] == ["+0.250", "+0.750"]
    assert cf.caveats == () and cf.grader_note == GRADER_NOTE


def test_caveats_when_not_like_for_like() -> None:
    other = (
        "o.json",
        _receipt(
            "openai", "gpt-5", [case("c1", [0.8, 0.82, 0.84], [0.5, 0.52, 0.54])], suite="b" * 64
        ),
    )
    assert cross_family([CLAUDE, other]).caveats == ("Not the same tasks: the suite hashes differ",)
    none = (
        "n.json",
        _receipt("openai", "gpt-5", [case("c1", [0.8, 0.82, 0.84], [0.5, 0.52, 0.54])], suite=None),
    )
    assert cross_family([none]).caveats == (
        "The same tasks are not shown: no receipt records its suite hash",
    )


def test_site_section_leads_with_lift() -> None:
    from driftproof.site.html import page_env
    from driftproof.site.sections import SectionContext, section_types

    section = section_types()["cross_family"]
    ctx = SectionContext(
        report=None, receipts={"gpt": GPT[1], "claude": CLAUDE[1]}, env=page_env(), root="../.."
    )
    out = section.render(section.Params(), ctx)
    html = str(out.html)
    assert (
        html.index("lift-by-model")
        < html.index(GRADER_NOTE.split(".")[0])
        < html.index("raw-scores-by-model")
    )
    lead, background = out.tables
    assert [r.cells[0].text for r in lead.rows] == ["claude-sonnet-4-5", "gpt-5"]
    assert [r.cells[3].text for r in lead.rows] == ["+0.100", "+0.300"]
    assert [(r.cells[1].text, r.cells[2].text) for r in background.rows] == [
        ("0.710", "0.610"),
        ("0.820", "0.520"),
    ]
    assert section.check(section.Params(receipts=["nope"]), ("gpt", "claude"))
