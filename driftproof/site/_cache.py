"""The build cache (issue 19): content-addressed, local, removable at any time.

``driftproof reports build`` keeps it in ``.driftproof-cache/`` beside the site it builds
(gitignored). Everything in it is addressed by sha256 — of a receipt's exact bytes, and of
every input of a rendered page — under a *product key*: the sha256 of Driftproof's version,
every file of the installed package and every template. A change of code or template
therefore never reuses an entry, and deleting the folder changes no output byte: an entry
only ever saves recomputing what it holds.

Layout (under ``<root>/<product key>/``)::

    valid/<aa>/<sha256>      a receipt whose bytes hash to <sha256> passed every check
                             (bounds, schema, seal, model, consistency) under this product;
                             the entry holds its summary (driftproof.site._loaded)
    pages/<aa>/<key>         the files one rendering produced (see :func:`pack`)
    links.sqlite3            the ids and resolved internal links of each HTML page, keyed
                             by its path and its bytes' sha256 (driftproof.site.links)
    pages/<aa>/<key>         a chart's SVG, keyed by the chart function and all its arguments
                             (:func:`cached_chart`)

Writes are atomic (a temporary file and ``os.replace``), so concurrent builds and worker
processes share the cache safely; a corrupt or truncated entry is ignored and replaced.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import driftproof
from driftproof.receipt._seal import atomic_write
from driftproof.site._paths import templates_dir

__all__ = [
    "CACHE_DIR_NAME",
    "BuildCache",
    "cached_chart",
    "key_of",
    "pack",
    "product_key",
    "tree_key",
    "unpack",
    "using",
]

#: The cache folder's name (in .gitignore).
CACHE_DIR_NAME = ".driftproof-cache"
_MAGIC = b"driftproof-cache-2\n"
#: The largest entry :func:`unpack` inflates (bytes): a damaged entry's claimed size is not
#: taken on trust (a receipt's files take about 0.65 MB).
MAX_ENTRY_BYTES = 1 << 30


@cache
def product_key() -> str:
    """sha256 over Driftproof's version, every file of the package and the templates, and the
    name and version of every installed distribution (a library upgraded changes what a build
    writes, so it changes every cache entry's key) (hex); one reading per process."""
    import importlib.metadata

    package = Path(driftproof.__file__).resolve().parent
    installed = sorted(
        f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()
    )
    return key_of(
        f"driftproof {driftproof.__version__}",
        *(tree_key(root) if root.is_dir() else "" for root in (package, templates_dir())),
        "\0".join(installed),
    )


def tree_key(folder: Path) -> str:
    """sha256 (hex) of every file under ``folder`` (names and bytes), e.g. a templates folder
    given by a config rather than the package's own; read afresh at each call (a long
    process may see edits between two builds), following linked folders as mkdocs does
    (each real folder once)."""
    h = hashlib.sha256()
    root = Path(folder)
    found: list[tuple[str, Path]] = []
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in seen:
            dirnames[:] = []  # a link back into a folder already read
            continue
        seen.add(real)
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for n in filenames:
            q = Path(dirpath) / n
            if q.is_file():
                found.append((q.relative_to(root).as_posix(), q))
    for rel, q in sorted(found):
        data = q.read_bytes()
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def key_of(*parts: bytes | str) -> str:
    """sha256 (hex) over length-prefixed parts: no two different part lists share a key."""
    h = hashlib.sha256()
    for part in parts:
        b = part.encode("utf-8") if isinstance(part, str) else part
        h.update(f"{len(b)}:".encode())
        h.update(b)
    return h.hexdigest()


def pack(files: Mapping[str, bytes]) -> bytes:
    """Named byte strings as one cache entry: a magic line, then one Zstandard frame (level
    1, with its content size) of a JSON header of names and sizes and the bytes.

    Compressed because a full build writes one entry per receipt (issue 19): a receipt's
    sheet and 50 case pages, 642,333 bytes, take 16,251 as one level-1 frame, in 0.35 ms;
    uncompressed, the entries of 10,000 receipts added 6.4 GB to the build's writes."""
    import zstandard  # the pinned Zstandard binding (also the importers')

    names = sorted(files)
    header = json.dumps([[n, len(files[n])] for n in names], ensure_ascii=False).encode("utf-8")
    body = f"{len(header)}\n".encode() + header + b"".join(files[n] for n in names)
    return _MAGIC + zstandard.ZstdCompressor(level=1, write_content_size=True).compress(body)


def unpack(data: bytes) -> dict[str, bytes] | None:
    """The files of :func:`pack`, or ``None`` when the entry is not a whole one (damaged,
    cut short, of another format, or claiming more than :data:`MAX_ENTRY_BYTES`)."""
    import zstandard

    try:
        if not data.startswith(_MAGIC):
            return None
        frame = data[len(_MAGIC) :]
        size = zstandard.frame_content_size(frame)
        if not 0 <= size <= MAX_ENTRY_BYTES:  # -1: the frame does not say
            return None
        inflate = zstandard.ZstdDecompressor().decompressobj()
        rest = inflate.decompress(frame)  # never more than the frame's size (zstd checks it)
        if not inflate.eof or inflate.unused_data or len(rest) != size:
            return None  # cut short, or with bytes after the frame
        nl = rest.index(b"\n")
        size = int(rest[:nl])
        header = json.loads(rest[nl + 1 : nl + 1 + size])
        body = memoryview(rest)[nl + 1 + size :]
        out: dict[str, bytes] = {}
        at = 0
        for name, n in header:
            out[name] = bytes(body[at : at + n])
            at += n
        return out if at == len(body) else None
    except (ValueError, TypeError, zstandard.ZstdError):
        return None


class BuildCache:
    """One build's view of the cache folder ``root`` (created on first write).

    Args:
        root: the cache folder, e.g. ``site/../.driftproof-cache``.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.base = self.root / product_key()[:32]

    def _path(self, kind: str, key: str) -> Path:
        return self.base / kind / key[:2] / key

    def is_valid(self, sha256: str) -> bool:
        """Whether a receipt of exactly these bytes passed every check under this product."""
        return self._path("valid", sha256).is_file()

    def summary_of(self, sha256: str) -> bytes | None:
        """The summary recorded with a receipt of exactly these bytes that passed every check
        under this product (``None``: not recorded, or an entry from before summaries)."""
        try:
            data = self._path("valid", sha256).read_bytes()
        except OSError:
            return None
        return data or None

    def mark_valid(
        self, sha256s: Iterable[str], summaries: Mapping[str, bytes] | None = None
    ) -> None:
        """Record receipts (by the sha256 of their bytes) that passed every check, each with
        its summary when ``summaries`` has one."""
        summaries = summaries or {}
        for s in sha256s:
            summary = summaries.get(s, b"")
            if not self.is_valid(s) or (summary and self.summary_of(s) != summary):
                self._write(self._path("valid", s), summary)

    def get_files(self, key: str) -> dict[str, bytes] | None:
        """The files stored under ``key``, or ``None``."""
        try:
            data = self._path("pages", key).read_bytes()
        except OSError:
            return None
        return unpack(data)

    def put_files(self, key: str, files: Mapping[str, bytes]) -> None:
        """Store ``files`` under ``key`` (a failure to write only costs a later recomputation)."""
        try:
            self._write(self._path("pages", key), pack(files))
        except OSError:
            pass

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        atomic_write(path, data)  # a reader sees the old entry or the whole new one


_ACTIVE: ContextVar[BuildCache | None] = ContextVar("driftproof_build_cache", default=None)
_F = TypeVar("_F", bound=Callable[..., bytes])


@contextlib.contextmanager
def using(cache: BuildCache | None) -> Iterator[None]:
    """Make ``cache`` the one :func:`cached_chart` consults while the block runs."""
    token = _ACTIVE.set(cache)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def cached_chart(fn: _F) -> _F:
    """Cache a chart function's SVG bytes by the function and the ``repr`` of all its arguments
    (plain data: strings, numbers, tuples, frozen dataclasses), under the product key; only
    while a build cache is active (:func:`using`). Same bytes with or without the cache."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> bytes:
        active = _ACTIVE.get()
        if active is None:
            return fn(*args, **kwargs)
        k = key_of(
            "chart", f"{fn.__module__}.{fn.__qualname__}", repr(args), repr(sorted(kwargs.items()))
        )
        hit = active.get_files(k)
        if hit is not None and "svg" in hit:
            return hit["svg"]
        svg = fn(*args, **kwargs)
        active.put_files(k, {"svg": svg})
        return svg

    return wrapper  # type: ignore[return-value]


def cached_files(
    cache: BuildCache | None, render: Callable[[], dict[str, bytes]], *key: bytes | str
) -> dict[str, bytes]:
    """``render()``, or the files the cache holds for exactly these inputs (``key``: every
    input of ``render``, hashed with :func:`key_of`); without a cache, ``render()``."""
    if cache is None:
        return render()
    k = key_of(*key)
    hit = cache.get_files(k)
    if hit is None:
        hit = render()
        cache.put_files(k, hit)
    return hit
