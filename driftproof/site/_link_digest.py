"""The link check of one receipt's pages, done by the worker process that renders them,
while their bytes are in its memory (issue 19: at 10,000 receipts the site no longer fits in
the page cache, and a check at the end of the build read all 17 GB of it back from disk).

A worker checks every link from its pages to its own files (:func:`check_own`) and hands the
build what it could not check: each link that leaves those files, as ``(target,
fragment)``, with duplicates merged (a receipt's 51 pages share their navigation). The build
then checks those against the whole site and reads only the pages no worker checked
(:func:`driftproof.site.links.check_links`, ``checked=``). The answer is the same as
checking every page: each link is checked once, by the same loop
(:func:`driftproof.site.links._check`), against the same files and ids; where any check
fails, the build checks every page again, so that each problem is worded, in order, as a
whole check words it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from driftproof.site._link_summary import LinkSummary
from driftproof.site._stats import add_folders

__all__ = ["PagesChecked", "check_own", "checked_by_workers"]


@dataclass
class PagesChecked:
    """What a worker's check of some pages found (:func:`check_own`).

    ``pages``: the HTML pages checked (site paths). ``whole``: no link among them that stays
    within their files points nowhere (nor climbs out of the site). ``outside``: every link
    leaving those files, as ``(target, fragment)``: the target a path under the site,
    resolved through the files' own folders (``a/b`` is ``a/b/index.html`` when ``a/b`` holds
    one of the files), the fragment unquoted (empty: none). ``summary``: the
    :class:`LinkSummary` of the links within the files (those outside are summed where they
    are checked)."""

    pages: list[str] = field(default_factory=list)
    whole: bool = True
    outside: set[tuple[str, str]] = field(default_factory=set)
    summary: LinkSummary = field(default_factory=LinkSummary)

    def update(self, other: PagesChecked) -> None:
        """Add ``other`` (the check of other files, e.g. a second report's)."""
        self.pages += other.pages
        self.whole = self.whole and other.whole
        self.outside |= other.outside
        self.summary.update(other.summary)


def check_own(files: Mapping[str, bytes]) -> PagesChecked:
    """The links of every HTML page of ``files`` (site path: bytes, all the files one worker
    writes for one receipt or report) checked against ``files`` alone, as
    :func:`driftproof.site.links.broken_links` checks them against the site.

    Never raises for unreadable HTML (read with U+FFFD, as the whole check reads it)."""
    from driftproof.site.links import _check, _Held, _resolve, page_anchors

    names = set(files)
    folders = add_folders(set(), names)
    pages = sorted(p for p in names if p.endswith(".html"))
    parsed: dict[str, _Held] = {}

    def held(rel: str) -> _Held:
        if rel not in parsed:
            ids, links = page_anchors(files[rel])
            needs = [r for r in (_resolve(rel, link) for link in links) if r is not None]
            parsed[rel] = _Held(ids, needs)
        return parsed[rel]

    outside: set[tuple[str, str]] = set()
    problems, summary, _ = _check(
        pages, names, folders, held, lambda rel: held(rel).ids, {}, outside
    )
    return PagesChecked(pages, not problems, outside, summary)


def checked_by_workers(
    checked: Sequence[PagesChecked], pages: list[str], sites: Any, cache_root: str | None
) -> tuple[list[str], LinkSummary] | None:
    """:func:`check_links` when workers checked some pages (``checked``): ``([], summary)``
    when the site is whole, else ``None`` (check every page, to word the problems).
    ``pages``: every HTML page of the site; ``sites``: where the check finds them."""
    from driftproof.site import links

    covered: set[str] = set()
    outside: set[tuple[str, str]] = set()
    for part in checked:
        if not part.whole:
            return None
        covered.update(part.pages)
        outside |= part.outside
    listed = set(pages)
    if not covered <= listed:
        return None  # a page a worker checked is not in the site as listed
    problems, summary, _ = links._checked(
        [p for p in pages if p not in covered], sites, cache_root, {}
    )
    if problems:
        return None
    # the links the workers handed on, checked as the links of one page no link can name
    needs = [(f"{t}#{f}" if f else t, t, f) for t, f in sorted(outside)]
    more, found, _ = links._check_pages([""], sites, cache_root, {}, {"": links._Held([], needs)})
    if more:
        return None
    summary.update(found)
    for part in checked:
        summary.update(part.summary)
    return [], summary
