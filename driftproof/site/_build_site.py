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
import hashlib
import json
import logging
import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from driftproof.errors import Problem, SiteBuildError
from driftproof.site._cache import CACHE_DIR_NAME, BuildCache, key_of, product_key, tree_key
from driftproof.site._site_dir import MARKER, Collector, apply, check_out, replace

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
    if cache is not None:
        key, shas = input_key(receipts_dir, reports_dir, config_file)
        record = _record_path(cache, out)
        done = _unchanged(record, key, out, Path(receipts_dir), shas, reports_dir, cache)
        if done is not None:
            return done
    # An incremental build (issue 19) updates a site built here before, writing only what
    # changed; without a cache, or into a new folder, the site is built whole and swapped in.
    previous = out if cache is not None and (out / MARKER).is_file() else None
    ahead = _render_ahead(Path(config_file), out, cache, previous)
    try:
        inputs = load_inputs(
            receipts_dir,
            reports_dir,
            cache=cache,
            progress=progress,
            spool_dir=out.parent,
            render=ahead,
        )
        check_out(
            out, [Path(receipts_dir), Path(reports_dir), Path(config_file).parent, Path.cwd()]
        )
        return _build(inputs, out, config_file, cache, key, record, previous, ahead, progress)
    finally:
        if ahead is not None:  # emptied by the build, or left by a failed one
            shutil.rmtree(ahead.stage_dir, ignore_errors=True)


def _render_ahead(
    config_file: Path, out: Path, cache: BuildCache | None, previous: Path | None
) -> RenderAhead | None:
    """How the workers that check the receipts render their pages at once (issue 19), from
    the config's navigation, site name and templates, into a new folder beside ``out``;
    ``None`` when the config cannot be read (the build then reports it as usual) or the
    folder ``out`` goes in does not exist yet."""
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
    )


