"""The internal link check of a built site (issue 15: a broken internal link fails the build).

Every ``href``, ``src`` and ``srcset`` of every ``*.html`` page under the site root must name
a file inside the site, and a fragment on an HTML page must name an element id there
(SITE-NOTES 5.2, 3). External links (a scheme, or ``//``) and ``mailto:`` are not followed.

Pages are parsed with selectolax (the Lexbor HTML5 parser, pinned) and targets are looked up
in one listing of the site's files, so nothing is stat-ed per link (issue 19). With a build
cache, what a page holds (its ids and its links) is kept by the sha256 of the page's bytes:
a rebuild parses only the pages whose bytes changed.

An incremental build checks only those pages (:class:`Since`): every other page's links were
found whole by the last build's check, and still are, when no file any page linked to was
taken away and no page another page points into by fragment lost that id (what
:class:`LinkSummary` keeps for that); otherwise every page is checked, as without it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urldefrag, urlsplit

from driftproof.site._link_store import LinkStore
from driftproof.site._link_summary import LinkSummary, Since
from driftproof.site._stats import add_folders

if TYPE_CHECKING:
    from driftproof.site._cache import BuildCache
    from driftproof.site._link_digest import PagesChecked

__all__ = ["LinkSummary", "Since", "broken_links", "check_links", "page_anchors"]

_SELECTOR = "[id], a[name], [href], [src], [srcset]"


def page_anchors(html: bytes) -> tuple[list[str], list[str]]:
    """``(ids, links)`` of one HTML page, in document order.

    ids: every ``id`` attribute, and the ``name`` of every ``<a>``. links: each element's
    ``href``, then ``src``, then each URL of its ``srcset``; an attribute given with no value
    is not a link. Entities are decoded (``&amp;`` is ``&``); bytes that are not UTF-8 are
    read as U+FFFD and never raise.
    """
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html.decode("utf-8", errors="replace"))
    ids: list[str] = []
    links: list[str] = []
    last = None
    for node in tree.css(_SELECTOR):
        if node.mem_id == last:  # an element matching two selectors of the list comes twice
            continue
        last = node.mem_id
        attrs = node.attributes
        if attrs.get("id"):
            ids.append(attrs["id"] or "")
        if node.tag == "a" and attrs.get("name"):
            ids.append(attrs["name"] or "")
        for key in ("href", "src"):
            if attrs.get(key) is not None:
                links.append(attrs[key] or "")
        if attrs.get("srcset"):
            links += [part.strip().split(" ")[0] for part in (attrs["srcset"] or "").split(",")]
    return ids, links


def broken_links(
    site: Path,
    cache: BuildCache | None = None,
    kept: tuple[Path, Mapping[str, str]] | None = None,
) -> list[str]:
    """Every internal link or fragment in ``site/**/*.html`` that points nowhere, as
    ``page: link (why)`` with the page's path under the site, pages in path order and links
    in document order. A link resolving outside the site is ``no such file``; a folder stands
    for its ``index.html``.

    Args:
        site: the built site's root folder.
        cache: a build cache, which keeps what each page holds (its ids, and each internal
            link resolved to a path under the site) by the page's path and the sha256 of its
            bytes; the result is the same with or without it.
        kept: ``(folder, {path: sha256 hex})``: files that stand in the site as they are in
            ``folder`` (the site an incremental build updates, and the generated files it
            keeps, with the sha256 of their bytes, so that a page whose ids and links the
            cache holds is not read again; a path also under ``site`` is read there).

    Never raises for unreadable HTML: a page that is not UTF-8 is read with U+FFFD.
    """
    return check_links(site, cache, kept)[0]


def check_links(
    site: Path,
    cache: BuildCache | None = None,
    kept: tuple[Path, Mapping[str, str]] | None = None,
    since: Since | None = None,
    checked: Sequence[PagesChecked] | None = None,
    listing: tuple[set[str], set[str]] | None = None,
) -> tuple[list[str], LinkSummary]:
    """:func:`broken_links` (same arguments and answer), and the site's :class:`LinkSummary`.

    ``since``: the site the last build checked (:class:`Since`). Only the pages whose bytes
    differ from it are checked, when every file a page of it linked to is still there and
    each changed page still has every id other pages named in it; the answer is the same as
    checking every page (the module docstring gives why), and the summary is the last one
    with the changed pages' links added.

    ``checked``: pages of the site whose links the worker processes that wrote them checked
    already (:func:`driftproof.site._link_digest.check_own`; ignored with ``kept`` or
    ``since``): they are not read; the links they hand on are checked here, with every page
    no worker checked. Where any of that finds a problem, every page is checked, so the
    answer is the same.

    ``listing``: ``(files, folders)`` under ``site``, as the build's own walk of it found
    them (:func:`driftproof.site._stats.site_state`), so the site is not walked again.
    """
    root = Path(site).resolve()
    files, folders = (set(listing[0]), set(listing[1])) if listing is not None else _listing(root)
    own = set(files)
    other: Path = root
    known: Mapping[str, str] = {}
    if kept is not None:
        other, known = Path(kept[0]).resolve(), kept[1]
        files.update(known)
        add_folders(folders, known)
    sites = _Sites(root, own, other, dict(known), files, folders)
    pages = sorted(f for f in files if f.endswith(".html"))
    cache_root = str(cache.root) if cache is not None else None
    if checked is not None and kept is None and since is None:
        from driftproof.site._link_digest import checked_by_workers

        found = checked_by_workers(checked, pages, sites, cache_root)
        if found is not None:
            return found
    if since is not None and not (set(since.files) - files) & since.links.targets:
        now, before = since.now, since.files
        changed = [p for p in pages if now.get(p) is None or now[p] != before.get(p)]
        expect = {p: since.links.fragments[p] for p in changed if p in since.links.fragments}
        problems, summary, whole = _checked(changed, sites, cache_root, expect)
        if whole:
            summary.update(since.links)
            return problems, summary
    return _checked(pages, sites, cache_root, {})[:2]


def _checked(
    pages: list[str], sites: _Sites, cache_root: str | None, expect: Mapping[str, set[str]]
) -> tuple[list[str], LinkSummary, bool]:
    """:func:`_check_pages` of ``pages``, on all cores for a large site (issue 19): each
    worker takes a run of pages in path order, and the problems are joined in that order, so
    the split changes nothing."""
    workers = os.cpu_count() or 1
    if workers < 2 or len(pages) < PARALLEL_FROM_PAGES:
        return _check_pages(pages, sites, cache_root, expect)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    size = max(1, min(2000, len(pages) // (workers * 4)))
    chunks = [pages[i : i + size] for i in range(0, len(pages), size)]
    try:
        # spawn, not fork: the caller may have threads
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=_set_sites, initargs=(sites,)
        ) as pool:
            job = functools.partial(_check_in_worker, cache_root=cache_root, expect=expect)
            problems: list[str] = []
            summary, whole = LinkSummary(), True
            for got, part, ok in pool.map(job, chunks):
                problems += got
                summary.update(part)
                whole = whole and ok
            return problems, summary, whole
    except (BrokenProcessPool, OSError):
        return _check_pages(pages, sites, cache_root, expect)  # workers could not start


#: From this many pages on, a site's pages are checked in worker processes, one per core.
PARALLEL_FROM_PAGES = 2000


class _Sites:
    """Where a check finds the pages: ``root`` (the site; ``own``, the files under it),
    ``other`` (the folder kept files stand in, with their sha256 by path), and every
    file and folder the site holds."""

    def __init__(
        self,
        root: Path,
        own: set[str],
        other: Path,
        known: dict[str, str],
        files: set[str],
        folders: set[str],
    ) -> None:
        self.root, self.own, self.other, self.known = root, own, other, known
        self.files, self.folders = files, folders


_WORKER_SITES: list[_Sites] = []


def _set_sites(sites: _Sites) -> None:
    """A worker's initializer: the listing, sent once per worker rather than once per run."""
    _WORKER_SITES[:] = [sites]


