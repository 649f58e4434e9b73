"""One job per receipt or report: its files, from the render cache or rendered, written where made.

A job runs alike in this process or in a pool of worker processes; given a site folder it
writes its files there and hands back only their paths.

Cache entries are keyed by everything a receipt's files depend on (its sha256, name, citing
reports, the site's navigation and name, the code and templates). An entry is one zip written
whole with one rename; one that cannot be read, or is not as written, is a miss, never an error.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import os
import tempfile
import zipfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

import driftproof
from driftproof._anchor import stays_inside
from driftproof._pool import no_cycle_collection, process_pool, stop_workers
from driftproof.errors import Problem, ReceiptError
from driftproof.pages.report import Report, report_key
from driftproof.pages.results import ResultRow, listed_receipt, rows_and_badge_files
from driftproof.receipt import Receipt, parse_receipt
from driftproof.receipt._load import read_bounded
from driftproof.site.html import page_env, receipt_files, report_files
from driftproof.site.inputs import checked_receipt
from driftproof.site.links import ReceiptLinks, receipt_links

#: The cache folder's name beside the site folder.
CACHE_DIR_NAME = ".driftproof-cache"

#: Libraries whose version changes what a page holds.
_LIBRARIES = ("jinja2", "markupsafe", "markdown-it-py", "matplotlib", "mkdocs", "pydantic")


def key_of(*parts: bytes | str) -> str:
    """sha256 (hex) over length-prefixed parts: no two different part lists share a key."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        h.update(f"{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


def tree_key(folder: Path) -> str:
    """The sha256 (hex) of the names and bytes under ``folder`` but ``__pycache__`` (or ``""``)."""
    root = Path(folder)
    if not root.is_dir():
        return ""
    found: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        found += [
            ((Path(dirpath) / n).relative_to(root).as_posix(), Path(dirpath) / n) for n in filenames
        ]
    return key_of(*(part for rel, q in sorted(found) for part in (rel, q.read_bytes())))


@cache
def _package_key() -> str:
    versions = []
    for name in _LIBRARIES:  # a library installed without its record (--no-deps, a distro copy)
        try:
            versions.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name} missing")
    package = Path(driftproof.__file__).resolve().parent
    return key_of(driftproof.__version__, tree_key(package), *versions)


def code_key(templates: Path) -> str:
    """The sha256 (hex) of the package, the ``templates`` folder and the rendering libraries."""
    return key_of(_package_key(), tree_key(templates))


#: The member of an entry that lists its key and each file's sha256 (never a site path).
_MANIFEST = ".driftproof-manifest.json"


def _digests(files: dict[str, bytes]) -> dict[str, str]:
    return {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}


