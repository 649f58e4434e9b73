"""Receipt pages rendered on all cores (issue 19): each worker process parses a receipt (its
bytes read back from the file, or a spool, and checked against their sha256), renders its
sheet, case pages, badge files and results row (through the build cache, as
:func:`driftproof.site.build.generate_site` does in one process), writes them into the build's
staging folder and sends back only their paths (with their sha256) and the row.

Two ways in: :func:`render_in_workers`, for receipts already checked; and
:class:`RenderAhead` with :func:`render_receipt`, which the workers that check the receipts
call on the model they have just checked (:func:`driftproof.site.publish.load_inputs`), so
that each receipt is parsed once per build; :func:`render_reports` draws the reports
meanwhile. Used for large sites only (:data:`driftproof.site.publish.HOLD_BYTES`,
:data:`driftproof.site.publish.PARALLEL_FROM_BYTES`). The same functions render either way,
so the bytes do not depend on the split.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

from driftproof.results import ResultRow
from driftproof.site._cache import BuildCache, tree_key, using
from driftproof.site._link_digest import PagesChecked, check_own
from driftproof.site._loaded import LoadedReceipt, ReceiptSummary, Spool
from driftproof.site._owned import OnDisk, mirror_copy, note_written
from driftproof.site._site_dir import searchable
from driftproof.site.report_source import Report

__all__ = [
    "PARALLEL_RENDER_FROM",
    "RenderAhead",
    "Rendered",
    "render_in_workers",
    "render_receipt",
    "render_reports",
    "write_files",
]


class Rendered(NamedTuple):
    """One receipt's share of a build as a worker rendered it (or the reports', whose
    ``row`` is empty)."""

    #: the site paths it wrote, each with the sha256 of its bytes (hex)
    written: dict[str, str]
    #: the site paths it kept from the previous site, each with the sha256 of its bytes
    kept: dict[str, str]
    #: its results row, as a dict
    row: dict[str, Any]
    #: the check of its pages' links (``None``: not checked; an incremental build checks
    #: the pages that changed at the end instead)
    links: PagesChecked | None
    #: what the worker saw of the files it wrote, right after writing them (issue 19)
    on_disk: OnDisk


#: A receipt's name and its :class:`Rendered`, as a worker sends it back.
_Named = tuple[str, Rendered]

#: From this many receipts on, their pages are rendered in worker processes.
PARALLEL_RENDER_FROM = 16

_Item = tuple[str, str | None, str, str | None, bytes]


def render_in_workers(
    receipts: Mapping[str, LoadedReceipt],
    reports: Sequence[Report],
    stage_dir: Path,
    adopt: Callable[[str, Rendered], None],
    site: tuple[Sequence[Mapping[str, str]], str, Path],
    cache: BuildCache | None,
    progress: Callable[[str, int, int], None] | None,
    previous: Path | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> list[ResultRow] | None:
    """Every receipt's pages written under ``stage_dir`` by worker processes; each receipt's
    name and :class:`Rendered` handed to ``adopt``; the results rows returned in name order.
    ``site``: the navigation, site name and templates folder. ``previous``: the site an
    incremental build updates, whose files of the same bytes are kept, not written
    (:class:`driftproof.site._staging.Staging`). ``meanwhile``: called in this process once
    the work is handed out, so that it runs while the workers render (issue 19: the reports'
    charts no longer wait for a core). ``None`` (nothing written, ``meanwhile`` not called)
    when there are too few receipts, one core, or a receipt held in memory."""
    nav, site_name, templates = site
    workers = os.cpu_count() or 1
    names = sorted(receipts)
    on_disk = all(receipts[n].on_disk for n in names)
    if workers < 2 or len(names) < PARALLEL_RENDER_FROM or not on_disk:
        return None
    items: list[_Item] = []
    for n in names:
        lr = receipts[n]
        spool = lr.spool
        path = str(lr.path) if lr.path is not None else None
        folder = str(spool.folder) if spool is not None else None
        items.append((n, path, lr.sha256, folder, lr.summary.to_json()))
    size = max(1, min(8, len(items) // (workers * 4) or 1))
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    job = functools.partial(
        _render_chunk,
        reports=list(reports),
        nav=[dict(x) for x in nav],
        site_name=site_name,
        templates=str(templates),
        cache_root=str(cache.root) if cache is not None else None,
        stage_dir=str(stage_dir),
        previous=str(previous) if previous is not None else None,
    )
    rows: list[ResultRow] = []
    done = 0
    # spawn, not fork: the caller may have threads
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        results = pool.map(job, chunks)  # every chunk is submitted here
        if meanwhile is not None:
            try:
                meanwhile()
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
        for result in results:
            for name, done_one in result:
                adopt(name, done_one)
                rows.append(ResultRow(**done_one.row))
                done += 1
                if progress:
                    progress("render", done, len(items))
    return rows


def _render_chunk(
    items: list[_Item],
    *,
    reports: list[Report],
    nav: list[dict[str, str]],
    site_name: str,
    templates: str,
    cache_root: str | None,
    stage_dir: str,
    previous: str | None = None,
) -> list[_Named]:
    job = RenderAhead(
        stage_dir=stage_dir,
        reports=tuple(sorted(reports, key=lambda r: r.number, reverse=True)),
        nav=json.dumps(list(nav)),
        site_name=site_name,
        templates=templates,
        cache_root=cache_root,
        previous=previous,
    )
    out: list[_Named] = []
    for name, path, sha, spool_folder, summary in items:
        lr = LoadedReceipt(
            name,
            None,
            None,
            Path(path) if path is not None else None,
            sha256=sha,
            spool=Spool(Path(spool_folder)) if spool_folder is not None else None,
            summary=ReceiptSummary.from_json(summary),
        )
        out.append((name, render_receipt(lr, job)))
    return out


@dataclasses.dataclass(frozen=True)
class RenderAhead:
    """How a worker renders a receipt's pages into a build's staging folder: the folder
    (``stage_dir``), the reports (newest first), the navigation (as JSON), the site name,
    the templates folder, the build cache folder, the site an incremental build updates
    (``None``: none) and the search mirror. Plain data, sent to worker processes.

    Given to :func:`driftproof.site.publish.load_inputs`, it makes the worker that checks a
    receipt render its pages at once, from the model it has just checked: each receipt is
    parsed once per build, not once to check and again to render (issue 19)."""

    stage_dir: str
    reports: tuple[Report, ...]
    nav: str
    site_name: str
    templates: str
    cache_root: str | None
    previous: str | None
    #: the search mirror of a full build's site (its folder in the build cache), into which
    #: each searchable page written is copied as well (issue 19: the build's end then reads
    #: none back); ``None``: none
    mirror: str | None = None


_CONTEXT: list[Any] = []  # [job, its context]: the last job this process rendered for


def _context(job: RenderAhead) -> tuple[Any, BuildCache | None, tuple[str, str, str], Any]:
    """The page environment, cache, fixed key parts and previous site of ``job`` (made once
    per process and job)."""
    if _CONTEXT and _CONTEXT[0] == job:
        return _CONTEXT[1]
    from driftproof.site._staging import SiteFiles
    from driftproof.site.build import page_env

    env = page_env(Path(job.templates))
    env.globals.update(site_name=job.site_name, site_nav=json.loads(job.nav))
    cache = BuildCache(Path(job.cache_root)) if job.cache_root else None
    fixed = (job.nav, job.site_name, tree_key(Path(job.templates)) if cache else "")
    site = SiteFiles(Path(job.previous)) if job.previous is not None else None
    _CONTEXT[:] = [job, (env, cache, fixed, site)]
    return env, cache, fixed, site


def render_receipt(lr: LoadedReceipt, job: RenderAhead) -> Rendered:
    """One receipt's files written under ``job.stage_dir`` (the sheet, case pages, badge
    files and ``receipts/<name>.json``), as :func:`driftproof.site.build.generate_site`
    renders them (:class:`Rendered`). A file the previous site holds with the same bytes is
    kept, not written."""
    from driftproof.site.build import receipt_files

    env, cache, fixed, _site = _context(job)
    with using(cache):
        files, row = receipt_files(lr, list(job.reports), env, cache, fixed)
    files[f"receipts/{lr.name}.json"] = lr.raw
    on_disk = OnDisk()
    written, kept, links = write_files(files, job, on_disk)
    return Rendered(written, kept, dataclasses.asdict(row), links, on_disk)


def write_files(
    files: Mapping[str, bytes], job: RenderAhead, on_disk: OnDisk
) -> tuple[dict[str, str], dict[str, str], PagesChecked | None]:
    """``files`` (site path: bytes) written under ``job.stage_dir``, except those the previous
    site holds with the same bytes (kept): ``({path written: sha256 hex}, {path kept: sha256
    hex}, links)``, paths in order. The digests spare the build hashing its site again
    (issue 19). ``links``: on a full build (no previous site), the links of the pages checked
    here, while their bytes are in memory (:func:`driftproof.site._link_digest.check_own`),
    so that the build's link check need not read them back; else ``None``. ``on_disk``:
    filled, on a full build, with the ``lstat`` of each file written and of its folders,
    taken at once (:func:`driftproof.site._owned.note_written`), and with the pages also
    copied into the search mirror (``job.mirror``).

    Raises:
        OSError: a file could not be written."""
    site = _context(job)[3]
    written: dict[str, str] = {}
    kept: dict[str, str] = {}
    for rel in sorted(files):
        data = files[rel]
        digest = hashlib.sha256(data).hexdigest()
        if site is not None and site.holds(rel, data):
            kept[rel] = digest
            continue
        p = Path(job.stage_dir) / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        if site is None:  # only a full build's end reads them (driftproof.site._owned)
            note_written(on_disk, Path(job.stage_dir), rel)
        written[rel] = digest
        if job.mirror is not None and searchable(rel) and mirror_copy(Path(job.mirror), rel, data):
            on_disk.mirrored[rel] = digest
    return written, kept, (check_own(files) if site is None else None)


def render_reports(
    job: RenderAhead,
    receipts: Mapping[str, tuple[Path, str]],
    raw: Mapping[Path, bytes] | None,
) -> Rendered | None:
    """Every report's files of ``job`` (page, tables, charts, sums: as
    :func:`driftproof.site.build.generate_site` draws them) written under ``job.stage_dir``;
    ``receipts``: every receipt's path and sha256 by name; those a report cites are read
    (from ``raw``, else the file, refused unless it hashes to its sha256) and checked here in
    full first. ``None`` (nothing kept of it) when a cited receipt or a report fails: the build
    then draws the reports as usual and words the problem there. The results row is empty."""
    from driftproof.errors import ReceiptError, SiteBuildError
    from driftproof.receipt import parse_receipt
    from driftproof.site._report_files import cached_report_files

    env, cache, fixed, _site = _context(job)
    written: dict[str, str] = {}
    kept: dict[str, str] = {}
    links: PagesChecked | None = PagesChecked()
    on_disk = OnDisk()
    try:
        loaded: dict[str, LoadedReceipt] = {}
        for name in sorted({n for r in job.reports for n in r.receipts}):
            path, sha = receipts[name]
            if raw is not None and path in raw:
                data = raw[path]
            else:
                data = LoadedReceipt(name, None, None, path, sha256=sha).raw
            receipt = parse_receipt(data, str(path))
            loaded[name] = LoadedReceipt(name, receipt, data, path, sha256=sha)
        with using(cache):
            for r in job.reports:
                drawn = cached_report_files(r, loaded, env, cache, fixed)
                w, k, checked = write_files(drawn, job, on_disk)
                written.update(w)
                kept.update(k)
                if links is not None and checked is not None:
                    links.update(checked)
                else:
                    links = None
    except (ReceiptError, SiteBuildError, ValueError, KeyError, TypeError, OSError):
        for rel in written:  # drawn again by the build, which words the problem
            (Path(job.stage_dir) / rel).unlink(missing_ok=True)
        return None
    return Rendered(written, kept, {}, links, on_disk)
