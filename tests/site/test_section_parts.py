"""The parts the section types share (issue 18): the receipt-list base, the table helpers,
the first output-token count, the printed-figures reader and the skill_fired rows.

Expected values are worked out by hand from the receipts built here."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError
from receipt_docs import draw_doc, judge_sample_doc, seal_document
from site_fixtures import REPO, savings_receipt, scored_receipt, section_html

from driftproof.pages.case import first_output_tokens
from driftproof.pages.printed_figures import printed_rows
from driftproof.pages.tables import Cell, Column, Row, Table, csv_bytes, csv_number, text_row
from driftproof.pages.token_savings import count_cell as count_pair
from driftproof.receipt import parse_receipt, read_receipt
from driftproof.site.html import make_env
from driftproof.site.sections import (
    ReceiptsParams,
    ReceiptsSection,
    SectionContext,
    section_types,
)


def _model(doc: dict[str, Any]) -> Any:
    return parse_receipt(json.dumps(seal_document(doc)).encode("utf-8"), "<test>")


# ---------------------------------------------------------------- the receipt-list base


def test_every_receipt_list_type_shares_one_parameter_model_and_check() -> None:
    types = section_types()
    for name in (
        "token_savings",
        "receipt_sheets",
        "source_figures",
        "skill_fired",
        "cross_family",
    ):
        assert isinstance(types[name], ReceiptsSection), name
        assert types[name].Params is ReceiptsParams, name
    assert not isinstance(types["comparison"], ReceiptsSection)  # it takes a and b


def test_receipts_params_refuse_an_unknown_key() -> None:
    with pytest.raises(ValidationError):
        ReceiptsParams.model_validate({"receipt": ["a"]})  # singular: a typo, refused


def test_names_default_to_the_reports_receipts_in_order_and_drop_json() -> None:
    ctx: Any = SimpleNamespace(receipts={"b": None, "a": None})
    assert ReceiptsSection.names(ReceiptsParams(), ctx) == ["b", "a"]
    assert ReceiptsSection.names(ReceiptsParams(receipts=["a.json"]), ctx) == ["a"]


def test_check_names_each_receipt_that_is_not_the_reports_by_pointer() -> None:
    section = section_types()["cross_family"]
    params = ReceiptsParams(receipts=["a", "zz.json", "b", "q"])
    assert section.check(params, ("a", "b")) == [
        ("/receipts/1", "expected one of the report's receipts (a, b), found 'zz.json'"),
        ("/receipts/3", "expected one of the report's receipts (a, b), found 'q'"),
    ]
    assert section.check(ReceiptsParams(), ("a",)) == []


def test_a_report_of_many_receipts_is_not_listed_whole_in_the_error() -> None:
    # report 002 lists 343 receipts: one wrong name in a section was one error line of 13.6 KB
    many = tuple(f"r{i:03d}" for i in range(343))
    params = ReceiptsParams(receipts=["r000", "nope"])
    assert section_types()["cross_family"].check(params, many) == [
        (
            "/receipts/1",
            "expected one of the 343 receipts the report lists (/receipts), found 'nope'",
        )
    ]
    six = tuple("abcdef")
    assert section_types()["cross_family"].check(ReceiptsParams(receipts=["z"]), six) == [
        ("/receipts/0", "expected one of the 6 receipts the report lists (/receipts), found 'z'")
    ]


# ---------------------------------------------------------------- table helpers


def test_table_helpers() -> None:
    assert csv_number(0.1) == "0.1" and csv_number(-0.0) == "-0.0" and csv_number(None) == ""
    assert Cell(*count_pair(1234567)) == Cell("1,234,567", "1234567")
    assert Cell(*count_pair(None)) == Cell("–", "")
    assert Cell(*count_pair(1234567)).csv == "1234567" and Cell("x").csv == "x"
    assert text_row("c1", "0.5") == Row((Cell("c1"), Cell("0.5")), header=True)
    assert text_row("c1", anchor="case-c1").anchor == "case-c1"


# ---------------------------------------------------------------- receipt readers


def test_first_output_tokens_is_the_first_draw_that_records_one() -> None:
    doc = savings_receipt("alpha", {"c1": (120, 300, 450)})
    arms = doc["cases"][0]["arms"]
    # a first draw without tokens, then one with 77 output tokens, then one with 9
    arms["with_skill"]["draws"] = [
        draw_doc(0, answer="a"),
        draw_doc(1, answer="b", tokens={"input": 5, "output": 77, "counted_by": "o200k_base"}),
        draw_doc(2, answer="c", tokens={"input": 5, "output": 9, "counted_by": "o200k_base"}),
    ]
    r = _model(doc)
    assert first_output_tokens(r.cases[0].arms.with_skill) == 77
    assert first_output_tokens(r.cases[0].arms.control) == 300
    assert first_output_tokens(r.cases[0].arms.baseline) == 450
    assert first_output_tokens(None) is None


def test_printed_rows_only_for_aggregates_only_receipts() -> None:
    assert printed_rows(_model(scored_receipt({"c1": ([0.5, 0.6], [0.4, 0.5])}))) is None
    # a committed NVIDIA card: aggregates only, its printed rows as the importer kept them
    r = read_receipt(sorted((REPO / "receipts").glob("nvidia-*.json"))[0])
    rows = printed_rows(r)
    assert rows is not None and rows == r.source_figures.rows  # type: ignore[union-attr]


# ---------------------------------------------------------------- skill_fired rows


def _fired_receipt() -> dict[str, Any]:
    doc = scored_receipt({"c1": ([0.5, 0.6, 0.7], [0.4, 0.5, 0.6])})
    arms = doc["cases"][0]["arms"]

    def sample(s: float) -> list[dict[str, Any]]:
        return [judge_sample_doc(s, reply=str(s))]

    # with skill: fired, fired, lost (fired recorded but left out); baseline: no, unobserved, no
    arms["with_skill"]["draws"] = [
        draw_doc(0, answer="a", judge_samples=sample(0.5), skill_fired=True),
        draw_doc(1, answer="b", judge_samples=sample(0.7), skill_fired=True),
        draw_doc(2, answer=None, lost_reason="source error: boom", skill_fired=True),
    ]
    arms["baseline"]["draws"] = [
        draw_doc(0, answer="a", judge_samples=sample(0.4), skill_fired=False),
        draw_doc(1, answer="b", judge_samples=sample(0.5)),
        draw_doc(2, answer="c", judge_samples=sample(0.6), skill_fired=False),
    ]
    return doc


def test_skill_fired_rows_count_measured_draws_and_lost_ones() -> None:
    env = make_env([REPO / "templates" / "pages", REPO / "templates" / "theme"])
    report: Any = SimpleNamespace(source="reports/999-test.md")
    ctx = SectionContext(
        report=report, receipts={"r": _model(_fired_receipt())}, env=env, root=".."
    )
    section = section_types()["skill_fired"]
    out = section.render(ReceiptsParams(), ctx)
    cases = next(t for t in out.tables if t.id.endswith("-cases"))
    assert [c.label for c in cases.columns] == [
        "case",
        "arm",
        "score band",
        "skill fired (measured draws)",
        "lost draws",
    ]
    with_skill, baseline = cases.rows
    # with skill: the lost draw is left out → fired on 2 of 2 measured draws
    assert [c.text for c in with_skill.cells[3:]] == ["2 of 2 (100%)", "1 of 3"]
    assert with_skill.cells[4].link == "../receipts/r/index.html#table-lost-r"
    assert with_skill.cells[3].csv == "2"
    # baseline: observed on draws 1 and 3, fired on neither → 0 of 2
    assert [c.text for c in baseline.cells[3:]] == ["0 of 2 (0%)", "none"]
    # the case's first row carries its anchor, the next none
    assert with_skill.anchor == "r-fired-c1" and baseline.anchor is None
    assert "draw by draw (each of its runs), whether the skill fired" in str(out.html)


def test_skill_fired_over_a_receipt_that_recorded_no_firing_claims_no_check() -> None:
    # the section's lead said "The source ran a check on every draw ... whether the agent called
    # its Skill tool" over any receipt, one from promptfoo (which records no firing) too
    env = make_env([REPO / "templates" / "pages", REPO / "templates" / "theme"])
    doc = scored_receipt({"c1": ([0.5, 0.6, 0.7], [0.4, 0.5, 0.6])})  # no draw says it fired
    ctx = SectionContext(
        report=SimpleNamespace(source="reports/999-test.md"),
        receipts={"r": _model(doc)},
        env=env,
        root="..",
    )
    out = section_types()["skill_fired"].render(ReceiptsParams(), ctx)
    html = " ".join(str(out.html).split())
    assert "ran a check on every draw" not in html
    assert "Where the source recorded, draw by draw" in html
    (arms,) = [t for t in out.tables if not t.id.endswith("-cases")]
    assert [r.cells[-1].text for r in arms.rows] == ["not recorded", "not recorded"]


# ---------------------------------------------------------------- a section's type


def test_a_section_type_that_is_no_name_is_a_problem_not_a_crash(tmp_path: Any) -> None:
    from driftproof.site.inputs import parse_report

    front = (
        "---\nnumber: 1\nslug: x\ntitle: X\ndate: 2026-01-01\nreceipts: [a]\n"
        "sections:\n  - type: [token_savings]\n  - type: {a: 1}\n---\nProse.\n"
    )
    report, problems = parse_report(front.encode("utf-8"), "reports/001-x.md", ["a"])
    assert report is None
    found = [(p.pointer, p.message) for p in problems]
    names = ", ".join(sorted(section_types()))
    assert found == [
        ("/sections/0/type", f"expected one of {names}, found ['token_savings']"),
        ("/sections/1/type", f"expected one of {names}, found {{'a': 1}}"),
    ]


def test_csv_cells_never_start_a_formula() -> None:
    t = Table(
        "t",
        "c",
        (Column("=SUM(A1)"), Column("n", True)),
        (
            Row((Cell('=HYPERLINK("http://evil.example")'), Cell("-0.5"))),
            Row((Cell("@cmd"), Cell("+1e3"))),
            Row((Cell("-x"), Cell("plain"))),
        ),
    )
    assert csv_bytes(t).decode().splitlines() == [
        "'=SUM(A1),n",
        '"\'=HYPERLINK(""http://evil.example"")",-0.5',
        "'@cmd,+1e3",
        "'-x,plain",
    ]


def test_a_case_pages_lost_draw_names_its_kind_in_words() -> None:
    # "… (unknown_ending)": the runner's code; the page names the kind in words
    from factories import case, make_receipt

    from driftproof.pages.case import case_draws

    c = case("c1", [0.6, None], [0.4])
    c["arms"]["with_skill"]["draws"][1]["lost"] |= {"kind": "unknown_ending", "status": 502}
    r = parse_receipt(json.dumps(make_receipt([c])).encode(), "r.json")
    lost = case_draws(r, r.cases[0])["rows"][1][0]["lost"]
    assert lost == "timeout after 2 retries (unknown ending, status 502)"


def test_a_case_pages_folded_prompt_counts_its_characters_with_a_separator() -> None:
    # 1,500 characters is past the 1,200 a page shows unfolded
    from factories import case, make_receipt

    from driftproof.site.html import page_env, receipt_files

    c = case("c1", [0.6], [0.4])
    c["prompt"] = "x" * 1500
    raw = json.dumps(make_receipt([c])).encode()
    page = receipt_files("r", parse_receipt(raw, "r.json"), raw, [], page_env())
    assert "Show the prompt (1,500 characters)" in page["receipts/r/cases/c1/index.html"].decode()


def test_the_source_figures_section_counts_figures_and_skills_in_words() -> None:
    # the committed aiq-deploy import prints 10 rows (5 dimensions × 2 agents) for one skill
    html = section_html("source_figures", "nvidia-7149a88-aiq-deploy")
    assert "<p>10 figures for 1 skill, copied from the source" in html


def test_the_figure_count_counts_the_printed_rows_not_their_cells_words() -> None:
    # a dimension the source named "no results printed" is still one of its 10 figures
    doc = json.loads((REPO / "receipts" / "nvidia-7149a88-aiq-deploy.json").read_text())
    doc["source_figures"]["rows"][0]["dimension"] = "no results printed"
    env = make_env([REPO / "templates" / "pages", REPO / "templates" / "theme"])
    ctx = SectionContext(SimpleNamespace(source="r.md"), {"a": _model(doc)}, env, root="")
    section = section_types()["source_figures"]
    html = str(section.render(section.Params(), ctx).html)
    assert "<p>10 figures for 1 skill, copied from the source" in html


def test_csv_cells_start_no_formula_after_another_separator_or_as_a_number_lookalike() -> None:
    # OWASP: a cell can start after a separator inside a value; a spreadsheet whose list
    # separator is ";" splits the unquoted x;=cmd… there, so that line is quoted throughout.
    # ASVS adds NUL to the starting characters; "-inf", "-1_0" are no number to a spreadsheet
    # ("-0.25", "+1e3", "-.5" are, and stay as they are).
    t = Table(
        "t",
        "c",
        (Column("a"), Column("b")),
        (
            Row((Cell("x;=cmd|' /C calc'!A0"), Cell("1"))),
            Row((Cell("\0=1+1"), Cell("-inf"))),
            Row((Cell("-1_0"), Cell("-0.25"))),
            Row((Cell("+1e3"), Cell("-.5"))),
        ),
    )
    assert csv_bytes(t).decode().split("\n") == [
        "a,b",
        '"x;=cmd|\' /C calc\'!A0","1"',
        "'\0=1+1,'-inf",
        "'-1_0,-0.25",
        "+1e3,-.5",
        "",
    ]


def test_a_csv_cell_with_a_carriage_return_is_quoted_so_it_starts_no_row() -> None:
    # Found: a receipt's arm label "x\r=1+1" was written unquoted; a spreadsheet ends a row at
    # the carriage return, so "=1+1" started a row of its own as a formula (and Python's csv
    # reader refused the file: "new-line character seen in unquoted field")
    t = Table("t", "c", (Column("a"), Column("b")), (Row((Cell("x\r=1+1"), Cell("1"))),))
    data = csv_bytes(t).decode()
    assert data == 'a,b\n"x\r=1+1","1"\n'
    assert list(csv.reader(io.StringIO(data, newline=""))) == [["a", "b"], ["x\r=1+1", "1"]]


def test_a_case_id_windows_reads_as_a_device_gets_a_folder_windows_can_hold() -> None:
    # Found: a case id CON (or nul.v2, Com1: Windows' device names in any letter case, with or
    # without an extension) had its page in receipts/r/cases/CON/, a folder Windows cannot create
    from factories import case, make_receipt

    from driftproof.site.html import page_env, receipt_files

    cases = [case(cid, [0.6], [0.4]) for cid in ("CON", "nul.v2", "Com1", "console")]
    raw = json.dumps(make_receipt(cases)).encode()
    pages = receipt_files("r", parse_receipt(raw, "r.json"), raw, [], page_env())
    folders = sorted(p.split("/")[3] for p in pages if p.startswith("receipts/r/cases/"))
    assert folders == ["case-CON", "case-Com1", "case-nul.v2", "console"]


def test_a_case_page_says_an_arm_the_source_did_not_record_is_not_recorded() -> None:
    # this receipt is one skill's file of caveman's judged fidelity snapshot: the skill arm only,
    # its baseline and control arms not recorded; the case page said "No draw at this position."
    # for each of them
    from driftproof.pages.case import case_draws
    from driftproof.receipt import read_receipt

    r = read_receipt(REPO / "receipts" / "caveman-5c7e19a-judged-fidelity-caveman.json")
    draws = case_draws(r, r.cases[0])
    assert draws["labels"] == ["with skill", "baseline", "control"]
    gone = "Not recorded by the source."
    assert draws["none"] == ["No draw at this position.", gone, gone]
    assert all(row[1] is None and row[2] is None for row in draws["rows"])


def test_a_case_page_says_an_arm_has_no_draw_and_why_a_single_arm_case_has_no_lift(
    tmp_path: Path,
) -> None:
    # skill-creator iteration: eval-1 ran both configurations, eval-2 with the skill only; a
    # single-arm import (with_skill alone). The case page said eval-2's baseline was "no score
    # (lost or unscored)" (it has no draw at all), and each single-arm case's lift was
    # "n/a: an arm has no score" (the baseline was never recorded), and eval-2's lift too (its
    # baseline has no draw: the lift now says so in the band's own words)
    from driftproof.importers.skill_creator import SkillCreatorOptions, import_skill_creator
    from driftproof.pages.case import case_pages
    from driftproof.pages.sheet import sheet

    def grading(it: Path, e: int, cfg: str) -> None:
        path = it / f"eval-{e}" / cfg / "grading.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"expectations": [{"text": "a", "passed": True}]}), "utf-8")

    two, one = tmp_path / "two" / "iteration-1", tmp_path / "one" / "iteration-1"
    grading(two, 1, "with_skill"), grading(two, 1, "without_skill"), grading(two, 2, "with_skill")
    grading(one, 1, "with_skill")
    lift = "lift (with skill minus baseline)"
    (item,) = import_skill_creator([two], SkillCreatorOptions(skill_name="s"))
    r = parse_receipt(json.dumps(seal_document(item.body.to_json_dict())).encode(), "r.json")
    page = case_pages(r, sheet(r))[1]  # eval-2
    assert dict(page["bands"])["baseline"] == "no draw in this case"
    assert dict(page["bands"])[lift] == "n/a: baseline no draw in this case"
    assert (
        sheet(r).cases[1].line
        == "with skill 1.000 (n = 1); baseline no draw in this case; no verdict"
    )
    assert page["draws"]["none"] == [
        "No draw at this position.",
        "No draw of this arm in this case.",
    ]
    (item,) = import_skill_creator([one], SkillCreatorOptions(skill_name="s"))
    r = parse_receipt(json.dumps(seal_document(item.body.to_json_dict())).encode(), "r.json")
    bands = dict(case_pages(r, sheet(r))[0]["bands"])
    assert bands["baseline"] == "not recorded by the source"
    assert bands[lift] == "n/a: baseline not recorded by the source"
