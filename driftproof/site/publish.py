"""``make reports``: ``site = render(load(receipts, reports))``, swapped in whole.

:func:`build_site` is the one build entry point. It refuses unsafe paths (symbolic links
among the inputs or as ``out``, checked before anything is resolved), removes what a killed
build left beside ``out``, and has mkdocs (strict) build into a new folder beside ``out``:
the ``driftproof`` plugin (:mod:`driftproof.site._plugin`) reads, checks and renders every
receipt and report into it, then checks its internal links and writes its search index.
Only then is the new folder swapped with ``out`` in one atomic exchange. Killed at any
moment, ``out`` is the old site or the new one, whole. With a render cache, the old site is
moved into the cache's ``trash`` folder and removed after the build returns (:func:`discard`).
"""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from driftproof.errors import Problem, SiteBuildError
from driftproof.site.cache import CACHE_DIR_NAME, RenderCache
from driftproof.site.inputs import Progress, SiteInputs, load_inputs
from driftproof.site.report_source import Report

__all__ = ["MARKER", "Published", "SiteInputs", "build_site", "check_out", "discard", "load_inputs"]

#: A file in every built site: only a directory holding it (or nothing) is ever replaced.
MARKER = ".driftproof-site"

#: What a killed build may leave beside ``out`` (``.<out name>`` then one of these): removed
#: by the next build of ``out``.
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
    """Check the inputs, build with mkdocs (strict) and replace ``out`` only on success.

    Args:
        receipts_dir: the receipts folder.
        reports_dir: the reports folder.
        out: the site folder, replaced whole.
        config_file: the mkdocs config.
        cache_dir: the render cache folder; ``True`` (default) for ``.driftproof-cache``
            beside ``out``, ``None`` or ``False`` for none. It never changes an output byte.
        progress: called as ``progress(phase, done, total)``.

    Returns:
        The receipts' names and the reports published.

    Raises:
        SiteBuildError: an input or ``out`` is refused, an input is invalid (one problem per
            bad place), a link is broken or mkdocs failed; ``out`` is untouched.
    """
    for given in (receipts_dir, reports_dir, out):
        if Path(given).is_symlink():  # before anything resolves it
            raise _refused(Path(given), "it is a symbolic link")
    out = Path(os.path.abspath(out))
    check_out(out, [Path(receipts_dir), Path(reports_dir), Path(config_file).parent, Path.cwd()])
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(out)
    if cache_dir is True:
        cache_dir = out.parent / CACHE_DIR_NAME
    cache = RenderCache(Path(cache_dir)) if cache_dir else None
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    collector = Collector()
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
        (tmp / MARKER).write_text(
            "A site built by `driftproof reports build`; the next build replaces or updates it.\n",
            encoding="utf-8",
        )
        tmp.chmod(0o755)  # mkdtemp makes it private; a site is for reading
        swap(tmp, out)
        swapped = True
    except (MkDocsException, SystemExit) as exc:
        lines = [Problem(str(config_file), "", m) for m in collector.messages] or [
            Problem(str(config_file), "", str(exc))
        ]
        raise SiteBuildError(f"mkdocs could not build the site: {exc}", lines) from None
    finally:
        mk_log.removeHandler(collector)
        if swapped and cache is not None:
            discard(tmp, cache.folder / "trash")  # the old site
        else:
            shutil.rmtree(tmp, ignore_errors=True)  # the new site on failure, or the old one
    if cache is not None:
        cache.prune()
    names, reports = plugin.built
    return Published(names, reports)


#: Removes the folder named by its one argument (run as a process of its own by :func:`discard`).
_REMOVE = "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)"


def discard(old: Path, trash: Path) -> None:
    """Remove the folder ``old`` after the build returns.

    It is moved into ``trash`` (beside it, on the same file system) and ``trash`` is removed by
    a process of its own that outlives this one; where the move fails, ``old`` is removed here.
    Anything an earlier removal left in ``trash`` goes with it.
    """
    try:
        trash.mkdir(parents=True, exist_ok=True)
        os.rename(old, trash / old.name)
        # a session of its own, never waited for: it outlives the build (and its kill)
        os.posix_spawn(
            sys.executable, [sys.executable, "-c", _REMOVE, str(trash)], os.environ, setsid=True
        )
    except OSError:
        shutil.rmtree(old, ignore_errors=True)


def swap(new: Path, out: Path) -> None:
    """Put the folder ``new`` in place of ``out`` in one atomic step.

    Exchanged with it (``renameat2(RENAME_EXCHANGE)``, so ``new`` then holds the old site) or,
    where ``out`` does not exist, renamed to it. Where the file system cannot exchange, ``out``
    is renamed aside first (to ``.<name>.old-*``, removed by the next build).
    """
    if not os.path.lexists(out):
        os.rename(new, out)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    exchange = getattr(libc, "renameat2", None)
    at_cwd, rename_exchange = -100, 2
    if (
        exchange is not None
        and exchange(at_cwd, bytes(new), at_cwd, bytes(out), rename_exchange) == 0
    ):
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.rename(out, old / "site")
    os.rename(new, out)
    shutil.rmtree(old, ignore_errors=True)


def remove_leftovers(out: Path) -> None:
    """Remove what a killed build of ``out`` left beside it (:data:`LEFTOVERS`)."""
    for entry in out.parent.iterdir():
        if any(entry.name.startswith(f".{out.name}{kind}") for kind in LEFTOVERS):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)


def _refused(out: Path, why: str) -> SiteBuildError:
    return SiteBuildError(
        f"refusing to use {out}: {why}; nothing was written",
        [Problem(str(out), "", f"refusing it: {why}; name a real directory instead")],
    )


def check_out(out: Path, keep: list[Path]) -> None:
    """Refuse an ``out`` whose replacement would delete anything but a site built here.

    Raises:
        SiteBuildError: ``out`` is a symbolic link or a file, holds (or is) an input, the
            working directory or one of its parents, or is a non-empty directory with no
            :data:`MARKER`.
    """

    def bad(why: str) -> SiteBuildError:
        return SiteBuildError(
            f"refusing to replace {out}: {why}; nothing was written",
            [
                Problem(
                    str(out),
                    "",
                    f"refusing to replace it: {why}; choose an empty or new --out directory",
                )
            ],
        )

    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise bad("it is not a directory")
    real = out.resolve()
    for k in keep:
        k = k.resolve()
        if k == real or real in k.parents:
            raise bad(f"it holds {k}")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise bad(f"it is not a site built by driftproof (no {MARKER} file)")


class Collector(logging.Handler):
    """Keeps the messages of warnings and errors logged while it is attached."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
