"""The mkdocs events that add the generated pages: the registered plugin ``driftproof``
(:mod:`driftproof.site._plugin`, ``plugins: [driftproof]`` in mkdocs.yml) calls them, and so
does the older path hook ``driftproof/site/mkdocs_hook.py`` (``hooks:``), kept for configs
that still name it; their state lives in this one module. ``driftproof reports build`` hands
over inputs it has already validated (:func:`handing_over`); a plain ``mkdocs build``
loads them itself from ``extra.driftproof`` in mkdocs.yml, failing closed the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from driftproof.errors import SiteBuildError

if TYPE_CHECKING:
    from driftproof.site._link_digest import PagesChecked
    from driftproof.site._owned import Owned

__all__ = [
    "Handover",
    "handing_over",
    "on_build_error",
    "on_env",
    "on_files",
    "on_page_content",
    "on_page_context",
    "on_post_build",
]

#: Top-level pages in navigation order (source file, label); others follow by file name.
NAV_PAGES = (
    ("index.md", "Reports"),
    ("method.md", "Method"),
    ("neutrality.md", "Neutrality"),
    ("interop.md", "Interop"),
)
#: Generated sections of the site that appear in navigation.
NAV_GENERATED = (
    ("Results", "results/"),
    ("Receipts", "receipts/"),
    ("Receipt schema", "spec/versions/"),
)

_state: dict[str, Any] = {"inputs": None}


class Handover:
    """What one build handed over learns back: the generated files kept from the site it
    updates (path under the site: sha256 hex of its bytes;
    :class:`driftproof.site._staging.Staging`)."""

    def __init__(self) -> None:
        self.kept: dict[str, str] = {}
        #: generated files worker processes wrote into the new site, with their sha256 (hex)
        self.written: dict[str, str] = {}
        #: each receipt's render key, files and results row (for the site record)
        self.receipts: dict[str, Any] = {}
        #: link checks done by the worker processes that wrote pages (a full build only)
        self.checked: list[PagesChecked] = []
        #: the site paths of the files mkdocs writes (its own and those it is handed),
        #: known once its last event with the files has run (``on_env``)
        self.mkdocs_paths: list[str] = []
        #: a full build's folders only workers wrote into, with what they saw there
        #: (:class:`driftproof.site._owned.Owned`); ``None``: walk every folder
        self.owned: Owned | None = None

    def foreign(self, moved_alone: set[str]) -> set[str]:
        """Site paths of the files something other than a worker wrote into the new site
        (or moved there on its own: ``moved_alone``)."""
        return {p for p in self.mkdocs_paths if p not in self.written} | moved_alone


@contextmanager
def handing_over(
    inputs: Any,
    progress: Any = None,
    previous: Path | None = None,
    record: Any = None,
    ahead: Any = None,
    search_mirror: Path | None = None,
) -> Iterator[Handover]:
    """Make ``inputs`` (a :class:`driftproof.site.publish.SiteInputs`) the hook's for one build;
    ``progress(phase, done, total)`` hears of the render and write phases. ``previous``: the
    site an incremental build updates (issue 19): a generated file already there with the
    same bytes is kept, not written, and listed in the yielded :class:`Handover`; the
    searchable ones among them are linked into the new site for the search index.
    ``record``: the receipts part of the previous build's site record, whose receipts with
    unchanged inputs and untouched files are kept whole, unread
    (:meth:`driftproof.site._staging.Staging.reuse`). ``ahead``: the
    :class:`~driftproof.site._parallel_render.RenderAhead` the inputs' receipts were rendered
    with while they were checked (:attr:`driftproof.site.publish.SiteInputs.rendered`); its
    files are taken into the site when the build renders with the same navigation, site
    name and templates, else rendered again. ``search_mirror``: the folder, kept between
    builds of the site, that the search index reads its pages from
    (:func:`driftproof.site._site_dir.sync_mirror`)."""
    handover = Handover()
    _state["inputs"] = inputs
    _state["progress"] = progress
    _state["previous"] = previous
    _state["record"] = record
    _state["handover"] = handover
    _state["ahead"] = ahead
    _state["search_mirror"] = search_mirror
    try:
        yield handover
    finally:
        on_build_error(None)
        _state.clear()
        _state["inputs"] = None


def site_nav(files: Any) -> list[dict[str, str]]:
    """Navigation from the hand-written pages present, then the generated sections."""
    pages = {f.src_uri: f for f in files.documentation_pages()}
    nav = [{"title": label, "url": _url(src)} for src, label in NAV_PAGES if src in pages]
    known = {src for src, _ in NAV_PAGES}
    for src in sorted(pages):
        if src not in known and "/" not in src:
            nav.append({"title": _title_of(pages[src]), "url": _url(src)})
    nav += [{"title": t, "url": u} for t, u in NAV_GENERATED]
    return nav


def on_files(
    files: Any, config: Any, *, receipts: str | None = None, reports: str | None = None
) -> Any:
    from driftproof.site._staging import Staging
    from driftproof.site.build import SiteSettings, generate_site
    from driftproof.site.publish import fallback_date, load_inputs

    inputs = _state["inputs"]
    if inputs is None:  # plain `mkdocs build`: load and check here, failing closed all the same
        base = Path(config.config_file_path).parent
        opts = (config.extra or {}).get("driftproof", {})
        inputs = load_inputs(
            base / (receipts or opts.get("receipts", "receipts")),
            base / (reports or opts.get("reports", "reports")),
        )
    nav = site_nav(files)
    progress = _state.get("progress")
    # Each generated file goes to disk as it is made (issue 19: memory bounded by one receipt),
    # straight into the site folder mkdocs has just emptied (driftproof.site._staging).
    site_dir = Path(config.site_dir)
    staging = Staging(site_dir.parent, _state.get("previous"), _state.get("record"), into=site_dir)
    _state["staging"] = staging
    settings = SiteSettings(
        nav=nav,
        site_name=config.site_name,
        site_url=config.site_url or "https://driftproof.dev/",
        fallback_date=fallback_date(),
        templates=templates_of(config),
        cache=getattr(inputs, "cache", None),
        progress=progress,
    )
    rendered = _rendered_ahead(inputs, nav, config, staging)
    generate_site(
        inputs.receipts,
        inputs.reports,
        settings,
        emit=staging.put,
        stage=staging,
        rendered=rendered,
        reports_rendered=getattr(inputs, "reports_rendered", None) if rendered else None,
    )
    generated = staging.paths + list(staging.kept)
    if progress:
        progress("write", 0, len(generated))
    # by source path and by the path each file is written to (a page ``receipts/x.md`` is
    # written to ``receipts/x/index.html``)
    written_to = {f.dest_uri: f for f in files}
    sources = files.src_uris  # generated paths are already ``/``-separated and normal
    clash = sorted(p for p in generated if p in sources or p in written_to)
    if clash:
        from driftproof.errors import Problem

        def source(p: str) -> str:
            f = files.get_file_from_path(p) or written_to[p]
            return str(f.abs_src_path or f.src_uri)

        raise SiteBuildError(
            f"generated pages would overwrite files in {config.docs_dir}: {', '.join(clash)}",
            [
                Problem(
                    source(p),
                    "",
                    f"expected no page that the site writes to {p}, which the build "
                    "generates: rename or remove it",
                )
                for p in clash
            ],
        )
    for path in sorted(generated):
        files.append(staging.file(config, path))
    handover = _state.get("handover")
    if handover is not None:
        handover.kept = dict(sorted(staging.kept.items()))
        handover.written = staging.written
        handover.receipts = staging.receipts
        handover.checked = staging.checked
    _state.update(nav=nav, reports=inputs.reports, generated=len(generated))
    return files


def _rendered_ahead(inputs: Any, nav: Any, config: Any, staging: Any) -> dict[str, Any] | None:
    """The receipts the checking workers rendered (issue 19), their files moved into the
    site; ``None`` (render them here) unless they were rendered with this build's
    navigation, site name and templates."""
    import json

    ahead, rendered = _state.get("ahead"), getattr(inputs, "rendered", None)
    if ahead is None or not rendered:
        return None
    same = (json.dumps(list(nav)), config.site_name, str(templates_of(config))) == (
        ahead.nav,
        ahead.site_name,
        ahead.templates,
    )
    if not same:
        return None
    staging.take(Path(ahead.stage_dir))
    return dict(rendered)


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """Hand-written pages: each table scrolls inside its own container (no sideways page scroll)."""
    from driftproof.site._render import wrap_tables

    return wrap_tables(html)


def on_env(env: Any, config: Any, files: Any) -> Any:
    from driftproof.site._render import printable

    # The theme's own environment escapes too (mkdocs leaves autoescape off by default), and
    # shows control characters as visible symbols, as the generator's does.
    env.autoescape = True
    env.finalize = printable
    env.globals.update(site_name=config.site_name, site_nav=_state.get("nav", []))
    handover = _state.get("handover")
    if handover is not None:  # mkdocs' last event with the files: its list is final
        handover.mkdocs_paths = [f.dest_uri for f in files]
    return env


def on_page_context(context: dict[str, Any], page: Any, config: Any, nav: Any) -> dict[str, Any]:
    if page.is_homepage:
        from driftproof.site.build import home_listing, page_env

        context["reports_listing"] = home_listing(
            _state.get("reports", []), page_env(templates_of(config))
        )
    else:
        context["reports_listing"] = Markup("")
    return context


def templates_of(config: Any) -> Path:
    """The templates folder of an mkdocs config: its theme's ``custom_dir``'s parent."""
    # The theme is templates/theme; the generator's templates are its siblings (templates/pages).
    return Path(config.theme.custom_dir).parent


def _url(src: str) -> str:
    return "" if src == "index.md" else src[: -len(".md")] + "/"


def _title_of(f: Any) -> str:
    try:
        for line in Path(f.abs_src_path).read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    except (OSError, TypeError):
        pass
    return os.path.splitext(os.path.basename(f.src_uri))[0].replace("-", " ").capitalize()


def on_post_build(config: Any) -> None:
    """After mkdocs wrote the pages: build the static search index (Pagefind) into the site,
    so `make reports` and a plain `mkdocs build` give the same bytes."""
    from pathlib import Path

    from driftproof.site.publish import index_for_search

    progress = _state.get("progress")
    if progress:
        progress("write", _state.get("generated", 0), _state.get("generated", 0))
    handover, previous = _state.get("handover"), _state.get("previous")
    kept = (previous, handover.kept) if handover is not None and previous is not None else None
    staging = _state.get("staging")
    if handover is not None and previous is None and staging is not None:
        from driftproof.site._owned import Owned

        handover.owned = Owned(staging.on_disk, handover.foreign(staging.moved_alone))
    config_file = Path(config.config_file_path or "mkdocs.yml")
    try:
        index_for_search(
            Path(config.site_dir),
            config_file,
            kept,
            _state.get("search_mirror"),
            known=handover.written if handover is not None else None,
            owned=handover.owned if handover is not None else None,
        )
    finally:
        on_build_error(None)


def on_build_error(error: Any) -> None:
    """The generated files' staging folder is removed, whether the build succeeded or not."""
    staging = _state.pop("staging", None)
    if staging is not None:
        staging.remove()
