"""The numbered reports' files, the schema files and the feed (:mod:`driftproof.site.build`).

A report's page, its tables as CSV and JSON and its ``SHA256SUMS``; the served receipt
schemas (D-11); the Atom feed.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

import jinja2
from markupsafe import Markup

from driftproof.errors import SiteBuildError
from driftproof.receipt import known_versions, schema_bytes
from driftproof.receipt._canonical import canonical_id, canonical_schema_bytes, version_id
from driftproof.site._loaded import LoadedReceipt
from driftproof.site._render import markdown_html, relative_root
from driftproof.site.report_source import Report
from driftproof.site.sections import SectionContext, SectionOutput, Table, section_types

__all__ = [
    "csv_bytes",
    "feed_entry",
    "home_listing",
    "render",
    "report_files",
    "spec_files",
    "sums",
    "sums_of",
]


def report_files(
    r: Report, receipts: Mapping[str, LoadedReceipt], env: jinja2.Environment
) -> dict[str, bytes]:
    """A report's page, its tables (CSV, JSON), chart files and ``SHA256SUMS``; its receipts
    are parsed once here and let go when the report is done."""
    base = f"reports/{r.ident}/"
    models = {n: receipts[n].receipt for n in r.receipts}
    page, outputs = _report_page(r, receipts, models, env)
    files: dict[str, bytes] = {base + "index.html": page}
    tables = [t for o in outputs for t in o.tables]
    extra: dict[str, bytes] = {}
    for o in outputs:
        for rel, data in o.files.items():
            extra[base + rel] = data
    for t in tables:
        extra[base + f"{t.id}.csv"] = csv_bytes(t)
    extra[base + "report.json"] = _report_json(r, tables, receipts)
    files.update(extra)
    digests = {p: hashlib.sha256(d).hexdigest() for p, d in extra.items()}
    digests.update({f"receipts/{n}.json": receipts[n].sha256 for n in r.receipts})
    files[base + "SHA256SUMS"] = sums_of(digests)
    return files


def _report_page(
    r: Report,
    receipts: Mapping[str, LoadedReceipt],
    models: Mapping[str, Any],
    env: jinja2.Environment,
) -> tuple[bytes, list[SectionOutput]]:
    page_path = f"reports/{r.ident}/index.html"
    root = relative_root(page_path)
    ctx = SectionContext(
        report=r,
        receipts=dict(models),
        env=env,
        root=root,
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
    tables = [t for o in outputs for t in o.tables]
    downloads = [
        {"label": f"{t.caption.split(':')[0]} (CSV)", "url": f"{t.id}.csv"} for t in tables
    ]
    downloads += [
        {"label": "Report data (JSON)", "url": "report.json"},
        {"label": "SHA256SUMS (paths relative to the site root)", "url": "SHA256SUMS"},
    ]
    html = env.get_template("report.html").render(
        base_url=root,
        root=root,
        nav_current="",
        ident=r.ident,
        title=r.title,
        date=r.date.isoformat(),
        summary=r.summary or "",
        body=markdown_html(r.body),
        sections=[o.html for o in outputs],
        downloads=downloads,
        receipts=[
            {
                "name": n,
                "json": f"{root}/receipts/{n}.json",
                "sheet": f"{root}/receipts/{n}/index.html",
                "skill": receipts[n].summary.skill,
                "level": receipts[n].summary.level,
            }
            for n in r.receipts
        ],
    )
    return html.encode("utf-8"), outputs


def spec_files(env: jinja2.Environment, site_url: str) -> dict[str, bytes]:
    """The served schemas (every frozen version and the canonical dispatcher, D-11), their
    index and sums, and the versions page."""
    versions = known_versions()
    if not versions:
        raise SiteBuildError("no frozen receipt schema is known")
    current = versions[-1]
    files = {f"spec/{v}/receipt.schema.json": schema_bytes(v) for v in versions}
    # D-11 (revised): the canonical id is a small schema dispatching on schema_version to the
    # frozen files, so a receipt of every version validates against it.
    files["spec/receipt.schema.json"] = canonical_schema_bytes()
    index = {
        "current": current,
        "canonical_url": canonical_id(),
        "current_url": version_id(current),
        "versions": {v: version_id(v) for v in versions},
    }
    files["spec/index.json"] = (json.dumps(index, indent=2, sort_keys=True) + "\n").encode("utf-8")
    files["spec/SHA256SUMS"] = sums({p: d for p, d in files.items() if p.endswith(".schema.json")})
    files["spec/versions/index.html"] = render(
        env,
        "spec.html",
        "spec/versions/index.html",
        nav_current="spec/versions/index.html",
        current=current,
        canonical_id=canonical_id(),
        current_id=version_id(current),
        versions=[
            {
                "version": v,
                "url": f"../{v}/receipt.schema.json",
                "id": json.loads(schema_bytes(v)).get("$id", ""),
                "sha256": hashlib.sha256(schema_bytes(v)).hexdigest(),
            }
            for v in reversed(versions)
        ],
    )
    return files


def csv_bytes(t: Table) -> bytes:
    """A table as CSV: its column labels, then one line per row, formulas made inert."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([_inert(c.label) for c in t.columns])
    for row in t.rows:
        w.writerow([_inert(c.csv) for c in row.cells])
    return buf.getvalue().encode("utf-8")


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _inert(cell: str) -> str:
    """A CSV cell a spreadsheet will not run as a formula: untrusted text starting with
    = + - @ (or a tab or carriage return) gets a leading apostrophe; plain numbers stay numbers."""
    if cell.startswith(_FORMULA_START):
        try:
            float(cell)
        except ValueError:
            return "'" + cell
    return cell


