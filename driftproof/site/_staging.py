"""Where the generated files wait for mkdocs (issue 19): on disk, not in memory.

:func:`driftproof.site.build.generate_site` hands each file to :meth:`Staging.put` as it is
made; it is written at once, straight into the folder mkdocs builds the site into
(``into``; or, without it, into a private folder beside the site, which mkdocs *links* into
the site instead of copying), and mkdocs gets a :class:`StagedFile` for it, which it leaves
where it is. So the build holds no page in memory after it is made, and writes each byte
once. Files worker processes wrote beside the site are moved in whole (:meth:`Staging.take`).

An incremental build (issue 19) gives :class:`Staging` the site it updates (``previous``): a
file whose bytes equal that site's file at the same path is not written at all; it is
*kept* (:attr:`Staging.kept`, with the sha256 of its bytes), and
:func:`driftproof.site._site_dir.apply` leaves it in place.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.structure.files import File

from driftproof.site._owned import OnDisk

if TYPE_CHECKING:
    from driftproof.site._link_digest import PagesChecked
    from driftproof.site._parallel_render import Rendered

__all__ = [
    "KeptFile",
    "ReceiptFiles",
    "SiteFiles",
    "StagedFile",
    "Staging",
    "same_file_bytes",
]


class StagedFile(File):
    """A generated file backed by a staged file, linked (not copied) into the site."""

    def copy_file(self, dirty: bool = False) -> None:
        assert self.abs_src_path is not None  # made by Staging.file, always with a path
        dest = self.abs_dest_path
        if os.path.abspath(self.abs_src_path) == os.path.abspath(dest):
            return  # staged in the site folder itself: already in place
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        try:
            os.link(self.abs_src_path, dest)
        except OSError:
            shutil.copyfile(self.abs_src_path, dest)


class SiteFiles:
    """The files of a site an incremental build updates, read only through real folders:
    a file below a symbolic link (put into a built site by hand) is never taken as kept."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._base = os.path.join(str(self.root), "")  # the root, with a separator after it
        self._real: dict[str, bool] = {"": True}

    def holds(self, rel: str, data: bytes) -> bool:
        """Whether the site holds exactly ``data`` at site path ``rel``."""
        return self._real_folder(rel.rpartition("/")[0]) and same_file_bytes(self.root / rel, data)

    def real_folder(self, rel: str) -> bool:
        """Whether the folder at site path ``rel`` is a real folder reached through real ones."""
        return self._real_folder(rel)

    def _real_folder(self, rel: str) -> bool:
        real = self._real.get(rel)
        if real is None:
            st = self.lstat(rel) if self._real_folder(rel.rpartition("/")[0]) else None
            real = st is not None and stat.S_ISDIR(st.st_mode)  # a link's lstat is no folder
            self._real[rel] = real
        return real

    def lstat(self, rel: str) -> os.stat_result | None:
        """``os.lstat`` of site path ``rel``, ``None`` when there is nothing to read (string
        work, not :class:`~pathlib.Path`: it runs once per kept file of 50,000, issue 19)."""
        try:
            return os.lstat(self._base + rel)
        except OSError:
            return None


