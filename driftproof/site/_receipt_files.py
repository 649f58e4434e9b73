"""One receipt's share of the site: its sheet, case pages, badge files and results row, each
taken from the build cache when its inputs are unchanged (issue 19), else rendered.

Split from :mod:`driftproof.site.build` (which re-exports :func:`receipt_files`) by
responsibility (issue 18); the worker processes of :mod:`driftproof.site._parallel_render`
call the same functions, so the bytes do not depend on where they are made.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import jinja2

from driftproof._anchor import slug, unique
from driftproof.receipt import Receipt
from driftproof.results import ResultRow, rows_and_badge_files
from driftproof.site._cache import BuildCache, cached_files, key_of
from driftproof.site._loaded import LoadedReceipt
from driftproof.site._report_files import render as _render
from driftproof.site.cases import case_pages, case_slugs
from driftproof.site.report_source import Report
from driftproof.site.sheet import receipt_sheet

__all__ = ["receipt_files", "receipt_files_key"]


def receipt_files(
    lr: LoadedReceipt,
    reports: Sequence[Report],
    env: jinja2.Environment,
    cache: BuildCache | None,
    fixed: tuple[str, str, str],
) -> tuple[dict[str, bytes], ResultRow]:
    """One receipt's sheet, case pages, badge files and results row: each taken from the cache
    when its inputs are unchanged, else rendered from the model, parsed at most once here."""
    held: list[Receipt] = []

    def model() -> LoadedReceipt:
        if not held:
            held.append(lr.receipt)
        return lr.holding(held[0])

    files = dict(
        cached_files(
            cache, lambda: _sheet_files(model(), reports, env), *_sheet_key(lr, reports, fixed)
        )
    )

    def results() -> dict[str, bytes]:
        rows, badges = rows_and_badge_files({lr.name: model().receipt})
        return {"row.json": json.dumps(dataclasses.asdict(rows[0])).encode(), **badges}

    got = dict(cached_files(cache, results, *_results_key(lr)))
    row = ResultRow(**json.loads(got.pop("row.json")))
    files.update(got)
    return files, row


def _sheet_key(
    lr: LoadedReceipt, reports: Sequence[Report], fixed: tuple[str, str, str]
) -> tuple[bytes | str, ...]:
    """Every input of a receipt's sheet and case pages (its cache key's parts)."""
    digest = bytes.fromhex(lr.sha256)
    return ("sheet", lr.name, str(lr.path), digest, json.dumps(_cited(lr, reports)), *fixed)


def _results_key(lr: LoadedReceipt) -> tuple[bytes | str, ...]:
    """Every input of a receipt's results row and badge files (its cache key's parts)."""
    return ("results", lr.name, bytes.fromhex(lr.sha256))


def receipt_files_key(
    lr: LoadedReceipt, reports: Sequence[Report], fixed: tuple[str, str, str]
) -> str:
    """sha256 (hex) of every input of :func:`receipt_files` for one receipt (with its bytes
    published as ``receipts/<name>.json``): equal keys give the same files (issue 19)."""
    return key_of(
        "receipt-files", key_of(*_sheet_key(lr, reports, fixed)), key_of(*_results_key(lr))
    )


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
            "url": f"cases/{slugs[c.case_id]}/",
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
        nav_current="receipts/",
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
