"""The site generator: loaded receipts and reports in, ``{site path: bytes}`` out.

:func:`build_site_files` is pure (no clock, no file writes) and engine-agnostic: the
mkdocs hook adds its output to the build, and tests call it directly. It produces
(paths relative to the site root)::

    reports/NNN/index.html            each numbered report (immutable permalink)
    reports/NNN/<table>.csv           every table of the report, as CSV
    reports/NNN/report.json           the report's tables and receipts, as JSON
    reports/NNN/SHA256SUMS            sha256 of the report's receipts, CSVs, JSON and charts
    reports/NNN/<chart>.svg           charts (light, and -dark)
    reports/latest/index.html         alias: a redirect page to the newest numbered report
    receipts/<name>.json              every receipt, byte for byte as committed
    receipts/<name>/index.html        every receipt's sheet
    receipts/<name>/cases/<slug>/index.html  every case's evidence page (driftproof.site.cases)
    receipts/index.html, receipts/SHA256SUMS
    spec/receipt.schema.json          the canonical schema: dispatches on schema_version (D-11)
    spec/<version>/receipt.schema.json  every frozen version, byte-identical
    spec/index.json, spec/SHA256SUMS, spec/versions/index.html
    results/index.html                every receipt with its reading (driftproof.results)
    badge/<name>.json, .details.json, .svg   each receipt's badge (driftproof.badge)
    feed.xml                          Atom feed, one entry per report, stable ids
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from driftproof._anchor import slug, unique
from driftproof.badge import site_badge_files
from driftproof.errors import SiteBuildError
from driftproof.receipt import Receipt, known_versions, schema_bytes
from driftproof.receipt._canonical import canonical_id, canonical_schema_bytes, version_id
from driftproof.results import (
    RESULTS_PAGE,
    ResultRow,
    order_rows,
    results_page_from_rows,
    results_rows,
    results_site_files,
)
from driftproof.site._cache import BuildCache, key_of, tree_key, using
from driftproof.site._paths import templates_dir
from driftproof.site._render import make_env, markdown_html, relative_root
from driftproof.site.cases import case_pages, case_slugs
from driftproof.site.report_source import Report
from driftproof.site.sections import SectionContext, SectionOutput, Table, section_types
from driftproof.site.sheet import receipt_sheet

__all__ = ["DEFAULT_TEMPLATES", "LoadedReceipt", "build_site_files", "home_listing", "page_env"]

#: ``templates/``: packaged with the wheel, or the source checkout's (:mod:`driftproof.site._paths`).
DEFAULT_TEMPLATES = templates_dir()


@dataclass(frozen=True)
class LoadedReceipt:
    """A receipt as published: its name (path under ``receipts/`` without ``.json``),
    the validated model, the file's exact bytes and, when read from disk, its path."""

    name: str
    receipt: Receipt
    raw: bytes
    path: Path | None = None


def page_env(templates: Path = DEFAULT_TEMPLATES) -> jinja2.Environment:
    """The generator's environment: ``templates/pages`` then the theme's ``layout.html``."""
    return make_env([templates / "pages", templates / "theme"])


def build_site_files(
    receipts: Mapping[str, LoadedReceipt],
    reports: Sequence[Report],
    *,
    nav: Sequence[Mapping[str, str]],
    site_name: str = "Driftproof",
    site_url: str = "https://driftproof.dev/",
    fallback_date: str = "1970-01-01",
    templates: Path = DEFAULT_TEMPLATES,
    cache: BuildCache | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, bytes]:
    """Every generated page and file of the site.

    Args:
        receipts: every committed receipt by name.
        reports: the checked reports, in any order (listed newest first).
        nav: the site navigation, ``{"title", "url"}`` with urls relative to the root.
        site_url: absolute URL of the site root (feed links and ids).
        fallback_date: the feed's ``updated`` date when there is no report (never the clock).
        cache: a build cache: a receipt's sheet whose every input (the receipt's bytes, name
            and path, the reports citing it, navigation, site name, templates, product version)
            is unchanged is taken from it, not rendered again, and so are its results row, its
            badge files and every chart already drawn (issue 19). Same bytes either way.
        progress: ``progress("render", done, total)`` after each receipt's pages.

    Raises:
        SiteBuildError: a section cannot be rendered (names the report file and section).
    """
    with using(cache):  # charts drawn below are kept in (and taken from) the build cache
        return _build_site_files(
            receipts,
            reports,
            nav=nav,
            site_name=site_name,
            site_url=site_url,
            fallback_date=fallback_date,
            templates=templates,
            cache=cache,
            progress=progress,
        )


