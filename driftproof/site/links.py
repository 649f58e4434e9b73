"""The internal link check of a built site: a broken internal link fails the build (issue 15).

Every ``href``, ``src`` and ``srcset`` of every ``*.html`` page under the site root must name
a file inside the site, and a fragment on an HTML page must name an element id there
(SITE-NOTES 5.2, 3). External links (a scheme, or ``//``) and ``mailto:`` are not followed.
Pages are parsed with selectolax (the Lexbor HTML5 parser, pinned).
"""

from __future__ import annotations

import functools
import os
import posixpath
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

__all__ = ["broken_links", "page_anchors"]

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


def broken_links(site: Path) -> list[str]:
    """Every internal link or fragment in ``site/**/*.html`` that points nowhere.

    Each as ``page: link (why)`` with the page's path under the site, pages in path order and
    links in document order. A link resolving outside the site is ``no such file``; a folder
    stands for its ``index.html``. Never raises for unreadable HTML (read with U+FFFD).
    """
    root = Path(site)
    files: set[str] = set()
    folders: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        base = os.path.relpath(dirpath, root)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        folders.update(prefix + d for d in dirnames)
        files.update(prefix + f for f in filenames)
    # only the ids of pages a fragment points into are kept (memory does not grow with links)
    ids_of: dict[str, frozenset[str]] = {}

    def ids(rel: str) -> frozenset[str]:
        if rel not in ids_of:
            ids_of[rel] = frozenset(page_anchors((root / rel).read_bytes())[0])
        return ids_of[rel]

    problems = []
    for rel in sorted(f for f in files if f.endswith(".html")):
        own_ids, links = page_anchors((root / rel).read_bytes())
        folder = rel.rpartition("/")[0]
        for link in links:
            found = _resolve(folder, link)
            if found is None:
                continue
            target, fragment = found
            target = rel if target is None else target
            if target == ".":
                target = "index.html"
            elif target in folders:
                target = f"{target}/index.html"
            if target.startswith("../") or target == ".." or target not in files:
                problems.append(f"{rel}: {link} (no such file)")
            elif (
                fragment
                and target.endswith(".html")
                and fragment not in (frozenset(own_ids) if target == rel else ids(target))
            ):
                problems.append(f"{rel}: {link} (no element with id {fragment!r})")
    return problems


@functools.lru_cache(maxsize=1 << 16)
def _resolve(folder: str, link: str) -> tuple[str | None, str] | None:
    """The ``(target, fragment)`` of a link on a page in ``folder``; None when it is external.

    The target is a normalised path under the site (``None``: the page itself; it may climb out
    with ``..``), the fragment unquoted.
    """
    if urlsplit(link).scheme or link.startswith("//"):
        return None
    target_url, fragment = urldefrag(link)
    if not target_url:
        return None, unquote(fragment)
    path = unquote(urlsplit(target_url).path)
    if target_url.startswith("/"):
        return posixpath.normpath(path.lstrip("/") or "."), unquote(fragment)
    return posixpath.normpath(posixpath.join(folder, path)), unquote(fragment)
