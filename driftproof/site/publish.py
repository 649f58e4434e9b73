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

import dataclasses
import datetime as dt
import hashlib
import itertools
import multiprocessing
import os
import re
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from driftproof.errors import Problem, ReceiptError, SiteBuildError
from driftproof.site._build_site import build_site
from driftproof.site._cache import BuildCache
from driftproof.site._loaded import LoadedReceipt, ReceiptSummary, summarise
from driftproof.site._reading import read_and_hash, read_soon
from driftproof.site._site_dir import index_for_search
from driftproof.site.report_source import Report, load_reports

if TYPE_CHECKING:
    from driftproof.site._parallel_render import RenderAhead, Rendered

__all__ = ["SiteInputs", "build_site", "fallback_date", "index_for_search", "load_inputs"]


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
    #: receipts whose pages the checking workers rendered at once (``render=``), by name
    rendered: dict[str, Rendered] | None = None
    #: the reports' files, drawn meanwhile by the process that loaded the inputs (``render=``;
    #: the results row is empty)
    reports_rendered: Rendered | None = None


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
    render: RenderAhead | None = None,
    known_shas: Mapping[Path, str] | None = None,
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
    version is not checked, nor even parsed, again: its summary comes from the cache (issue
    19); the others are (:attr:`SiteInputs.checked`; :func:`build_site` records them, with
    their summaries, once the site is built). No receipt's model is kept: each is a
    :class:`~driftproof.site._loaded.LoadedReceipt` holding its summary, and its bytes in
    memory (all receipts together up to :data:`HOLD_BYTES`); above that, none: they are read
    again from the file when needed and refused unless they still hash to the sha256 read
    here.

    ``render``: when receipts are checked in worker processes, each worker renders the pages
    of a receipt that passed every check at once, from the model it has just checked, into
    ``render.stage_dir`` (:attr:`SiteInputs.rendered`; issue 19: one parse per receipt).
    Nothing is rendered ahead for a receipt known from the cache, nor when a report is bad.

    ``known_shas``: the sha256 of receipt files as the caller has just found them (the build's
    input key, :func:`driftproof.site._build_site.input_key`); above :data:`HOLD_BYTES`, such
    a file is not read here: wherever its bytes are needed they are read and refused unless
    they hash to it (issue 19: a rebuild reads only what it checks or publishes anew).

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
    hold = sum(_size(p) for p in paths) <= HOLD_BYTES
    # Above HOLD_BYTES no receipt's bytes are kept: each is read again from its file when
    # needed, and refused unless it still has the sha256 read here (issue 15). Nothing is
    # linked to the files either, so their change times stay as they were (driftproof.site._stats).
    shas, raw, unreadable = read_and_hash(
        paths, _read_bounded, hold=hold, known_shas=known_shas, progress=progress
    )
    # a receipt whose exact bytes passed every check under this product: its summary, unparsed
    known: dict[Path, ReceiptSummary] = {}
    for p, sha in shas.items():
        entry = cache.summary_of(sha) if cache is not None else None
        summary = ReceiptSummary.from_json(entry) if entry else None
        if summary is not None:
            known[p] = summary
    # The reports first: they need only the receipts' names, and a receipt rendered ahead
    # lists the reports that cite it.
    reports: list[Report] = []
    report_problems: list[Problem] = []
    if reports_dir.is_dir():
        try:
            reports = load_reports(
                sorted(p for p in reports_dir.glob("*.md") if not p.is_symlink()), names.values()
            )
        except SiteBuildError as exc:
            report_problems.extend(exc.problems)
    else:
        report_problems.append(Problem(str(reports_dir), "", "expected a directory of reports"))
    if render is not None:
        if report_problems:
            render = None
        else:
            ordered = tuple(sorted(reports, key=lambda r: r.number, reverse=True))
            render = dataclasses.replace(render, reports=ordered)
    todo = [p for p in paths if p in shas]
    ahead = (render, names) if render is not None else None
    drawn: list[Rendered] = []

    def draw_reports() -> None:  # while the workers check and render the receipts
        from driftproof.site._parallel_render import render_reports

        assert render is not None  # only called with a rendering job
        got = render_reports(render, {names[p]: (p, sha) for p, sha in shas.items()}, raw)
        drawn.extend([got] if got is not None else [])

    good, bad, rendered = _read_all(
        todo, known, shas, progress, raw, ahead, draw_reports if ahead else None
    )
    # one line per problem, in path order, whichever step refused the file
    for err in sorted(unreadable + bad, key=lambda e: e.problems[0].file if e.problems else str(e)):
        problems.extend(err.problems or [Problem("?", "", str(err))])
    for p in sorted(good):
        if good[p].simulated:
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
    receipts = {
        names[p]: LoadedReceipt(names[p], None, raw.get(p), p, sha256=shas[p], summary=s)
        for p, s in good.items()
    }
    problems.extend(report_problems)
    if problems:
        raise SiteBuildError(f"{len(problems)} problem(s); the site was not built", problems)
    return SiteInputs(
        receipts=dict(sorted(receipts.items())),
        reports=reports,
        cache=cache,
        checked=tuple(sorted(shas[p] for p in good if p not in known)),
        rendered={n: r for n, r in rendered.items() if n in receipts} if render else None,
        reports_rendered=drawn[0] if drawn and rendered else None,
    )


