"""``build_site``: check the inputs, build with mkdocs, and replace the site whole or update
it in place; or, when no input changed since the last build of the same site, do nothing
beyond hashing (issue 19).

Split from :mod:`driftproof.site.publish` (which re-exports :func:`build_site`) by
responsibility (issue 18): publish reads and checks the inputs, this module builds.

The no-change rebuild: after a successful build with a cache, a *site record* is kept in the
cache (``sites/<aa>/<key of the site folder>``): a key of every input (each receipt's and
report's path and bytes, the mkdocs config, its pages folder and its templates, the product
key, ``SOURCE_DATE_EPOCH``) and the sha256 of every file of the site written. The next build
whose inputs give the same key, into a site folder whose files still match the record file
for file, is done: nothing is checked, rendered or written. Anything else builds as usual.
Neither the inputs nor the site are read to find that out where their stats suffice: the
record keeps each file's size, modification and change times and inode, and a file that
still has all four is not read again (:mod:`driftproof.site._stats`, as git's index does).

The incremental build: with a cache, into a site built here before, every generated file
whose bytes the site already holds at the same path is kept, not written
(:class:`driftproof.site._staging.Staging`); mkdocs builds the rest into a new folder, the
link check and the search index see the new folder and the kept files together, and only
when all of that succeeded is the site updated in place
(:func:`driftproof.site._site_dir.apply`): the new files moved over the old, files no longer
built removed. A failure before that leaves the site untouched, as a whole build does.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from driftproof.errors import Problem, SiteBuildError
from driftproof.site._cache import CACHE_DIR_NAME, BuildCache, key_of, product_key, tree_key
from driftproof.site._site_dir import MARKER, Collector, apply, check_out, replace
from driftproof.site._stats import (
    file_sha,
    folder_digests,
    site_files_digest,
    site_state,
    site_tree_key,
)

if TYPE_CHECKING:
    from driftproof.site._parallel_render import RenderAhead
    from driftproof.site.publish import Progress, SiteInputs

__all__ = ["build_site", "input_key", "site_files_digest", "site_state", "site_tree_key"]


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
            With a cache, a build whose every input is unchanged since the last build of
            ``out``, whose files still match, does nothing beyond hashing, and a build into a
            site built here before writes only the files that changed (module docstring);
            without one, the site is built whole and swapped in.
        progress: called as ``progress(phase, done, total)`` (see
            :data:`driftproof.site.publish.Progress`).

    Raises:
        SiteBuildError: an input is invalid (one problem per bad place) or mkdocs failed
            (its warnings and errors as the problems); ``out`` is untouched.
    """
    from driftproof.site.publish import load_inputs

    out = Path(out).resolve()
    if cache_dir is True:
        cache_dir = out.parent / CACHE_DIR_NAME
    cache = BuildCache(Path(cache_dir)) if cache_dir else None
    key = record = None
    sources: dict[str, Any] = {}
    prior: dict[str, Any] = {}
    shas: dict[Path, str] = {}
    if cache is not None:
        record = _record_path(cache, out)
        prior = _read_record(record)
        sources = {"at": time.time_ns(), "files": {}}
        key, shas = input_key(
            receipts_dir, reports_dir, config_file, known=prior.get("sources"), seen=sources
        )
        done = _unchanged(prior, key, out, Path(receipts_dir), shas, reports_dir, cache)
        if done is not None:
            return done
    # An incremental build (issue 19) updates a site built here before, writing only what
    # changed; without a cache, or into a new folder, the site is built whole and swapped in.
    previous = out if cache is not None and (out / MARKER).is_file() else None
    # a full build's workers copy the searchable pages into the search mirror as they write
    # them (issue 19: the end of a 10,000-receipt build then reads none of them back)
    mirror = _mirror_path(record) if record is not None and previous is None else None
    ahead = _render_ahead(Path(config_file), out, cache, previous, mirror)
    try:
        inputs = load_inputs(
            receipts_dir,
            reports_dir,
            cache=cache,
            progress=progress,
            render=ahead,
            known_shas=shas if cache is not None else None,
        )
        check_out(
            out, [Path(receipts_dir), Path(reports_dir), Path(config_file).parent, Path.cwd()]
        )
        recording = (key, record, sources, prior)
        return _build(inputs, out, config_file, cache, recording, previous, ahead, progress)
    finally:
        if ahead is not None:  # emptied by the build, or left by a failed one
            shutil.rmtree(ahead.stage_dir, ignore_errors=True)


