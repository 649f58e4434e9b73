"""The folders of a new site that only worker processes wrote into, known without a walk
(issue 19).

A full build of 10,000 receipts writes 1,080,397 entries into its new site, almost all of
them receipts' case pages, written by the worker processes. By the end of the build the
file system no longer holds most of their metadata in memory: one walk of that site with an
``lstat`` of each entry took 224.9 s, against 11.7–29.7 s when warm. So a worker takes the
``lstat`` of each file and folder it writes there and then, while it is warm
(:func:`note_written`), and the build's end does not walk the folders only workers wrote
into: it takes their entries from what the workers saw (:class:`Owned`).

Why that is sound: a full build's site folder is new (``mkdtemp``) and only the build writes
into it: the workers, the build's own process and mkdocs (whose files are listed,
:attr:`driftproof.site._hook.Handover.foreign`). A folder under which none of the latter two
writes anything is the workers' alone. A folder written by a worker and moved into the site
whole (a rename) keeps the inode, size, modification and change times of everything in it;
a file moved on its own gets a new change time, and its folder is walked
(:meth:`driftproof.site._staging.Staging.take`). A plugin that wrote files outside mkdocs'
list into a receipt's folder would not be seen; the next build's walk of the site would
then find a tree that differs from the record and update the site (the safe direction).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path

from driftproof.site._stats import add_folders, stat_of

__all__ = ["OnDisk", "Owned", "mirror_copy", "note_written"]


@dataclasses.dataclass
class OnDisk:
    """What worker processes saw of the files they wrote into a new site, right after
    writing them. ``files``: site path: ``[size, mtime_ns, ctime_ns, inode, st_mode]``
    (:func:`driftproof.site._stats.stat_of`, then the mode); ``folders``: site path of every
    folder above those files: its ``st_mode``. Plain data, sent back from worker processes."""

    files: dict[str, list[int]] = dataclasses.field(default_factory=dict)
    folders: dict[str, int] = dataclasses.field(default_factory=dict)
    #: the pages also copied into the search mirror, with the sha256 of their bytes (hex)
    #: (:func:`mirror_copy`)
    mirrored: dict[str, str] = dataclasses.field(default_factory=dict)

    def update(self, other: OnDisk) -> None:
        self.files.update(other.files)
        self.folders.update(other.folders)
        self.mirrored.update(other.mirrored)


def note_written(on_disk: OnDisk, root: Path, rel: str) -> None:
    """Record in ``on_disk`` the ``lstat`` of the file ``root / rel`` just written (``rel``:
    ``/``-separated site path) and of each folder between it and ``root`` not yet recorded.

    Raises:
        OSError: the file or a folder cannot be looked at (the caller has just written it).
    """
    st = os.lstat(root / rel)
    on_disk.files[rel] = [*stat_of(st), st.st_mode]
    folder = rel.rpartition("/")[0]
    while folder and folder not in on_disk.folders:
        on_disk.folders[folder] = os.lstat(root / folder).st_mode
        folder = folder.rpartition("/")[0]


def mirror_copy(mirror: Path, rel: str, data: bytes) -> bool:
    """Write ``data`` as the page at site path ``rel`` of the search mirror ``mirror``
    (:func:`driftproof.site._site_dir.sync_mirror`), replacing the file there; whether it was
    written. A new file, never written through a link: whatever is at ``rel`` is unlinked
    first (a hard link's other names keep their bytes), and a folder above it that is not a
    real folder inside ``mirror`` (a symbolic link) leaves it unwritten (``False``), as does
    any failure; :func:`~driftproof.site._site_dir.sync_mirror` puts those right."""
    dest = mirror / rel
    try:
        inside = os.path.join(os.path.realpath(mirror), *rel.split("/")[:-1])
        if os.path.realpath(dest.parent) != inside:
            return False
        dest.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(dest)
        fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except OSError:
        return False
    return True


class Owned:
    """The folders of a new site that only workers wrote into (the topmost such folders:
    :attr:`entries`' keys), and every entry beneath each, as the workers saw it; and the
    pages they copied into the search mirror (:attr:`mirrored`).

    Args:
        on_disk: what the workers saw (:class:`OnDisk`).
        foreign: the site paths of every file something other than a worker wrote (or moved
            on its own) into the site: no folder above one of them is owned.
    """

    def __init__(self, on_disk: OnDisk, foreign: Iterable[str]) -> None:
        #: the pages the workers also copied into the search mirror, with their sha256
        self.mirrored = on_disk.mirrored
        not_owned = add_folders({""}, foreign)
        pure = {f for f in on_disk.folders if f not in not_owned}
        roots = {f for f in pure if f.rpartition("/")[0] not in pure}
        #: each owned folder: its entries below it (site path, ``st_mode``, the stat
        #: :func:`~driftproof.site._stats.stat_of` gives for a file, ``None`` for a folder)
        self.entries: dict[str, list[tuple[str, int, list[int] | None]]] = {r: [] for r in roots}
        for rel, mode in on_disk.folders.items():
            root = self._root(rel.rpartition("/")[0])
            if root is not None:
                self.entries[root].append((rel, mode, None))
        for rel, st in on_disk.files.items():
            root = self._root(rel.rpartition("/")[0])
            if root is not None:
                self.entries[root].append((rel, st[4], st[:4]))

    def _root(self, folder: str) -> str | None:
        """The owned folder that ``folder`` is, or lies under; ``None``: none."""
        while folder:
            if folder in self.entries:
                return folder
            folder = folder.rpartition("/")[0]
        return None
