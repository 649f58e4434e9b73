"""Receipt pages rendered on all cores (issue 19): each worker process parses a receipt from
the build's spool, renders its sheet, case pages, badge files and results row (through the
build cache, as :func:`driftproof.site.build.generate_site` does in one process), writes them
into the build's staging folder and sends back only their paths and the row.

Used for large sites only: the receipts' bytes spooled (:data:`driftproof.site.publish.HOLD_BYTES`)
and the pages staged on disk (:class:`driftproof.site._staging.Staging`). The same functions
render either way, so the bytes do not depend on the split.
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
from typing import Any

from driftproof.results import ResultRow
from driftproof.site._cache import BuildCache, tree_key, using
from driftproof.site._loaded import LoadedReceipt, ReceiptSummary, Spool
from driftproof.site.report_source import Report

__all__ = ["PARALLEL_RENDER_FROM", "render_in_workers"]

#: From this many receipts on, their pages are rendered in worker processes.
PARALLEL_RENDER_FROM = 16

_Item = tuple[str, str | None, str, str, bytes]


def render_in_workers(
    receipts: Mapping[str, LoadedReceipt],
    reports: Sequence[Report],
    stage_dir: Path,
    adopt: Callable[[str, list[str], dict[str, str], dict[str, Any]], None],
    site: tuple[Sequence[Mapping[str, str]], str, Path],
    cache: BuildCache | None,
    progress: Callable[[str, int, int], None] | None,
    previous: Path | None = None,
) -> list[ResultRow] | None:
    """Every receipt's pages written under ``stage_dir`` by worker processes; each chunk's
    paths handed to ``adopt`` (name; paths written; paths kept, with their sha256; results
    row as a dict); the results rows returned in name order.
    ``site``: the navigation, site name and templates folder. ``previous``: the site an
    incremental build updates, whose files of the same bytes are kept, not written
    (:class:`driftproof.site._staging.Staging`). ``None`` (nothing written) when there are
    too few receipts, one core, or a receipt not spooled."""
    nav, site_name, templates = site
    workers = os.cpu_count() or 1
    names = sorted(receipts)
    spooled = all(receipts[n].spool is not None for n in names)
    if workers < 2 or len(names) < PARALLEL_RENDER_FROM or not spooled:
        return None
    items: list[_Item] = []
    for n in names:
        lr = receipts[n]
        spool = lr.spool
        assert spool is not None  # checked above
        path = str(lr.path) if lr.path is not None else None
        items.append((n, path, lr.sha256, str(spool.folder), lr.summary.to_json()))
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
        for result in pool.map(job, chunks):
            for name, paths, kept, row in result:
                adopt(name, paths, kept, row)
                rows.append(ResultRow(**row))
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
) -> list[tuple[str, list[str], dict[str, str], dict[str, Any]]]:
    from driftproof.site._staging import SiteFiles
    from driftproof.site.build import page_env, receipt_files

    env = page_env(Path(templates))
    env.globals.update(site_name=site_name, site_nav=list(nav))
    cache = BuildCache(Path(cache_root)) if cache_root else None
    fixed = (json.dumps(list(nav)), site_name, tree_key(Path(templates)) if cache else "")
    ordered = sorted(reports, key=lambda r: r.number, reverse=True)
    site = SiteFiles(Path(previous)) if previous is not None else None
    out: list[tuple[str, list[str], dict[str, str], dict[str, Any]]] = []
    with using(cache):
        for name, path, sha, spool_folder, summary in items:
            lr = LoadedReceipt(
                name,
                None,
                None,
                Path(path) if path is not None else None,
                sha256=sha,
                spool=Spool(Path(spool_folder)),
                summary=ReceiptSummary.from_json(summary),
            )
            files, row = receipt_files(lr, ordered, env, cache, fixed)
            files[f"receipts/{name}.json"] = lr.raw
            written, kept = [], {}
            for rel, data in files.items():
                if site is not None and site.holds(rel, data):
                    kept[rel] = hashlib.sha256(data).hexdigest()
                    continue
                p = Path(stage_dir) / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(data)
                written.append(rel)
            out.append((name, sorted(written), kept, dataclasses.asdict(row)))
    return out
