"""A receipt page's case table says what it holds when the receipt holds no judged score.

The caveman receipts hold no score at all (caveman's snapshot has no grader); report 005's
fidelity receipts hold the grader's fact checks of the with-skill arm only, with no score and no
output tokens (SOURCE.md of ``data/caveman``). Their case tables showed a band legend ("each band
is mean ± one sample standard deviation of the one score …") over cells that are all "–".
"""

from __future__ import annotations

from site_fixtures import REPO

from driftproof.pages.receipt_tables import receipt_tables
from driftproof.receipt import read_receipt


def _cases(name: str) -> tuple[str, list[list[str]]]:
    r = read_receipt(REPO / "receipts" / f"{name}.json")
    t = receipt_tables(name, r).cases
    return t.caption, [[c.text for c in row.cells] for row in t.rows]


def test_a_receipt_with_no_score_says_its_table_shows_checks_and_tokens_instead() -> None:
    caption, rows = _cases("caveman-2b10489-caveman")
    assert caption == (
        "Cases of caveman: the receipt holds no judged score, so no case has a band or a lift "
        "(–); each row shows the case's checks, lost draws and output tokens "
        "(with skill / baseline / control)"
    )
    assert "standard deviation" not in caption
    # p01 of caveman's snapshot: caveman 92, __baseline__ 163, __terse__ 204 output tokens
    # (o200k_base; report 001's per-case table)
    assert rows[0][0] == "p01" and rows[0][1:5] == ["–", "–", "–", "–"]
    assert rows[0][-1] == "92 / 163 / 204"


def test_a_single_arm_receipt_with_no_score_and_no_tokens_says_so_in_words() -> None:
    caption, rows = _cases("caveman-902028f-judged-fidelity-caveman")
    assert caption == (
        "Cases of caveman: the receipt holds no judged score, so no case has a band or a lift "
        "(–); the source recorded no baseline or control arm and no output tokens; each row "
        "shows the case's checks and lost draws"
    )
    for row in rows:
        # the baseline and control cells name who left the arm out; no "– / – / –" for tokens
        assert row[2:4] == ["not recorded by the source"] * 2
        assert row[-1] == "not recorded"


def test_a_scored_receipt_keeps_its_band_legend() -> None:
    caption, _ = _cases("skill-creator-nebius-skills-iteration-1-12a0aae8")
    assert caption == (
        "Cases of nebius-skills: each band is mean ± one sample standard deviation of the one "
        "score the source gave the arm's one draw (n = 1): no spread; lift is with skill minus "
        "baseline"
    )
