"""A figure below zero is written one way wherever people read it: with the minus sign U+2212, as
the token-savings tables print caveman's savings; where a program reads it (a CSV cell, a
workflow output) with "-".

A reader's finding: the receipt page's case table and the case page printed a lift "-0.833"
(hyphen-minus), the same receipt's report tables a saving "−18%"; ``view`` did the same.
"""

from __future__ import annotations

import pytest
from factories import case, make_receipt, run_main
from site_fixtures import REPO

from driftproof.pages.badge import workflow_outputs
from driftproof.pages.receipt_tables import receipt_tables
from driftproof.receipt import Receipt, read_receipt
from driftproof.site.html import page_env, receipt_files
from driftproof.stats.savings import percent

NEBIUS = "skill-creator-nebius-skills-iteration-1-12a0aae8"
MINUS = "\u2212"


def test_a_lift_below_zero_reads_with_the_minus_sign_on_every_page_and_in_view(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = REPO / "receipts" / f"{NEBIUS}.json"
    r = read_receipt(path)
    t = receipt_tables(NEBIUS, r)
    row = next(x for x in t.cases.rows if x.cells[0].text == "8")
    col = [c.label for c in t.cases.columns].index("lift")
    # case 8: one draw per arm, with the skill 0.000 and without it 0.833: lift 0 - 0.833
    assert row.cells[col].text == f"{MINUS}0.833"
    assert row.cells[col].csv == "-0.833"  # a spreadsheet reads it as the number
    page = receipt_files("a", r, b"", [], page_env())["receipts/a/cases/8/index.html"].decode()
    assert f"<dd>{MINUS}0.833</dd>" in page and "-0.833" not in page
    code, out, _ = run_main(["view", str(path)], capsys)
    assert code == 0 and f"{MINUS}0.833" in out and "-0.833" not in out


def test_a_saving_reads_so_too_and_a_workflow_output_keeps_the_hyphen() -> None:
    assert percent(-0.18) == f"{MINUS}18%"
    # with the skill 0.2 on each of 3 draws, without it 0.9: lift 0.2 - 0.9 = -0.7
    r = Receipt.model_validate(make_receipt([case("c1", [0.2] * 3, [0.9] * 3)]))
    assert workflow_outputs(r)["lift"] == "-0.700"