def _check_in_worker(
    pages: list[str], cache_root: str | None, expect: Mapping[str, set[str]]
) -> tuple[list[str], LinkSummary, bool]:
    return _check_pages(pages, _WORKER_SITES[0], cache_root, expect)


def _check_pages(
    pages: list[str],
    sites: _Sites,
    cache_root: str | None,
    expect: Mapping[str, set[str]],
    given: Mapping[str, _Held] | None = None,
) -> tuple[list[str], LinkSummary, bool]:
    """The problems of ``pages`` (in their order), as :func:`broken_links` words them; what
    they link to; and whether each page of ``expect`` still has the ids it names.
    ``given``: pages whose holdings are known, not read."""
    from driftproof.site._cache import BuildCache

    store = LinkStore(BuildCache(Path(cache_root)) if cache_root is not None else None)
    # Only the ids of pages a fragment points into are kept (issue 19: memory does not grow
    # with every link of every page); each page's links are checked and let go.
    targets: dict[str, frozenset[str]] = {}

    def held(rel: str) -> _Held:
        if given is not None and rel in given:
            return given[rel]
        if rel in sites.own:
            return _held(sites.root / rel, rel, store, None)
        return _held(sites.other / rel, rel, store, sites.known.get(rel))

    def ids(rel: str) -> frozenset[str]:
        if rel not in targets:
            targets[rel] = held(rel).ids
        return targets[rel]

    try:
        return _check(pages, sites.files, sites.folders, held, ids, expect)
    finally:
        store.close()


