"""The internal link check of a built site: a broken internal link fails the build.

Every ``href``, ``src`` and ``srcset`` of every page must name a file inside the site, and a
fragment on an HTML page an element id there; external links are not followed. A receipt's
pages are checked among themselves when rendered (:func:`receipt_links`, cached with them),
the rest on the built site (:meth:`SiteLinks.broken`).

The search index of the built site is written with Pagefind (pinned; its wheel ships the binary).
"""

from __future__ import annotations

import base64
import functools
import json
import os
import posixpath
import subprocess
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast
from urllib.parse import unquote, urldefrag, urlsplit

from selectolax.lexbor import LexborHTMLParser

from driftproof._anchor import stays_inside
from driftproof.errors import Problem, SiteBuildError

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
        """Every internal link or fragment of the built ``site`` that points nowhere.

        Each as ``page: link (why)``, in page and document order; a folder stands for its
        ``index.html``; a link out of the site is ``no such file``. Links of the pages in
        :attr:`checked` are not read again: :meth:`add` gathered their findings.

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


def searchable(rel: str) -> bool:
    """Whether the index takes the page at ``rel``: every HTML page but receipts' case pages.

    A case page is ``receipts/<name>/cases/<slug>/index.html``; no receipt has a folder ``cases``.
    """
    if not rel.endswith(".html") or rel.startswith("pagefind/"):
        return False
    parts = rel.split("/")
    return not (parts[0] == "receipts" and len(parts) >= 5 and parts[-3] == "cases")


def index_for_search(site: Path, config_file: Path, pages: list[str] | None = None) -> list[str]:
    """Write the search index of ``site``'s :func:`searchable` pages into ``site/pagefind``.

    ``pages``: those pages' site paths in order, when the caller knows them (else walked here).
    Returns the site paths of the files written.

    Deterministic on every file system: pages go to ``pagefind --service`` in path order (never
    its directory walk), ``PAGEFIND_*`` variables not passed on. It answers requests one at a
    time in arrival order, so a thread sends the pages while the answers are read.

    Raises:
        SiteBuildError: Pagefind failed or refused a page (names ``config_file``).
    """
    from pagefind.service import get_executable

    site = Path(site)
    if pages is None:
        pages = sorted(p for p in site_tree(site)[0] if searchable(p))
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("PAGEFIND_")}
    proc = subprocess.Popen(
        [str(get_executable()), "--service"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=site,
    )
    stdin = cast(IO[bytes], proc.stdin)
    answers = _answers(cast(IO[bytes], proc.stdout).fileno())
    failed: list[BaseException] = []

    def send(message_id: int, payload: dict[str, object]) -> None:
        request = {"message_id": message_id, "payload": payload}
        stdin.write(base64.b64encode(json.dumps(request).encode("utf-8")) + b",")
        stdin.flush()

    def send_pages(index: int) -> None:
        try:
            for i, rel in enumerate(pages, 2):
                text = (site / rel).read_text(encoding="utf-8", errors="replace")
                add = {"type": "AddFile", "index_id": index, "file_path": rel, "url": None}
                send(i, {**add, "file_contents": text})
        except BrokenPipeError:
            pass  # the service ended: the answers say so
        except BaseException as exc:  # noqa: BLE001 - reported below
            failed.append(exc)
            proc.kill()  # the reader then finds the service ended

    sender: threading.Thread | None = None
    try:
        send(1, {"type": "NewIndex", "config": {"keep_index_url": True}})
        index = _payload(next(answers), 1)["index_id"]
        sender = threading.Thread(target=send_pages, args=(index,), daemon=True)
        sender.start()
        for i in range(2, len(pages) + 2):
            _payload(next(answers), i)
        sender.join()
        send(len(pages) + 2, {"type": "GetFiles", "index_id": index})
        # written here, whole: the service answers WriteFiles before its files are complete
        return _write_index(site, _payload(next(answers), len(pages) + 2)["files"])
    except (OSError, ValueError, KeyError) as exc:
        why = failed[0] if failed else exc
        raise SiteBuildError(
            f"the search index could not be built: {why}",
            [Problem(str(config_file), "", f"pagefind failed: {why}")],
        ) from None
    finally:
        proc.kill()  # a sender still writing fails and ends
        if sender is not None:
            sender.join()
        stdin.close()
        cast(IO[bytes], proc.stdout).close()
        proc.wait()


def _write_index(site: Path, files: list[dict[str, str]]) -> list[str]:
    """Write Pagefind's ``files`` into ``site/pagefind``: their site paths (OSError: not all)."""
    written = []
    for f in files:
        name = str(f["path"]).replace("\\", "/")
        if not stays_inside(name):
            raise OSError(f"pagefind named a file outside its folder: {name}")
        dest = site / "pagefind" / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(base64.b64decode(f["content"]))
        written.append(f"pagefind/{name}")
    return written


def _answers(fd: int) -> Iterator[dict[str, Any]]:
    """The service's answers read from ``fd`` (base64 JSON, then a comma); OSError at its end."""
    held: list[bytes] = []
    while chunk := os.read(fd, 1 << 20):
        *whole, last = chunk.split(b",")
        if whole:
            whole[0] = b"".join([*held, whole[0]])
            held = []
        yield from (json.loads(base64.b64decode(raw)) for raw in whole)
        held.append(last)
    raise OSError("pagefind ended without answering")


def _payload(answer: dict[str, Any], message_id: int) -> dict[str, Any]:
    """The payload of ``answer`` to ``message_id``; OSError for an error or another message."""
    payload = cast(dict[str, Any], answer["payload"])
    if payload.get("type") == "Error":
        raise OSError(payload.get("message", "pagefind refused a request"))
    if answer.get("message_id") != message_id:
        raise OSError(f"pagefind answered message {answer.get('message_id')}, not {message_id}")
    return payload