#: At most this many bytes of receipts are held in memory by a build; above it, none is held:
#: each is read again from its file when needed, checked by sha256 (issue 19: memory bounded).
HOLD_BYTES = 64 * 1024 * 1024


def summaries_from_cache(
    receipts_dir: Path, shas: dict[Path, str], reports_dir: Path, cache: BuildCache
) -> SiteInputs | None:
    """The inputs of a build none of whose inputs changed since it succeeded (the caller
    compared every byte's hash): each receipt from its summary in the cache, its bytes left
    on disk (read back only if asked, and checked against ``shas``); ``None`` when a
    summary is missing."""
    receipts: dict[str, LoadedReceipt] = {}
    for p, sha in sorted(shas.items()):
        if p.suffix != ".json":
            continue
        entry = cache.summary_of(sha)
        summary = ReceiptSummary.from_json(entry) if entry else None
        if summary is None:
            return None
        name = p.relative_to(receipts_dir).with_suffix("").as_posix()
        receipts[name] = LoadedReceipt(name, None, None, p, sha256=sha, summary=summary)
    reports = load_reports(
        sorted(p for p in Path(reports_dir).glob("*.md") if not p.is_symlink()), receipts
    )
    return SiteInputs(receipts=receipts, reports=reports, cache=cache)


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
    from driftproof.receipt._load import read_bounded

    return read_bounded(p, regular_only=True)


#: From this many bytes of receipts on, they are read in worker processes (on all cores;
#: below it, starting the workers costs more than it saves).
PARALLEL_FROM_BYTES = 32 * 1024 * 1024


def _check_chunk(
    items: list[tuple[Path, bool, str]],
    raw: dict[Path, bytes] | None = None,
    ahead: tuple[RenderAhead, dict[Path, str]] | None = None,
) -> tuple[dict[Path, ReceiptSummary], list[ReceiptError], dict[str, Rendered]]:
    """Parse and check receipts (one worker's share) and summarise each: ``(path, known valid,
    sha256 the caller read)``. The bytes checked are those the caller read: from ``raw`` (held
    in memory), else re-read from the file, which is refused
    when its bytes changed since the caller read them (issue 15). Only the small summary goes
    back, never the model (issue 19). Each file to be read is announced to the kernel while
    the one before it is worked on (:func:`driftproof.site._reading.read_soon`).
    ``ahead``: the rendering job and each receipt's name:
    a receipt that passed is rendered at once from the model just checked
    (:func:`driftproof.site._parallel_render.render_receipt`), and what was written comes
    back by name."""
    from driftproof.receipt import parse_receipt

    good: dict[Path, ReceiptSummary] = {}
    bad: list[ReceiptError] = []
    rendered: dict[str, Rendered] = {}
    for i, (p, known, sha) in enumerate(items):
        if i + 1 < len(items) and (raw is None or items[i + 1][0] not in raw):
            read_soon(items[i + 1][0])  # read while this one is checked and rendered
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
            receipt = parse_receipt(data, str(p), known_valid=known)
            good[p] = summarise(receipt)
        except ReceiptError as exc:
            bad.append(exc)
            continue
        if ahead is not None:
            from driftproof.site._parallel_render import render_receipt

            job, names = ahead
            lr = LoadedReceipt(names[p], receipt, data, p, sha256=sha, summary=good[p])
            rendered[names[p]] = render_receipt(lr, job)
        del receipt
    return good, bad, rendered