def _render_ahead(
    config_file: Path,
    out: Path,
    cache: BuildCache | None,
    previous: Path | None,
    mirror: Path | None = None,
) -> RenderAhead | None:
    """How the workers that check the receipts render their pages at once (issue 19), from
    the config's navigation, site name and templates, into a new folder beside ``out``,
    copying the searchable pages into ``mirror`` too (``None``: no mirror); ``None`` when the
    config cannot be read (the build then reports it as usual) or the folder ``out`` goes in
    does not exist yet."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files

    from driftproof.site._hook import site_nav, templates_of
    from driftproof.site._parallel_render import RenderAhead

    if not out.parent.is_dir():
        return None
    mk_log = logging.getLogger("mkdocs")
    was = mk_log.disabled
    mk_log.disabled = True  # the build proper reports whatever mkdocs has to say
    try:
        cfg = load_config(str(config_file))
        nav, site_name, templates = site_nav(get_files(cfg)), cfg.site_name, templates_of(cfg)
    except Exception:  # the build proper reports it
        return None
    finally:
        mk_log.disabled = was
    stage = tempfile.mkdtemp(prefix=".driftproof-generated-", dir=out.parent)
    return RenderAhead(
        stage_dir=stage,
        reports=(),
        nav=json.dumps(list(nav)),
        site_name=site_name,
        templates=str(templates),
        cache_root=str(cache.root) if cache is not None else None,
        previous=str(previous) if previous is not None else None,
        mirror=str(mirror) if mirror is not None else None,
    )


def _build(
    inputs: SiteInputs,
    out: Path,
    config_file: Path,
    cache: BuildCache | None,
    recording: tuple[str | None, Path | None, dict[str, Any], dict[str, Any]],
    previous: Path | None,
    ahead: RenderAhead | None,
    progress: Progress | None,
) -> SiteInputs:
    """:func:`build_site` once the inputs passed: mkdocs, the link check, then ``out``;
    ``recording``: the inputs' key, the site record's path, the inputs' stats and the record
    as the build found it (read once)."""
    key, record, sources, prior = recording
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    from driftproof.site._hook import handing_over
    from driftproof.site.links import LinkSummary, Since, check_links

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    collector = Collector()
    mk_log = logging.getLogger("mkdocs")
    mk_log.addHandler(collector)
    try:
        cfg = load_config(str(config_file), site_dir=str(tmp), strict=True)
        prior = prior if previous is not None else {}
        # the receipts' files, and under "" (no receipt's name) the moment their stats were
        # taken (_stats.trusted)
        kept_record = {
            **(prior.get("receipts") or {}),
            "": (prior.get("stats") or {}).get("at", 0),
        }
        mirror = _mirror_path(record) if record is not None else None
        with handing_over(inputs, progress, previous, kept_record, ahead, mirror) as handover:
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
    (tmp / MARKER).write_text(
        "A site built by `driftproof reports build`; the next build replaces or updates it.\n",
        encoding="utf-8",
    )
    # Issue 15: an internal link or fragment that points nowhere fails the build. An
    # incremental build checks the pages that changed since the last build's check (links).
    kept = handover.kept
    since = digest = None
    # a full build walks its new site once (issue 19: at 10,000 receipts a walk of its
    # 520,000 folders takes 20 s or more): the link check's listing, and the site record's
    # digests and stats (a rename of the site's folder moves no file's stat); not the
    # folders only workers wrote into, whose entries they saw as they wrote them (_owned)
    listing: tuple[set[str], set[str]] | None = None
    # for the site record: the moment the stats were taken, the stats, the files' digests
    # (None: the known ones, the rest read) and the tree key
    recorded: tuple[int, dict[str, list[int]], dict[str, str] | None, str]
    if previous is None:
        listing, new_stats, at_walk = (set(), set()), dict[str, list[int]](), time.time_ns()
        state = site_state(
            tmp,
            known=handover.written,
            stats=new_stats,
            listing=listing,
            hash_files=cache is not None and key is not None and record is not None,
            owned=handover.owned,
        )
        handover.owned = None  # its stats are new_stats' now; the rest is let go (memory)
        recorded = (at_walk, new_stats, *state)
    if previous is not None:
        # the kept files' digests are known from their bytes: only the new folder is read
        digest = {**kept, **site_state(tmp, known=handover.written)[0]}
        files_before, links_before = prior.get("files"), LinkSummary.from_json(prior.get("links"))
        if isinstance(files_before, dict) and links_before is not None:
            since = Since(files_before, links_before, digest)
    broken, links = check_links(
        tmp,
        cache,
        kept=(out, kept) if previous is not None else None,
        since=since,
        checked=handover.checked if previous is None else None,
        listing=listing,
    )
    if broken:
        shutil.rmtree(tmp, ignore_errors=True)
        raise SiteBuildError(
            f"{len(broken)} broken internal link(s); the site was not replaced",
            [Problem(str(config_file), "", f"broken link: {b}") for b in broken[:50]],
        )
    if previous is not None:
        if record is not None:
            with contextlib.suppress(OSError):  # the record only saves a later build
                record.unlink(missing_ok=True)  # the site is about to change
        at = time.time_ns()  # before the walk that takes the stats (_stats.trusted)
        try:
            tree, stats = apply(tmp, out, kept)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        recorded = (at, stats, None, tree)
    else:
        replace(tmp, out)
    if cache is not None and key is not None and record is not None:
        checked = set(inputs.checked)
        with contextlib.suppress(OSError):  # a cache it cannot write only saves nothing
            cache.mark_valid(
                inputs.checked,
                {
                    lr.sha256: lr.summary.to_json()
                    for lr in inputs.receipts.values()
                    if lr.sha256 in checked
                },
            )
        # what the workers wrote, and the kept files, are known by their digest: only the
        # rest is read; every file's stat is recorded for the next build (_stats). An
        # incremental build's update walked the site as it left it: that walk is used.
        known = {**handover.written, **(digest or {})}
        at, stats, walked_files, tree = recorded
        if walked_files is None:  # an incremental build's update took no digests
            walked_files = {rel: known.get(rel) or file_sha(out / rel) for rel in sorted(stats)}
        files = walked_files
        doc = {
            "inputs": key,
            "files": files,
            "tree": tree,
            "receipts": _receipts_record(files, stats, handover),
            "stats": {"at": at, "files": stats},
            "sources": sources,
            "links": links.to_json(),
        }
        _write_record(record, json.dumps(doc, sort_keys=True).encode("utf-8"))
    return inputs


def input_key(
    receipts_dir: Path,
    reports_dir: Path,
    config_file: Path,
    *,
    known: Any = None,
    seen: dict[str, Any] | None = None,
) -> tuple[str, dict[Path, str]]:
    """sha256 (hex) of every input of a build, and the sha256 of each receipt file by path.

    The inputs: each file (path and bytes; a symbolic link as such) under the receipts and
    reports folders, the mkdocs config's bytes and what mkdocs reads from it (parents it
    inherits, ``!ENV`` values), its pages folder (``docs_dir``) and templates (the theme's
    ``custom_dir`` and its siblings), the product key
    (:func:`driftproof.site._cache.product_key`: Driftproof's version and files, and the
    installed libraries' versions), the umask and ``SOURCE_DATE_EPOCH``. A config mkdocs
    cannot load gives a key no build recorded.

    ``known``: the ``sources`` a site record kept (``{"at": ns, "files": {path: [size,
    mtime_ns, ctime_ns, inode, sha256]}}``): a file whose stat is trusted
    (:func:`driftproof.site._stats.trusted`) is not read again. ``seen``: filled the same way
    (its ``files``) for the next build.
    """
    known_files = known.get("files") if isinstance(known, dict) else None
    trust = (
        known_files if isinstance(known_files, dict) else {},
        known.get("at", 0) if known_files else 0,
    )
    seen_files = seen.setdefault("files", {}) if seen is not None else {}
    mask = os.umask(0)  # the modes a build gives its files (read back at once)
    os.umask(mask)
    parts: list[bytes | str] = [
        product_key(),
        f"umask {mask:o}",
        # without it, mkdocs dates the sitemap with the day of the build (UTC)
        os.environ.get("SOURCE_DATE_EPOCH") or f"built on {datetime.now(UTC):%Y-%m-%d}",
        str(Path(config_file).resolve()),
    ]
    shas: dict[Path, str] = {}
    for label, folder in (("receipts", receipts_dir), ("reports", reports_dir)):
        digests = folder_digests(Path(folder), trust, seen_files)
        if label == "receipts":
            shas = {Path(folder) / rel: d for rel, d in digests.items() if len(d) == 64}
        parts += [label, json.dumps(sorted(digests.items()))]
    try:
        from mkdocs.config import load_config
        from mkdocs.utils.yaml import yaml_load

        config = Path(config_file)
        parts.append(config.read_bytes())
        with open(config, "rb") as fh:  # as mkdocs reads it: INHERIT parents, !ENV values
            merged = yaml_load(fh)
        parts.append(json.dumps(merged, sort_keys=True, default=lambda o: type(o).__qualname__))
        cfg = load_config(str(config))
        theme = cfg.theme.custom_dir
        folders: list[Path | None] = [Path(cfg.docs_dir), Path(theme).parent if theme else None]
        for where in folders:
            ok = where is not None and where.is_dir()
            parts.append(tree_key(where.resolve()) if ok and where else "")
    except Exception:  # any failure only means "not known to be unchanged"
        parts.append(os.urandom(16))
    return key_of(*parts), shas


def _record_path(cache: BuildCache, out: Path) -> Path:
    k = key_of("site", str(out))
    return cache.base / "sites" / k[:2] / k


def _mirror_path(record: Path) -> Path:
    """The search mirror of the site whose record is ``record``
    (:func:`driftproof.site._site_dir.index_for_search`)."""
    return record.with_name(f"{record.name}.search")


def _read_record(path: Path) -> dict[str, Any]:
    """The site record at ``path`` (``{}`` when missing or damaged)."""
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _receipts_record(
    files: dict[str, str], stats: dict[str, list[int]], handover: Any
) -> dict[str, Any]:
    """For each receipt of the build: the key of its rendering's inputs, its results row and
    each of its files with the sha256, size, modification time and inode it has in ``out``,
    so that the next incremental build can keep it whole without reading it (issue 19)."""
    section: dict[str, Any] = {}
    for name, rf in handover.receipts.items():
        try:
            entry = {}
            for p in rf.paths:
                size, mtime_ns, ctime_ns, ino = stats[p]
                entry[p] = [files[p], size, mtime_ns, ino, ctime_ns]
        except (OSError, KeyError):
            continue  # not recorded: the next build reads it again
        section[name] = {"key": rf.key, "files": entry, "row": rf.row}
    return section


def _write_record(path: Path, data: bytes) -> None:
    from driftproof.receipt._seal import atomic_write

    try:
        atomic_write(path, data)
    except OSError:
        pass  # the record only saves a later build; without it that build is a full one


def _unchanged(
    doc: dict[str, Any],
    key: str,
    out: Path,
    receipts_dir: Path,
    shas: dict[Path, str],
    reports_dir: Path,
    cache: BuildCache,
) -> SiteInputs | None:
    """The inputs of the last build of ``out`` when nothing changed since, else ``None``."""
    if doc.get("inputs") != key or not out.is_dir():
        return None
    files, recorded = doc.get("files"), doc.get("stats")
    if not isinstance(files, dict) or not isinstance(recorded, dict):
        return None
    vouched = recorded.get("files")
    trust = (vouched if isinstance(vouched, dict) else {}, recorded.get("at", 0))
    # a file whose stat the record vouches for is not read (_stats); any other is hashed
    if site_state(out, known=files, trust=trust) != (files, doc.get("tree")):
        return None
    from driftproof.site.publish import summaries_from_cache

    return summaries_from_cache(receipts_dir, shas, Path(reports_dir), cache)
