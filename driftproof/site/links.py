"""The internal link check of a built site: a broken internal link fails the build.

Every ``href``, ``src`` and ``srcset`` of every page must name a file inside the site, and a
fragment on an HTML page an element id there; external links are not followed. A receipt's
pages are checked among themselves when rendered (:func:`receipt_links`, cached with them),
the rest on the built site (:meth:`SiteLinks.broken`).
"""

from __future__ import annotations

import functools
import os
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

from selectolax.lexbor import LexborHTMLParser

_SELECTOR = "[id], a[name], [href], [src], [srcset]"

#: A link of a page: ``(page, position on the page, link as written, target, fragment)``.
Link = tuple[str, int, str, str, str]


def page_anchors(html: bytes) -> tuple[list[str], list[str]]:
    """The ``(ids, links)`` of one HTML page, in document order; never raises.

    ids: every ``id`` and ``<a name>``. links: each element's ``href``, ``src``, then each URL
    of its ``srcset``. Entities are decoded; bytes that are not UTF-8 are read as U+FFFD.
    """
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


def _links(rel: str, links: Iterable[str]) -> Iterable[Link]:
    """Page ``rel``'s internal links resolved (``.``: ``index.html``; ``..`` may leave it)."""
    folder = rel.rpartition("/")[0]
    for i, link in enumerate(links):
        parsed = _parsed(link)
        if parsed is None:
            continue
        path, fragment, from_root = parsed
        if path is None:
            target = rel
        else:
            joined = (path.lstrip("/") or ".") if from_root else posixpath.join(folder, path)
            target = posixpath.normpath(joined)
        yield rel, i, link, "index.html" if target == "." else target, fragment


def _problem(link: Link, why: str) -> tuple[str, int, str]:
    return link[0], link[1], f"{link[0]}: {link[2]} ({why})"


@dataclass(frozen=True)
class ReceiptLinks:
    """One receipt's pages checked: their broken links, one link per target outside them."""

    pages: tuple[str, ...]
    problems: tuple[tuple[str, int, str], ...]
    outside: tuple[Link, ...]


def receipt_links(files: Mapping[str, bytes]) -> ReceiptLinks:
    """Check the links of one receipt's HTML pages among its own ``files`` (by site path)."""
    parsed = {p: page_anchors(d) for p, d in files.items() if p.endswith(".html")}
    problems: list[tuple[str, int, str]] = []
    outside: dict[tuple[str, str], Link] = {}
    for rel, (_, links) in parsed.items():
        for link in _links(rel, links):
            target, fragment = link[3], link[4]
            if target not in files and f"{target}/index.html" in files:
                target = f"{target}/index.html"
            if target not in files:
                outside.setdefault((target, fragment), link)
            elif fragment and target.endswith(".html") and fragment not in parsed[target][0]:
                problems.append(_problem(link, f"no element with id {fragment!r}"))
    return ReceiptLinks(tuple(parsed), tuple(problems), tuple(outside.values()))


@dataclass
class SiteLinks:
    """The link check of a whole site: receipts' findings gathered, the rest checked when built."""

    checked: set[str] = field(default_factory=set)
    problems: list[tuple[str, int, str]] = field(default_factory=list)
    outside: dict[tuple[str, str], Link] = field(default_factory=dict)

    def add(self, found: ReceiptLinks) -> None:
        """Gather one receipt's findings."""
        self.checked.update(found.pages)
        self.problems += found.problems
        for link in found.outside:
            self.outside.setdefault((link[3], link[4]), link)

    def broken(self, site: Path, tree: tuple[set[str], set[str]] | None = None) -> list[str]:
        """Every broken internal link of the built ``site``, as :func:`broken_links` says.

        ``tree``: the site's :func:`site_tree`, when the caller has walked it already.
        """
        root = Path(site)
        files, folders = tree or site_tree(root)
        # only the ids of pages a fragment points into are kept (memory does not grow with links)
        ids_of: dict[str, frozenset[str]] = {}

        def ids(rel: str) -> frozenset[str]:
            if rel not in ids_of:
                ids_of[rel] = frozenset(page_anchors((root / rel).read_bytes())[0])
            return ids_of[rel]

        problems = list(self.problems)
        found: list[Link] = list(self.outside.values())
        for rel in sorted(f for f in files if f.endswith(".html") and f not in self.checked):
            own, links = page_anchors((root / rel).read_bytes())
            ids_of.setdefault(rel, frozenset(own))
            found += _links(rel, links)
        for link in found:
            target, fragment = link[3], link[4]
            if target in folders:
                target = f"{target}/index.html"
            if target.startswith("../") or target == ".." or target not in files:
                problems.append(_problem(link, "no such file"))
            elif fragment and target.endswith(".html") and fragment not in ids(target):
                problems.append(_problem(link, f"no element with id {fragment!r}"))
        return [message for _, _, message in sorted(problems)]


def broken_links(site: Path) -> list[str]:
    """Every internal link or fragment in ``site/**/*.html`` that points nowhere.

    Each as ``page: link (why)``, in page and document order; a folder stands for its
    ``index.html``; a link out of the site is ``no such file``.
    """
    return SiteLinks().broken(site)


def site_tree(root: Path) -> tuple[set[str], set[str]]:
    """The ``(files, folders)`` under ``root``, as site paths (``/``-separated, relative)."""
    files: set[str] = set()
    folders: set[str] = set()
    start = len(str(root)) + 1
    for dirpath, dirnames, filenames in os.walk(root):
        prefix = dirpath[start:].replace(os.sep, "/") + "/" if len(dirpath) >= start else ""
        folders.update(prefix + d for d in dirnames)
        files.update(prefix + f for f in filenames)
    return files, folders


@functools.lru_cache(maxsize=1 << 16)
def _parsed(link: str) -> tuple[str | None, str, bool] | None:
    """``(path or None, fragment, from the root)`` of ``link``, unquoted; None: external."""
    if urlsplit(link).scheme or link.startswith("//"):
        return None
    target_url, fragment = urldefrag(link)
    if not target_url:
        return None, unquote(fragment), False
    return unquote(urlsplit(target_url).path), unquote(fragment), target_url.startswith("/")
