"""A report's Data section: a long list of cited receipts is folded as the results page folds a
long group, and the report's own downloads stay in view after it."""

from __future__ import annotations

from markupsafe import Markup

from driftproof.site.html import page, page_env


def _data_section(cited: int) -> str:
    receipts = [
        {
            "name": f"r{i}",
            "json": f"r{i}.json",
            "sheet": f"r{i}/",
            "skill": "s",
            "level": "IMPORTED",
        }
        for i in range(cited)
    ]
    downloads = [{"label": "Report data (JSON)", "url": "report.json"}]
    html = page(
        page_env(),
        "report.html",
        "reports/002/index.html",
        nav_current="",
        ident="002",
        title="t",
        date="2026-01-01",
        summary="",
        body=Markup(""),
        sections=[],
        downloads=downloads,
        receipts=receipts,
    ).decode()
    return html[html.index('<h2 id="downloads-h">') :]


def test_more_than_25_cited_receipts_sit_in_a_closed_fold_above_the_downloads() -> None:
    data = _data_section(343)
    fold = data[data.index("<details>") : data.index("</details>")]
    assert "<summary>Show all 343 receipts</summary>" in fold
    assert '<a href="r0.json">r0.json</a>' in fold and '<a href="r342.json">' in fold
    assert "<details open" not in data  # closed: a reader opens it
    after = data[data.index("</details>") :]
    assert '<a href="report.json">Report data (JSON)</a>' in after


def test_25_cited_receipts_are_listed_as_they_are() -> None:
    data = _data_section(25)
    assert "<details>" not in data
    assert '<a href="r24.json">r24.json</a>' in data
