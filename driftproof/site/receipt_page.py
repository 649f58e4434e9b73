"""A receipt's pages on the site: its sheet and one evidence page per case, and its band chart."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import jinja2

from driftproof._anchor import slug, unique
from driftproof.pages import chart_text
from driftproof.pages.case import case_pages, case_slugs
from driftproof.pages.receipt_tables import Chart, case_list, receipt_tables
from driftproof.pages.sheet import Sheet
from driftproof.receipt import Receipt
from driftproof.site import charts
from driftproof.site.html import page


def band_chart(prefix: str) -> Chart:
    """A sheet's band chart, files named from ``prefix``: each case's band per arm, where any."""
    return partial(_band_chart, prefix=prefix)


def _band_chart(
    s: Sheet, anchor: Callable[[str], str], prefix: str
) -> tuple[dict[str, str] | None, dict[str, bytes]]:
    rows = [c for c in s.cases if c.numbers[0] is not None or c.numbers[2] is not None]
    if not rows:
        return None, {}
    ser = [
        chart_text.band_series(label, [(c.numbers[i], c.numbers[i + 1]) for c in rows])
        for label, i in (("with skill", 0), ("baseline", 2))
    ]
    return charts.band_figure(
        anchor(prefix),
        [c.case_id for c in rows],
        ser,
        subject="Each case's mean judge score with the skill and without it",
        xlabel="mean score on the judge scale",
    )


def receipt_files(
    name: str,
    r: Receipt,
    raw: bytes,
    cited: Sequence[dict[str, str]],
    env: jinja2.Environment,
) -> dict[str, bytes]:
    """The receipt's sheet and case pages by site path; ``cited``: its reports' ident and title."""
    base = f"receipts/{name}/"
    used: set[str] = {"main", "answers"}
    # No chart on the standalone sheet: its table holds every band (reports draw charts).
    t = receipt_tables(name, r, raw, anchor=lambda b: unique(slug(b), used))
    slugs = case_slugs(r)
    nav = {"nav_current": "receipts/index.html", "cited": list(cited)}
    files = {
        base + "index.html": page(
            env,
            "receipt.html",
            base + "index.html",
            sheet=t,
            cases=case_list(t.model, slugs),
            json_url=f"../{name.rsplit('/', 1)[-1]}.json",
            **nav,
        )
    }
    for case, row, model in zip(r.cases, t.cases.rows, case_pages(r, t.model, slugs), strict=True):
        path = f"{base}cases/{slugs[case.id]}/index.html"
        files[path] = page(
            env, "case.html", path, name=name, sheet_anchor=row.anchor or "", **model, **nav
        )
    return files
