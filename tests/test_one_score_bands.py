"""A receipt of one answer per arm, each with one score as its source gave it (no judge sample).

skill-creator's import (Report 003's receipt) names no band source and holds one draw per arm
with no judge sample: diff, view and its pages say so in plain words, never "legacy" (one of the
method's two band sources, which this is not) and never judge samples it does not hold.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from driftproof.cli import cli
from driftproof.pages.sheet import sheet
from driftproof.receipt import read_receipt
from driftproof.render.sheet import sheet_text
from driftproof.site.html import page_env, receipt_files

ROOT = Path(__file__).parents[1]
NEBIUS = ROOT / "receipts" / "skill-creator-nebius-skills-iteration-1-12a0aae8.json"
JUDGED = ROOT / "tests" / "receipt" / "fixtures" / "0.3.1" / "valid-basic.json"


def test_diff_says_each_answer_has_one_score_as_the_source_gave_it() -> None:
    # the receipt holds 18 draws, each with its score and an empty judge_samples list; diff said
    # "bands across one answer's judge samples" and "legacy: one generation per arm, judged
    # several times; the band measures the judge"
    out = CliRunner().invoke(cli, ["diff", str(NEBIUS), str(NEBIUS)]).output
    header = next(line for line in out.splitlines() if line.startswith("case "))
    assert header.split("  ")[1] == "earlier (one score per answer, as the source gave it)"
    assert "later (one score per answer, as the source gave it)" in header
    assert (
        "  one answer per arm, with one score as its source gave it and no judge sample: "
        "each band is that one score, with no spread.\n"
    ) in out
    assert "judge sample" not in header and "several times" not in out
    assert "legacy" not in out
    # the same receipt on both sides: like for like
    assert "not like for like" not in out


def test_diff_of_judge_sampled_answers_names_legacy_with_its_words() -> None:
    # the 0.3.1 fixture: one draw per arm, judged 5 times (judge samples held): its band is the
    # spread of those samples, the method's legacy, and the legend says it measures the judge
    out = CliRunner().invoke(cli, ["diff", str(JUDGED), str(JUDGED)]).output
    assert "earlier (legacy)" in out and "later (legacy)" in out
    assert (
        "  legacy: one answer per arm, judged several times: the band measures the judge, not "
        "the model.\n"
    ) in out
    assert "generation" not in out


def test_view_says_the_band_source_in_plain_words() -> None:
    text = sheet_text(sheet(read_receipt(NEBIUS)))
    lines = [" ".join(x.split()) for x in text.splitlines() if "band source" in x]
    assert lines == [
        "band source not recorded (one scored draw per arm, no spread): the receipt names none; "
        "no arm holds more than one scored draw, so no band has a spread"
    ]
    assert "legacy" not in text


def test_the_pages_say_each_arm_has_one_score_so_no_spread() -> None:
    # the caption read "each band is mean ± one sample standard deviation of the one score the
    # source gave the arm's one draw (n = 1): no spread"
    r = read_receipt(NEBIUS)
    pages = receipt_files("t", r, NEBIUS.read_bytes(), [], page_env())
    index = pages["receipts/t/index.html"].decode()
    case = pages["receipts/t/cases/0/index.html"].decode()
    assert (
        "Cases of nebius-skills: no arm holds more than one scored draw, so no band has a spread "
        "(n = 1); lift is with skill minus baseline"
    ) in index
    assert (
        '<p class="meta">No arm holds more than one scored draw, so no band has a spread '
        "(n = 1).</p>"
    ) in case
    for page in (index, case):
        assert "legacy" not in page and "standard deviation of the one score" not in page
        assert "not recorded (one scored draw per arm, no spread): the receipt names none" in page
    # case 2's baseline draw is lost ("baseline: no score"): the page said "each arm holds one
    # score" beside it
    lost = pages["receipts/t/cases/2/index.html"].decode()
    assert "no score (lost or unscored)" in lost and "Each arm holds one score," not in lost


def test_a_legacy_band_with_no_judge_sample_is_said_to_be_the_sources_one_score() -> None:
    # skill-creator's import: one run per arm, scored by the source, no judge sample; its legend
    # said "the valid judge samples of the arm's one draw" beside "the receipt holds no judge
    # sample" on the same page
    from driftproof.pages.band_sources import band_legend

    r = read_receipt(NEBIUS)
    assert band_legend(r) == (
        "no arm holds more than one scored draw, so no band has a spread (n = 1)"
    )


def test_the_case_list_and_the_case_page_say_a_lost_baseline_in_the_same_words() -> None:
    # case 2: with skill scored 1.0 (n = 1), the baseline's one draw lost (its agent was still
    # pending). The receipt page's case list said "baseline no score", the case page "no score
    # (lost or unscored)" and its lift "n/a: an arm has no score"
    r = read_receipt(NEBIUS)
    pages = receipt_files("t", r, NEBIUS.read_bytes(), [], page_env())
    index = pages["receipts/t/index.html"].decode()
    case = pages["receipts/t/cases/2/index.html"].decode()
    said = "baseline no score (lost or unscored)"
    assert f">Case 2</a>: with skill 1.000 (n = 1); {said}; no verdict</li>" in index
    assert "<dt>baseline</dt><dd>no score (lost or unscored)</dd>" in case
    assert f"<dt>lift (with skill minus baseline)</dt><dd>n/a: {said}</dd>" in case
    assert "an arm has no score" not in case and "baseline no score;" not in index