def _check(
    pages: list[str],
    files: set[str],
    folders: set[str],
    held: Callable[[str], _Held],
    ids: Callable[[str], frozenset[str]],
    expect: Mapping[str, set[str]],
    outside: set[tuple[str, str]] | None = None,
) -> tuple[list[str], LinkSummary, bool]:
    """The loop of :func:`_check_pages`. ``outside``: when given, ``files`` and ``folders``
    are only part of the site (one receipt's files, :mod:`driftproof.site._link_digest`),
    and a link to a file not among them that does not climb out of the site is put there as
    ``(target, fragment)`` (resolved as far as ``folders`` go) instead of being checked."""
    problems = []
    summary, whole = LinkSummary(), True
    for rel in pages:
        page = held(rel)
        if rel in expect and not expect[rel] <= page.ids:
            whole = False  # a page elsewhere may point at an id this one no longer has
        for link, target, fragment in page.needs:
            if target == ".":
                target = "index.html"
            elif target in folders:
                target = f"{target}/index.html"
            if (
                outside is not None
                and target not in files
                and not (target.startswith("../") or target == "..")
            ):
                outside.add((target, fragment))
                continue
            summary.targets.add(target)
            if fragment and target != rel:
                summary.fragments.setdefault(target, set()).add(fragment)
            if target.startswith("../") or target == ".." or target not in files:
                problems.append(f"{rel}: {link} (no such file)")
            elif (
                fragment
                and target.endswith(".html")
                and fragment
                not in (
                    page.ids if target == rel else ids(target)  # the page itself: already read
                )
            ):
                problems.append(f"{rel}: {link} (no element with id {fragment!r})")
    return problems, summary, whole


class _Held:
    """What one page holds: its ids, and its internal links as ``(link, target, fragment)``:
    the target a path under the site (normalised; ``.`` the root; may climb out with ``..``),
    the fragment unquoted (empty: none)."""

    __slots__ = ("ids", "needs")

    def __init__(self, ids: list[str], needs: list[tuple[str, str, str]]) -> None:
        self.ids = frozenset(ids)
        self.needs = needs


def _resolve(rel: str, link: str) -> tuple[str, str, str] | None:
    """``(link, target, fragment)`` of a link on page ``rel``; ``None`` when it is external."""
    folder, _, _ = rel.rpartition("/")
    found = _resolve_in(folder, link)
    if found is None:
        return None
    target, fragment = found
    return link, rel if target is None else target, fragment


@functools.lru_cache(maxsize=1 << 16)
def _resolve_in(folder: str, link: str) -> tuple[str | None, str] | None:
    """``(target, fragment)`` of a link on a page in ``folder`` (target ``None``: the page
    itself); ``None`` when it is external. Pages of one folder share most of their links
    (navigation, styles), so each is resolved once (issue 19)."""
    if _PLAIN_PATH.fullmatch(link):
        # a plain relative path (no scheme, query, fragment, escape, space or control
        # character): what _parsed gives, without parsing it as a URL
        return posixpath.normpath(posixpath.join(folder, link)), ""
    return _parsed(folder, link)


#: A relative link that is a plain path: :func:`_resolve_in` joins it without URL parsing.
_PLAIN_PATH = re.compile(r"[^/:?#%\\\x00-\x20\x7f][^:?#%\\\x00-\x20\x7f]*")


def _parsed(folder: str, link: str) -> tuple[str | None, str] | None:
    """:func:`_resolve_in` by the standard library's URL parsing (any link)."""
    if urlsplit(link).scheme or link.startswith("//"):
        return None
    target_url, fragment = urldefrag(link)
    if not target_url:
        return None, unquote(fragment)
    path = unquote(urlsplit(target_url).path)
    if target_url.startswith("/"):
        target = posixpath.normpath(path.lstrip("/") or ".")
    else:
        target = posixpath.normpath(posixpath.join(folder, path))
    return target, unquote(fragment)


def _listing(root: Path) -> tuple[set[str], set[str]]:
    """Every file and every folder under ``root``, as ``/``-separated paths under it."""
    files: set[str] = set()
    folders: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        base = os.path.relpath(dirpath, root)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        folders.update(prefix + d for d in dirnames)
        files.update(prefix + f for f in filenames)
    return files, folders


def _held(
    path: Path, rel: str, store: LinkStore, sha256: str | None, data: bytes | None = None
) -> _Held:
    """What the page ``path`` (site path ``rel``) holds; ``sha256``: its bytes' digest (hex)
    when known, so that a cached page is not read at all; ``data``: its bytes, when read."""

    def compute() -> tuple[list[str], list[tuple[str, str, str]]]:
        ids, links = page_anchors(data if data is not None else path.read_bytes())
        return ids, [r for r in (_resolve(rel, link) for link in links) if r is not None]

    if store.db is None:
        return _Held(*compute())
    if sha256 is None:
        data = path.read_bytes()
        sha256 = hashlib.sha256(data).hexdigest()
    key = hashlib.sha256(rel.encode("utf-8") + b"\0" + bytes.fromhex(sha256)).hexdigest()
    hit = store.get(key)
    if hit is not None:
        try:
            ids, needs = json.loads(hit)
            return _Held([str(i) for i in ids], [(str(a), str(b), str(c)) for a, b, c in needs])
        except (ValueError, TypeError):
            pass  # a corrupt entry is ignored and replaced
    ids, needs = compute()
    store.put(key, json.dumps([ids, needs], ensure_ascii=False))
    return _Held(ids, needs)
