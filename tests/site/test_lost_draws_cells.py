"""A case's lost draws in a table: the cell counts them and the reasons are said once, below.

A newcomer's finding: the receipt page's "lost draws" cell repeated each reason the "Lost draws"
table right under it gives (a phone showed the column one word per line, the row 388 px tall),
and the diff's note column did the same (the demo index's row 623 px tall).
"""

from __future__ import annotations

from types import SimpleNamespace

from factories import case, make_receipt
from site_fixtures import REPO, section_html

from driftproof.pages.receipt_tables import receipt_tables
from driftproof.receipt import Receipt, read_receipt
from driftproof.render.sheet import sheet_text
from driftproof.site.html import make_env, page_env, receipt_files
from driftproof.site.sections import SectionContext, section_types

NEBIUS = "skill-creator-nebius-skills-iteration-1-12a0aae8"
# report 003: case 2's agent without the skill was still running when the workspace was graded
PENDING = "without_skill agent was still pending at time of grading — no response available"


def test_a_lost_draws_cell_counts_them_and_links_to_the_table_of_reasons() -> None:
    t = receipt_tables(NEBIUS, read_receipt(REPO / "receipts" / f"{NEBIUS}.json"))
    row = next(r for r in t.cases.rows if r.cells[0].text == "2")
    col = [c.label for c in t.cases.columns].index("lost draws")
    cell = row.cells[col]
    # its one baseline draw lost: the count, and a link to the table under the case table
    assert (cell.text, cell.link) == ("baseline 1 of 1", f"#table-lost-{NEBIUS}")
    assert t.lost is not None
    # the draw by its number, as view says it ("draws 1" read as a count of one); the download
    # keeps the bare number under a heading that says what it is
    assert t.lost.columns[2].label == "draw numbers"
    assert [[c.text for c in r.cells] for r in t.lost.rows] == [["2", "baseline", "1", PENDING]]
    assert f"  2, baseline, draw 1: {PENDING}" in sheet_text(t.model, width=200).splitlines()
    # a case that lost nothing says so, with no link
    assert {(r.cells[col].text, r.cells[col].link) for r in t.cases.rows if r is not row} == {
        ("none", None)
    }


def test_the_link_reaches_the_lost_draws_table_on_the_page() -> None:
    html = section_html("receipt_sheets", NEBIUS)  # the receipt is named "a" in the section
    assert '<td><a href="#table-lost-a">baseline 1 of 1</a></td>' in html
    assert html.count('id="table-lost-a"') == 1
    assert html.count(PENDING) == 1  # said once, in the lost-draws table


def test_the_skill_fired_table_counts_them_too_linking_to_the_receipt_page() -> None:
    html = section_html("skill_fired", NEBIUS)  # the receipt is named "a" in the section
    assert '<td><a href="/receipts/a/index.html#table-lost-a">1 of 1</a></td>' in html
    assert PENDING not in html  # the reason is said on the receipt's page, where the link goes
    r = read_receipt(REPO / "receipts" / f"{NEBIUS}.json")
    page = receipt_files("a", r, b"", [], page_env())["receipts/a/index.html"].decode()
    assert page.count('id="table-lost-a"') == 1 and page.count(PENDING) == 1
    # its Cases text promises of each draw only what the receipt holds: no answer, judge sample,
    # check, refusal or stop reason, one lost draw
    assert "with what the receipt holds of each: why a draw was lost.</p>" in page


def test_a_comparisons_note_points_under_the_table_where_each_reason_is_said() -> None:
    # c1: earlier .50 .52 .51; later .80 .82 and a lost draw. Apart on the measured draws
    # (Δ .30 > sd .010 + .014), not at the lost draw's worst score 0 (later .80 .82 0: mean .54,
    # sd .468), so inconclusive (D-9)
    earlier = Receipt.model_validate(make_receipt([case("c1", [0.5, 0.52, 0.51], [0.4] * 3)]))
    later = Receipt.model_validate(make_receipt([case("c1", [0.8, 0.82, None], [0.4] * 3)]))
    env = make_env([REPO / "templates" / "pages", REPO / "templates" / "theme"])
    receipts = {"earlier": earlier, "later": later}
    ctx = SectionContext(report=SimpleNamespace(source="r.md"), receipts=receipts, env=env, root="")
    section = section_types()["comparison"]
    out = section.render(section.Params(a="earlier", b="later"), ctx)
    (table,) = out.tables
    (row,) = table.rows
    assert [c.text for c in row.cells][4:] == [
        "inconclusive",
        "3/3",
        "2/3",
        "draws lost (reasons below)",
    ]
    assert (
        "<p>Lost draws, left out of the bands above, with the recorded reasons:</p>\n<ul><li>c1: "
        "earlier: 0 of 3 draws lost; later: 1 of 3 draws lost (timeout after 2 retries)</li></ul>"
    ) in str(out.html)
