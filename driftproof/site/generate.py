"""The site generator: receipts and reports in, every generated file out, ``{site path: bytes}``.

:func:`generate_site` is pure (no clock, no file writes); the mkdocs plugin writes what it
emits, tests and the demo collect it (:func:`build_site_files`). Paths::

    receipts/<name>.json, receipts/<name>/index.html       each receipt as committed, its sheet
    receipts/<name>/cases/<slug>/index.html               each case's evidence page
    receipts/index.html, receipts/SHA256SUMS              the receipts page and sums
    badge/<name>.json, .details.json, .svg                each receipt's badge
    results/index.html                                    every receipt with its reading
    reports/NNN/…, reports/latest/index.html              each report, the newest's alias
    spec/…                                                the frozen schemas (D-11)
    feed.xml                                              Atom feed, one entry per report
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from driftproof._pool import no_cycle_collection
from driftproof.errors import Problem, SiteBuildError
from driftproof.pages.report import Report, feed_entry
from driftproof.pages.results import RESULTS_PAGE, ResultRow, order_rows
from driftproof.pages.spec import schema_files
from driftproof.pages.tables import sums_of
from driftproof.pages.words import count_of
from driftproof.site._paths import templates_dir
from driftproof.site.html import page, page_env, results_page_from_rows
from driftproof.site.links import SiteLinks
from driftproof.site.receipt_jobs import (
    Done,
    Job,
    RenderCache,
    Renderer,
    code_key,
    job_pool,
    run_jobs,
)

#: ``emit(site path, bytes)``: receives each generated file once (None: a job wrote it).
Emit = Callable[[str, bytes | None], None]

_SPEC = "spec/versions/index.html"
#: Folder addresses a reader may type, each a page pointing at the page that lists what is in it.
_FOLDERS = {
    "reports/index.html": {
        "heading": "Reports",
        "text": "The numbered reports are listed, newest first, on",
        "target": "../index.html",
        "link_text": "the home page",
    },
    "spec/index.html": {
        "heading": "Receipt schema",
        "text": "Every version of the receipt schema is listed on",
        "target": "versions/index.html",
        "link_text": "the versions page",
    },
}

#: The reports folder's page when the site has no numbered report (the demo's): it says so.
_NO_REPORT = {
    "heading": "Reports",
    "text": "This site has no numbered report. Its receipts are listed on",
    "target": "../receipts/index.html",
    "link_text": "the receipts page",
}


@dataclasses.dataclass(frozen=True)
class SiteSettings:
    """What a site is built with besides its receipts and reports.

    ``nav`` is ``{"title", "url"}`` with urls from the root; ``site_url`` the absolute root
    (feed links and ids); ``fallback_date`` the feed's date when there is no report (never the
    clock); ``cache`` changes no byte; ``public`` refuses simulated receipts (the demo's site
    takes them).
    """

    nav: Sequence[Mapping[str, str]]
    site_name: str = "Driftproof"
    site_url: str = "https://driftproof.dev/"
    fallback_date: str = "1970-01-01"
    templates: Path = dataclasses.field(default_factory=templates_dir)
    cache: RenderCache | None = None
    progress: Callable[[str, int, int], None] | None = None
    public: bool = False


def build_site_files(
    receipts: Mapping[str, bytes],
    reports: Sequence[Report],
    *,
    nav: Sequence[Mapping[str, str]],
    **settings: Any,
) -> dict[str, bytes]:
    """Every file :func:`generate_site` emits for receipt bytes by name.

    ``settings`` are the other fields of :class:`SiteSettings`. Raises as :func:`generate_site`.
    """
    files: dict[str, bytes] = {}

    def keep(path: str, data: bytes | None) -> None:
        assert data is not None, "only a build with a site folder gets None"
        files[path] = data

    sources = ((n, receipts[n], n) for n in sorted(receipts))
    generate_site(sources, reports, SiteSettings(nav, **settings), emit=keep)
    return files


def prose_files(
    pages: Mapping[str, tuple[str, Markup]], *, nav: Sequence[Mapping[str, str]], site_name: str
) -> dict[str, bytes]:
    """Hand-written pages and the theme's assets, for a site built without mkdocs (the demo's).

    ``pages`` maps a site path to ``(title, body)``, the body HTML this project rendered.
    """
    templates = templates_dir()
    env = page_env(templates, site_name, nav)
    files = {
        path: page(env, "prose.html", path, nav_current=path, title=title, body=body)
        for path, (title, body) in pages.items()
    }
    for asset in sorted((templates / "theme" / "assets").iterdir()):
        files[f"assets/{asset.name}"] = asset.read_bytes()
    return files


@dataclasses.dataclass
class _Index:
    """What the site-wide pages need of every receipt; ``cited``: the reports' receipts' bytes."""

    rows: list[ResultRow] = dataclasses.field(default_factory=list)
    listing: list[dict[str, str]] = dataclasses.field(default_factory=list)
    cited: dict[str, tuple[bytes, str]] = dataclasses.field(default_factory=dict)
    owners: dict[str, str] = dataclasses.field(default_factory=dict)
    seals: dict[str, str] = dataclasses.field(default_factory=dict)  # seal: the file it is in
    used: set[str] = dataclasses.field(default_factory=set)
    problems: list[Problem] = dataclasses.field(default_factory=list)
    taken: int = 0


def generate_site(
    receipts: Iterable[tuple[str, bytes | Path, str]],
    reports: Sequence[Report],
    settings: SiteSettings,
    *,
    emit: Emit,
    problems: list[Problem] | None = None,
    total: int = 0,
    links: SiteLinks | None = None,
    site: Path | None = None,
) -> list[ResultRow]:
    """Hand each file of the site to ``emit(site path, bytes)`` once, a receipt at a time.

    ``receipts`` yields ``(name, bytes or path, file)`` in name order (``total`` of them);
    ``problems`` the caller finds while it is read are reported with these; with ``site``,
    the receipts' and reports' jobs write their files into that folder themselves (``emit``
    gets ``None`` for their bytes) and ``links`` gathers each receipt's link check. A report is
    rendered as soon as all its receipts are in, beside the receipts still rendering; a
    regrade's pages once every receipt is read (its page links its original, or says the site
    does not publish it).

    Returns:
        each receipt's results row (what the hand-written pages may say of them all).

    Raises:
        SiteBuildError: every problem: receipts that are not valid (file, JSON pointer,
            expectation), simulated receipts on the public site, two receipts that would write
            the same file, a section that cannot be rendered.
        OSError: a file could not be written into ``site``.
    """
    ordered = sorted(reports, key=lambda r: r.number, reverse=True)
    nav = json.dumps(list(settings.nav))
    cache, templates = settings.cache, Path(settings.templates)
    fixed = (nav, settings.site_name, settings.site_url) + ((code_key(templates),) if cache else ())
    folder = cache.folder if cache is not None else None
    render = Renderer(templates, settings.site_name, nav, settings.public, folder, fixed, site)
    index = _Index(problems=problems if problems is not None else [])
    waiting = {r.ident: set(r.receipts) for r in ordered}
    jobs = (
        Job(name, source, file, tuple((r.ident, r.title) for r in ordered if name in r.receipts))
        for name, source, file in receipts
    )
    with job_pool(total) as submit, no_cycle_collection():
        started: list[Future[Done]] = []

        def start_ready(name: str) -> None:
            for r in ordered:
                left = waiting.get(r.ident)
                if left is not None and not left - {name}:
                    del waiting[r.ident]
                    cited = {n: index.cited[n] for n in r.receipts}
                    started.append(submit(render.report, (r, cited)))
                elif left is not None:
                    left.discard(name)

        def took(job: Job, done: Done) -> None:
            _take(job, done, index, emit)
            if done.raw is not None:
                index.cited[job.name] = (done.raw, job.file)
                start_ready(job.name)
            if links is not None and done.links is not None:
                links.add(done.links)
            if settings.progress:
                settings.progress("render", index.taken, total)

        start_ready("")  # reports that cite no receipt
        later: list[tuple[Job, Done]] = []  # regrades: rendered once every seal is known
        for job, done in run_jobs(jobs, render, submit):
            if done.later is None:
                took(job, done)
            else:
                later.append((job, done))
        for job, done in run_jobs(_originals_named(later, index.rows), render, submit):
            took(job, done)
        _take_reports(started, index, emit)
    if cache is not None:
        cache.used |= index.used
    env = page_env(settings.templates, settings.site_name, settings.nav)
    _site_pages(index, ordered, env, settings, emit)
    return index.rows


def _take_reports(started: list[Future[Done]], index: _Index, emit: Emit) -> None:
    """Emit each report's files; raise every problem, the reports' with the receipts' own.

    Raises:
        SiteBuildError: every problem in ``index`` and in the reports' jobs.
    """
    for future in started:
        try:
            done = future.result()
        except SiteBuildError as exc:
            index.problems += exc.problems
            continue
        index.used.add(done.key)
        for path, data in done.emitted():
            emit(path, data)
    if index.problems:
        found = sorted(index.problems, key=lambda p: p.file)
        why = f"{count_of(len(found), 'problem')}; the site was not built"
        raise SiteBuildError(why, found)


def _originals_named(later: list[tuple[Job, Done]], rows: list[ResultRow]) -> Iterator[Job]:
    """Each waiting regrade's job again: its bytes as read, its original's name (``""``: none)."""
    seals = {x.seal: x.receipt for x in rows}
    seals.update({d.later[0]: j.name for j, d in later if d.later is not None})
    for job, done in later:
        assert done.later is not None and done.raw is not None, "a waiting job keeps both"
        yield dataclasses.replace(job, source=done.raw, original=seals.get(done.later[1], ""))


def _take(job: Job, done: Done, index: _Index, emit: Emit) -> None:
    """Gather one receipt job's result into ``index``; emit its files (None: written)."""
    index.taken += 1
    if done.key:
        index.used.add(done.key)
    index.problems.extend(done.problems)
    if done.files is None or done.row is None or done.listed is None:
        return  # refused: its problems are reported
    for path, data in done.emitted():
        first = index.owners.setdefault(path, job.name)
        if first != job.name:
            taken = f"receipt {first!r} writes {path} too; rename one of them"
            why = f"expected a receipt name whose files no other receipt writes: {taken}"
            index.problems.append(Problem(job.file, "", why))
        emit(path, data)
    if (first := index.seals.setdefault(done.row.seal, job.file)) != job.file:
        why = f"expected each receipt once; {first} holds this same receipt (the same seal)"
        index.problems.append(Problem(job.file, "", f"{why}: remove one of them"))
    index.rows.append(done.row)
    index.listing.append(done.listed)