def _own(
    chunk: list[tuple[Path, bool, str]], ahead: tuple[RenderAhead, dict[Path, str]] | None
) -> tuple[RenderAhead, dict[Path, str]] | None:
    """``ahead`` for one worker's share: the rendering job and the names of ``chunk``'s
    receipts only. Each share is pickled on its own, so the names of every receipt in each
    would make the build's work grow with the square of the receipt count (issue 19)."""
    if ahead is None:
        return None
    job, names = ahead
    return job, {p: names[p] for p, _, _ in chunk}


def _read_all(
    paths: list[Path],
    known: dict[Path, ReceiptSummary],
    shas: dict[Path, str],
    progress: Progress | None = None,
    raw: dict[Path, bytes] | None = None,
    ahead: tuple[RenderAhead, dict[Path, str]] | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> tuple[dict[Path, ReceiptSummary], list[ReceiptError], dict[str, Rendered]]:
    """Check and summarise every receipt of ``paths`` not ``known`` (whose summaries the cache
    gave), in worker processes (one per core) when there are many.

    Results do not depend on the split: summaries are keyed by path and errors are in path
    order either way. ``raw``: the bytes the caller held (:func:`_check_chunk`).
    ``ahead``: render each receipt that passed, in the worker that checked it; only when
    there are workers (else nothing is rendered here: the build renders as usual).
    ``meanwhile``: called here once the workers have their work (not without workers).
    """
    items = [(p, False, shas[p]) for p in paths if p not in known]
    workers = os.cpu_count() or 1
    total = len(paths)
    good: dict[Path, ReceiptSummary] = dict(known)

    def report(done: int) -> None:
        if progress:
            progress("validate", done, total)

    done = len(known)
    if known:
        report(done)
    if workers < 2 or sum(_size(p) for p, _, _ in items) < PARALLEL_FROM_BYTES:
        bad: list[ReceiptError] = []
        for item in items:
            g, b, _ = _check_chunk([item], raw)
            good.update(g)
            bad.extend(b)
            done += 1
            report(done)
        return dict(sorted(good.items())), bad, {}
    size = max(1, min(16, len(items) // (workers * 4) or 1))
    # the last receipts one by one, so that no core waits long for the last chunk (issue 19)
    bulk = max(0, len(items) - workers * 4)
    chunks = [items[i : min(i + size, bulk)] for i in range(0, bulk, size)]
    chunks += [[item] for item in items[bulk:]]
    pairs: list[tuple[str, ReceiptError]] = []
    # spawn, not fork: the caller may have threads (a test's HTTP server, a browser driver).
    # Workers get no bytes: they read the file and compare its sha256.
    rendered: dict[str, Rendered] = {}
    try:
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn")
        ) as pool:
            # every chunk is handed out here, with the names of its own receipts only
            results = pool.map(
                _check_chunk, chunks, itertools.repeat(None), [_own(c, ahead) for c in chunks]
            )
            if meanwhile is not None:
                meanwhile()
            for chunk, (g, b, r) in zip(chunks, results, strict=True):
                good.update(g)
                rendered.update(r)
                if r and progress:  # rendered where it was checked: both bars move
                    progress("render", len(rendered), total)
                pairs.extend((e.problems[0].file if e.problems else str(e), e) for e in b)
                done += len(chunk)
                report(done)
    except (BrokenProcessPool, OSError):
        # Workers could not start (e.g. a caller whose __main__ cannot be re-imported): read here.
        g, b, _ = _check_chunk(items, raw)
        good.update(g)
        return dict(sorted(good.items())), b, {}
    ordered = [e for _, e in sorted(pairs, key=lambda t: t[0])]
    return dict(sorted(good.items())), ordered, rendered


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def fallback_date() -> str:
    """The date when no report supplies one: ``SOURCE_DATE_EPOCH`` (UTC), else 1970-01-01."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "0")
    try:
        return dt.datetime.fromtimestamp(int(epoch), dt.UTC).date().isoformat()
    except ValueError:
        return "1970-01-01"
