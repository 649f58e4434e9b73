"""One job per receipt: its pages, badge files and index rows, from the cache or rendered.

A job is a pure function of the receipt's bytes, name, citing reports and the site's settings,
so it runs alike in this process or in a pool of worker processes; results come back in input
order and the site is byte for byte the same.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from functools import cache
from multiprocessing import get_context
from pathlib import Path

import jinja2

from driftproof.errors import Problem
from driftproof.pages.receipt_list import listed_receipt
from driftproof.pages.results import ResultRow, rows_and_badge_files
from driftproof.site.cache import RenderCache, key_of
from driftproof.site.html import page_env
from driftproof.site.inputs import checked_receipt, is_simulated
from driftproof.site.links import ReceiptLinks, receipt_links
from driftproof.site.receipt_page import receipt_files

__all__ = ["POOL_FROM", "Done", "Job", "Renderer", "run_jobs"]

#: A site of at least this many receipts is rendered in a pool of processes, one per core.
POOL_FROM = 64

_META = ".meta.json"  # a cache entry's index rows, beside its files


@dataclasses.dataclass(frozen=True)
class Job:
    """One receipt to render: its name, file bytes, file, and the reports citing it."""

    name: str
    raw: bytes
    file: str
    cited: tuple[tuple[str, str], ...]


@dataclasses.dataclass(frozen=True)
class Done:
    """A job's files, results row, receipts-page row, cache key and link check.

    ``files`` is None when the receipt was refused (``problems`` says why).
    """

    files: dict[str, bytes] | None
    row: ResultRow | None = None
    listed: dict[str, str] | None = None
    problems: tuple[Problem, ...] = ()
    key: str = ""
    links: ReceiptLinks | None = None


@cache
def _env(templates: Path, site_name: str, nav: str) -> jinja2.Environment:
    return page_env(templates, site_name, json.loads(nav))


@dataclasses.dataclass(frozen=True)
class Renderer:
    """Renders a :class:`Job` (picklable: it is sent to worker processes).

    ``nav`` is the navigation as JSON, ``cache`` the render cache folder (or None), ``fixed``
    the site-wide parts of the cache key; ``public`` refuses simulated receipts.
    """

    templates: Path
    site_name: str
    nav: str
    public: bool
    cache: Path | None
    fixed: tuple[str, ...]
    check_links: bool = False

    def __call__(self, job: Job) -> Done:
        """The job's files and rows (see :class:`Done`); never raises for a bad receipt."""
        sha256 = hashlib.sha256(job.raw).hexdigest()
        cited = [{"ident": i, "title": t} for i, t in job.cited]
        key = key_of("receipt", sha256, job.name, json.dumps(cited), *self.fixed)
        store = RenderCache(self.cache) if self.cache is not None else None
        hit = store.get(key) if store is not None else None
        if hit is not None and _META in hit:
            try:
                meta = json.loads(hit.pop(_META))
                links = _links_of(meta["links"]) if self.check_links else None
                return Done(
                    hit, ResultRow(**meta["row"]), dict(meta["listed"]), key=key, links=links
                )
            except (ValueError, TypeError, KeyError):
                pass  # not an entry this code wrote: rendered again
        r, problems = checked_receipt(job.raw, job.file, self.public)
        if r is None:
            return Done(None, problems=tuple(problems))
        env = _env(self.templates, self.site_name, self.nav)
        files = receipt_files(job.name, r, job.raw, cited, env)
        rows, badges = rows_and_badge_files({job.name: r})
        files.update(badges)
        listed = listed_receipt(job.name, r, sha256, rows[0])
        links = receipt_links(files) if self.check_links or store is not None else None
        if store is not None and links is not None and not is_simulated(r):
            meta = {"row": dataclasses.asdict(rows[0]), "listed": listed}
            meta["links"] = dataclasses.asdict(links)
            store.put(key, {**files, _META: json.dumps(meta, sort_keys=True).encode("utf-8")})
        return Done(files, rows[0], listed, key=key, links=links if self.check_links else None)


def _links_of(data: dict[str, list[list[object]]]) -> ReceiptLinks:
    """A :class:`ReceiptLinks` read back from its JSON form."""
    return ReceiptLinks(
        tuple(str(x) for x in data["pages"]),
        tuple((str(p), int(i), str(m)) for p, i, m in data["problems"]),  # type: ignore[call-overload]
        tuple(tuple(x) for x in data["outside"]),  # type: ignore[misc]
    )


def run_jobs(jobs: Iterable[Job], render: Renderer, count: int) -> Iterator[tuple[Job, Done]]:
    """Each job with its result, in the order of ``jobs`` (which may read receipts lazily).

    From :data:`POOL_FROM` jobs on (``count``), with more than one core, they run in a pool of
    worker processes, a few at a time, so memory stays bounded.
    """
    workers = min(os.cpu_count() or 1, 8)
    if count < POOL_FROM or workers < 2:
        yield from ((job, render(job)) for job in jobs)
        return
    pending: deque[tuple[Job, Future[Done]]] = deque()
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        for job in jobs:
            pending.append((job, pool.submit(render, job)))
            if len(pending) >= 2 * workers:
                held, done = pending.popleft()
                yield held, done.result()
        while pending:
            held, done = pending.popleft()
            yield held, done.result()
