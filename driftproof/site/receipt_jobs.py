"""One job per receipt or report: its files, from the cache or rendered, written where made.

A job is a pure function of its inputs and the site's settings, so it runs alike in this
process or in a pool of worker processes (one render path); given a site folder it writes its
files there itself and hands back only their paths. The site is byte for byte the same.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from driftproof._pool import no_cycle_collection, process_pool
from driftproof.errors import Problem, ReceiptError
from driftproof.pages.receipt_list import listed_receipt
from driftproof.pages.report import Report, report_key
from driftproof.pages.results import ResultRow, rows_and_badge_files
from driftproof.receipt import Receipt, parse_receipt
from driftproof.receipt._load import read_bounded
from driftproof.site.cache import RenderCache, key_of
from driftproof.site.html import page_env
from driftproof.site.inputs import checked_receipt
from driftproof.site.links import ReceiptLinks, receipt_links
from driftproof.site.receipt_page import receipt_files
from driftproof.site.report_pages import report_files

#: A site of at least this many receipts is rendered in a pool of processes, one per core.
POOL_FROM = 64

_META = ".meta.json"  # a cache entry's index rows, beside its files


@dataclasses.dataclass(frozen=True)
class Job:
    """One receipt to render: name, bytes or path (the job reads it), file, reports citing it."""

    name: str
    source: bytes | Path
    file: str
    cited: tuple[tuple[str, str], ...]


@dataclasses.dataclass(frozen=True)
class Done:
    """A job's files, results row, receipts-page row, cache key and link check.

    ``files`` is None when the receipt was refused (``problems`` says why), empty when the job
    wrote them into the site folder (``written``: their site paths); ``raw``: a cited receipt's.
    """

    files: dict[str, bytes] | None
    row: ResultRow | None = None
    listed: dict[str, str] | None = None
    problems: tuple[Problem, ...] = ()
    key: str = ""
    links: ReceiptLinks | None = None
    written: tuple[str, ...] = ()
    raw: bytes | None = None

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
        key = key_of("receipt", sha256, job.name, json.dumps(cited), *self.fixed)
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
        env = _env(self.templates, self.site_name, self.nav)
        files = receipt_files(job.name, r, raw, cited, env)
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
    """Write ``files`` (by site path) under ``site``, each folder made once; their paths, sorted."""
    paths = sorted(files)
    site.mkdir(parents=True, exist_ok=True)
    folders = {p.rpartition("/")[0] for p in paths} - {""}
    for d in sorted(
        {"/".join(f.split("/")[:i]) for f in folders for i in range(1, f.count("/") + 2)}
    ):
        try:
            os.mkdir(site / d)
        except FileExistsError:
            pass
    for p in paths:
        with open(site / p, "wb") as fh:
            fh.write(files[p])
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
    with process_pool(workers) as pool:
        yield pool.submit


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
