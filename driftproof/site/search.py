"""The site's static search index, built with Pagefind (pinned; its binary ships in the
``pagefind_bin`` wheel, so nothing is downloaded)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from driftproof.errors import Problem, SiteBuildError

__all__ = ["index_for_search", "searchable"]


def searchable(rel: str) -> bool:
    """Whether the search index takes the page at site path ``rel``: every HTML page but the
    receipts' case pages (``receipts/<name>/cases/<slug>/index.html``), one per case of every
    receipt; their receipt's sheet, which lists and links every case, is in."""
    if not rel.endswith(".html") or rel.startswith("pagefind/"):
        return False
    parts = rel.split("/")
    return not (parts[0] == "receipts" and len(parts) >= 5 and parts[-3] == "cases")


def index_for_search(site: Path, config_file: Path) -> None:
    """Write the search index of ``site``'s :func:`searchable` pages into ``site/pagefind``.

    Deterministic on every file system: the pages are handed to Pagefind one by one in path
    order (never by its own directory walk), and ``PAGEFIND_*`` variables are not passed on.

    Raises:
        SiteBuildError: Pagefind failed (names ``config_file``, the build's config).
    """
    site = Path(site)
    pages = []
    for dirpath, _dirs, filenames in os.walk(site):
        base = os.path.relpath(dirpath, site)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        pages += [prefix + n for n in filenames if searchable(prefix + n)]
    saved = {k: os.environ.pop(k) for k in list(os.environ) if k.upper().startswith("PAGEFIND_")}
    try:
        asyncio.run(_index(site, sorted(pages)))
    except Exception as exc:  # the service's errors have no common type
        raise SiteBuildError(
            f"the search index could not be built: {exc}",
            [Problem(str(config_file), "", f"pagefind failed: {exc}")],
        ) from None
    finally:
        os.environ.update(saved)


async def _index(site: Path, pages: list[str]) -> None:
    from pagefind.index import PagefindIndex

    # the index is written to output_path when the block ends without an error
    async with PagefindIndex(
        {"output_path": str(site / "pagefind"), "keep_index_url": True}
    ) as index:
        for rel in pages:
            content = (site / rel).read_text(encoding="utf-8", errors="replace")
            await index.add_html_file(content=content, source_path=rel)
