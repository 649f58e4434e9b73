"""The per-receipt render cache: a rebuild renders only the receipts that changed.

Entries are keyed by everything a receipt's files depend on (its sha256, name, citing reports,
the site's navigation and name, the code and templates). An entry is one zip written whole
with one rename; one that cannot be read, or is not as written, is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import tempfile
import zipfile
from functools import cache
from pathlib import Path

import driftproof
from driftproof._anchor import stays_inside

#: The cache folder's name beside the site folder.
CACHE_DIR_NAME = ".driftproof-cache"

#: Libraries whose version changes what a page holds.
_LIBRARIES = ("jinja2", "markupsafe", "markdown-it-py", "matplotlib", "mkdocs", "pydantic")


def key_of(*parts: bytes | str) -> str:
    """sha256 (hex) over length-prefixed parts: no two different part lists share a key."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        h.update(f"{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


def tree_key(folder: Path) -> str:
    """The sha256 (hex) of the names and bytes under ``folder`` but ``__pycache__`` (or ``""``)."""
    root = Path(folder)
    if not root.is_dir():
        return ""
    found: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        found += [
            ((Path(dirpath) / n).relative_to(root).as_posix(), Path(dirpath) / n) for n in filenames
        ]
    return key_of(*(part for rel, q in sorted(found) for part in (rel, q.read_bytes())))


@cache
def _package_key() -> str:
    versions = []
    for name in _LIBRARIES:
        try:
            versions.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name} missing")
    package = Path(driftproof.__file__).resolve().parent
    return key_of(driftproof.__version__, tree_key(package), *versions)


def code_key(templates: Path) -> str:
    """The sha256 (hex) of the package, the ``templates`` folder and the rendering libraries."""
    return key_of(_package_key(), tree_key(templates))


#: The member of an entry that lists its key and each file's sha256 (never a site path).
_MANIFEST = ".driftproof-manifest.json"


def _digests(files: dict[str, bytes]) -> dict[str, str]:
    return {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}


class RenderCache:
    """Rendered files by key in ``folder``; ``used`` holds the keys read or written since."""

    def __init__(self, folder: Path) -> None:
        """A cache kept in ``folder``."""
        self.folder = Path(folder)
        self.used: set[str] = set()

    def _path(self, key: str) -> Path:
        return self.folder / "render" / key[:2] / f"{key}.zip"

    def get(self, key: str) -> dict[str, bytes] | None:
        """The files under ``key``, or None: not as written (manifest) or a name leaves the site."""
        try:
            if not self._path(key).is_file():  # a FIFO there would block the build
                return None
            with zipfile.ZipFile(self._path(key)) as z:
                files = {n: z.read(n) for n in z.namelist()}
            manifest = json.loads(files.pop(_MANIFEST))
        except (OSError, zipfile.BadZipFile, ValueError, RuntimeError, EOFError, KeyError):
            return None
        if manifest != {"key": key, "files": _digests(files)} or not all(map(stays_inside, files)):
            return None
        self.used.add(key)
        return files

    def put(self, key: str, files: dict[str, bytes]) -> None:
        """Keep ``files`` under ``key``; a cache that cannot be written only saves nothing."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
            try:
                manifest = {"key": key, "files": _digests(files)}
                entry = {**files, _MANIFEST: json.dumps(manifest, sort_keys=True).encode()}
                with os.fdopen(fd, "wb") as fh, zipfile.ZipFile(fh, "w") as z:
                    for name, data in entry.items():
                        z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data)
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            return
        self.used.add(key)

    def prune(self) -> None:
        """Remove every entry (and leftover temporary file) not used since this cache was made."""
        for dirpath, _dirs, filenames in os.walk(self.folder / "render"):
            for n in filenames:
                if n.removesuffix(".zip") not in self.used:
                    Path(dirpath, n).unlink(missing_ok=True)
