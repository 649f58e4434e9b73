"""A receipt sheet's headline box says each figure once: when the headline is the lift, the rows
under it do not repeat it word for word; other headlines keep the lift rows."""

from __future__ import annotations

import re

from site_fixtures import REPO

from driftproof.site import build_site_files

NEBIUS = "skill-creator-nebius-skills-iteration-1-12a0aae8"
CAVEMAN = "caveman-2b10489-caveman"


def _notice(name: str) -> tuple[str, str]:
    """The headline box (div.notice) of committed receipt ``name``'s sheet: its HTML and text."""
    data = (REPO / "receipts" / f"{name}.json").read_bytes()
    page = build_site_files({name: data}, [], nav=[])[f"receipts/{name}/index.html"].decode()
    box = page[page.index('<div class="notice">') : page.index("</div>", page.index("notice"))]
    return box, " ".join(re.sub(r"<[^>]+>", " ", box).split())


def test_a_lift_headline_is_not_repeated_under_it() -> None:
    # nine tasks, case 2 lost its baseline; eight lifts +.6 +.2 0 0 +.4 −.6 +.75 −.833 (from the
    # source's grading.json files) average 0.5167/8 = +0.065; no skill tokens recorded
    box, text = _notice(NEBIUS)
    lift = "+0.065 (over 8 of 9 cases: case 2 has no measured draw in an arm;"
    assert text.count(lift) == 1
    assert text.count("value per 1,000 skill tokens n/a (skill tokens not recorded)") == 1
    assert "suite lift" not in text
    assert "<dl" not in box  # nothing is left to list under the headline


def test_a_token_saving_headline_keeps_the_lift_rows() -> None:
    # caveman holds no judged score: the headline is the token saving, the lift is not measured
    _, text = _notice(CAVEMAN)
    assert text.startswith("output-token saving output tokens saved against the terse control")
    assert "suite lift n/a (not measured)" in text
    assert "value per 1,000 skill tokens n/a (657 skill tokens)" in text
