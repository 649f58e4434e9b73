"""The site's hand-written pages say what the product shows and does (a newcomer's findings):
"case" where the command line and the tables say it, R-3 as the verdict code reads a case below
the floor, and the band kinds in the words the tables print."""

from __future__ import annotations

import re

from factories import case, make_receipt
from site_fixtures import REPO

from driftproof.pages.band_sources import band_facts
from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt
from driftproof.stats import VerdictCode, receipt_reading
from driftproof.wording import BAND_SOURCE_HEADER, BELOW_EFFECT_FLOOR, NO_SEPARATION

SITE_SRC = REPO / "site_src"


def _words(name: str) -> str:
    """``site_src/<name>``'s text on one line, whitespace folded."""
    return " ".join((SITE_SRC / name).read_text(encoding="utf-8").split())


def test_the_sites_own_words_say_case_where_the_method_says_task() -> None:
    # the glossary promises one word on the command line, the sheet and the site; the method
    # page said "task" 95 times. "task" stays only where the method's word is named as its,
    # in a quotation, or in a source's own words in quotation marks
    said = {}
    for name in ("method.md", "index.md", "neutrality.md", "receipt-spec.md"):
        text = _words(name).replace("the method calls it a *task*", "")
        text = re.sub(r'"[^"]*"|`[^`]*`', "", text)
        said[name] = re.findall(r"(?i)\btasks?\b", text)
    assert said == {n: [] for n in said}
    # the method's own sentence is kept word for word, marked as a quotation
    method = (SITE_SRC / "method.md").read_text(encoding="utf-8")
    assert (
        "In the method's own words:\n\n> Score every answer several times, call a change only when"
    ) in method


def _r3() -> str:
    spec = _words("receipt-spec.md")
    return spec[spec.index("**R-3 Effect floor.**") : spec.index("**R-4 Underpowered.**")]


def test_r3_says_how_a_case_below_the_floor_reads_as_the_code_reads_it() -> None:
    # with skill .50 .51 .50 (mean .5033, sd .0058), baseline .47 .47 .48 (mean .4733): apart
    # (Δ .030 > .0115) and under the 0.05 floor (D-4)
    r = Receipt.model_validate(make_receipt([case("c1", [0.5, 0.51, 0.5], [0.47, 0.47, 0.48])]))
    reading = receipt_reading(r)
    assert [v.verdict for v in reading.cases] == [VerdictCode.BELOW_EFFECT_FLOOR]
    assert reading.sentence == NO_SEPARATION  # the receipt as a whole
    b = Receipt.model_validate(make_receipt([case("c1", [0.53, 0.54, 0.53], [0.4] * 3)]))
    # a diff of the with-skill arms: .5033 → .5333, apart and under the floor
    c = compare_receipts(r, b)
    assert [v.verdict for v in c.rows] == [VerdictCode.BELOW_EFFECT_FLOOR]
    assert c.headline == NO_SEPARATION
    r3 = _r3()
    # it said a case below the floor "reads no separation detected" beside "is labelled below
    # effect floor": the label is the case's, the sentence the headline's and the reading's
    assert "or is below the floor, reads" not in r3
    assert f"the per-case table labels it *{BELOW_EFFECT_FLOOR}*" in r3
    assert (
        "Where no case is improved or regressed, whether its cases are below the floor or not "
        "separated, the comparison's headline and a single receipt's reading say "
        f"*{NO_SEPARATION}*"
    ) in r3


def test_the_method_names_each_kind_of_band_in_the_words_tables_print() -> None:
    method = _words("method.md")
    bands = method[method.index("## Bands") : method.index("## When a change is called")]
    words = [
        BAND_SOURCE_HEADER["generation"],  # the results page
        "generation",  # a diff's column head and legend (method: "legacy or generation")
        "legacy",  # a diff's column head and legend
        BAND_SOURCE_HEADER["as_given"].split(",")[0],  # "one score per answer, as the source …"
        "one answer per arm",  # the results page's band source, legacy
        "one scored draw per arm",  # the results page: bands across draws, one draw each
        "none",  # the results page and the sheet: no judged score, or aggregates only
        "no band",  # a diff's column head for a side with none
        "not recorded",  # a receipt that names no band source
    ]
    assert [w for w in words if f"*{w}*" not in bands] == []
    # a receipt naming no band source: "not recorded", then the kind its draws show; three
    # draws per arm show bands across draws
    unnamed = make_receipt([case("c1", [0.5, 0.51, 0.5], [0.47, 0.47, 0.48])]) | {
        "band_source": None
    }
    shown = band_facts(Receipt.model_validate(unnamed)).short
    assert shown == "not recorded (bands across draws)" and f"*{shown}*" in bands
    # it said every table shows "legacy" or "generation": those are the receipt's values
    assert "**legacy**" not in bands and "**generation**" not in bands
    # its prose named the receipt's raw values in brackets ("(the receipt's band source
    # `generation`)", "(`legacy`)") and history a reader could not place ("before the
    # instrument was corrected"): plain words, and when (before three draws per arm)
    assert "`generation`" not in bands and "`legacy`" not in bands
    assert "instrument was corrected" not in bands
    assert "The method draws each arm at least three times. Receipts made before it did" in bands


def test_the_method_page_states_the_receipt_wide_band_as_the_method_does() -> None:
    # two cases, no separation in either (lift 0, spreads 0.01 at 3 draws: resolution 0.036),
    # their means 0.0503 apart in each arm: s = 0.0503/√2 = 0.03557 per arm, band
    # √(2 × 0.001265) = 0.0503 ≥ 0.05, UNDERPOWERED; draw part w = 0.01²/3 = 0.0000333, reduced
    # √(2 × (0.001265 − 0.0000333)) = 0.0496 < 0.05: draw spread, "Not enough draws" (method,
    # "A wide band over several cases"), though the means sit apart by more than draw noise
    one, two = [0.59, 0.6, 0.61], [0.6403, 0.6503, 0.6603]
    r = Receipt.model_validate(make_receipt([case("c1", one, one), case("c2", two, two)]))
    assert receipt_reading(r).sentence == "Not enough draws to conclude at this effect floor."
    method = _words("method.md")
    section = method[method.index("## Not enough draws") : method.index("## Reading the lift")]
    # the page said "More cases" whenever the means sit apart "by more than their draw-to-draw
    # noise explains", which this receipt's do; the method's own sentences, case for task
    assert "by more than their draw-to-draw noise explains" not in section
    for said in (
        "A receipt in which two or more cases read no separation, and none is underpowered on "
        "its own, is asked the same question once more, over the receipt as a whole.",
        "Its comparison band, each arm's spread of its per-case means added in quadrature, must "
        "be under the 0.05 floor. When it reaches the floor the receipt reads UNDERPOWERED, with "
        "no draw count, and says what makes the band wide.",
        "With the draw-to-draw part taken out of each arm, a band still at or above the floor is "
        "the cases disagreeing, and the receipt says *More cases, not more draws, are needed to "
        "conclude at this effect floor.*",
        "A band under it is draw spread, which more draws are expected to narrow, and the "
        "receipt says *Not enough draws to conclude at this effect floor.*",
        "A one-case receipt forms no such band.",
    ):
        assert said in section


def test_the_method_page_gives_the_judge_samples_per_draw_the_method_gives() -> None:
    # method: "Each response is graded by the fixed judge several times (n = 5)"; --quick, "2
    # judge samples per answer". The page said "several times" and no number
    with_without = _words("method.md").split("## Bands")[0]
    assert "scores every draw several times (n = 5; a `--quick` smoke run, 2)" in with_without
