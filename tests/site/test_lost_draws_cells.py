"""A case's lost draws in a table: the cell counts them and the reasons are said once, below.

A newcomer's finding: the receipt page's "lost draws" cell repeated each reason the "Lost draws"
table right under it gives (a phone showed the column one word per line, the row 388 px tall).
"""

from __future__ import annotations

from site_fixtures import REPO, section_html

from driftproof.pages.receipt_tables import receipt_tables
from driftproof.receipt import read_receipt

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
    assert [[c.text for c in r.cells] for r in t.lost.rows] == [["2", "baseline", "1", PENDING]]
    # a case that lost nothing says so, with no link
    assert {(r.cells[col].text, r.cells[col].link) for r in t.cases.rows if r is not row} == {
        ("none", None)
    }


def test_the_link_reaches_the_lost_draws_table_on_the_page() -> None:
    html = section_html("receipt_sheets", NEBIUS)  # the receipt is named "a" in the section
    assert '<td><a href="#table-lost-a">baseline 1 of 1</a></td>' in html
    assert html.count('id="table-lost-a"') == 1
    assert html.count(PENDING) == 1  # said once, in the lost-draws table
