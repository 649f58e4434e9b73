"""A case page says how its draws sit: side by side only where the screen is wide enough
(site.css puts each arm's draw one under another on a phone)."""

from __future__ import annotations

from site_fixtures import REPO

from driftproof.receipt import read_receipt
from driftproof.site.html import page_env, receipt_files


def test_a_case_page_says_its_draws_stack_on_a_narrow_screen() -> None:
    path = REPO / "receipts" / "caveman-2b10489-caveman.json"
    files = receipt_files("c", read_receipt(path), path.read_bytes(), [], page_env())
    html = files["receipts/c/cases/p01/index.html"].decode()
    assert (
        "Each row is one draw of each arm, side by side on a wide screen and one under another "
        "on a narrow one: with skill, baseline, control." in html
    )
