"""``make reports``: check every input, build the site with mkdocs, replace ``site/`` whole.

Order: load every receipt, each file read once (bounds, schema, seal, model:
:func:`driftproof.receipt.parse_receipt` on the bytes read, on all cores when there are many,
all failures collected, receipts already checked skipped through the build cache) and every
report (front matter and sections checked) → any problem stops
here with one line per problem (file, JSON pointer, expectation) → mkdocs 1.6.1 builds
in strict mode into a fresh temporary directory beside ``out`` → only then is ``out``
replaced. A failed build leaves ``out`` exactly as it was and removes its temporary
directory: no partial site.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import multiprocessing
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from driftproof.errors import BoundsError, Problem, ReceiptError, SiteBuildError
from driftproof.receipt import Receipt
from driftproof.site._cache import CACHE_DIR_NAME, BuildCache
from driftproof.site.build import LoadedReceipt
from driftproof.site.report_source import Report, load_reports

__all__ = ["SiteInputs", "build_site", "fallback_date", "load_inputs"]


@dataclass(frozen=True)
class SiteInputs:
    """Checked inputs of a build: receipts by name and reports, newest first; the build cache
    the generator may use (``None``: none)."""

    receipts: dict[str, LoadedReceipt]
    reports: list[Report]
    cache: BuildCache | None = None
    #: sha256 of the receipts checked (not taken from the cache) by this load: recorded in the
    #: cache as valid once the build they are part of has succeeded.
    checked: tuple[str, ...] = ()


#: The one safe pattern for each part of a receipt's path under ``receipts/`` (folders and the
#: file name without ``.json``): it needs no encoding in a URL and is the same on every file
#: system, so every link to it works (issue 15). The same pattern as a suite's case ids.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")

#: ``progress(phase, done, total)``: phase is ``read``, ``validate``, ``render`` or ``write``.
Progress = Callable[[str, int, int], None]


def load_inputs(
    receipts_dir: Path,
    reports_dir: Path,
    *,
    cache: BuildCache | None = None,
    progress: Progress | None = None,
) -> SiteInputs:
    """Load and check every ``receipts_dir/**/*.json`` and ``reports_dir/*.md``.

    Each receipt file is read once here: the bytes validated (schema, seal, model) are the
    bytes published and summed (issue 15); a worker process that checks a receipt re-reads it
    and refuses it unless its sha256 is that of the bytes read here. A symbolic link anywhere
    under either directory is refused (it could lead out of the repository), and so is a
    receipt path with a part that does not match :data:`SAFE_NAME`.

    Receipts are checked on all cores when there are many (:data:`PARALLEL_FROM_BYTES`); problems
    are reported one line per problem, in path order, however the work was split. With a
    ``cache``, a receipt whose exact bytes already passed every check under this product
    version is not checked again (issue 19); the others are (:attr:`SiteInputs.checked`;
    :func:`build_site` records them once the site is built).

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
        bad_parts = [part for part in name.split("/") if not SAFE_NAME.fullmatch(part)]
        if bad_parts:
            problems.append(
                Problem(
                    str(p),
                    "",
                    f"expected a file name matching {SAFE_NAME.pattern} (then .json), "
                    f"found {_quote(bad_parts[0])}: rename the file",
                )
            )
    paths = [p for p in paths if all(SAFE_NAME.fullmatch(part) for part in names[p].split("/"))]
    raw: dict[Path, bytes] = {}
    unreadable: list[ReceiptError] = []
    for i, p in enumerate(paths):
        try:
            raw[p] = _read_bounded(p)
        except ReceiptError as exc:
            unreadable.append(exc)
        if progress:
            progress("read", i + 1, len(paths))
    shas = {p: hashlib.sha256(b).hexdigest() for p, b in raw.items()}
    known = {p for p in raw if cache is not None and cache.is_valid(shas[p])}
    good, bad = _read_all([p for p in paths if p in raw], known, shas, progress, raw)
    # one line per problem, in path order, whichever step refused the file
    for err in sorted(unreadable + bad, key=lambda e: e.problems[0].file if e.problems else str(e)):
        problems.extend(err.problems or [Problem("?", "", str(err))])
    for p in sorted(good):
        r = good[p]
        if r.run.provider == "simulated" or (
            r.judge is not None and r.judge.provider == "simulated"
        ):
            # issue 16: the demo's receipts are simulated; the public site never publishes one
            problems.append(
                Problem(
                    str(p),
                    "/run/provider",
                    "expected a receipt a model produced; this one is "
                    "simulated (driftproof demo), and the public site refuses simulated receipts",
                )
            )
            del good[p]
    receipts = {names[p]: LoadedReceipt(names[p], r, raw[p], p) for p, r in good.items()}
    reports: list[Report] = []
    if reports_dir.is_dir():
        try:
            reports = load_reports(
                sorted(p for p in reports_dir.glob("*.md") if not p.is_symlink()), names.values()
            )
        except SiteBuildError as exc:
            problems.extend(exc.problems)
    else:
        problems.append(Problem(str(reports_dir), "", "expected a directory of reports"))
    if problems:
        raise SiteBuildError(f"{len(problems)} problem(s); the site was not built", problems)
    return SiteInputs(
        receipts=dict(sorted(receipts.items())),
        reports=reports,
        cache=cache,
        checked=tuple(sorted(shas[p] for p in good if p not in known)),
    )


def _quote(text: str) -> str:
    """A file name for a message: printable, at most 80 characters."""
    return repr(text if len(text) <= 80 else text[:80] + "…")


def _symlinks(root: Path) -> list[Problem]:
    """One problem per symbolic link under ``root`` (files and folders; never followed)."""
    out: list[Problem] = []
    if not root.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for n in sorted(dirnames + filenames):
            p = Path(dirpath) / n
            if p.is_symlink():
                out.append(
                    Problem(
                        str(p),
                        "",
                        "is a symbolic link, which the build refuses (it could lead out "
                        "of the repository); commit the file itself",
                    )
                )
    return out


def _receipt_paths(root: Path) -> list[Path]:
    """Every ``*.json`` entry under ``root``, not through a symbolic link, in path order.

    A folder named ``*.json`` is listed too (and walked into): reading it fails, so it is
    refused as unreadable in path order rather than silently skipped (issue 19's reader).
    """
    found = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not (Path(dirpath) / d).is_symlink())
        found += [
            Path(dirpath) / n
            for n in filenames + dirnames
            if n.endswith(".json") and not (Path(dirpath) / n).is_symlink()
        ]
    return sorted(found)


def _read_bounded(p: Path) -> bytes:
    """The file's bytes, refusing one over the receipt size bound before it is read whole.

    Opened with ``O_NOFOLLOW``: a file swapped for a symbolic link after the walk is refused,
    not followed (issue 15).
    """
    from driftproof.receipt import _bounds

    try:
        # O_NONBLOCK: a FIFO or device is refused below instead of hanging the open
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise ReceiptError.at(p, "", "expected a regular file")
            data = fh.read(_bounds.RECEIPT_MAX_BYTES + 1)
    except OSError as exc:
        raise ReceiptError.at(p, "", f"cannot read: {exc.strerror}") from None
    if len(data) > _bounds.RECEIPT_MAX_BYTES:
        raise BoundsError.at(
            p, "", f"expected at most {_bounds.RECEIPT_MAX_BYTES} bytes, found more"
        )
    return data


#: From this many bytes of receipts on, they are read in worker processes (on all cores;
#: below it, starting the workers costs more than it saves).
PARALLEL_FROM_BYTES = 32 * 1024 * 1024


def _check_chunk(
    items: list[tuple[Path, bool, str]], raw: dict[Path, bytes] | None = None
) -> tuple[dict[Path, Receipt], list[ReceiptError]]:
    """Parse and check receipts (one worker's share). ``(path, known valid, sha256 the caller
    read)``. In the caller's process ``raw`` holds the bytes it read, and exactly those are
    checked (no second read). A worker re-reads the file and refuses it when its bytes changed
    since the caller read them: the bytes checked are always the bytes published (issue 15)."""
    from driftproof.receipt import parse_receipt

    good: dict[Path, Receipt] = {}
    bad: list[ReceiptError] = []
    for p, known, sha in items:
        try:
            if raw is not None and p in raw:
                data = raw[p]
            else:
                data = _read_bounded(p)
                if hashlib.sha256(data).hexdigest() != sha:
                    raise ReceiptError.at(
                        p,
                        "",
                        "expected the file to stay unchanged while the site is built; it changed",
                    )
            good[p] = parse_receipt(data, str(p), known_valid=known)
        except ReceiptError as exc:
            bad.append(exc)
    return good, bad


def _read_all(
    paths: list[Path],
    known: set[Path],
    shas: dict[Path, str],
    progress: Progress | None = None,
    raw: dict[Path, bytes] | None = None,
) -> tuple[dict[Path, Receipt], list[ReceiptError]]:
    """Check every receipt of ``paths``, in worker processes (one per core) when there are many.

    Results do not depend on the split: receipts are keyed by path and errors are in path
    order either way. ``raw``: the bytes the caller read, checked as they are in this process
    (workers re-read and compare sha256, :func:`_check_chunk`).
    """
    items = [(p, p in known, shas[p]) for p in paths]
    workers = os.cpu_count() or 1
    total = len(items)

    def report(done: int) -> None:
        if progress:
            progress("validate", done, total)

    if workers < 2 or sum(_size(p) for p in paths if p not in known) < PARALLEL_FROM_BYTES:
        good: dict[Path, Receipt] = {}
        bad: list[ReceiptError] = []
        for i, item in enumerate(items):
            g, b = _check_chunk([item], raw)
            good.update(g)
            bad.extend(b)
            report(i + 1)
        return good, bad
    size = max(1, min(16, total // (workers * 4) or 1))
    chunks = [items[i : i + size] for i in range(0, total, size)]
    good = {}
    pairs: list[tuple[str, ReceiptError]] = []
    done = 0
    # spawn, not fork: the caller may have threads (a test's HTTP server, a browser driver)
    try:
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn")
        ) as pool:
            for chunk, (g, b) in zip(chunks, pool.map(_check_chunk, chunks)):
                good.update(g)
                pairs.extend((e.problems[0].file if e.problems else str(e), e) for e in b)
                done += len(chunk)
                report(done)
    except (BrokenProcessPool, OSError):
        # Workers could not start (e.g. a caller whose __main__ cannot be re-imported): read here.
        return _check_chunk(items, raw)
    return dict(sorted(good.items())), [e for _, e in sorted(pairs, key=lambda t: t[0])]


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


def build_site(
    receipts_dir: Path,
    reports_dir: Path,
    out: Path,
    *,
    config_file: Path = Path("mkdocs.yml"),
    cache_dir: Path | None | bool = True,
    progress: Progress | None = None,
) -> SiteInputs:
    """Check the inputs, build with mkdocs (strict) and replace ``out`` only on success.

    Args:
        cache_dir: the build cache folder; ``True`` (default) for ``.driftproof-cache`` beside
            ``out``, ``None`` or ``False`` for no cache. The cache never changes an output byte.
        progress: called as ``progress(phase, done, total)`` (see :data:`Progress`).

    Raises:
        SiteBuildError: an input is invalid (one problem per bad place) or mkdocs failed
            (its warnings and errors as the problems); ``out`` is untouched.
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    from driftproof.site._hook import handing_over
    from driftproof.site.links import broken_links

    out = Path(out).resolve()
    if cache_dir is True:
        cache_dir = out.parent / CACHE_DIR_NAME
    cache = BuildCache(Path(cache_dir)) if cache_dir else None
    inputs = load_inputs(receipts_dir, reports_dir, cache=cache, progress=progress)
    _check_out(out, [Path(receipts_dir), Path(reports_dir), Path(config_file).parent, Path.cwd()])
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    collector = _Collector()
    mk_log = logging.getLogger("mkdocs")
    mk_log.addHandler(collector)
    try:
        cfg = load_config(str(config_file), site_dir=str(tmp), strict=True)
        with handing_over(inputs, progress):
            build(cfg)
    except (MkDocsException, SystemExit) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        lines = [Problem(str(config_file), "", m) for m in collector.messages] or [
            Problem(str(config_file), "", str(exc))
        ]
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
        raise SiteBuildError(
            f"{len(broken)} broken internal link(s); the site was not replaced",
            [Problem(str(config_file), "", f"broken link: {b}") for b in broken[:50]],
        )
    (tmp / MARKER).write_text(
        "A site built by `driftproof reports build`; replaced whole by the next build.\n",
        encoding="utf-8",
    )
    _replace(tmp, out)
    if cache is not None:
        cache.mark_valid(inputs.checked)
    return inputs


def index_for_search(site: Path, config_file: Path) -> None:
    """Build the static search index with Pagefind (pinned; its binary ships in the ``pagefind_bin``
    wheel, so nothing is downloaded). Deterministic: the same pages give the same bytes.

    Raises:
        SiteBuildError: Pagefind failed (the build then stops; ``out`` stays untouched).
    """
    import subprocess
    import sys

    res = subprocess.run(
        [sys.executable, "-m", "pagefind", "--site", str(site), "--silent"],
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


#: A file in every built site: only a directory holding it (or nothing) is ever replaced.
MARKER = ".driftproof-site"


def _check_out(out: Path, keep: list[Path]) -> None:
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
    # A site built before the marker existed: the files every build writes, and nothing else at its root.
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
