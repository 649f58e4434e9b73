"""The mkdocs plugin ``driftproof``: every generated file, the link check and the search index.

Options ``receipts`` and ``reports`` (default ``extra.driftproof`` in mkdocs.yml, else the
folders of those names beside the config) serve a plain ``mkdocs build``;
:func:`driftproof.site.publish.build_site` sets :attr:`DriftproofPlugin.job` instead.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

from markupsafe import Markup
from mkdocs.config import config_options
from mkdocs.plugins import BasePlugin

from driftproof.errors import Problem, SiteBuildError
from driftproof.pages.report import Report
from driftproof.pages.words import count_of
from driftproof.site.generate import SiteSettings, generate_site
from driftproof.site.html import home_listing, page_env, printable, wrap_tables
from driftproof.site.inputs import Progress, find_inputs
from driftproof.site.links import SiteLinks, index_for_search, searchable, site_tree
from driftproof.site.receipt_jobs import write_files

#: The navigation: (hand-written page, listed when present, or generated page's path; label).
NAV = (
    ("index.md", "Reports"),
    ("results/index.html", "Results"),
    ("receipts/index.html", "Receipts"),
    ("method.md", "Method"),
    ("neutrality.md", "Neutrality"),
    ("interop.md", "Interop"),
    ("receipt-spec.md", "Receipt spec"),
    ("search.md", "Search"),
)


class DriftproofPlugin(BasePlugin):
    """Adds every generated page and file of the site, checks links, writes the search index."""

    config_scheme = (
        ("receipts", config_options.Optional(config_options.Type(str))),
        ("reports", config_options.Optional(config_options.Type(str))),
    )

    def __init__(self) -> None:
        super().__init__()
        #: ``(receipts folder, reports folder, render cache, progress)`` from build_site
        self.job: tuple[Path, Path, Any, Progress | None] | None = None
        self.nav: list[dict[str, str]] = []
        #: what the last build published: receipt names and reports
        self.built: tuple[tuple[str, ...], list[Report]] = ((), [])
        #: whether a receipt of the last build is a measured run (the home page says if none is)
        self.measured = True
        #: the link check of the build under way
        self.links = SiteLinks()
        #: the generated pages' site paths, for the sitemap (aliases that redirect left out)
        self.pages: list[str] = []

    def on_files(self, files: Any, *, config: Any) -> Any:
        """Write every generated file into the site folder as made; mkdocs is not told of them.

        Raises:
            SiteBuildError: an input is refused or invalid, or a generated file would take a
                hand-written page's place.
        """
        if self.job is None:  # plain `mkdocs build`: the folders from the config
            base = Path(config.config_file_path).parent
            opts = (config.extra or {}).get("driftproof", {})
            receipts = self.config.get("receipts") or opts.get("receipts", "receipts")
            reports = self.config.get("reports") or opts.get("reports", "reports")
            self.job = (base / receipts, base / reports, None, None)
        receipts_dir, reports_dir, cache, progress = self.job
        self.links, self.pages = SiteLinks(), []
        found = find_inputs(receipts_dir, reports_dir)
        self.nav = site_nav(files)
        settings = SiteSettings(
            nav=self.nav,
            site_name=config.site_name,
            site_url=config.site_url or "https://driftproof.dev/",
            fallback_date=_fallback_date(),
            templates=templates_of(config),
            cache=cache,
            progress=progress,
            public=True,
        )
        site_dir = Path(config.site_dir)
        # no generated file may take a hand-written page's source or written path
        clash = {f.dest_uri: f for f in files} | {f.src_uri: f for f in files}

        def emit(path: str, data: bytes | None) -> None:
            if path in clash:
                f = clash[path]
                why = f"expected no page that the site writes to {path}, which the build generates"
                raise SiteBuildError(
                    f"generated pages would overwrite files in {config.docs_dir}: {path}",
                    [Problem(str(f.abs_src_path or f.src_uri), "", f"{why}: rename or remove it")],
                )
            if path.endswith(".html") and b'http-equiv="refresh"' not in (data or b""):
                self.pages.append(path)
            if data is not None:  # None: the job wrote it
                write_files(site_dir, {path: data})

        rows = generate_site(
            ((name, path, str(path)) for name, path in found.paths.items()),
            found.reports,
            settings,
            emit=emit,
            problems=found.problems,
            total=len(found.paths),
            links=self.links,
            site=site_dir,
        )
        self.built = (tuple(found.paths), found.reports)
        self.measured = any(r.measured for r in rows)
        return files

    def on_env(self, env: Any, *, config: Any, files: Any) -> Any:
        """The theme's environment escapes and shows control characters, as the generator's.

        ``pages_made``: the generated pages' site paths, sorted (the sitemap names them).
        """
        env.autoescape = True
        env.finalize = printable
        env.globals.update(
            site_name=config.site_name, site_nav=self.nav, pages_made=sorted(self.pages)
        )
        return env

    def on_page_content(self, html: str, *, page: Any, config: Any, files: Any) -> str:
        """Hand-written pages: each table scrolls inside its own container."""
        return wrap_tables(html)

    def on_page_context(self, context: Any, *, page: Any, config: Any, nav: Any) -> Any:
        """The home page gets the list of numbered reports (``reports_listing``)."""
        listing = Markup("")
        if page.is_homepage:
            env = page_env(templates_of(config))
            listing = home_listing(self.built[1], env, measured=self.measured)
        context["reports_listing"] = listing
        return context

    def on_post_build(self, *, config: Any) -> None:
        """The search index is written; then a broken internal link fails the build."""
        config_file = Path(config.config_file_path or "mkdocs.yml")
        site = Path(config.site_dir)
        files, folders = site_tree(site)  # one walk, for both
        for path in index_for_search(site, config_file, sorted(p for p in files if searchable(p))):
            files.add(path)
            folders.update(path.rsplit("/", i)[0] for i in range(1, path.count("/") + 1))
        if broken := self.links.broken(site, (files, folders)):
            # a report's page is named by its source file (reports/NNN-slug.md), the rest by config
            source = {f"reports/{r.ident}/index.html": r.source for r in self.built[1]}
            raise SiteBuildError(
                f"{count_of(len(broken), 'broken internal link')}; the site was not replaced",
                [
                    Problem(
                        source.get(b.split(": ", 1)[0], str(config_file)), "", f"broken link: {b}"
                    )
                    for b in broken[:50]
                ],
            )
        self.job = None


def site_nav(files: Any) -> list[dict[str, str]]:
    """The :data:`NAV` entries whose page is there, ``{"title", "url"}`` (url from the root)."""
    pages = {f.src_uri for f in files.documentation_pages()}
    return [
        {"title": label, "url": src.removesuffix(".md") + ".html" if src.endswith(".md") else src}
        for src, label in NAV
        if src in pages or not src.endswith(".md")
    ]


def _fallback_date() -> str:
    """The date when no report supplies one: ``SOURCE_DATE_EPOCH`` (UTC), else 1970-01-01."""
    try:
        epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
        return dt.datetime.fromtimestamp(epoch, dt.UTC).date().isoformat()
    except ValueError:
        return "1970-01-01"


def templates_of(config: Any) -> Path:
    """The templates folder of an mkdocs config: its theme's ``custom_dir``'s parent.

    Raises:
        SiteBuildError: the config's theme names no ``custom_dir``.
    """
    if not config.theme.custom_dir:
        raise SiteBuildError.at(
            config.config_file_path,
            "/theme/custom_dir",
            "expected the folder of the site's theme templates (templates/theme in Driftproof)",
        )
    return Path(config.theme.custom_dir).parent
