"""The site folder of a build: the search index, the refusal to replace what is not a site,
and the swap that replaces it whole (:func:`driftproof.site.publish.build_site`).

Split from :mod:`driftproof.site.publish` by responsibility (issue 18).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from driftproof.errors import Problem, SiteBuildError
from driftproof.site._cache import key_of
from driftproof.site._staging import SiteFiles
from driftproof.site._stats import add_folders, stat_of

if TYPE_CHECKING:
    from driftproof.site._owned import Owned

__all__ = [
    "MARKER",
    "Collector",
    "apply",
    "check_out",
    "index_for_search",
    "replace",
    "searchable",
    "sync_mirror",
]


def index_for_search(
    site: Path,
    config_file: Path,
    kept: tuple[Path, Mapping[str, str]] | None = None,
    mirror: Path | None = None,
    known: Mapping[str, str] | None = None,
    owned: Owned | None = None,
) -> None:
    """Build the static search index with Pagefind (pinned; its binary ships in the ``pagefind_bin``
    wheel, so nothing is downloaded) into ``site/pagefind``. Deterministic: the same pages give
    the same bytes.

    Pagefind reads a mirror of the :func:`searchable` pages, so the receipts' case pages are
    never read (issue 19: the index grows with receipts, not with cases). ``kept``:
    ``(folder, {path: sha256 hex})`` of the files an incremental build keeps from the site it
    updates, which stand in the site as they are there. ``mirror``: a folder kept between
    builds of one site (in the build cache), brought up to date by :func:`sync_mirror`, so a
    rebuild writes only the pages that changed; without it, a temporary folder beside the
    site, removed afterwards. Pagefind runs in the mirror, without ``PAGEFIND_*`` variables:
    no setting from outside the build changes the index. ``known``: the sha256 (hex) of files
    the build has just written into ``site`` from bytes it hashed (not read again).
    ``owned``: the folders of ``site`` only workers wrote into, listed, not walked
    (:class:`driftproof.site._owned.Owned`).

    Raises:
        SiteBuildError: Pagefind failed (the build then stops; ``out`` stays untouched).
    """
    import subprocess
    import sys

    if mirror is not None:
        try:
            sync_mirror(mirror, Path(site), kept, known, owned)
        except OSError:  # a cache it cannot write only costs time: a mirror of its own
            mirror = None
    where = (
        mirror or Path(tempfile.mkdtemp(prefix=".driftproof-search-", dir=Path(site).parent))
    ).resolve()
    try:
        if mirror is None:
            sync_mirror(where, Path(site), kept, known, owned)
        # Pagefind also reads settings from PAGEFIND_* variables and a pagefind.yml (or
        # .toml, .json) in its working folder: neither is an input of the build, so it runs
        # without them, in the mirror (which holds nothing but pages)
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("PAGEFIND_")}
        res = subprocess.run(
            [sys.executable, "-m", "pagefind", "--site", str(where)]
            + ["--output-path", str(Path(site).resolve() / "pagefind"), "--silent"],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=where,
            env=env,
        )
    finally:
        if mirror is None:
            shutil.rmtree(where, ignore_errors=True)
    if res.returncode != 0:
        msg = (res.stderr or res.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SiteBuildError(
            f"the search index could not be built: {msg[0]}",
            [Problem(str(config_file), "", f"pagefind failed: {msg[0]}")],
        )


def sync_mirror(
    mirror: Path,
    site: Path,
    kept: tuple[Path, Mapping[str, str]] | None = None,
    known: Mapping[str, str] | None = None,
    owned: Owned | None = None,
) -> None:
    """Make ``mirror`` hold exactly the :func:`searchable` pages of ``site`` and of ``kept``
    (see :func:`index_for_search`), each with its bytes, and nothing else; ``known``: the
    sha256 (hex) of files of ``site`` by path, which are not read to hash them; ``owned``:
    folders of ``site`` whose files are taken from its list, not walked (each one's sha256
    is then in ``known``), and the pages the workers copied into ``mirror`` themselves, which
    are not read back to check them.

    A page the mirror already holds with the bytes it needs (the sha256 of what is there) is
    left alone; any other is copied in. A copy, not a link: linking or unlinking a site's
    file moves its change time, and the next build could no longer trust its stat
    (:mod:`driftproof.site._stats`). Anything else in the mirror is removed. A failure
    leaves a mirror the next call puts right.

    Raises:
        OSError: the mirror could not be written.
    """
    from driftproof.site._stats import file_sha

    want: dict[str, tuple[Path, str]] = {}  # path: (source, sha256 of its bytes)
    if kept is not None:
        for rel, sha in kept[1].items():
            if searchable(rel):
                want[rel] = (Path(kept[0]) / rel, sha)
    known = known or {}
    mirrored = owned.mirrored if owned is not None else {}
    for dirpath, dirs, filenames in os.walk(site):
        base = os.path.relpath(dirpath, site)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        for d in [d for d in dirs if owned is not None and prefix + d in owned.entries]:
            dirs.remove(d)  # issue 19: a folder only workers wrote into is not walked
            assert owned is not None  # (for mypy: the list is empty without it)
            for rel, mode, _st in owned.entries[prefix + d]:
                if stat.S_ISREG(mode) and searchable(rel):
                    want[rel] = (site / rel, known.get(rel) or file_sha(site / rel))
        for n in filenames:
            if searchable(prefix + n):
                src = Path(dirpath) / n
                want[prefix + n] = (src, known.get(prefix + n) or file_sha(src))
    mirror.mkdir(parents=True, exist_ok=True)
    for dirpath, dirnames, filenames in os.walk(mirror):
        base = os.path.relpath(dirpath, mirror)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        for d in [d for d in dirnames if prefix + d in want]:  # a folder where a page goes
            dirnames.remove(d)
            if not os.path.islink(os.path.join(dirpath, d)):
                shutil.rmtree(os.path.join(dirpath, d))
                continue
            filenames.append(d)
        for n in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            rel = prefix + n
            entry, st = want.get(rel), os.lstat(mirror / rel)
            if (
                entry is None
                or not stat.S_ISREG(st.st_mode)
                or (mirrored.get(rel) != entry[1] and file_sha(mirror / rel) != entry[1])
            ):
                os.unlink(mirror / rel)  # not wanted, or not the bytes wanted
            else:
                del want[rel]  # already there
    for rel, (src, _sha) in sorted(want.items()):
        dest = mirror / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)


def searchable(rel: str) -> bool:
    """Whether the search index takes the page at site path ``rel``: every HTML page but the
    receipts' case pages (``receipts/<name>/cases/<slug>/index.html``,
    :func:`driftproof.site.cases.case_url`), one per case of every receipt, which carry no
    ``data-pagefind-body``; their receipt's sheet, which lists and links every case, is in."""
    if not rel.endswith(".html") or rel.startswith("pagefind/"):
        return False
    parts = rel.split("/")
    return not (parts[0] == "receipts" and len(parts) >= 5 and parts[-3] == "cases")


