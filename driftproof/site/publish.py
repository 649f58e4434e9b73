"""``make reports``: check every input, build the site with mkdocs, replace ``site/`` whole.

Order: load every receipt, each file read once (:func:`read_receipt_once`, all failures
collected) and every report (front matter and sections checked) → any problem stops
here with one line per problem (file, JSON pointer, expectation) → mkdocs 1.6.1 builds
in strict mode into a fresh temporary directory beside ``out`` → only then is ``out``
replaced. A failed build leaves ``out`` exactly as it was and removes its temporary
directory: no partial site.
"""

from __future__ import annotations

import datetime as dt
import logging
import multiprocessing
import os
import re
import shutil
import tempfile
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof.errors import Problem, SiteBuildError
from driftproof.site.build import LoadedReceipt
from driftproof.site.report_source import Report, load_reports

__all__ = ["SiteInputs", "build_site", "fallback_date", "load_inputs"]


@dataclass(frozen=True)
class SiteInputs:
    """Checked inputs of a build: receipts by name and reports, newest first."""

    receipts: dict[str, LoadedReceipt]
    reports: list[Report]


#: The one safe pattern for each part of a receipt's path under ``receipts/`` (folders and the
#: file name without ``.json``): it needs no encoding in a URL and is the same on every file
#: system, so every link to it works (issue 15). The same pattern as a suite's case ids.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def load_inputs(receipts_dir: Path, reports_dir: Path) -> SiteInputs:
    """Load and check every ``receipts_dir/**/*.json`` and ``reports_dir/*.md``.

    Each receipt file is read once: the bytes validated (schema, seal, model) are the bytes
    published and summed (issue 15). A symbolic link anywhere under either directory is
    refused (it could lead out of the repository), and so is a receipt path with a part
    that does not match :data:`SAFE_NAME`.

    Raises:
        SiteBuildError: every problem in every receipt and report, one per line.
    """
    receipts_dir, reports_dir = Path(receipts_dir), Path(reports_dir)
    problems: list[Problem] = []
    if not receipts_dir.is_dir():
        problems.append(Problem(str(receipts_dir), "", "expected a directory of receipts"))
    for d in (receipts_dir, reports_dir):
        problems.extend(_symlinks(d))
    paths = _receipt_paths(receipts_dir) if receipts_dir.is_dir() else []
    names = {p: p.relative_to(receipts_dir).with_suffix("").as_posix() for p in paths}
    for p, name in names.items():
        bad = [part for part in name.split("/") if not SAFE_NAME.fullmatch(part)]
        if bad:
            problems.append(Problem(str(p), "", f"expected a file name matching {SAFE_NAME.pattern} (then .json), "
                                    f"found {_quote(bad[0])}: rename the file"))
    paths = [p for p in paths if all(SAFE_NAME.fullmatch(part) for part in names[p].split("/"))]
    good, bad_reads = _read_all(paths)
    for err in bad_reads:
        problems.extend(err.problems or [Problem("?", "", str(err))])
    receipts: dict[str, LoadedReceipt] = {}
    for p, (raw, r) in good.items():
        receipts[names[p]] = LoadedReceipt(names[p], r, raw, p)
    reports: list[Report] = []
    if reports_dir.is_dir():
        try:
            reports = load_reports(sorted(p for p in reports_dir.glob("*.md") if not p.is_symlink()),
                                   names.values())
        except SiteBuildError as exc:
            problems.extend(exc.problems)
    else:
        problems.append(Problem(str(reports_dir), "", "expected a directory of reports"))
    if problems:
        raise SiteBuildError(f"{len(problems)} problem(s); the site was not built", problems)
    return SiteInputs(receipts=dict(sorted(receipts.items())), reports=reports)


def _quote(text: str) -> str:
    """A file name for a message: printable, at most 80 characters."""
    return repr(text if len(text) <= 80 else text[:80] + "…")


def _symlinks(root: Path) -> list[Problem]:
    """One problem per symbolic link under ``root`` (files and folders; never followed)."""
    out = []
    if not root.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for n in sorted(dirnames + filenames):
            p = Path(dirpath) / n
            if p.is_symlink():
                out.append(Problem(str(p), "", "is a symbolic link, which the build refuses (it could lead out "
                                   "of the repository); commit the file itself"))
    return out


