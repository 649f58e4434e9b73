"""The link check's part of the build cache (:mod:`driftproof.site.links`): what each page
holds, kept by the sha256 of its path and bytes, so a rebuild parses only changed pages."""

from __future__ import annotations

import contextlib
import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from driftproof.site._cache import BuildCache

__all__ = ["LinkStore"]


class LinkStore:
    """The link check's part of the build cache: one SQLite file (the standard library's
    ``sqlite3``) under the product key, from a page's key to what it holds (JSON). A file
    SQLite cannot read is removed and started again; any other failure only means no cache."""

    def __init__(self, cache: BuildCache | None) -> None:
        self.db: sqlite3.Connection | None = None
        self.new: dict[str, str] = {}
        if cache is None:
            return
        path = cache.base / "links.sqlite3"
        for _attempt in range(2):
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(path, timeout=60)
                db.execute("CREATE TABLE IF NOT EXISTS page (key TEXT PRIMARY KEY, held TEXT)")
                self.db = db
                return
            except sqlite3.DatabaseError:
                with contextlib.suppress(OSError):
                    path.unlink()
            except (sqlite3.Error, OSError):
                return

    def get(self, key: str) -> str | None:
        if self.db is None:
            return None
        if key in self.new:
            return self.new[key]
        try:
            row = self.db.execute("SELECT held FROM page WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        return row[0] if row else None

    def put(self, key: str, held: str) -> None:
        self.new[key] = held
        if len(self.new) >= 2000:  # written as it goes: memory does not grow with the site
            self._flush()

    def _flush(self) -> None:
        if self.db is not None and self.new:
            try:
                with self.db:
                    self.db.executemany(
                        "INSERT OR REPLACE INTO page VALUES (?, ?)", list(self.new.items())
                    )
            except sqlite3.Error:
                pass  # the cache only saves a later check some parsing
        self.new.clear()

    def close(self) -> None:
        if self.db is None:
            return
        try:
            self._flush()
        finally:
            self.db.close()
            self.db = None
