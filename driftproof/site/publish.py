"""``make reports``: ``site = render(load(receipts, reports))``, swapped in whole.

:func:`build_site` is the one build entry point: mkdocs (strict, with the ``driftproof``
plugin) builds into a new folder beside ``out``, which is then swapped with ``out`` in one
atomic exchange; killed at any moment, ``out`` is the old site or the new one, whole.
"""

from __future__ import annotations

import ctypes
import logging
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from logging.handlers import BufferingHandler
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from driftproof._pool import stops_held
from driftproof.errors import Problem, SiteBuildError
from driftproof.outputs import held_lock, named_as
from driftproof.pages.report import Report
from driftproof.site.inputs import Progress
from driftproof.site.receipt_jobs import CACHE_DIR_NAME, RenderCache

#: A file in every built site: only a directory holding it (or nothing) is ever replaced.
MARKER = ".driftproof-site"

#: What a killed build may leave beside ``out``: ``.<out name>``, one of these, then the 8
#: letters, digits or _ :func:`tempfile.mkdtemp` adds (a sibling's ``.<name>.build-1.build-…``
#: is not ``<name>``'s).
LEFTOVERS = (".build-", ".old-")


@dataclass(frozen=True)
class Published:
    """What a build published: the receipts' names (name order) and the reports."""

    receipts: tuple[str, ...]
    reports: list[Report]


def build_site(
    receipts_dir: Path,
    reports_dir: Path,
    out: Path,
    *,
    config_file: Path = Path("mkdocs.yml"),
    cache_dir: Path | None | bool = True,
    progress: Progress | None = None,
) -> Published:
    """Check the inputs, build with mkdocs (strict) and replace ``out`` whole, only on success.

    Symbolic links as inputs, ``out`` or the cache folder (or its ``render`` and ``trash``)
    are refused before anything resolves them; what a killed build left beside ``out`` is
    removed first. ``cache_dir``: the render cache folder,
    ``True`` for ``.driftproof-cache`` beside ``out``, ``None``/``False`` for none.

    Raises:
        SiteBuildError: an input or ``out`` is refused or invalid (one problem per bad place),
            a link is broken or mkdocs failed; ``out`` is untouched.
    """
    for given in (receipts_dir, reports_dir, out):
        if Path(given).is_symlink():  # before anything resolves it
            raise _refused(Path(given), "it is a symbolic link", "use", "it", _REAL)
    out = Path(os.path.abspath(out))
    check_out(out, [Path(receipts_dir), Path(reports_dir), Path(config_file).parent, Path.cwd()])
    for given in (receipts_dir, reports_dir):  # a site inside an input would be read as input
        if Path(given).resolve() in out.resolve().parents:
            raise _refused(out, f"it is inside {given}", "build into", "to build into it", _EMPTY)
    out.parent.mkdir(parents=True, exist_ok=True)
    # the folder is held: another build in it would remove ours as left over, prune our cache
    busy = (
        f"another build in {out.parent} is running (builds in one folder share its render "
        "cache); nothing written: wait for it to end, or build into a folder of its own"
    )
    with held_lock(out.parent, busy):
        remove_leftovers(out)
        if cache_dir is True:
            cache_dir = out.parent / CACHE_DIR_NAME
        for link in (Path(cache_dir) / d for d in ("", "render", "trash")) if cache_dir else ():
            if link.is_symlink():  # the build removes what it holds: files outside, followed
                raise _refused(link, "it is a symbolic link", "use", "it", _NO_LINK)
        cache = RenderCache(Path(cache_dir)) if cache_dir else None
        with named_as(out):
            tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
        collector = BufferingHandler(1 << 20)  # the warnings and errors mkdocs logs
        collector.setLevel(logging.WARNING)
        mk_log = logging.getLogger("mkdocs")
        mk_log.addHandler(collector)
        swapped = False
        try:
            cfg = load_config(str(config_file), site_dir=str(tmp), strict=True)
            plugin = cfg.plugins.get("driftproof")
            if plugin is None:
                raise SiteBuildError.at(config_file, "/plugins", "expected the plugin driftproof")
            plugin.job = (Path(receipts_dir), Path(reports_dir), cache, progress)
            build(cfg)
            mark_built(tmp)
            tmp.chmod(0o755)  # mkdtemp makes it private; a site is for reading
            swap(tmp, out)
            swapped = True
        except (MkDocsException, SystemExit) as exc:
            logged = [r.getMessage() for r in collector.buffer] or [str(exc)]
            lines = [Problem(str(config_file), "", m) for m in logged]
            raise SiteBuildError(f"mkdocs could not build the site: {exc}", lines) from None
        except OSError as exc:  # a page's bytes not written (a full disk) name no file: ``out``
            where = str(exc.filename or tmp).replace(str(tmp), str(out), 1)
            raise OSError(exc.errno, exc.strerror or str(exc), where) from exc
        finally:
            mk_log.removeHandler(collector)
            if swapped and cache is not None:
                discard(tmp, cache.folder / "trash")  # the old site
            else:
                with stops_held():  # a further stop: the stage is removed first
                    shutil.rmtree(tmp, ignore_errors=True)  # the new site on failure, or the old
        if cache is not None:
            cache.prune()
        names, reports = plugin.built
        return Published(names, reports)