def same_file_bytes(path: Path, data: bytes) -> bool:
    """Whether ``path`` is a regular file (not a link) holding exactly ``data``."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
            return False
        with open(path, "rb") as fh:
            return fh.read(len(data) + 1) == data
    except OSError:
        return False


@dataclass(frozen=True)
class ReceiptFiles:
    """One receipt's share of a build: the key of its rendering's inputs, the site paths of
    its files, and its results row (a :class:`driftproof.results.ResultRow` as a dict)."""

    key: str
    paths: list[str]
    row: dict[str, Any]


class KeptFile(File):
    """A generated file the site being updated already holds with the same bytes: mkdocs
    knows of it (its link checks see it) and writes nothing for it."""

    def copy_file(self, dirty: bool = False) -> None:
        return None


class Staging:
    """A private folder under ``beside`` holding one build's generated files; or, with
    ``into``, the folder mkdocs builds the site into, so that each generated file is written
    where the site needs it, once, and neither linked nor removed afterwards (issue 19).

    Args:
        beside: the folder to make it in (the site's parent: the same file system).
        previous: the site an incremental build updates; a file whose bytes are already
            there at the same path is kept, not written.
        into: the site folder of the build (mkdocs has already emptied it when its ``files``
            event runs); :meth:`remove` then leaves it alone.
    """

    def __init__(
        self,
        beside: Path,
        previous: Path | None = None,
        record: Mapping[str, Any] | None = None,
        *,
        into: Path | None = None,
    ) -> None:
        self.in_place = into is not None
        if into is not None:
            self.root = Path(into)
            self.root.mkdir(parents=True, exist_ok=True)
        else:
            Path(beside).mkdir(parents=True, exist_ok=True)
            self.root = Path(tempfile.mkdtemp(prefix=".driftproof-generated-", dir=beside))
        self.previous = previous
        self._site = SiteFiles(previous) if previous is not None else None
        self._record = record or {}
        self.paths: list[str] = []
        self.kept: dict[str, str] = {}
        #: files other processes wrote (:meth:`adopt`), with the sha256 of their bytes (hex)
        self.written: dict[str, str] = {}
        #: each receipt's render key, its files and its results row (for the next record)
        self.receipts: dict[str, ReceiptFiles] = {}
        #: the link checks of adopted files done where they were written (issue 19)
        self.checked: list[PagesChecked] = []
        #: what the processes that wrote the adopted files saw of them (issue 19)
        self.on_disk = OnDisk()
        #: files :meth:`take` moved on their own (not in a whole folder): their change
        #: time is no longer the one their writer saw
        self.moved_alone: set[str] = set()

    def reuse(self, name: str, key: str) -> ReceiptFiles | None:
        """The files of receipt ``name`` as the previous build wrote them, kept whole, when
        that build rendered it from the same inputs (``key``) and every one of its files is
        still the file it wrote: a regular file in real folders whose size, modification and
        change times and inode the record vouches for (:func:`driftproof.site._stats.trusted`,
        against the record's ``at``); else ``None`` and nothing kept."""
        from driftproof.site._stats import trusted

        entry = self._record.get(name)
        if self._site is None or not isinstance(entry, dict) or entry.get("key") != key:
            return None
        at = self._record.get("", 0)  # the record's moment, under a key no receipt can have
        site = self._site
        try:
            files = {str(p): list(v) for p, v in entry["files"].items()}
            row = dict(entry["row"])
            for path, (_sha, size, mtime_ns, ino, ctime_ns) in files.items():
                if not site.real_folder(path.rpartition("/")[0]):
                    return None
                st = site.lstat(path)
                if (
                    st is None
                    or not stat.S_ISREG(st.st_mode)
                    or not trusted([size, mtime_ns, ctime_ns, ino], st, at)
                ):
                    return None
        except (KeyError, TypeError, ValueError):
            return None
        shas = {path: str(v[0]) for path, v in files.items()}
        self.kept.update(shas)
        done = ReceiptFiles(key, sorted(shas), row)
        self.receipts[name] = done
        return done

    def put(self, path: str, data: bytes) -> None:
        """Write the file at site path ``path`` (relative, ``/``-separated), or keep the
        previous site's file when it holds the same bytes."""
        if self._site is not None and self._site.holds(path, data):
            self.kept[path] = hashlib.sha256(data).hexdigest()
            return
        p = self.root / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        self.paths.append(path)

    def adopt(self, rendered: Rendered) -> None:
        """Record files another process wrote under :attr:`root` and those it kept from the
        previous site (:class:`~driftproof.site._parallel_render.Rendered`: site path, sha256
        hex of its bytes; :attr:`written` keeps the former), that process's check of their
        links (:attr:`checked`) and what it saw of them on disk (:attr:`on_disk`)."""
        self.paths.extend(rendered.written)
        self.written.update(rendered.written)
        self.kept.update(rendered.kept)
        if rendered.links is not None:
            self.checked.append(rendered.links)
        self.on_disk.update(rendered.on_disk)

    def take(self, folder: Path, _under: str = "") -> None:
        """Move every file under ``folder`` (written by worker processes, site paths below
        it) into :attr:`root`: a whole folder at once where :attr:`root` has none of that
        name yet (what is in it keeps its stat); a file moved on its own is listed in
        :attr:`moved_alone`. The caller records the paths (:meth:`adopt`)."""
        for entry in sorted(os.listdir(folder)):
            src, dest = Path(folder) / entry, self.root / _under / entry
            if src.is_dir() and not src.is_symlink() and dest.is_dir():
                self.take(src, f"{_under}{entry}/")
            else:
                if not src.is_dir() or src.is_symlink():
                    self.moved_alone.add(_under + entry)
                shutil.move(src, dest)  # a rename on the same file system

    def file(self, config: Any, path: str) -> File:
        """The mkdocs file for a staged ``path``, or for a kept one."""
        if path in self.kept and self.previous is not None:
            return KeptFile.generated(config, path, abs_src_path=str(self.previous / path))
        return StagedFile.generated(config, path, abs_src_path=str(self.root / path))

    def remove(self) -> None:
        """Remove the folder (the site keeps its own links to the files); a staging in the
        site folder itself (``into``) is left to the build that owns that folder."""
        if not self.in_place:
            shutil.rmtree(self.root, ignore_errors=True)
