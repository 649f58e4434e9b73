"""At 1280 px two tables scrolled sideways: Report 002's files read (a 40-character commit and
git blob sha1 that never broke) and the cases table of a receipt with a control arm (three bands
and three output-token figures with their draw counts; its last column cut). Both fit now."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from site_fixtures import REPO

from driftproof.pages.tables import Cell, Column, Row, Table
from driftproof.site.html import make_env

CSS = REPO / "templates/theme/assets/site.css"

#: The cases table of a simulated receipt with a control arm, cell for cell as the site showed
#: it (/tmp/look-site2, receipts/ctl-v1).
_BAND = ("0.557 ± 0.028 (n = 4)", "0.450 ± 0.010 (n = 3)", "0.487 ± 0.021 (n = 3)")
_TOKENS = "mean 56.0 (4 draws) / mean 56.0 (3 draws) / mean 56.0 (3 draws)"
CONTROL_CASES = Table(
    "cases-ctl",
    "Cases of commit-style",
    (
        Column("case"),
        *(Column(a, True) for a in ("with skill", "baseline", "control", "lift")),
        *(Column(h) for h in ("verdict", "checks", "lost draws")),
        Column("output tokens (with skill / baseline / control)", True),
    ),
    tuple(
        Row(
            (
                Cell(case),
                *(Cell(b) for b in _BAND),
                Cell("+0.107"),
                Cell("no verdict"),
                Cell("with skill 4/8 passed · baseline 3/6 passed · control 3/6 passed"),
                Cell("none"),
                Cell(_TOKENS),
            ),
            header=True,
        )
        for case in ("retry-429", "rename-flag", "drop-py38")
    ),
)


def _html(t: Table) -> str:
    env = make_env([REPO / "templates/pages", REPO / "templates/theme"])
    return env.from_string('{% from "_macros.html" import data_table %}{{ data_table(t) }}').render(
        t=t
    )


def test_an_output_token_figure_may_put_its_draw_count_on_the_next_line() -> None:
    cell = _html(CONTROL_CASES).split('<td class="num figs">')[1].split("</td>")[0]
    assert cell == (
        "<span>mean 56.0</span> <span>(4 draws) /</span> <span>mean 56.0</span> "
        "<span>(3 draws) /</span> <span>mean 56.0</span> <span>(3 draws)</span>"
    )


@pytest.mark.browser
def test_at_1280_px_the_files_read_and_a_control_arms_cases_fit(
    browser: Any, built_site: Path, tmp_path: Path
) -> None:
    (tmp_path / "t.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title>'
        f'<link rel="stylesheet" href="{CSS.as_uri()}"></head><body><main>'
        f"{_html(CONTROL_CASES)}</main></body></html>",
        encoding="utf-8",
    )
    wider = "id => { const b = document.getElementById(id).closest('.table-wrap');"
    wider += " return b.scrollWidth - b.clientWidth; }"
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto((tmp_path / "t.html").as_uri())
    seen = {"cases": page.evaluate(wider, "table-cases-ctl")}
    page.goto((built_site / "reports/002/index.html").as_uri())
    seen["files"] = page.evaluate(wider, "table-source-files")
    page.close()
    # they scrolled 23 and 51 px past their 1,120 px box
    assert seen == {"cases": 0, "files": 0}
