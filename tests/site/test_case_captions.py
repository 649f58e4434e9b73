"""A receipt page's case table says what it holds when the receipt holds no judged score.

The caveman receipts hold no score at all (caveman's snapshot has no grader); report 005's
fidelity receipts hold the grader's fact checks of the with-skill arm only, with no score and no
output tokens (SOURCE.md of ``data/caveman``). Their case tables showed a band legend ("each band
is mean ± one sample standard deviation of the one score …") over cells that are all "–".
"""

from __future__ import annotations

from factories import case, make_receipt
from site_fixtures import REPO

from driftproof.pages.receipt_tables import receipt_tables
from driftproof.pages.sheet import sheet
from driftproof.receipt import Receipt, read_receipt


def _cases(name: str) -> tuple[str, list[list[str]]]:
    """The case table's caption, then its head and its rows as texts."""
    r = read_receipt(REPO / "receipts" / f"{name}.json")
    t = receipt_tables(name, r).cases
    head = [c.name for c in t.columns]
    return t.caption, [head] + [[c.text for c in row.cells] for row in t.rows]


def test_a_receipt_with_no_score_says_its_table_shows_checks_and_tokens_instead() -> None:
    caption, (head, *rows) = _cases("caveman-2b10489-caveman")
    assert caption == (
        "Cases of caveman: the receipt holds no judged score, so no case has a band or a lift; "
        "each row shows the case's output tokens (with skill / baseline / control), checks and "
        "lost draws"
    )
    assert "standard deviation" not in caption
    # no column of "–" for each arm's band and the lift: at 390 px four of them stood before the
    # token counts, the one figure the receipt holds, and pushed them off screen; the counts
    # now come right after the case
    assert head == [
        "case",
        "output tokens (with skill / baseline / control)",
        "verdict",
        "checks",
        "lost draws",
    ]
    # p01 of caveman's snapshot: caveman 92, __baseline__ 163, __terse__ 204 output tokens
    # (o200k_base; report 001's per-case table)
    assert rows[0] == ["p01", "92 / 163 / 204", "no verdict", "none", "none"]


def test_a_single_arm_receipt_with_no_score_and_no_tokens_says_so_in_words() -> None:
    caption, (head, *rows) = _cases("caveman-902028f-judged-fidelity-caveman")
    assert caption == (
        "Cases of caveman: the receipt holds no judged score, so no case has a band or a lift; "
        "the source recorded no baseline or control arm and no output tokens; each row "
        "shows the case's checks and lost draws"
    )
    # the caption names what was not recorded: no column of "–", "not recorded by the source"
    # or "not recorded" in every row
    assert head == ["case", "verdict", "checks", "lost draws"]
    # each row's checks are the grader's of the with-skill arm, every one passed (21 of 21)
    assert [row[0] for row in rows] == [f"p{i:02}" for i in range(1, 11)]
    assert all(row[1] == "no verdict" and row[3] == "none" for row in rows)
    assert rows[0][2].startswith("with skill ") and rows[0][2].endswith(" passed")


def test_a_scored_receipt_keeps_its_band_legend() -> None:
    caption, _ = _cases("skill-creator-nebius-skills-iteration-1-12a0aae8")
    assert caption == (
        "Cases of nebius-skills: no arm holds more than one scored draw, so no band has a spread "
        "(n = 1); lift is with skill minus baseline"
    )


def test_the_site_case_table_and_view_give_one_figure_for_an_arm_of_several_draws() -> None:
    # two with-skill draws of 100 and 200 output tokens: their mean, 150.0, over 2 draws; the
    # baseline's one draw of 80 as it is. The site showed the first draw's 100 where view printed
    # the mean.
    doc = case("c1", [0.8, 0.9], [0.5, 0.6])
    for d, n in zip(doc["arms"]["with_skill"]["draws"], (100, 200), strict=True):
        d["tokens"] = {"input": 10, "output": n, "counted_by": "provider"}
    base = doc["arms"]["baseline"]["draws"]
    base[0]["tokens"] = {"input": 10, "output": 80, "counted_by": "provider"}
    r = Receipt.model_validate(make_receipt([doc]))
    row = receipt_tables("r", r).cases.rows[0]
    assert row.cells[-1].text == "mean 150.0 (2 draws) / 80"
    assert sheet(r).cases[0].output_tokens == "mean 150.0 (2 draws) · 80"


def test_a_case_pages_checks_say_their_kind_in_words() -> None:
    # report 005's case pages read "verbatim (must_include): pass" and "<fact> (assertion):
    # pass": the receipt's field values; caveman's snapshot calls them a verbatim and a judged fact
    from driftproof.site.html import page_env, receipt_files

    name = "caveman-902028f-judged-fidelity-caveman"
    path = REPO / "receipts" / f"{name}.json"
    pages = receipt_files(name, read_receipt(path), path.read_bytes(), [], page_env())
    html = pages[f"receipts/{name}/cases/p01/index.html"].decode()
    assert "verbatim (must include): pass" in html
    assert "(the source&#39;s own check, judged fact): pass" in html
    assert "(must_include)" not in html and "(assertion)" not in html


def test_a_case_pages_errored_check_reads_could_not_run_not_fail() -> None:
    # the receipt's schema: outcome "error" is the check itself failing to run, never the
    # answer's fail; the page read "…: fail" for it, the sheet's count "could not run (error)"
    from factories import edited

    from driftproof.receipt import Check
    from driftproof.site.html import page_env, receipt_files

    name = "caveman-902028f-judged-fidelity-caveman"
    path = REPO / "receipts" / f"{name}.json"
    r = read_receipt(path)
    for i, outcome in enumerate(("error", "fail", None)):
        doc = {"name": f"c{i}", "kind": "assertion", "pass": False, "outcome": outcome}
        r = edited(r, f"/cases/0/arms/with_skill/draws/0/checks/{i}", Check.model_validate(doc))
    pages = receipt_files(name, r, path.read_bytes(), [], page_env())
    html = pages[f"receipts/{name}/cases/p01/index.html"].decode()
    assert "c0 (the source&#39;s own check): could not run (error)" in html
    assert "c1 (the source&#39;s own check): fail" in html  # a failed check as before
    assert "c2 (the source&#39;s own check): fail" in html  # no outcome recorded: its pass
    assert "c0 (the source&#39;s own check): fail" not in html


def test_a_receipt_page_says_once_why_its_lift_by_case_and_context_are_unavailable() -> None:
    # caveman's receipt holds no judge: "Lift by case" and "Context" each said why in their
    # summaries and again inside (the lift by case once, the context's interval and exact test
    # "unavailable: the lift breakdown is unavailable"), five times in all
    from driftproof.site.html import page_env, receipt_files

    path = REPO / "receipts" / "caveman-2b10489-caveman.json"
    pages = receipt_files("t", read_receipt(path), path.read_bytes(), [], page_env())
    page = pages["receipts/t/index.html"].decode()
    assert page.count("no judge is recorded, so no draw carries a score") == 1
    assert "<summary>Lift by case: unavailable, no judge is recorded, so no draw" in page
    assert (
        "Context, beyond the method: unavailable, because the lift by case is unavailable</p>"
    ) in page
    assert "the lift breakdown is unavailable" not in page
