"""Files a build may take as unchanged by their ``lstat``, without reading them (issue 19).

A rebuild with nothing changed must not read every byte of the receipts and of the site to
find that out: like git's index and make, the site record keeps, with each file's sha256,
its size, modification time, change time and inode (:func:`stat_of`), and a file whose
``lstat`` still gives all four is taken to hold the bytes recorded. The change time cannot
be set by hand: any write to the file, or ``touch``, moves it.

A file changed within the same clock tick as the moment its stat was recorded could keep all
four ("racily clean", in git's words); so a stat is trusted only when the recorded change
time is at least :data:`RACY_NS` older than the moment the record was taken (``at``).
Anything else is read and hashed as before.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from driftproof.site._cache import key_of

if TYPE_CHECKING:
    from driftproof.site._owned import Owned

__all__ = [
    "RACY_NS",
    "add_folders",
    "file_sha",
    "folder_digests",
    "site_files_digest",
    "site_state",
    "site_tree_key",
    "stat_of",
    "trusted",
]

#: A recorded stat whose change time is closer than this to the record's moment is not
#: trusted (nanoseconds; file system clocks tick far more finely).
RACY_NS = 1_000_000_000


def add_folders(folders: set[str], paths: Iterable[str]) -> set[str]:
    """``folders`` with every folder above each site path of ``paths`` added
    (``a/b/c.html``: ``a/b``, ``a``); string work, no path objects (issue 19: 50,000 paths)."""
    for rel in paths:
        while "/" in rel:
            rel = rel.rpartition("/")[0]
            if rel in folders:
                break  # and so is every folder above it
            folders.add(rel)
    return folders


def stat_of(st: os.stat_result) -> list[int]:
    """``[size, mtime_ns, ctime_ns, inode]`` of an ``lstat`` result (as the record keeps it)."""
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def trusted(recorded: Sequence[Any] | None, st: os.stat_result, at: Any) -> bool:
    """Whether a file whose ``lstat`` is ``st`` may be taken as the one recorded (first four
    items: :func:`stat_of`) at the moment ``at`` (``time.time_ns()``): the same four values,
    and a recorded change time at least :data:`RACY_NS` before ``at``. A damaged record is
    never trusted."""
    try:
        return (
            recorded is not None
            and [int(v) for v in recorded[:4]] == stat_of(st)
            and int(recorded[2]) < int(at) - RACY_NS
        )
    except (TypeError, ValueError, IndexError):
        return False


def folder_digests(
    folder: Path,
    trust: tuple[dict[str, Any], int] = ({}, 0),
    seen: dict[str, Any] | None = None,
) -> dict[str, str]:
    """``{path under folder: sha256 hex}`` of every regular file, and a word for every other
    entry (``link``, ``folder``, ``not a regular file``, ``unreadable``), which is never
    opened: the build that reads the inputs refuses those in its own words. A file whose stat
    ``trust`` (recorded stats by path, and their moment) vouches for is not read. ``seen``:
    each file's stat and sha256, by path, for the next build."""
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    recorded, at = trust
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            rel = p.relative_to(folder).as_posix()
            try:
                st = p.lstat()
            except OSError:
                out[rel] = "unreadable"
                continue
            if stat.S_ISLNK(st.st_mode):
                out[rel] = "link"
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = "folder"  # a folder named like a receipt is refused when read
            elif not stat.S_ISREG(st.st_mode):
                out[rel] = "not a regular file"  # a FIFO or socket is never opened here
            else:
                before = recorded.get(str(p))
                vouched = before is not None and len(before) > 4 and trusted(before, st, at)
                try:
                    sha = str(before[4]) if vouched and before is not None else file_sha(p)
                except OSError:
                    out[rel] = "unreadable"
                    continue
                out[rel] = sha
                if seen is not None:
                    seen[str(p)] = [*stat_of(st), sha]
    return out


def file_sha(p: Path) -> str:
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
    site: Path,
    *,
    hash_files: bool = True,
    known: Mapping[str, str] | None = None,
    stats: dict[str, list[int]] | None = None,
    trust: tuple[Mapping[str, Any], Any] | None = None,
    listing: tuple[set[str], set[str]] | None = None,
    owned: Owned | None = None,
) -> tuple[dict[str, str], str]:
    """:func:`site_files_digest` and :func:`site_tree_key` in one walk of ``site`` (each
    entry looked at once, with ``lstat``); without ``hash_files`` the digest is empty.
    ``known``: the sha256 (hex) of files this build has just written from bytes it hashed
    (path under ``site``); a regular file listed there is not read again. ``stats``: filled
    with each regular file's stat (:func:`driftproof.site._stats.stat_of`). ``trust``: a
    record's stats and their moment: a file whose stat they vouch for
    (:func:`driftproof.site._stats.trusted`) is taken with the sha256 ``known`` gives it.
    ``listing``: ``(files, folders)``, filled with every entry's path as :func:`os.walk`
    sorts them (a link to a folder is a folder, not followed), for the link check.
    ``owned``: folders of a new site only workers wrote into, not walked: their entries, and
    their files' stats, are those the workers saw (:class:`driftproof.site._owned.Owned`;
    each file's sha256 is in ``known``)."""
    known = known or {}
    vouched, at = trust if trust is not None else ({}, 0)
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
                if listing is not None:
                    is_dir = stat.S_ISDIR(st.st_mode) or (
                        stat.S_ISLNK(st.st_mode) and _points_to_folder(e)
                    )
                    listing[1 if is_dir else 0].add(rel)
                if stat.S_ISDIR(st.st_mode) and owned is not None and rel in owned.entries:
                    _add_owned(
                        owned.entries[rel],
                        site,
                        (known, stats, listing),
                        files if hash_files else None,
                        rows,
                    )
                elif stat.S_ISDIR(st.st_mode):
                    stack.append((rel + "/", e.path))
                elif stat.S_ISREG(st.st_mode):
                    if stats is not None:
                        stats[rel] = stat_of(st)
                    if not hash_files:
                        continue
                    sha = known.get(rel)
                    if trust is not None and (sha is None or not trusted(vouched.get(rel), st, at)):
                        sha = None  # a record's digest stands only for a file its stat vouches for
                    files[rel] = sha or file_sha(Path(e.path))
    rows.sort()
    return files, key_of(*rows)


def _add_owned(
    entries: Iterable[tuple[str, int, list[int] | None]],
    site: Path,
    wanted: tuple[Mapping[str, str], dict[str, list[int]] | None, tuple[set[str], set[str]] | None],
    files: dict[str, str] | None,
    rows: list[str],
) -> None:
    """:func:`site_state`'s account of an owned folder's ``entries`` (site path, mode, stat
    of a file or ``None``); ``wanted``: its ``known``, ``stats`` and ``listing``; ``files``:
    ``None`` without ``hash_files``."""
    known, stats, listing = wanted
    for rel, mode, st in entries:
        rows.append(f"{rel}\0{mode:o}")
        if listing is not None:
            listing[0 if st is not None else 1].add(rel)
        if st is None or not stat.S_ISREG(mode):
            continue
        if stats is not None:
            stats[rel] = st  # the list the workers sent: shared, not copied (issue 19: memory)
        if files is not None:
            files[rel] = known.get(rel) or file_sha(site / rel)


def _points_to_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # followed, as os.walk does
    except OSError:
        return False
