"""The site folder of a build: the search index, the refusal to replace what is not a site,
and the swap that replaces it whole (:func:`driftproof.site.publish.build_site`).

Split from :mod:`driftproof.site.publish` by responsibility (issue 18).
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path

from driftproof.errors import Problem, SiteBuildError

__all__ = ["MARKER", "Collector", "check_out", "index_for_search", "replace", "search_glob"]


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