def _receipt_paths(root: Path) -> list[Path]:
    """Every ``*.json`` regular file under ``root``, not through a symbolic link, in path order."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not (Path(dirpath) / d).is_symlink())
        found += [Path(dirpath) / n for n in filenames
                  if n.endswith(".json") and not (Path(dirpath) / n).is_symlink()]
    return sorted(found)


def read_receipt_once(paths: list[Path]) -> tuple[dict[Path, tuple[bytes, Any]], list[Any]]:
    """Read each file once and check those bytes (:func:`driftproof.receipt.parse_receipt`):
    ``({path: (bytes, receipt)}, errors)``. The bytes returned are the bytes validated."""
    from driftproof.errors import ReceiptError
    from driftproof.receipt import parse_receipt
    from driftproof.receipt._bounds import RECEIPT_MAX_BYTES

    good: dict[Path, tuple[bytes, Any]] = {}
    bad: list[Any] = []
    for p in paths:
        try:
            try:
                # O_NOFOLLOW: a file swapped for a link after the walk is refused, not followed.
                fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
                with os.fdopen(fd, "rb") as fh:
                    data = fh.read(RECEIPT_MAX_BYTES + 1)
            except OSError as exc:
                raise ReceiptError.at(p, "", f"cannot read: {exc.strerror}") from None
            good[p] = (data, parse_receipt(data, str(p)))
        except ReceiptError as exc:
            bad.append(exc)
    return good, bad


#: From this many bytes of receipts on, they are read in worker processes (schema validation
#: dominates a large build; below it, starting the workers costs more than it saves).
PARALLEL_FROM_BYTES = 32 * 1024 * 1024


def _read_all(paths: list[Path]) -> tuple[dict[Path, tuple[bytes, Any]], list[Any]]:
    """:func:`read_receipt_once` over ``paths``, in worker processes when there are many.

    Results do not depend on the split: receipts are keyed by path and errors are in
    path order either way.
    """
    workers = min(os.cpu_count() or 1, 8)
    if workers < 2 or sum(_size(p) for p in paths) < PARALLEL_FROM_BYTES:
        return read_receipt_once(paths)
    chunks = [paths[i::workers * 4] for i in range(workers * 4)]
    good: dict[Path, tuple[bytes, Any]] = {}
    bad: list[tuple[str, Any]] = []
    # spawn, not fork: the caller may have threads (a test's HTTP server, a browser driver)
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            for g, b in pool.map(read_receipt_once, chunks):
                good.update(g)
                bad.extend((e.problems[0].file if e.problems else str(e), e) for e in b)
    except (BrokenProcessPool, OSError):
        # Workers could not start (e.g. a caller whose __main__ cannot be re-imported): read here.
        return read_receipt_once(paths)
    return dict(sorted(good.items())), [e for _, e in sorted(bad, key=lambda t: t[0])]


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def fallback_date() -> str:
    """The build's date when no report supplies one: ``SOURCE_DATE_EPOCH`` (UTC), else 1970-01-01."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "0")
    try:
        return dt.datetime.fromtimestamp(int(epoch), dt.UTC).date().isoformat()
    except ValueError:
        return "1970-01-01"


def build_site(receipts_dir: Path, reports_dir: Path, out: Path, *, config_file: Path = Path("mkdocs.yml")) -> SiteInputs:
    """Check the inputs, build with mkdocs (strict) and replace ``out`` only on success.

    Raises:
        SiteBuildError: an input is invalid (one problem per bad place) or mkdocs failed
            (its warnings and errors as the problems); ``out`` is untouched.
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    from driftproof.site._hook import handing_over
    from driftproof.site.links import broken_links

    inputs = load_inputs(receipts_dir, reports_dir)
    out = Path(out).resolve()
    _check_out(out, [Path(receipts_dir), Path(reports_dir), Path(config_file).parent, Path.cwd()])
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    collector = _Collector()
    mk_log = logging.getLogger("mkdocs")
    mk_log.addHandler(collector)
    try:
        cfg = load_config(str(config_file), site_dir=str(tmp), strict=True)
        with handing_over(inputs):
            build(cfg)
    except (MkDocsException, SystemExit) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        lines = [Problem(str(config_file), "", m) for m in collector.messages] or [Problem(str(config_file), "", str(exc))]
        raise SiteBuildError(f"mkdocs could not build the site: {exc}", lines) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        mk_log.removeHandler(collector)
    # Issue 15: an internal link or fragment that points nowhere fails the build.
    broken = broken_links(tmp)
    if broken:
        shutil.rmtree(tmp, ignore_errors=True)
        raise SiteBuildError(f"{len(broken)} broken internal link(s); the site was not replaced",
                             [Problem(str(config_file), "", f"broken link: {b}") for b in broken[:50]])
    (tmp / MARKER).write_text("A site built by `driftproof reports build`; replaced whole by the next build.\n",
                              encoding="utf-8")
    _replace(tmp, out)
    return inputs


def index_for_search(site: Path, config_file: Path) -> None:
    """Build the static search index with Pagefind (pinned; its binary ships in the ``pagefind_bin``
    wheel, so nothing is downloaded). Deterministic: the same pages give the same bytes.

    Raises:
        SiteBuildError: Pagefind failed (the build then stops; ``out`` stays untouched).
    """
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "pagefind", "--site", str(site), "--silent"],
                         capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        msg = (res.stderr or res.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SiteBuildError(f"the search index could not be built: {msg[0]}",
                             [Problem(str(config_file), "", f"pagefind failed: {msg[0]}")])


#: A file in every built site: only a directory holding it (or nothing) is ever replaced.
MARKER = ".driftproof-site"


def _check_out(out: Path, keep: list[Path]) -> None:
    """Refuse an ``out`` whose replacement would delete anything but a site built here.

    Raises:
        SiteBuildError: ``out`` is a file, holds (or is) an input, the working directory or
            one of its parents, or is a non-empty directory with no :data:`MARKER`.
    """
    def bad(why: str) -> SiteBuildError:
        return SiteBuildError(f"refusing to replace {out}: {why}; nothing was written",
                              [Problem(str(out), "", f"refusing to replace it: {why}; choose an empty or new --out directory")])

    for k in keep:
        k = k.resolve()
        if k == out or out in k.parents:
            raise bad(f"it holds {k}")
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise bad("it is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file() and not _legacy_site(out):
        raise bad(f"it is not a site built by driftproof (no {MARKER} file)")


def _legacy_site(out: Path) -> bool:
    # A site built before the marker existed: the files every build writes, and nothing else at its root.
    expected = {"index.html", "sitemap.xml", "sitemap.xml.gz", "404.html", "feed.xml", "assets", "spec", "receipts",
                "reports", "method", "neutrality", "interop", "results", "badge", "spec-page", "receipt-spec"}
    names = {p.name for p in out.iterdir()}
    return {"index.html", "feed.xml", "spec"} <= names and all(
        n in expected or (out / n / "index.html").is_file() for n in names)


def _replace(new: Path, out: Path) -> None:
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        old.rmdir()
        out.rename(old)
    new.rename(out)
    out.chmod(0o755)  # mkdtemp makes it private; a site is for reading
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

