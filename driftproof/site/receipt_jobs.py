"""One job per receipt: its pages, badge files and index rows, from the cache or rendered.

A job is a pure function of the receipt's bytes, its name, the reports citing it and the
site's settings, so the same function runs in this process or, for a large site, in a pool of
worker processes (one per core); either way the results come back in input order and the site
is byte for byte the same.
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

from driftproof.errors import Problem, ReceiptError
from driftproof.pages.receipt_list import listed_receipt
from driftproof.pages.results import ResultRow, rows_and_badge_files
from driftproof.receipt import parse_receipt
from driftproof.site.cache import RenderCache, key_of
from driftproof.site.html import page_env
from driftproof.site.inputs import is_simulated, simulated_problem
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
    """A job's result: its files and index rows, or the problems that refused it.

    Attributes:
        files: the receipt's pages and badge files by site path (None when refused).
        row: its results row.
        listed: its row on the receipts page.
        problems: why it was refused (not valid, or simulated on the public site).
        key: its render cache key.
        links: its pages' link check, when asked for.
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

    Attributes:
        templates: the templates folder.
        site_name: the site's name.
        nav: the navigation as JSON.
        public: refuse simulated receipts.
        cache: the render cache folder, or None.
        fixed: the site-wide parts of the cache key (navigation, names, code and templates).
        check_links: check the links of each receipt's pages among themselves.
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
        try:
            r = parse_receipt(job.raw, job.file)
        except ReceiptError as exc:
            return Done(None, problems=tuple(exc.problems or [Problem(job.file, "", str(exc))]))
        if self.public and is_simulated(r):
            return Done(None, problems=(simulated_problem(job.file),))
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


def run_jobs(jobs: Iterable[Job], render: Renderer, count: int) -> Iterator[Done]:
    """Each job's result, in the order of ``jobs``.

    Args:
        jobs: the jobs (may be a generator reading receipts one by one).
        render: the renderer.
        count: the number of jobs: from :data:`POOL_FROM` on, and with more than one core,
            they run in a pool of worker processes, a few at a time (memory stays bounded).
    """
    workers = min(os.cpu_count() or 1, 8)
    if count < POOL_FROM or workers < 2:
        yield from map(render, jobs)
        return
    pending: deque[Future[Done]] = deque()
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        for job in jobs:
            pending.append(pool.submit(render, job))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