class RenderCache:
    """Rendered files by key in ``folder``; ``used`` holds the keys read or written since."""

    def __init__(self, folder: Path) -> None:
        """A cache kept in ``folder``."""
        self.folder = Path(folder)
        self.used: set[str] = set()

    def _path(self, key: str) -> Path:
        return self.folder / "render" / key[:2] / f"{key}.zip"

    def get(self, key: str) -> dict[str, bytes] | None:
        """The files under ``key``, or None: not as written (manifest) or a name leaves the site."""
        try:
            if not self._path(key).is_file():  # a FIFO there would block the build
                return None
            with zipfile.ZipFile(self._path(key)) as z:
                files = {n: z.read(n) for n in z.namelist()}
            manifest = json.loads(files.pop(_MANIFEST))
        except (OSError, zipfile.BadZipFile, ValueError, RuntimeError, EOFError, KeyError):
            return None
        if manifest != {"key": key, "files": _digests(files)} or not all(map(stays_inside, files)):
            return None
        self.used.add(key)
        return files

    def put(self, key: str, files: dict[str, bytes]) -> None:
        """Keep ``files`` under ``key``; a cache that cannot be written only saves nothing."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
            try:
                manifest = {"key": key, "files": _digests(files)}
                entry = {**files, _MANIFEST: json.dumps(manifest, sort_keys=True).encode()}
                with os.fdopen(fd, "wb") as fh, zipfile.ZipFile(fh, "w") as z:
                    for name, data in entry.items():
                        z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data)
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            return
        self.used.add(key)

    def prune(self) -> None:
        """Remove every entry (and leftover temporary file) not used since this cache was made."""
        for dirpath, _dirs, filenames in os.walk(self.folder / "render"):
            for n in filenames:
                if n.removesuffix(".zip") not in self.used:
                    Path(dirpath, n).unlink(missing_ok=True)


#: A site of at least this many receipts is rendered in a pool of processes, one per core.
POOL_FROM = 64

_META = ".meta.json"  # a cache entry's index rows, beside its files


@dataclasses.dataclass(frozen=True)
class Job:
    """One receipt to render: name, bytes or path (the job reads it), file, reports citing it.

    ``original``: for a regrade, its original's receipt name on the site, ``""`` when the site
    does not publish it; ``None`` until every receipt's seal is known (a regrade waits).
    """

    name: str
    source: bytes | Path
    file: str
    cited: tuple[tuple[str, str], ...]
    original: str | None = None


@dataclasses.dataclass(frozen=True)
class Done:
    """A job's files, results row, receipts-page row, cache key and link check.

    ``files`` is None when the receipt was refused (``problems`` says why), empty when the job
    wrote them into the site folder (``written``: their site paths); ``raw``: a cited receipt's,
    or a regrade's that waits for its original's name: ``later`` is then its own seal and its
    original's (nothing rendered yet).
    """

    files: dict[str, bytes] | None
    row: ResultRow | None = None
    listed: dict[str, str] | None = None
    problems: tuple[Problem, ...] = ()
    key: str = ""
    links: ReceiptLinks | None = None
    written: tuple[str, ...] = ()
    raw: bytes | None = None
    later: tuple[str, str] | None = None

    def emitted(self) -> list[tuple[str, bytes | None]]:
        """Each file as ``(site path, bytes)``, bytes None where the job wrote it."""
        return [(p, None) for p in self.written] + list((self.files or {}).items())


@cache
def _env(templates: Path, site_name: str, nav: str) -> jinja2.Environment:
    return page_env(templates, site_name, json.loads(nav))


@dataclasses.dataclass(frozen=True)
class Renderer:
    """Renders a :class:`Job` (picklable: it is sent to worker processes).

    ``nav`` is the navigation as JSON, ``cache`` the render cache folder (or None), ``fixed``
    the site-wide parts of the cache key; ``public`` refuses simulated receipts; ``site``, the
    folder the files are written into, also has each receipt's links checked.
    """

    templates: Path
    site_name: str
    nav: str
    public: bool
    cache: Path | None
    fixed: tuple[str, ...]
    site: Path | None = None

    def __call__(self, job: Job) -> Done:
        """The job's files (written into ``site`` when set) and rows; a bad receipt: problems.

        Raises:
            OSError: a file could not be written into ``site``.
        """
        raw = job.source
        if isinstance(raw, Path):
            try:
                raw = read_bounded(raw, regular_only=True)
            except ReceiptError as exc:
                return Done(None, problems=tuple(exc.problems or [Problem(job.file, "", str(exc))]))
        with no_cycle_collection():
            done = self._render(job, raw)
        if done.later is not None:
            return dataclasses.replace(done, raw=raw)
        if done.files is None:
            return done
        files = {**done.files, f"receipts/{job.name}.json": raw}
        done = dataclasses.replace(done, raw=raw if job.cited else None)
        if self.site is None:
            return dataclasses.replace(done, files=files)
        return dataclasses.replace(done, files={}, written=write_files(self.site, files))

    def report(self, arg: tuple[Report, Mapping[str, tuple[bytes, str]]]) -> Done:
        """A report's files (written into ``site`` when set) from its receipts' ``(bytes, file)``.

        Raises:
            SiteBuildError: a section cannot be rendered.
            OSError: a file could not be written into ``site``.
        """
        r, cited = arg
        digests = {n: hashlib.sha256(raw).hexdigest() for n, (raw, _) in cited.items()}
        sums = json.dumps([digests[n] for n in r.receipts])
        key = key_of("report", report_key(r), sums, *self.fixed)
        store = RenderCache(self.cache) if self.cache is not None else None
        files = store.get(key) if store is not None else None
        if files is None:
            with no_cycle_collection():
                models: dict[str, Receipt] = {n: parse_receipt(*cited[n]) for n in r.receipts}
                env = _env(self.templates, self.site_name, self.nav)
                files = report_files(r, models, digests, env)
            if store is not None:
                store.put(key, files)
        if self.site is None:
            return Done(files, key=key)
        return Done({}, key=key, written=write_files(self.site, files))

    def _render(self, job: Job, raw: bytes) -> Done:
        sha256 = hashlib.sha256(raw).hexdigest()
        cited = [{"ident": i, "title": t} for i, t in job.cited]
        key = key_of("receipt", sha256, job.name, json.dumps([cited, job.original]), *self.fixed)
        store = RenderCache(self.cache) if self.cache is not None else None
        hit = store.get(key) if store is not None else None
        if hit is not None and _META in hit:
            try:
                meta = json.loads(hit.pop(_META))
                links = _links_of(meta["links"]) if self.site is not None else None
                return Done(
                    hit, ResultRow(**meta["row"]), dict(meta["listed"]), key=key, links=links
                )
            except (ValueError, TypeError, KeyError):
                pass  # not an entry this code wrote: rendered again
        r, problems = checked_receipt(raw, job.file, self.public)
        if r is None:
            return Done(None, problems=tuple(problems))
        if r.regrade is not None and job.original is None:  # its page names its original
            return Done(None, later=(r.seal.sha256, r.regrade.original_seal))
        env = _env(self.templates, self.site_name, self.nav)
        files = receipt_files(job.name, r, raw, cited, env, job.original)
        rows, badges = rows_and_badge_files({job.name: r})
        files.update(badges)
        listed = listed_receipt(job.name, r, sha256, rows[0])
        links = receipt_links(files) if self.site is not None or store is not None else None
        if store is not None and links is not None and not r.is_simulated:
            meta = {"row": dataclasses.asdict(rows[0]), "listed": listed}
            meta["links"] = dataclasses.asdict(links)
            store.put(key, {**files, _META: json.dumps(meta, sort_keys=True).encode("utf-8")})
        return Done(files, rows[0], listed, key=key, links=links if self.site is not None else None)


def _links_of(data: dict[str, list[list[object]]]) -> ReceiptLinks:
    """A :class:`ReceiptLinks` read back from its JSON form."""
    return ReceiptLinks(
        tuple(str(x) for x in data["pages"]),
        tuple((str(p), int(i), str(m)) for p, i, m in data["problems"]),  # type: ignore[call-overload]
        tuple(tuple(x) for x in data["outside"]),  # type: ignore[misc]
    )


def write_files(site: Path, files: Mapping[str, bytes]) -> tuple[str, ...]:
    """Write ``files`` (by site path) under ``site``, each folder made once; their paths, sorted.

    Raises:
        OSError: a file cannot be written; its ``filename`` is that file's path.
    """
    paths = sorted(files)
    for d in sorted({"", *(p.rpartition("/")[0] for p in paths)}):  # "": the site itself
        (site / d).mkdir(parents=True, exist_ok=True)
    for p in paths:
        try:
            (site / p).write_bytes(files[p])
        except OSError as exc:  # a failed write or close (a full disk) names no file itself
            raise OSError(exc.errno, exc.strerror, str(site / p)) from None
    return tuple(paths)


#: ``submit(job function, argument)``: its future result.
Submit = Callable[[Callable[[Any], Done], Any], "Future[Done]"]


def _now(fn: Callable[[Any], Done], arg: Any) -> Future[Done]:
    """Run ``fn(arg)`` here and now; its exception is raised by ``result()``, as a pool's."""
    done: Future[Done] = Future()
    try:
        done.set_result(fn(arg))
    except Exception as exc:  # noqa: BLE001 - handed on whole, as a pool hands it on
        done.set_exception(exc)
    return done


@contextmanager
def job_pool(count: int) -> Iterator[Submit]:
    """A ``submit`` for ``count`` jobs: a process per core (<= 8) from :data:`POOL_FROM` on."""
    workers = min(os.cpu_count() or 1, 8)
    if count < POOL_FROM or workers < 2:
        yield _now
        return
    pool = process_pool(workers)
    try:
        yield pool.submit
    finally:  # before the caller removes the folder they write into, on a stop too
        stop_workers(pool)


def run_jobs(jobs: Iterable[Job], render: Renderer, submit: Submit) -> Iterator[tuple[Job, Done]]:
    """Each job with its result, in the order of ``jobs``; a few at a time (bounded memory)."""
    pending: deque[tuple[Job, Future[Done]]] = deque()
    for job in jobs:
        pending.append((job, submit(render, job)))
        if len(pending) >= 2 * (os.cpu_count() or 1):
            held, done = pending.popleft()
            yield held, done.result()
    while pending:
        held, done = pending.popleft()
        yield held, done.result()
