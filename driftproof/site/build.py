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

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from driftproof.errors import Problem, SiteBuildError
from driftproof.results import (
    RESULTS_PAGE,
    ResultRow,
    order_rows,
    results_page_from_rows,
)
from driftproof.site._cache import BuildCache, tree_key, using
from driftproof.site._loaded import LoadedReceipt
from driftproof.site._paths import templates_dir
from driftproof.site._receipt_files import receipt_files, receipt_files_key
from driftproof.site._render import make_env
from driftproof.site._report_files import (
    cached_report_files,
    csv_bytes,
    feed_entry,
    home_listing,
    spec_files,
    sums_of,
)
from driftproof.site._report_files import render as _render
from driftproof.site.report_source import Report

if TYPE_CHECKING:
    from driftproof.site._parallel_render import Rendered
    from driftproof.site._staging import Staging

__all__ = [
    "DEFAULT_TEMPLATES",
    "Emit",
    "LoadedReceipt",
    "SiteSettings",
    "build_site_files",
    "generate_site",
    "home_listing",
    "page_env",
    "receipt_files",
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
        cache: a build cache: a receipt's sheet whose every input (the receipt's bytes, name
            and path, the reports citing it, navigation, site name, templates, product version)
            is unchanged is taken from it, not rendered again, and so are its results row, its
            badge files and every chart already drawn (issue 19). Same bytes either way.
        progress: ``progress("render", done, total)`` after each receipt's pages.
    """

    nav: Sequence[Mapping[str, str]]
    site_name: str = "Driftproof"
    site_url: str = "https://driftproof.dev/"
    fallback_date: str = "1970-01-01"
    templates: Path = DEFAULT_TEMPLATES
    cache: BuildCache | None = None
    progress: Callable[[str, int, int], None] | None = None


def build_site_files(
    receipts: Mapping[str, LoadedReceipt],
    reports: Sequence[Report],
    *,
    nav: Sequence[Mapping[str, str]],
    **settings: Any,
) -> dict[str, bytes]:
    """Every generated page and file of the site, ``{site path: bytes}``: what
    :func:`generate_site` emits, collected (for tests and small sites; the site build streams).

    ``nav`` and ``settings`` are the fields of :class:`SiteSettings` (``site_name=``, …).
    """
    files: dict[str, bytes] = {}
    generate_site(receipts, reports, SiteSettings(nav, **settings), emit=files.__setitem__)
    return files


def generate_site(
    receipts: Mapping[str, LoadedReceipt],
    reports: Sequence[Report],
    settings: SiteSettings,
    *,
    emit: Emit,
    stage: Staging | None = None,
    rendered: Mapping[str, Rendered] | None = None,
    reports_rendered: Rendered | None = None,
) -> None:
    """Generate every page and file of the site, handing each to ``emit`` as it is made.

    One receipt at a time: its model is parsed (when not held), its pages rendered and
    emitted, and it is let go before the next; the index pages are made from each receipt's
    :class:`~driftproof.site._loaded.ReceiptSummary` (issue 19: memory bounded by one receipt).

    Args:
        receipts: every committed receipt by name.
        reports: the checked reports, in any order (listed newest first).
        settings: navigation, names, templates, build cache and progress (:class:`SiteSettings`).
        emit: receives ``(site path, bytes)`` once per file, paths relative to the site root.
        stage: the staging folder ``emit`` writes into: when given, the pages of a large
            site's receipts are rendered in worker processes that write there themselves
            (:mod:`driftproof.site._parallel_render`); the same bytes.
        rendered: receipts whose files are already under ``stage``'s folder (rendered by the
            workers that checked them, :attr:`driftproof.site.publish.SiteInputs.rendered`),
            by name: taken as they are, not rendered again (with ``stage`` only).
        reports_rendered: the reports' files, already under ``stage``'s folder (drawn while
            the receipts were checked): taken as they are (with ``stage`` only).

    Raises:
        SiteBuildError: a section cannot be rendered (names the report file and section);
            two receipts would write the same file (e.g. ``alpha`` and ``alpha.details``
            both ``badge/alpha.details.json``; one problem per file, naming the receipt).
    """
    with using(settings.cache):  # charts drawn below are kept in (and taken from) the cache
        _generate(receipts, reports, emit, settings, stage, rendered or {}, reports_rendered)


def _generate(
    receipts: Mapping[str, LoadedReceipt],
    reports: Sequence[Report],
    emit: Emit,
    settings: SiteSettings,
    stage: Staging | None,
    rendered: Mapping[str, Rendered],
    reports_rendered: Rendered | None = None,
) -> None:
    nav, site_name, site_url = settings.nav, settings.site_name, settings.site_url
    templates, cache, progress = settings.templates, settings.cache, settings.progress
    env = page_env(templates)
    env.globals.update(site_name=site_name, site_nav=list(nav))
    emitted: set[str] = set()

    def put(path: str, data: bytes) -> None:
        emitted.add(path)
        emit(path, data)

    ordered = sorted(reports, key=lambda r: r.number, reverse=True)

    def report_pages() -> None:
        if stage is not None and reports_rendered is not None:
            emitted.update(reports_rendered.written)
            emitted.update(reports_rendered.kept)
            stage.adopt(reports_rendered)
        else:
            for r in ordered:
                for path, data in cached_report_files(r, receipts, env, cache, fixed).items():
                    put(path, data)
        if ordered:
            put(
                "reports/latest/index.html",
                _render(
                    env,
                    "latest.html",
                    "reports/latest/index.html",
                    nav_current="",
                    ident=ordered[0].ident,
                    title=ordered[0].title,
                ),
            )

    fixed = (
        json.dumps(list(nav)),
        site_name,
        tree_key(Path(templates)) if cache is not None else "",
    )
    from driftproof.site._staging import ReceiptFiles

    keys = {name: receipt_files_key(lr, ordered, fixed) for name, lr in receipts.items()}
    owners: dict[str, str] = {}  # each receipt file's path: the receipt that writes it
    clashes: list[tuple[str, str, str]] = []

    def own(name: str, paths: Iterable[str]) -> None:
        for path in paths:
            first = owners.setdefault(path, name)
            if first != name:
                clashes.append((path, first, name))

    done: list[ResultRow] = []
    todo: Mapping[str, LoadedReceipt] = receipts
    if stage is not None:

        def adopt(name: str, done_one: Rendered, stage: Staging = stage) -> None:
            written, kept = done_one.written, done_one.kept
            own(name, [*written, *kept])
            emitted.update(written)
            emitted.update(kept)
            stage.adopt(done_one)
            stage.receipts[name] = ReceiptFiles(keys[name], sorted([*written, *kept]), done_one.row)

        pending: dict[str, LoadedReceipt] = {}
        for name, lr in sorted(receipts.items()):
            if name in rendered:  # rendered by the worker that checked it
                adopt(name, rendered[name])
                done.append(ResultRow(**rendered[name].row))
                continue
            # an incremental build: receipts whose files are all still there
            reused = stage.reuse(name, keys[name])
            if reused is None:
                pending[name] = lr
            else:
                own(name, reused.paths)
                emitted.update(reused.paths)
                done.append(ResultRow(**reused.row))
        todo = pending
        if progress and len(todo) < len(receipts):
            progress("render", len(receipts) - len(todo), len(receipts))
    rows: list[ResultRow] | None = None
    if stage is not None:  # a large site: its receipts' pages are rendered on all cores
        from driftproof.site._parallel_render import render_in_workers

        rows = render_in_workers(
            todo,
            ordered,
            stage.root,
            adopt,
            (nav, site_name, templates),
            cache,
            progress,
            stage.previous,
            meanwhile=report_pages,  # the reports are drawn here while the workers render
        )
    if rows is None:
        report_pages()
        rows = []
        for i, (name, lr) in enumerate(sorted(todo.items())):
            put(f"receipts/{name}.json", lr.raw)
            files, row = receipt_files(lr, ordered, env, cache, fixed)
            own(name, [f"receipts/{name}.json", *files])
            for path, data in files.items():
                put(path, data)
            rows.append(row)
            if stage is not None:
                paths = sorted([f"receipts/{name}.json", *files])
                stage.receipts[name] = ReceiptFiles(keys[name], paths, dataclasses.asdict(row))
            if progress:
                progress("render", i + 1, len(todo))
    if clashes:
        raise SiteBuildError(
            f"{len(clashes)} file(s) two receipts would both write",
            [
                Problem(
                    str(receipts[second].path or second),
                    "",
                    f"expected a receipt name whose files no other receipt writes: receipt "
                    f"{first!r} writes {path} too; rename one of them",
                )
                for path, first, second in clashes[:50]
            ],
        )
    put(
        "receipts/index.html",
        _render(
            env,
            "receipts.html",
            "receipts/index.html",
            nav_current="receipts/",
            receipts=[_receipt_row(lr) for _, lr in sorted(receipts.items())],
        ),
    )
    put(
        "receipts/SHA256SUMS",
        sums_of({f"receipts/{n}.json": lr.sha256 for n, lr in receipts.items()}),
    )
    # The results page (issue 9, driftproof/results.py), from every receipt's row.
    put(RESULTS_PAGE, results_page_from_rows(order_rows([*done, *rows]), env))
    for path, data in spec_files(env, site_url).items():
        put(path, data)
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
    put(
        "feed.xml",
        env.get_template("feed.xml")
        .render(
            site_url=site_url,
            site_name=site_name,
            entries=[feed_entry(r, site_url) for r in ordered],
            updated=(ordered and max(r.date for r in ordered).isoformat() or settings.fallback_date)
            + "T00:00:00Z",
        )
        .encode("utf-8"),
    )


def _receipt_row(lr: LoadedReceipt) -> dict[str, str]:
    s = lr.summary
    return {
        "name": lr.name,
        "skill": s.skill,
        "level": s.level,
        "model": s.model,
        "sha256": lr.sha256,
        "cases": str(s.cases),
    }