def _site_pages(
    index: _Index,
    ordered: Sequence[Report],
    env: jinja2.Environment,
    settings: SiteSettings,
    emit: Emit,
) -> None:
    """Every page made from all receipts (lists, sums, schemas, feed), the reports' alias."""
    files: dict[str, bytes] = {}
    if ordered:
        latest = "reports/latest/index.html"
        first = ordered[0]
        files[latest] = page(
            env, "latest.html", latest, nav_current="", ident=first.ident, title=first.title
        )
    receipts_page = "receipts/index.html"
    listing = sorted(index.listing, key=lambda x: x["name"])  # a waiting regrade came in last
    files[receipts_page] = page(
        env, "receipts.html", receipts_page, nav_current=receipts_page, receipts=listing
    )
    files["receipts/SHA256SUMS"] = sums_of(
        {f"receipts/{x['name']}.json": x["sha256"] for x in listing}
    )
    files[RESULTS_PAGE] = results_page_from_rows(order_rows(index.rows), env)
    spec, model = schema_files()  # the served receipt schemas, index, sums and versions (D-11)
    files.update(spec)
    files[_SPEC] = page(env, "spec.html", _SPEC, nav_current=_SPEC, **model)
    for path, words in _FOLDERS.items():
        words = _NO_REPORT if path == "reports/index.html" and not ordered else words
        files[path] = page(env, "redirect.html", path, nav_current="", **words)
    updated = ordered and max(r.date for r in ordered).isoformat() or settings.fallback_date
    feed = env.get_template("feed.xml").render(
        site_url=settings.site_url,
        site_name=settings.site_name,
        entries=[feed_entry(r, settings.site_url) for r in ordered],
        updated=updated + "T00:00:00Z",
    )
    files["feed.xml"] = feed.encode("utf-8")
    for path, data in files.items():
        emit(path, data)
