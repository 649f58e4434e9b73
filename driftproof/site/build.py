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
    results/index.html                every receipt with its reading (driftproof.pages.results)
    badge/<name>.json, .details.json, .svg   each receipt's badge (driftproof.pages.badge)
    feed.xml                          Atom feed, one entry per report, stable ids
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import jinja2
from markupsafe import Markup

from driftproof.errors import Problem, ReceiptError, SiteBuildError
from driftproof.pages.results import RESULTS_PAGE, ResultRow, order_rows, results_page_from_rows
from driftproof.site._cache import RenderCache, code_key
from driftproof.site._inputs import simulated_problem
from driftproof.site._loaded import LoadedReceipt, ReceiptSummary
from driftproof.site._paths import templates_dir
from driftproof.site._receipt_files import receipt_output
from driftproof.site._render import make_env
from driftproof.site._report_files import (
    csv_bytes,
    feed_entry,
    home_listing,
    report_files,
    spec_files,
    sums_of,
)
from driftproof.site._report_files import render as _render
from driftproof.site.report_source import Report

__all__ = [
    "DEFAULT_TEMPLATES",
    "Emit",
    "LoadedReceipt",
    "SiteSettings",
    "build_site_files",
    "generate_site",
    "home_listing",
    "page_env",
    "prose_files",
]

#: ``templates/``: packaged with the wheel, or the checkout's (:mod:`driftproof.site._paths`).
DEFAULT_TEMPLATES = templates_dir()

#: ``emit(site path, bytes)``: receives each generated file once (:func:`generate_site`).
Emit = Callable[[str, bytes], None]

#: the CSV writer's older private name, still used by tests
_csv = csv_bytes


def page_env(templates: Path = DEFAULT_TEMPLATES) -> jinja2.Environment:
    """The generator's environment: ``templates/pages`` then the theme's ``layout.html``."""
    return make_env([templates / "pages", templates / "theme"])


@dataclasses.dataclass(frozen=True)
class SiteSettings:
    """What a site is built with besides its receipts and reports (:func:`generate_site`).

    Attributes:
        nav: the site navigation, ``{"title", "url"}`` with urls relative to the root.
        site_name: the site's name, on every page and in the feed.
        site_url: absolute URL of the site root (feed links and ids).
        fallback_date: the feed's ``updated`` date when there is no report (never the clock).
        templates: the templates folder (``pages`` and ``theme``).
        cache: the per-receipt render cache (:mod:`driftproof.site._cache`); same bytes
            with or without it.
        progress: ``progress("render", done, total)`` after each receipt's pages.
        public: refuse simulated receipts (the public site; the demo's site takes them).
    """

    nav: Sequence[Mapping[str, str]]
    site_name: str = "Driftproof"
    site_url: str = "https://driftproof.dev/"
    fallback_date: str = "1970-01-01"
    templates: Path = DEFAULT_TEMPLATES
    cache: RenderCache | None = None
    progress: Callable[[str, int, int], None] | None = None
    public: bool = False


def prose_files(
    pages: Mapping[str, tuple[str, Markup]],
    *,
    nav: Sequence[Mapping[str, str]],
    site_name: str,
    templates: Path = DEFAULT_TEMPLATES,
) -> dict[str, bytes]:
    """Hand-written pages and the theme's assets for a site built without mkdocs (the demo's
    local site), with the same layout: ``pages`` maps a site path to ``(title, body)``, the
    body HTML this project rendered (:func:`driftproof.site._render.markdown_html`)."""
    env = page_env(templates)
    env.globals.update(site_name=site_name, site_nav=list(nav))
    files = {
        path: _render(env, "prose.html", path, nav_current=path, title=title, body=body)
        for path, (title, body) in pages.items()
    }
    for asset in sorted((templates / "theme" / "assets").iterdir()):
        files[f"assets/{asset.name}"] = asset.read_bytes()
    return files


def build_site_files(
    receipts: Mapping[str, LoadedReceipt],
    reports: Sequence[Report],
    *,
    nav: Sequence[Mapping[str, str]],
    **settings: object,
) -> dict[str, bytes]:
    """Every generated page and file of the site, ``{site path: bytes}``: what
    :func:`generate_site` emits, collected (tests and the demo's small site).

    ``nav`` and ``settings`` are the fields of :class:`SiteSettings` (``site_name=``, …).
    """
    files: dict[str, bytes] = {}
    generate_site(
        [receipts[n] for n in sorted(receipts)],
        reports,
        SiteSettings(nav, **settings),  # type: ignore[arg-type]
        emit=files.__setitem__,
    )
    return files


