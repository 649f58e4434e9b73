"""The numbered reports' files, the home page's list of them and their Atom feed entries."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import jinja2
from markupsafe import Markup

from driftproof.errors import SiteBuildError
from driftproof.pages.tables import Table, csv_bytes, sums_of
from driftproof.receipt import Receipt
from driftproof.site.html import markdown_html, page, relative_root
from driftproof.site.report_source import Report
from driftproof.site.sections import SectionContext, SectionOutput, section_types

__all__ = ["feed_entry", "home_listing", "report_files"]


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
    extra[base + "report.json"] = _report_json(r, tables, receipts, digests)
    sums = {p: hashlib.sha256(d).hexdigest() for p, d in extra.items()}
    sums.update({f"receipts/{n}.json": digests[n] for n in r.receipts})
    downloads = [
        {"label": f"{t.caption.split(':')[0]} (CSV)", "url": f"{t.id}.csv"} for t in tables
    ]
    downloads += [
        {"label": "Report data (JSON)", "url": "report.json"},
        {"label": "SHA256SUMS (paths relative to the site root)", "url": "SHA256SUMS"},
    ]
    root = relative_root(base + "index.html")
    listed = [
        {
            "name": n,
            "json": f"{root}/receipts/{n}.json",
            "sheet": f"{root}/receipts/{n}/index.html",
            "skill": receipts[n].skill.name,
            "level": receipts[n].verification_level,
        }
        for n in r.receipts
    ]
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
        downloads=downloads,
        receipts=listed,
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


def _report_json(
    r: Report, tables: Sequence[Table], receipts: Mapping[str, Receipt], digests: Mapping[str, str]
) -> bytes:
    doc: dict[str, Any] = {
        "number": r.number,
        "slug": r.slug,
        "title": r.title,
        "date": r.date.isoformat(),
        "summary": r.summary,
        "receipts": [
            {
                "name": n,
                "url": f"receipts/{n}.json",
                "sha256": digests[n],
                "seal": receipts[n].seal.sha256,
            }
            for n in r.receipts
        ],
        "tables": [
            {
                "id": t.id,
                "caption": t.caption,
                "columns": [c.label for c in t.columns],
                "rows": [[c.csv for c in row.cells] for row in t.rows],
            }
            for t in tables
        ],
    }
    return (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def feed_entry(r: Report, site_url: str) -> dict[str, str]:
    """Report ``r``'s entry of the Atom feed, with a stable id."""
    host = site_url.split("//", 1)[-1].split("/", 1)[0]
    return {
        "id": f"tag:{host},2026:report-{r.ident}",
        "title": f"Report {r.ident}: {r.title}",
        "url": f"{site_url.rstrip('/')}/reports/{r.ident}/",
        "updated": r.date.isoformat() + "T00:00:00Z",
        "summary": r.summary or r.title,
    }


def home_listing(reports: Sequence[Report], env: jinja2.Environment) -> Markup:
    """The home page's list of the numbered reports, newest first (HTML, root-relative)."""
    listed = [
        {
            "ident": r.ident,
            "title": r.title,
            "date": r.date.isoformat(),
            "summary": r.summary or "",
            "url": f"reports/{r.ident}/index.html",
        }
        for r in sorted(reports, key=lambda r: r.number, reverse=True)
    ]
    return Markup(env.get_template("report_list.html").render(root=".", reports=listed))
