"""The pages of a receipt (its sheet and case pages) and of the reports (files, home list)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import jinja2
from markupsafe import Markup

from driftproof._anchor import slug, unique
from driftproof.errors import SiteBuildError
from driftproof.pages.case import case_pages, case_slugs
from driftproof.pages.receipt_tables import case_list, receipt_tables
from driftproof.pages.report import (
    Report,
    cited_receipts,
    downloads,
    report_json,
    report_listing,
)
from driftproof.pages.tables import csv_bytes, sums_of
from driftproof.receipt import Receipt
from driftproof.site.html import markdown_html, page, relative_root
from driftproof.site.sections import SectionContext, SectionOutput, section_types


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


def report_files(
    r: Report,
    receipts: Mapping[str, Receipt],
    digests: Mapping[str, str],
    env: jinja2.Environment,
) -> dict[str, bytes]:
    """Report ``r``'s page, tables (CSV, JSON), chart files and ``SHA256SUMS``, by site path.

    ``receipts`` holds at least its receipts and ``digests`` their files' sha256, by name.

    Raises:
        SiteBuildError: a section cannot be rendered (names the report and the section).
    """
    base = f"reports/{r.ident}/"
    outputs = _sections(r, receipts, env)
    tables = [t for o in outputs for t in o.tables]
    extra = {base + rel: data for o in outputs for rel, data in o.files.items()}
    extra.update({base + f"{t.id}.csv": csv_bytes(t) for t in tables})
    extra[base + "report.json"] = report_json(r, tables, receipts, digests)
    sums = {p: hashlib.sha256(d).hexdigest() for p, d in extra.items()}
    sums.update({f"receipts/{n}.json": digests[n] for n in r.receipts})
    root = relative_root(base + "index.html")
    html = page(
        env,
        "report.html",
        base + "index.html",
        nav_current="",
        ident=r.ident,
        title=r.title,
        date=r.date.isoformat(),
        summary=r.summary or "",
        body=markdown_html(r.body),
        sections=[o.html for o in outputs],
        downloads=downloads(tables),
        receipts=cited_receipts(r, receipts, root),
    )
    return {base + "index.html": html, **extra, base + "SHA256SUMS": sums_of(sums)}


def _sections(
    r: Report, receipts: Mapping[str, Receipt], env: jinja2.Environment
) -> list[SectionOutput]:
    ctx = SectionContext(
        report=r,
        receipts={n: receipts[n] for n in r.receipts},
        env=env,
        root=relative_root(f"reports/{r.ident}/index.html"),
        used_ids={"main", f"report-{r.ident}"},
    )
    types = section_types()
    outputs: list[SectionOutput] = []
    for spec in r.sections:
        try:
            outputs.append(types[spec.type].render(spec.params, ctx))
        except SiteBuildError:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise SiteBuildError.at(
                r.source, spec.pointer, f"section {spec.type!r} cannot be rendered: {exc}"
            ) from exc
    return outputs


def home_listing(reports: Sequence[Report], env: jinja2.Environment) -> Markup:
    """The home page's list of the numbered reports, newest first (HTML, root-relative)."""
    listed = report_listing(reports)
    return Markup(env.get_template("report_list.html").render(root=".", reports=listed))