def _report_json(
    r: Report, tables: Sequence[Table], receipts: Mapping[str, LoadedReceipt]
) -> bytes:
    doc = {
        "number": r.number,
        "slug": r.slug,
        "title": r.title,
        "date": r.date.isoformat(),
        "summary": r.summary,
        "receipts": [
            {
                "name": n,
                "url": f"receipts/{n}.json",
                "sha256": receipts[n].sha256,
                "seal": receipts[n].summary.seal,
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


def sums(files: Mapping[str, bytes]) -> bytes:
    """A ``SHA256SUMS`` file (``sha256sum -c`` format) of ``{site path: bytes}``."""
    return sums_of({p: hashlib.sha256(d).hexdigest() for p, d in files.items()})


def sums_of(digests: Mapping[str, str]) -> bytes:
    """A ``SHA256SUMS`` file of ``{site path: sha256 hex}``, in path order."""
    return "".join(f"{d}  {p}\n" for p, d in sorted(digests.items())).encode("utf-8")


def render(env: jinja2.Environment, template: str, path: str, **ctx: Any) -> bytes:
    """``template`` rendered for the page at site path ``path`` (its relative root set)."""
    root = relative_root(path)
    return env.get_template(template).render(base_url=root, root=root, **ctx).encode("utf-8")


def feed_entry(r: Report, site_url: str) -> dict[str, str]:
    """A report's entry of the Atom feed, with a stable id."""
    host = site_url.split("//", 1)[-1].split("/", 1)[0]
    return {
        "id": f"tag:{host},2026:report-{r.ident}",
        "title": f"Report {r.ident}: {r.title}",
        "url": f"{site_url.rstrip('/')}/reports/{r.ident}/",
        "updated": r.date.isoformat() + "T00:00:00Z",
        "summary": r.summary or r.title,
    }


def home_listing(reports: Sequence[Report], env: jinja2.Environment) -> Markup:
    """The home page's list of numbered reports, newest first (HTML fragment, root-relative)."""
    ordered = sorted(reports, key=lambda r: r.number, reverse=True)
    return Markup(
        env.get_template("report_list.html").render(
            root=".",
            reports=[
                {
                    "ident": r.ident,
                    "title": r.title,
                    "date": r.date.isoformat(),
                    "summary": r.summary or "",
                    "url": f"reports/{r.ident}/index.html",
                }
                for r in ordered
            ],
        )
    )