#: A file in every built site: only a directory holding it (or nothing) is ever replaced.
MARKER = ".driftproof-site"


def check_out(out: Path, keep: list[Path]) -> None:
    """Refuse an ``out`` whose replacement would delete anything but a site built here.

    Raises:
        SiteBuildError: ``out`` is a file, holds (or is) an input, the working directory or
            one of its parents, or is a non-empty directory with no :data:`MARKER`.
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

    for k in keep:
        k = k.resolve()
        if k == out or out in k.parents:
            raise bad(f"it holds {k}")
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise bad("it is not a directory")
    if (
        out.is_dir()
        and any(out.iterdir())
        and not (out / MARKER).is_file()
        and not _legacy_site(out)
    ):
        raise bad(f"it is not a site built by driftproof (no {MARKER} file)")


def _legacy_site(out: Path) -> bool:
    # A site built before the marker existed: the files every build writes, nothing else.
    expected = {
        "index.html",
        "sitemap.xml",
        "sitemap.xml.gz",
        "404.html",
        "feed.xml",
        "assets",
        "spec",
        "receipts",
        "reports",
        "method",
        "neutrality",
        "interop",
        "results",
        "badge",
        "spec-page",
        "receipt-spec",
        "pagefind",
        "search",
        "decisions",
    }
    names = {p.name for p in out.iterdir()}
    return {"index.html", "feed.xml", "spec"} <= names and all(
        n in expected or (out / n / "index.html").is_file() for n in names
    )


def apply(new: Path, out: Path, kept: Iterable[str]) -> tuple[str, dict[str, list[int]]]:
    """Update the site ``out`` in place (an incremental build, issue 19) so that it holds
    exactly the files of the newly built ``new`` and the files ``kept`` (site paths whose
    bytes ``out`` already holds), as a clean build would: the same files and folders with
    the same bytes and modes (files ``0o666``, folders ``0o777``, less the umask; the root
    ``0o755``), and nothing else. Then ``new`` is removed.

    Returns what :func:`driftproof.site._stats.site_state` would find in ``out`` then, from
    the one walk that sets the modes: the tree key, and each file's stat
    (:func:`driftproof.site._stats.stat_of`) by site path.

    New files are placed first, then changed ones are moved over the old (``os.replace``: a
    reader sees the old file or the new one whole), then what is no longer built is taken
    away, so links do not point nowhere while it runs. A file whose bytes did not change
    keeps its inode and times: nothing is rewritten that did not change.

    Raises:
        SiteBuildError: a change could not be made; every change made before it is undone,
            so ``out`` is as it was.
    """
    keep = set(kept)
    built: list[str] = []
    for dirpath, _dirs, filenames in os.walk(new):
        base = os.path.relpath(dirpath, new)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        built += [prefix + n for n in filenames]
    wanted = keep.union(built)
    folders = add_folders(set(), wanted)
    held = SiteFiles(out)
    place = [
        rel
        for rel in built
        if rel not in keep  # linked in for the search index: the same file
        and not (
            os.path.getsize(new / rel) < _COMPARE_UP_TO
            and held.holds(rel, (new / rel).read_bytes())
        )
    ]
    place.sort(key=lambda rel: (os.path.lexists(out / rel), rel))  # new files first
    mask = os.umask(0)
    os.umask(mask)
    journal = _Journal(Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent)))
    rows: list[str] = []
    stats: dict[str, list[int]] = {}
    try:
        for rel in place:
            journal.place(new / rel, out, rel)
        _sweep(out, wanted, folders, journal, (0o666 & ~mask, 0o777 & ~mask), (rows, stats))
        if stat.S_IMODE(out.stat().st_mode) != 0o755:
            journal.chmod(out, 0o755)
    except OSError as exc:
        journal.undo()
        raise SiteBuildError(
            f"could not update {out}: {exc}; every change was undone",
            [Problem(str(out), "", f"could not update the site in place: {exc}")],
        ) from None
    finally:
        shutil.rmtree(journal.backup, ignore_errors=True)
    shutil.rmtree(new, ignore_errors=True)
    rows.sort()
    return key_of(*rows), stats


class _Journal:
    """The changes :func:`apply` made to a site, to undo in reverse order if one fails; what
    it replaces or takes away waits in ``backup`` (beside the site: the same file system)."""

    def __init__(self, backup: Path) -> None:
        self.backup = backup
        self.steps: list[tuple[str, Path, Path | int | None]] = []

    def _aside(self) -> Path:
        return self.backup / str(len(self.steps))

    def set_aside(self, path: Path) -> None:
        """Take ``path`` (a file, link or folder) out of the site."""
        aside = self._aside()
        os.rename(path, aside)
        self.steps.append(("aside", path, aside))

    def chmod(self, path: Path, mode: int) -> None:
        old = stat.S_IMODE(os.lstat(path).st_mode)
        os.chmod(path, mode)
        self.steps.append(("mode", path, old))

    def place(self, src: Path, out: Path, rel: str) -> None:
        """Move ``src`` to ``out/rel``: folders made, and a file or link where a folder must
        go (or a folder where the file must go) set aside."""
        dest = out / rel
        q = out
        for part in rel.split("/")[:-1]:
            q = q / part
            if os.path.islink(q) or (os.path.lexists(q) and not os.path.isdir(q)):
                self.set_aside(q)
            if not os.path.lexists(q):
                os.mkdir(q)
                self.steps.append(("mkdir", q, None))
        if os.path.lexists(dest) and (os.path.islink(dest) or not os.path.isfile(dest)):
            self.set_aside(dest)
        if os.path.lexists(dest):
            aside = self._aside()
            os.link(dest, aside)  # the old file, to put back
            os.replace(src, dest)
            self.steps.append(("replaced", dest, aside))
        else:
            os.replace(src, dest)
            self.steps.append(("placed", dest, None))

    def undo(self) -> None:
        """Put every change back, last first (best effort: a step that fails is passed)."""
        for kind, path, extra in reversed(self.steps):
            with contextlib.suppress(OSError):
                if kind == "placed":
                    os.unlink(path)
                elif kind == "replaced" and isinstance(extra, Path):
                    os.replace(extra, path)
                elif kind == "aside" and isinstance(extra, Path):
                    os.rename(extra, path)
                elif kind == "mkdir":
                    os.rmdir(path)
                elif kind == "mode" and isinstance(extra, int):
                    os.chmod(path, extra)


def _sweep(
    out: Path,
    wanted: set[str],
    folders: set[str],
    journal: _Journal,
    modes: tuple[int, int],
    found: tuple[list[str], dict[str, list[int]]],
) -> None:
    """Set aside every entry of ``out`` that is not a wanted file or a folder holding one,
    and give the rest the modes a clean build gives (``modes``: a file's, a folder's).
    ``found``: filled with what stays, as :func:`driftproof.site._stats.site_state` words it
    (a row of path and mode for every entry; each file's stat)."""
    rows, stats = found
    stack: list[tuple[str, str]] = [("", str(out))]
    while stack:
        prefix, folder = stack.pop()
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            rel = prefix + e.name
            is_dir = e.is_dir(follow_symlinks=False)
            if (rel in folders) if is_dir else (rel in wanted and e.is_file(follow_symlinks=False)):
                st = e.stat(follow_symlinks=False)
                mode = modes[1] if is_dir else modes[0]
                if stat.S_IMODE(st.st_mode) != mode:
                    journal.chmod(Path(e.path), mode)
                    st = os.lstat(e.path)  # its mode, and (a file) its change time, moved
                rows.append(f"{rel}\0{st.st_mode:o}")
                if is_dir:
                    stack.append((rel + "/", e.path))
                else:
                    stats[rel] = stat_of(st)
            else:
                journal.set_aside(Path(e.path))


#: Files this large are moved over their old copy without comparing bytes first.
_COMPARE_UP_TO = 64 << 20


def replace(new: Path, out: Path) -> None:
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        old.rmdir()
        out.rename(old)
    new.rename(out)
    out.chmod(0o755)  # mkdtemp makes it private; a site is for reading
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


class Collector(logging.Handler):
    """Keeps the messages of warnings and errors logged while it is attached."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
