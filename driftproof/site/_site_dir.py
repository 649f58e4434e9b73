"""The site folder of a build: the search index, the refusal to replace what is not a site,
and the swap that replaces it whole (:func:`driftproof.site.publish.build_site`).

Split from :mod:`driftproof.site.publish` by responsibility (issue 18).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from driftproof.errors import Problem, SiteBuildError
from driftproof.site._staging import SiteFiles

__all__ = [
    "MARKER",
    "Collector",
    "apply",
    "check_out",
    "index_for_search",
    "link_searchable",
    "replace",
    "search_glob",
    "searchable",
]


def index_for_search(site: Path, config_file: Path) -> None:
    """Build the static search index with Pagefind (pinned; its binary ships in the ``pagefind_bin``
    wheel, so nothing is downloaded). Deterministic: the same pages give the same bytes.

    Raises:
        SiteBuildError: Pagefind failed (the build then stops; ``out`` stays untouched).
    """
    import subprocess
    import sys

    res = subprocess.run(
        [sys.executable, "-m", "pagefind", "--site", str(site), "--glob", search_glob(site)]
        + ["--silent"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if res.returncode != 0:
        msg = (res.stderr or res.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SiteBuildError(
            f"the search index could not be built: {msg[0]}",
            [Problem(str(config_file), "", f"pagefind failed: {msg[0]}")],
        )


def search_glob(site: Path) -> str:
    """The Pagefind glob of the pages to index: every HTML page but the receipts' case pages
    (``receipts/<name>/cases/…``, :func:`driftproof.site.cases.case_url`), which are one per
    case of every receipt and carry no ``data-pagefind-body``; their receipt's sheet, which
    lists and links every case, is indexed (issue 19: the index grows with receipts, not
    with cases). Alternatives in a fixed order, so the index's bytes are deterministic."""
    tops = sorted(
        p.name
        for p in Path(site).iterdir()
        if p.is_dir() and p.name not in {"receipts", "pagefind"}
    )
    parts = ["*.html", *(f"{_glob_literal(t)}/**/*.html" for t in tops), "receipts/*.html"]
    return "{" + ",".join([*parts, "receipts/*/index.html"]) + "}"


def searchable(rel: str) -> bool:
    """Whether the page at site path ``rel`` is one :func:`search_glob` takes."""
    if not rel.endswith(".html") or rel.startswith("pagefind/"):
        return False
    if not rel.startswith("receipts/"):
        return True
    depth = rel.count("/")
    return depth == 1 or (depth == 2 and rel.endswith("/index.html"))


def link_searchable(previous: Path, site: Path, kept: Iterable[str]) -> None:
    """Link into ``site`` the kept files (:class:`driftproof.site._staging.Staging`) of the
    site an incremental build updates that the search index reads, so the index covers the
    whole new site; :func:`apply` leaves them where they are."""
    for rel in kept:
        if searchable(rel):
            dest = site / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(previous / rel, dest)
            except OSError:
                shutil.copyfile(previous / rel, dest)


def _glob_literal(name: str) -> str:
    return "".join("\\" + c if c in "\\{}[]*?,$<>:()" else c for c in name)


#: A file in every built site: only a directory holding it (or nothing) is ever replaced.
MARKER = ".driftproof-site"


def check_out(out: Path, keep: list[Path]) -> None:
    """Refuse an ``out`` whose replacement would delete anything but a site built here.

    Raises:
        SiteBuildError: ``out`` is a file, holds (or is) an input, the working directory or
            one of its parents, or is a non-empty directory with no :data:`MARKER`.
    """

    def bad(why: str) -> SiteBuildError:
        return SiteBuildError(
            f"refusing to replace {out}: {why}; nothing was written",
            [
                Problem(
                    str(out),
                    "",
                    f"refusing to replace it: {why}; choose an empty or new --out directory",
                )
            ],
        )

    for k in keep:
        k = k.resolve()
        if k == out or out in k.parents:
            raise bad(f"it holds {k}")
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise bad("it is not a directory")
    if (
        out.is_dir()
        and any(out.iterdir())
        and not (out / MARKER).is_file()
        and not _legacy_site(out)
    ):
        raise bad(f"it is not a site built by driftproof (no {MARKER} file)")


def _legacy_site(out: Path) -> bool:
    # A site built before the marker existed: the files every build writes, nothing else.
    expected = {
        "index.html",
        "sitemap.xml",
        "sitemap.xml.gz",
        "404.html",
        "feed.xml",
        "assets",
        "spec",
        "receipts",
        "reports",
        "method",
        "neutrality",
        "interop",
        "results",
        "badge",
        "spec-page",
        "receipt-spec",
    }
    names = {p.name for p in out.iterdir()}
    return {"index.html", "feed.xml", "spec"} <= names and all(
        n in expected or (out / n / "index.html").is_file() for n in names
    )


def apply(new: Path, out: Path, kept: Iterable[str]) -> None:
    """Update the site ``out`` in place (an incremental build, issue 19) so that it holds
    exactly the files of the newly built ``new`` and the files ``kept`` (site paths whose
    bytes ``out`` already holds): each new file whose bytes differ from the old one's is
    moved over it (``os.replace``, so a reader sees the old file or the new one whole), files
    no longer built are removed, and ``new`` is removed. A file whose bytes did not change
    keeps its inode and times: nothing is rewritten that did not change."""
    keep = set(kept)
    built: set[str] = set()
    held = SiteFiles(out)
    for dirpath, _dirs, filenames in os.walk(new):
        base = os.path.relpath(dirpath, new)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        for n in filenames:
            rel = prefix + n
            built.add(rel)
            dest = out / rel
            if rel in keep:
                continue  # linked in for the search index: the same file
            src = new / rel
            if os.path.getsize(src) < _COMPARE_UP_TO and held.holds(rel, src.read_bytes()):
                continue  # mkdocs wrote it again with the same bytes: the old file stays
            _make_room(out, dest)
            os.replace(src, dest)
    emptied: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(out, topdown=False):
        base = os.path.relpath(dirpath, out)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        for n in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            rel = prefix + n
            if rel not in built and rel not in keep:
                os.unlink(os.path.join(dirpath, n))
                emptied.add(base)
        for d in dirnames:
            if prefix + d in emptied:
                with contextlib.suppress(OSError):  # not empty: it still holds a built file
                    os.rmdir(os.path.join(dirpath, d))
                    emptied.add(base)
    out.chmod(0o755)
    shutil.rmtree(new, ignore_errors=True)


#: Files this large are moved over their old copy without comparing bytes first.
_COMPARE_UP_TO = 64 << 20


def _make_room(out: Path, dest: Path) -> None:
    """Make ``dest``'s folders under ``out``, removing a file or link where a folder must
    go, and a folder where the file must go."""
    parent = dest.parent
    for p in [*reversed(parent.relative_to(out).parents), parent.relative_to(out)]:
        q = out / p
        if q.is_symlink() or (q.exists() and not q.is_dir()):
            q.unlink()
    parent.mkdir(parents=True, exist_ok=True)
    if dest.is_dir() and not dest.is_symlink():
        shutil.rmtree(dest)


def replace(new: Path, out: Path) -> None:
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        old.rmdir()
        out.rename(old)
    new.rename(out)
    out.chmod(0o755)  # mkdtemp makes it private; a site is for reading
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


class Collector(logging.Handler):
    """Keeps the messages of warnings and errors logged while it is attached."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