def _build_site_files(
    receipts: Mapping[str, LoadedReceipt],
    reports: Sequence[Report],
    *,
    nav: Sequence[Mapping[str, str]],
    site_name: str,
    site_url: str,
    fallback_date: str,
    templates: Path,
    cache: BuildCache | None,
    progress: Callable[[str, int, int], None] | None,
) -> dict[str, bytes]:
    env = page_env(templates)
    env.globals.update(site_name=site_name, site_nav=list(nav))
    files: dict[str, bytes] = {}
    ordered = sorted(reports, key=lambda r: r.number, reverse=True)
    for r in ordered:
        files.update(_report_files(r, receipts, env))
    if ordered:
        files["reports/latest/index.html"] = _render(
            env,
            "latest.html",
            "reports/latest/index.html",
            nav_current="",
            ident=ordered[0].ident,
            title=ordered[0].title,
        )
    for i, (name, lr) in enumerate(sorted(receipts.items())):
        files[f"receipts/{name}.json"] = lr.raw
        files.update(
            _cached(
                cache,
                lambda lr=lr: _sheet_files(lr, ordered, env),
                "sheet",
                lr.name,
                str(lr.path),
                hashlib.sha256(lr.raw).digest(),
                json.dumps(_cited(lr, ordered)),
                json.dumps(list(nav)),
                site_name,
                tree_key(Path(templates)) if cache is not None else "",
            )
        )
        if progress:
            progress("render", i + 1, len(receipts))
    files["receipts/index.html"] = _render(
        env,
        "receipts.html",
        "receipts/index.html",
        nav_current="receipts/",
        receipts=[_receipt_row(lr) for _, lr in sorted(receipts.items())],
    )
    files["receipts/SHA256SUMS"] = _sums(
        {f"receipts/{n}.json": lr.raw for n, lr in receipts.items()}
    )
    # The results page and each receipt's badge JSON (issue 9, driftproof/results.py); each
    # receipt's row and badge files are kept in the build cache by the receipt's bytes (issue 19).
    files.update(_results_files(receipts, env, cache))
    files.update(_spec_files(env, site_url))
    # Folder addresses a reader may type: each points at the page that lists what is inside.
    for path, heading, text, target, link_text in (
        (
            "reports/index.html",
            "Reports",
            "The numbered reports are listed, newest first, on",
            "../",
            "the home page",
        ),
        (
            "spec/index.html",
            "Receipt schema",
            "Every version of the receipt schema is listed on",
            "versions/",
            "the versions page",
        ),
    ):
        if path not in files:
            files[path] = _render(
                env,
                "redirect.html",
                path,
                nav_current="",
                heading=heading,
                text=text,
                target=target,
                link_text=link_text,
            )
    files["feed.xml"] = (
        env.get_template("feed.xml")
        .render(
            site_url=site_url,
            site_name=site_name,
            entries=[_feed_entry(r, site_url) for r in ordered],
            updated=(ordered and max(r.date for r in ordered).isoformat() or fallback_date)
            + "T00:00:00Z",
        )
        .encode("utf-8")
    )
    return files


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
                    "url": f"reports/{r.ident}/",
                }
                for r in ordered
            ],
        )
    )


def _report_files(
    r: Report, receipts: Mapping[str, LoadedReceipt], env: jinja2.Environment
) -> dict[str, bytes]:
    base = f"reports/{r.ident}/"
    page, outputs = _report_page(r, receipts, env)
    files: dict[str, bytes] = {base + "index.html": page}
    tables = [t for o in outputs for t in o.tables]
    extra: dict[str, bytes] = {}
    for o in outputs:
        for rel, data in o.files.items():
            extra[base + rel] = data
    for t in tables:
        extra[base + f"{t.id}.csv"] = _csv(t)
    extra[base + "report.json"] = _report_json(r, tables, receipts)
    files.update(extra)
    sums = {p: d for p, d in extra.items()}
    sums.update({f"receipts/{n}.json": receipts[n].raw for n in r.receipts})
    files[base + "SHA256SUMS"] = _sums(sums)
    return files