def _build(
    inputs: SiteInputs,
    out: Path,
    config_file: Path,
    cache: BuildCache | None,
    key: str | None,
    record: Path | None,
    previous: Path | None,
    ahead: RenderAhead | None,
    progress: Progress | None,
) -> SiteInputs:
    """:func:`build_site` once the inputs passed: mkdocs, the link check, then ``out``."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    from driftproof.site._hook import handing_over
    from driftproof.site.links import broken_links

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    collector = Collector()
    mk_log = logging.getLogger("mkdocs")
    mk_log.addHandler(collector)
    try:
        cfg = load_config(str(config_file), site_dir=str(tmp), strict=True)
        prior = _read_record(record) if previous is not None and record is not None else {}
        with handing_over(inputs, progress, previous, prior.get("receipts"), ahead) as handover:
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
    kept = handover.kept
    broken = broken_links(tmp, cache, kept=(out, kept) if previous is not None else None)
    if broken:
        shutil.rmtree(tmp, ignore_errors=True)
        raise SiteBuildError(
            f"{len(broken)} broken internal link(s); the site was not replaced",
            [Problem(str(config_file), "", f"broken link: {b}") for b in broken[:50]],
        )
    (tmp / MARKER).write_text(
        "A site built by `driftproof reports build`; the next build replaces or updates it.\n",
        encoding="utf-8",
    )
    if previous is not None:
        if record is not None:
            with contextlib.suppress(OSError):  # the record only saves a later build
                record.unlink(missing_ok=True)  # the site is about to change
        # the kept files' digests are known from their bytes: only the new folder is read
        digest = {**kept, **site_state(tmp, known=handover.written)[0]}
        try:
            apply(tmp, out, kept)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        replace(tmp, out)
        digest = None
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
        if digest is not None:
            files, tree = digest, site_tree_key(out)
        else:  # what the workers wrote is known by its digest: only the rest is read
            files, tree = site_state(out, known=handover.written)
        doc = {
            "inputs": key,
            "files": files,
            "tree": tree,
            "receipts": _receipts_record(out, files, handover),
        }
        _write_record(record, json.dumps(doc, sort_keys=True).encode("utf-8"))
    return inputs


def input_key(
    receipts_dir: Path, reports_dir: Path, config_file: Path
) -> tuple[str, dict[Path, str]]:
    """sha256 (hex) of every input of a build, and the sha256 of each receipt file by path.

    The inputs: each file (path and bytes; a symbolic link as such) under the receipts and
    reports folders, the mkdocs config's bytes, its pages folder (``docs_dir``) and templates
    (the theme's ``custom_dir`` and its siblings), the product key
    (:func:`driftproof.site._cache.product_key`: Driftproof's version and files) and
    ``SOURCE_DATE_EPOCH``. A config mkdocs cannot load gives a key no build recorded.
    """
    parts: list[bytes | str] = [
        product_key(),
        # without it, mkdocs dates the sitemap with the day of the build (UTC)
        os.environ.get("SOURCE_DATE_EPOCH") or f"built on {datetime.now(UTC):%Y-%m-%d}",
        str(Path(config_file).resolve()),
    ]
    shas: dict[Path, str] = {}
    for label, folder in (("receipts", receipts_dir), ("reports", reports_dir)):
        digests = _folder_digests(Path(folder))
        if label == "receipts":
            shas = {Path(folder) / rel: d for rel, d in digests.items() if d != "link"}
        parts += [label, json.dumps(sorted(digests.items()))]
    try:
        from mkdocs.config import load_config

        config = Path(config_file)
        parts.append(config.read_bytes())
        cfg = load_config(str(config))
        theme = cfg.theme.custom_dir
        folders: list[Path | None] = [Path(cfg.docs_dir), Path(theme).parent if theme else None]
        for where in folders:
            # read now (tree_key's cache is per process, and a long process may see edits)
            ok = where is not None and where.is_dir()
            parts.append(tree_key.__wrapped__(where.resolve()) if ok and where else "")
    except Exception:  # any failure only means "not known to be unchanged"
        parts.append(os.urandom(16))
    return key_of(*parts), shas


def _folder_digests(folder: Path) -> dict[str, str]:
    """``{path under folder: sha256 hex, or "link" for a symbolic link}`` of every file."""
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            rel = p.relative_to(folder).as_posix()
            if p.is_symlink():
                out[rel] = "link"
            elif n in filenames:
                out[rel] = _file_sha(p)
    return out


def _file_sha(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def site_files_digest(site: Path) -> dict[str, str]:
    """``{path under site: sha256 hex}`` of every regular file of a built site (a link, a
    FIFO or any other kind of entry is never opened: :func:`site_tree_key` sees it)."""
    return site_state(site)[0]


def site_tree_key(site: Path) -> str:
    """sha256 (hex) of every entry under ``site`` (path, kind and mode), folders and links
    included: a folder, link or mode changed by hand makes the next build update the site."""
    return site_state(site, hash_files=False)[1]


def site_state(
    site: Path, *, hash_files: bool = True, known: Mapping[str, str] | None = None
) -> tuple[dict[str, str], str]:
    """:func:`site_files_digest` and :func:`site_tree_key` in one walk of ``site`` (each
    entry looked at once, with ``lstat``); without ``hash_files`` the digest is empty.
    ``known``: the sha256 (hex) of files this build has just written from bytes it hashed
    (path under ``site``); a regular file listed there is not read again."""
    known = known or {}
    files: dict[str, str] = {}
    rows: list[str] = []
    stack = [("", str(site))]
    while stack:
        prefix, folder = stack.pop()
        with os.scandir(folder) as it:
            for e in it:
                rel = prefix + e.name
                st = e.stat(follow_symlinks=False)
                rows.append(f"{rel}\0{st.st_mode:o}")
                if stat.S_ISDIR(st.st_mode):
                    stack.append((rel + "/", e.path))
                elif hash_files and stat.S_ISREG(st.st_mode):
                    files[rel] = known.get(rel) or _file_sha(Path(e.path))
    rows.sort()
    return files, key_of(*rows)


def _record_path(cache: BuildCache, out: Path) -> Path:
    k = key_of("site", str(out))
    return cache.base / "sites" / k[:2] / k


def _read_record(path: Path) -> dict[str, Any]:
    """The site record at ``path`` (``{}`` when missing or damaged)."""
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _receipts_record(out: Path, files: dict[str, str], handover: Any) -> dict[str, Any]:
    """For each receipt of the build: the key of its rendering's inputs, its results row and
    each of its files with the sha256, size, modification time and inode it has in ``out``,
    so that the next incremental build can keep it whole without reading it (issue 19)."""
    section: dict[str, Any] = {}
    for name, rf in handover.receipts.items():
        try:
            entry = {}
            for p in rf.paths:
                st = os.lstat(out / p)
                entry[p] = [files[p], st.st_size, st.st_mtime_ns, st.st_ino]
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
    record: Path,
    key: str,
    out: Path,
    receipts_dir: Path,
    shas: dict[Path, str],
    reports_dir: Path,
    cache: BuildCache,
) -> SiteInputs | None:
    """The inputs of the last build of ``out`` when nothing changed since, else ``None``."""
    try:
        doc = json.loads(record.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("inputs") != key or not out.is_dir():
        return None
    if site_state(out) != (doc.get("files"), doc.get("tree")):
        return None
    from driftproof.site.publish import summaries_from_cache

    return summaries_from_cache(receipts_dir, shas, Path(reports_dir), cache)