def mark_built(folder: Path) -> None:
    """Write :data:`MARKER` into the site ``folder``: a later build may replace it."""
    (folder / MARKER).write_text(
        "A site built by `driftproof reports build`; the next build replaces or updates it.\n",
        encoding="utf-8",
    )


#: Removes the folder named by its one argument (run as a process of its own by :func:`discard`).
_REMOVE = "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)"


def discard(old: Path, trash: Path) -> None:
    """Move the folder ``old`` into ``trash`` and remove ``trash`` in a process that outlives this.

    Where the move fails, ``old`` is removed here.
    """
    try:
        trash.mkdir(parents=True, exist_ok=True)
        os.rename(old, trash / old.name)
        # a session of its own, never waited for: it outlives the build (and its kill), and holds
        # none of its streams (a caller reading them to their end would wait for the removal)
        quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
        cmd = [sys.executable, "-c", _REMOVE, str(trash)]
        os.posix_spawn(sys.executable, cmd, os.environ, file_actions=quiet, setsid=True)
    except OSError:
        shutil.rmtree(old, ignore_errors=True)


def swap(new: Path, out: Path) -> None:
    """Put the folder ``new`` in place of ``out`` in one atomic step.

    Exchanged with it (``renameat2(RENAME_EXCHANGE)``: ``new`` then holds the old site);
    where that fails, ``out`` is renamed aside first (``.<name>.old-*``).
    """
    if not os.path.lexists(out):
        os.rename(new, out)
        return
    exchange = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if exchange is not None and exchange(-100, bytes(new), -100, bytes(out), 2) == 0:  # AT_FDCWD
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.rename(out, old / "site")
    os.rename(new, out)
    shutil.rmtree(old, ignore_errors=True)


def remove_leftovers(out: Path) -> None:
    """Remove what a killed build of ``out`` left beside it (:data:`LEFTOVERS`)."""
    kinds = "|".join(map(re.escape, LEFTOVERS))
    left = re.compile(rf"\.{re.escape(out.name)}({kinds})[a-z0-9_]{{8}}")
    for entry in out.parent.iterdir():
        if left.fullmatch(entry.name) and entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)


_REAL = "name a real directory instead"
_NO_LINK = "remove it (the build makes its cache again), or build with --no-cache"
_EMPTY = "choose an empty or new --out directory"


def _refused(path: Path, why: str, verb: str, it: str, advice: str) -> SiteBuildError:
    return SiteBuildError(
        f"refusing to {verb} {path}: {why}; nothing was written",
        [Problem(str(path), "", f"refusing {it}: {why}; {advice}")],
    )


def check_out(out: Path, keep: list[Path]) -> None:
    """Refuse an ``out`` whose replacement would delete anything but a site built here.

    Raises:
        SiteBuildError: ``out`` is a symbolic link or a file, holds (or is) one of ``keep``,
            is a non-empty directory with no :data:`MARKER`, or is inside a folder with one.
    """

    def bad(why: str) -> SiteBuildError:
        return _refused(out, why, "replace", "to replace it", _EMPTY)

    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise bad("it is not a directory")
    real = out.resolve()
    for k in keep:
        k = k.resolve()
        if k == real or real in k.parents:
            raise bad(f"it holds {k}")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise bad(f"it is not a site built by driftproof (no {MARKER} file)")
    for site in real.parents:  # that site's next build would remove this one with it
        if (site / MARKER).is_file():
            why = f"it is inside {site}, a built site, which its next build replaces whole"
            raise _refused(out, why, "build into", "to build into it", "choose a folder outside it")
