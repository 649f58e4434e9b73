"""``diff``'s context beside its verdicts, by hand: the paired counts and the two lifts in JSON,
the Markdown's paragraphs, and an A/A calibration cited after the diff in each format."""

from __future__ import annotations

import json

from factories import case, make_receipt

from driftproof.pages.comparison import Comparison, compare_receipts
from driftproof.receipt import Receipt
from driftproof.render.comparison import comparison_json, comparison_markdown, with_aa
from driftproof.stats.aa import AACase, AAReading

# earlier: c1 0.6 with the skill, 0.4 without (lift 0.2); c2 0.5 and 0.5 (lift 0).
# later: c1 0.8 against 0.4 (lift 0.4); c2 0.7 against 0.5 (lift 0.2).
EARLIER = [case("c1", [0.6, 0.6], [0.4, 0.4]), case("c2", [0.5, 0.5], [0.5, 0.5])]
LATER = [case("c1", [0.8, 0.8], [0.4, 0.4]), case("c2", [0.7, 0.7], [0.5, 0.5])]


def _comparison() -> Comparison:
    a, b = (Receipt.model_validate(make_receipt(x)) for x in (EARLIER, LATER))
    return compare_receipts(a, b, a_name="a", b_name="b")


def test_the_json_carries_the_paired_counts_and_both_lifts() -> None:
    doc = json.loads(comparison_json(_comparison()))
    # with-skill change per case: c1 0.8 - 0.6 = +0.2, c2 0.7 - 0.5 = +0.2: 2 up, none down;
    # 2 cases are under the 6 the paired test needs, so no p and no interval
    paired = doc["paired"]
    assert (paired["cases"], paired["up"], paired["down"], paired["zero"]) == (2, 2, 0, 0)
    assert paired["sign_test_p"] is None and paired["interval"] == [None, None]
    assert paired["not_computed"].startswith("not computed below 6 cases (2 here)")
    # the suite lifts over both cases: earlier (0.2 + 0) / 2 = 0.1, later (0.4 + 0.2) / 2 = 0.3
    lifts = doc["lifts"]
    assert (round(lifts["a"], 9), round(lifts["b"], 9)) == (0.1, 0.3)
    assert (lifts["cases"], lifts["a_cases"], lifts["b_cases"]) == (["c1", "c2"], 2, 2)


def test_the_markdown_opens_on_its_first_paragraph_with_a_blank_line_between_each() -> None:
    md = comparison_markdown(_comparison())
    assert md.strip() and not md.startswith("\n")
    # paragraphs are blank-line separated: the table's header row follows a blank line
    lines = md.split("\n")
    head = next(i for i, x in enumerate(lines) if x.startswith("| case"))
    assert head > 0 and lines[head - 1] == ""


def _reading() -> AAReading:
    # two cases, neither with a spread to read (fewer than two measured draws an arm)
    cases = tuple(AACase(f"c{i}", False, 1, None, False, None) for i in range(2))
    return AAReading(cases, 0, 0.0, 0.0, None, None, 2, 2000)


def test_an_aa_calibration_is_cited_after_the_diff_in_each_format() -> None:
    line = (
        "A/A calibration {}: the rule called a change, up or down, in 0 of 2 cases between "
        "two runs of the same arm; 2 cases with no spread to read."
    )
    assert with_aa("the diff\n", "text", "a<b.json", _reading()) == (
        f"the diff\n\n{line.format('a<b.json')}\n"
    )
    # Markdown: the file name's "<" and ">" as HTML entities
    assert with_aa("the diff\n", "markdown", "a<b.json", _reading()) == (
        f"the diff\n\n{line.format('a&lt;b.json')}\n"
    )
    doc = json.loads(with_aa('{"exit_status": 0}', "json", "aa.json", _reading()))
    assert doc["exit_status"] == 0
    assert doc["aa"]["file"] == "aa.json" and doc["aa"]["cases"] == 2
    assert doc["aa"]["sentence"] == line.format("aa.json")
    assert doc["aa"]["observed_false_calls"] == 0
