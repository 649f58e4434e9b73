"""The exact paired test beside the rule in ``view`` (text, Markdown, JSON) and ``diff``
(issue 37, item 3): context, never a verdict. Expected values are the hand example of
tests/stats/test_paired.py: paired values −.02 .01 .03 .04 .05 .07 .10 → 6 up, 1 down,
sign test p = 2·(1 + 7)/128 = 0.125, interval +0.005 to +0.075, coverage 1 − 6/128 = 95.3%."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof.cli import cli
from driftproof.wording import NO_SEPARATION

CHANGES = [-0.02, 0.01, 0.03, 0.04, 0.05, 0.07, 0.10]
EXPECTED = (
    "up in 6 of 7 cases, down in 1, zero in 0; sign test p = 0.125 (two-sided, exact); "
    "sign-flip interval on {what} +0.005 to +0.075 (95.3% coverage, exact, over all 128 "
    "sign flips)"
)


#: How the sheet labels the paired interval: an approximation, beside the exact test.
SHAPE = (
    " standard errors, {t} being Student's t for {df} of freedom, one fewer than the cases"
    ": it assumes the cases' lifts are normally spread, where the exact paired test assumes no "
    "shape)"
)


def test_the_paired_interval_reads_as_an_approximation_beside_the_exact_test(
    tmp_path: Path,
) -> None:
    """The method page's worked example: lifts +.08, +.10, +.12 (baseline .40, sd 0).

    Lift +.10, sd of the lifts .02, SE .02/√3 = .0115, t(.975, 2) = 4.303: ± .0497, so
    +0.050 to +0.150. Three cases: the exact test is not computed (6 needed). The two lines read
    as contradicting each other while the interval was an unlabelled "95% interval".
    """
    cases = [
        case(f"c{i}", [round(0.40 + d, 2)] * 3, [0.40] * 3) for i, d in enumerate((0.08, 0.1, 0.12))
    ]
    text = CliRunner().invoke(cli, ["view", _write(tmp_path, "r.json", make_receipt(cases))])
    assert (
        "  paired interval: suite lift +0.100, paired standard error 0.012 over 3 cases; "
        "approximate 95% interval +0.050 to +0.150 (the lift ± 4.303"
        + SHAPE.format(t="4.303", df="2 degrees")
        + "\n"
        "  exact paired test: lift up in 3 of 3 cases, down in 0, zero in 0; not computed: this "
        "exact test needs at least 6 cases, because with fewer none of its results can reach the "
        "95% level\n"
    ) in text.output
    method = (Path(__file__).parents[1] / "site_src" / "method.md").read_text(encoding="utf-8")
    section = method.split("### The paired interval on the lift")[1].split("###")[0]
    assert "+0.08, +0.10 and +0.12" in section and "+0.050 to +0.150" in section
    assert "approximation" in section and "6 cases" in section


def _write(tmp_path: Path, name: str, doc: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(seal_document(doc)))
    return str(path)


def test_view_shows_the_exact_test_on_the_suite_lift(tmp_path: Path) -> None:
    # each case: baseline .40 x3, with skill .40 + lift x3 (sd 0 in both arms)
    cases = [case(f"c{i}", [round(0.40 + d, 2)] * 3, [0.40] * 3) for i, d in enumerate(CHANGES)]
    path = _write(tmp_path, "r.json", make_receipt(cases))
    text = CliRunner().invoke(cli, ["view", path]).output
    assert "exact paired test: lift " + EXPECTED.format(what="the suite lift") in text
    md = CliRunner().invoke(cli, ["view", path, "--format", "markdown"]).output
    assert "- exact paired test: lift up in 6 of 7 cases" in md
    doc = json.loads(CliRunner().invoke(cli, ["view", path, "--format", "json"]).output)
    assert doc["context"]["exact"] == "lift " + EXPECTED.format(what="the suite lift")


def test_view_below_six_cases_says_not_computed(tmp_path: Path) -> None:
    cases = [case(f"c{i}", [0.5] * 3, [0.4] * 3) for i in range(5)]
    text = CliRunner().invoke(cli, ["view", _write(tmp_path, "r.json", make_receipt(cases))])
    assert (
        "exact paired test: lift up in 5 of 5 cases, down in 0, zero in 0; not computed: this "
        "exact test needs at least 6 cases" in text.output
    )


def test_diff_shows_the_exact_test_on_the_mean_change(tmp_path: Path) -> None:
    a = [case(f"c{i}", [0.50] * 3, [0.40] * 3) for i in range(7)]
    b = [case(f"c{i}", [round(0.50 + d, 2)] * 3, [0.40] * 3) for i, d in enumerate(CHANGES)]
    pa = _write(tmp_path, "a.json", make_receipt(a))
    pb = _write(tmp_path, "b.json", make_receipt(b))
    res = CliRunner().invoke(cli, ["diff", pa, pb])
    assert (
        "Exact paired test over cases, context (never a verdict): with-skill mean "
        + EXPECTED.format(what="the mean change")
        + "."
    ) in res.output
    doc = json.loads(CliRunner().invoke(cli, ["diff", pa, pb, "--format", "json"]).output)
    p = doc["paired"]
    assert (p["up"], p["down"], p["zero"], p["method"]) == (6, 1, 0, "exact")
    assert abs(p["sign_test_p"] - 0.125) < 1e-12
    assert abs(p["interval"][0] - 0.005) < 1e-9 and abs(p["interval"][1] - 0.075) < 1e-9


def test_view_says_where_the_paired_interval_is_clipped(tmp_path: Path) -> None:
    # lifts −.25 and 0 (one draw each): −.125 ± 12.706·.125 = −1.713 to +1.463, past ±1
    cases = [case("c1", [0.5], [0.75]), case("c2", [0.5], [0.5])]
    text = CliRunner().invoke(cli, ["view", _write(tmp_path, "r.json", make_receipt(cases))])
    assert (
        "paired interval: suite lift −0.125, paired standard error 0.125 over 2 cases; "
        "approximate 95% interval −1.000 to +1.000 (the lift ± 12.706"
        + SHAPE.format(t="12.706", df="1 degree")
        + "; clipped at "
        "−1 and +1: a lift is never outside −1 to +1\n"
    ) in text.output
    # lifts .5, .4: .45 ± 12.706·.05 = -0.185 to +1.085: only the top is clipped
    cases = [case("c1", [0.9], [0.4]), case("c2", [0.8], [0.4])]
    text = CliRunner().invoke(cli, ["view", _write(tmp_path, "s.json", make_receipt(cases))])
    shape = SHAPE.format(t="12.706", df="1 degree")
    assert "interval −0.185 to +1.000 (the lift ± 12.706" + shape + "; clipped at +1" in text.output


def test_a_thousand_cases_print_with_a_thousands_separator(tmp_path: Path) -> None:
    # each case: .60 .62 .61 → .71 .72 .70 (Δ +.100, sd .010 each: improved); with skill
    # .71 against baseline (.47 + .44 + .49) / 3 = .4667: lift +.243 in every case
    a = [case(f"c{i}", [0.60, 0.62, 0.61], [0.45, 0.50, 0.48]) for i in range(1000)]
    b = [case(f"c{i}", [0.71, 0.72, 0.70], [0.47, 0.44, 0.49]) for i in range(1000)]
    pa = _write(tmp_path, "a.json", make_receipt(a))
    pb = _write(tmp_path, "b.json", make_receipt(b))
    lines = CliRunner().invoke(cli, ["diff", pa, pb]).output.splitlines()
    # the headline names ten of them, in the receipt's order, not all thousand on one line
    assert lines[1] == (
        "1,000 cases improved (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 and 990 more)"
    )
    assert lines[2] == (
        f"1,000 cases: 1,000 improved, 0 regressed, 0 below effect floor, 0 {NO_SEPARATION}, "
        "0 underpowered, 0 inconclusive"
    )
    text = CliRunner().invoke(cli, ["view", pb]).output
    assert "Measured lift, equal weight per case over 1,000 included cases: +0.243" in text
    assert "paired standard error 0.000 over 1,000 cases; " in text
    assert "exact paired test: lift up in 1,000 of 1,000 cases, down in 0, zero in 0; " in text