def generate_site(
    receipts: Iterable[LoadedReceipt],
    reports: Sequence[Report],
    settings: SiteSettings,
    *,
    emit: Emit,
    problems: list[Problem] | None = None,
    total: int = 0,
) -> None:
    """Generate every page and file of the site, handing each to ``emit`` as it is made.

    One receipt at a time (memory bounded by one receipt's pages): its pages are taken
    from the render cache or rendered from its model, emitted, and let go; the receipts the
    reports cite are kept for the reports, rendered last.

    Args:
        receipts: every receipt, in name order (may be a generator reading them one by one).
        reports: the checked reports, in any order (listed newest first).
        settings: navigation, names, templates, render cache, progress (:class:`SiteSettings`).
        emit: receives ``(site path, bytes)`` once per file, paths relative to the site root.
        problems: problems the caller finds (e.g. unreadable receipts, added while
            ``receipts`` is read); reported with those found here.
        total: the number of receipts, for ``settings.progress``.

    Raises:
        SiteBuildError: every problem: receipts that are not valid (file, JSON pointer,
            expectation), simulated receipts on the public site, two receipts that would
            write the same file, a section that cannot be rendered.
    """
    env = page_env(settings.templates)
    env.globals.update(site_name=settings.site_name, site_nav=list(settings.nav))
    ordered = sorted(reports, key=lambda r: r.number, reverse=True)
    cited = {n for r in ordered for n in r.receipts}
    fixed = (
        json.dumps(list(settings.nav)),
        settings.site_name,
        settings.site_url,
        code_key(Path(settings.templates)) if settings.cache is not None else "",
    )
    found = problems if problems is not None else []
    owners: dict[str, str] = {}  # each receipt file's path: the receipt that writes it
    held: dict[str, LoadedReceipt] = {}
    rows: list[ResultRow] = []
    listing: list[dict[str, str]] = []
    for i, lr in enumerate(receipts):
        try:
            files, row, summary = receipt_output(lr, ordered, env, settings.cache, fixed)
        except ReceiptError as exc:
            found.extend(exc.problems or [Problem(str(lr.path or lr.name), "", str(exc))])
            continue
        if settings.public and summary.simulated:  # issue 16: never on the public site
            found.append(simulated_problem(lr))
            continue
        files[f"receipts/{lr.name}.json"] = lr.raw
        for path, data in files.items():
            first = owners.setdefault(path, lr.name)
            if first != lr.name:
                found.append(_clash(lr, path, first))
            emit(path, data)
        rows.append(row)
        listing.append(_receipt_row(lr, summary, row))
        if lr.name in cited:
            held[lr.name] = lr
        if settings.progress:
            settings.progress("render", i + 1, total)
    if found:
        found.sort(key=lambda p: p.file)
        raise SiteBuildError(f"{len(found)} problem(s); the site was not built", found)
    _index_files(held, ordered, rows, listing, env, settings, emit)


def _index_files(
    held: Mapping[str, LoadedReceipt],
    ordered: Sequence[Report],
    rows: list[ResultRow],
    listing: list[dict[str, str]],
    env: jinja2.Environment,
    settings: SiteSettings,
    emit: Emit,
) -> None:
    """The reports' files and every page made from all receipts (lists, sums, feed)."""
    emitted: set[str] = set()

    def put(path: str, data: bytes) -> None:
        emitted.add(path)
        emit(path, data)

    for r in ordered:
        for path, data in report_files(r, held, env).items():
            put(path, data)
    if ordered:
        latest = "reports/latest/index.html"
        put(
            latest,
            _render(
                env,
                "latest.html",
                latest,
                nav_current="",
                ident=ordered[0].ident,
                title=ordered[0].title,
            ),
        )
    put(
        "receipts/index.html",
        _render(
            env,
            "receipts.html",
            "receipts/index.html",
            nav_current="receipts/index.html",
            receipts=listing,
        ),
    )
    put(
        "receipts/SHA256SUMS", sums_of({f"receipts/{r['name']}.json": r["sha256"] for r in listing})
    )
    put(RESULTS_PAGE, results_page_from_rows(order_rows(rows), env))
    for path, data in spec_files(env, settings.site_url).items():
        put(path, data)
    # Folder addresses a reader may type: each points at the page that lists what is inside.
    for path, heading, text, target, link_text in (
        (
            "reports/index.html",
            "Reports",
            "The numbered reports are listed, newest first, on",
            "../index.html",
            "the home page",
        ),
        (
            "spec/index.html",
            "Receipt schema",
            "Every version of the receipt schema is listed on",
            "versions/index.html",
            "the versions page",
        ),
    ):
        if path not in emitted:
            put(
                path,
                _render(
                    env,
                    "redirect.html",
                    path,
                    nav_current="",
                    heading=heading,
                    text=text,
                    target=target,
                    link_text=link_text,
                ),
            )
    updated = ordered and max(r.date for r in ordered).isoformat() or settings.fallback_date
    site_url, site_name = settings.site_url, settings.site_name
    feed = env.get_template("feed.xml").render(
        site_url=site_url,
        site_name=site_name,
        entries=[feed_entry(r, site_url) for r in ordered],
        updated=updated + "T00:00:00Z",
    )
    put("feed.xml", feed.encode("utf-8"))


def _receipt_row(lr: LoadedReceipt, s: ReceiptSummary, row: ResultRow) -> dict[str, str]:
    return {
        "name": lr.name,
        "skill": s.skill,
        # the results page's figure: the source's printed headline, else the lift
        "headline": row.headline or row.lift_text,
        "level": s.level,
        "model": s.model,
        "sha256": lr.sha256,
        "cases": str(s.cases),
    }


def _clash(lr: LoadedReceipt, path: str, first: str) -> Problem:
    return Problem(
        str(lr.path or lr.name),
        "",
        f"expected a receipt name whose files no other receipt writes: receipt "
        f"{first!r} writes {path} too; rename one of them",
    )