def _report_page(
    r: Report, receipts: Mapping[str, LoadedReceipt], env: jinja2.Environment
) -> tuple[bytes, list[SectionOutput]]:
    page_path = f"reports/{r.ident}/index.html"
    root = relative_root(page_path)
    ctx = SectionContext(
        report=r,
        receipts={n: receipts[n].receipt for n in r.receipts},
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
                "sheet": f"{root}/receipts/{n}/",
                "skill": receipts[n].receipt.skill.name,
                "level": receipts[n].receipt.verification_level,
            }
            for n in r.receipts
        ],
    )
    return html.encode("utf-8"), outputs


def _cached(
    cache: BuildCache | None, render: Callable[[], dict[str, bytes]], *key: bytes | str
) -> dict[str, bytes]:
    """``render()``, or the files the cache holds for exactly these inputs (``key``)."""
    if cache is None:
        return render()
    k = key_of(*key)
    hit = cache.get_files(k)
    if hit is None:
        hit = render()
        cache.put_files(k, hit)
    return hit


def _results_files(
    receipts: Mapping[str, LoadedReceipt], env: jinja2.Environment, cache: BuildCache | None
) -> dict[str, bytes]:
    """What :func:`driftproof.results.results_site_files` gives, one receipt at a time."""
    if cache is None:
        return results_site_files({n: lr.receipt for n, lr in sorted(receipts.items())}, env)
    rows, files = [], {}
    for name, lr in sorted(receipts.items()):

        def render(name: str = name, lr: LoadedReceipt = lr) -> dict[str, bytes]:
            row = results_rows({name: lr.receipt})[0]
            return {
                "row.json": json.dumps(dataclasses.asdict(row)).encode(),
                **site_badge_files({name: lr.receipt}),
            }

        got = dict(_cached(cache, render, "results", name, hashlib.sha256(lr.raw).digest()))
        rows.append(ResultRow(**json.loads(got.pop("row.json"))))
        files.update(got)
    files[RESULTS_PAGE] = results_page_from_rows(order_rows(rows), env)
    return files


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


def _receipt_row(lr: LoadedReceipt) -> dict[str, str]:
    r = lr.receipt
    return {
        "name": lr.name,
        "skill": r.skill.name,
        "level": r.verification_level,
        "model": r.run.model or "not recorded",
        "sha256": hashlib.sha256(lr.raw).hexdigest(),
        "cases": str(len(r.cases)),
    }


def _render(env: jinja2.Environment, template: str, path: str, **ctx: Any) -> bytes:
    root = relative_root(path)
    return env.get_template(template).render(base_url=root, root=root, **ctx).encode("utf-8")


def _spec_files(env: jinja2.Environment, site_url: str) -> dict[str, bytes]:
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
    files["spec/SHA256SUMS"] = _sums({p: d for p, d in files.items() if p.endswith(".schema.json")})
    files["spec/versions/index.html"] = _render(
        env,
        "spec.html",
        "spec/versions/index.html",
        nav_current="spec/versions/",
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


def _csv(t: Table) -> bytes:
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
                "sha256": hashlib.sha256(receipts[n].raw).hexdigest(),
                "seal": receipts[n].receipt.seal.sha256,
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


def _sums(files: Mapping[str, bytes]) -> bytes:
    return "".join(
        f"{hashlib.sha256(d).hexdigest()}  {p}\n" for p, d in sorted(files.items())
    ).encode("utf-8")


def _feed_entry(r: Report, site_url: str) -> dict[str, str]:
    host = site_url.split("//", 1)[-1].split("/", 1)[0]
    return {
        "id": f"tag:{host},2026:report-{r.ident}",
        "title": f"Report {r.ident}: {r.title}",
        "url": f"{site_url.rstrip('/')}/reports/{r.ident}/",
        "updated": r.date.isoformat() + "T00:00:00Z",
        "summary": r.summary or r.title,
    }
