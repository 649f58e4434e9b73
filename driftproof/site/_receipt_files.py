"""One receipt's share of the site: its sheet, case pages, badge files, results row and
summary, taken from the render cache when every input is unchanged, else rendered."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import jinja2

from driftproof._anchor import slug, unique
from driftproof.pages.results import ResultRow, rows_and_badge_files
from driftproof.site._cache import RenderCache, key_of
from driftproof.site._loaded import LoadedReceipt, ReceiptSummary
from driftproof.site._report_files import render as _render
from driftproof.site.cases import case_pages, case_slugs
from driftproof.site.report_source import Report
from driftproof.site.sheet import receipt_sheet

__all__ = ["receipt_output"]

_META = ".meta.json"  # the row and summary, in a cache entry beside the files


def receipt_output(
    lr: LoadedReceipt,
    reports: Sequence[Report],
    env: jinja2.Environment,
    cache: RenderCache | None,
    fixed: tuple[str, ...],
) -> tuple[dict[str, bytes], ResultRow, ReceiptSummary]:
    """One receipt's files (sheet, case pages, badge files; not the receipt itself), its
    results row and its summary. ``fixed``: the site-wide inputs of every page (navigation,
    site name and URL, the code and templates key), part of the cache key with the receipt's
    sha256, name, path and the reports citing it.

    Raises:
        ReceiptError: the receipt is not valid (only when it is rendered, not from the cache).
    """
    cited = _cited(lr, reports)
    key = key_of("receipt", lr.sha256, lr.name, str(lr.path), json.dumps(cited), *fixed)
    hit = cache.get(key) if cache is not None else None
    if hit is not None and _META in hit:
        try:
            meta = json.loads(hit.pop(_META))
            return hit, ResultRow(**meta["row"]), ReceiptSummary(**meta["summary"])
        except (ValueError, TypeError, KeyError):
            pass  # not an entry this code wrote: rendered again
    files = _sheet_files(lr, reports, env)
    rows, badges = rows_and_badge_files({lr.name: lr.receipt})
    files.update(badges)
    meta = {"row": dataclasses.asdict(rows[0]), "summary": dataclasses.asdict(lr.summary)}
    data = json.dumps(meta, sort_keys=True).encode("utf-8")
    if cache is not None:
        cache.put(key, {**files, _META: data})
    # the row as a cache hit gives it (JSON lists, not tuples): the same page either way
    return files, ResultRow(**json.loads(data)["row"]), lr.summary


def _cited(lr: LoadedReceipt, reports: Sequence[Report]) -> list[dict[str, str]]:
    return [{"ident": r.ident, "title": r.title} for r in reports if lr.name in r.receipts]


def _sheet_files(
    lr: LoadedReceipt, reports: Sequence[Report], env: jinja2.Environment
) -> dict[str, bytes]:
    page, charts = _sheet_page(lr, reports, env)
    return {f"receipts/{lr.name}/index.html": page, **charts}


def _sheet_page(
    lr: LoadedReceipt, reports: Sequence[Report], env: jinja2.Environment
) -> tuple[bytes, dict[str, bytes]]:
    path = f"receipts/{lr.name}/index.html"
    used: set[str] = {"main", "answers"}

    def anchor(base: str) -> str:
        return unique(slug(base), used)

    # No chart on the standalone sheet: its table holds every band, and a site of a thousand
    # receipts would spend most of its build drawing them. Reports draw the charts they cite.
    sheet = receipt_sheet(lr.name, lr.receipt, lr.raw, anchor=anchor, path=lr.path)
    cited = _cited(lr, reports)
    slugs = case_slugs(lr.receipt)
    row_anchors = {
        case.id: row.anchor or ""
        for case, row in zip(lr.receipt.cases, sheet.cases.rows, strict=True)
    }
    cases = [
        {
            "id": c.case_id,
            "url": f"cases/{slugs[c.case_id]}/index.html",
            "verdict": c.verdict,
            "with_skill": c.with_skill,
            "baseline": c.baseline,
        }
        for c in sheet.model.cases
    ]
    page = _render(
        env,
        "receipt.html",
        path,
        nav_current="receipts/index.html",
        sheet=sheet,
        cited=cited,
        cases=cases,
        json_url=f"../{lr.name.rsplit('/', 1)[-1]}.json",
    )
    files = {f"receipts/{lr.name}/{k}": v for k, v in sheet.files.items()}
    files.update(
        case_pages(
            lr.name,
            lr.receipt,
            sheet.model,
            cited,
            lambda t, p, **ctx: _render(env, t, p, **ctx),
            row_anchors,
        )
    )
    return page, files
