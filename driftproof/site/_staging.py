"""Where the generated files wait for mkdocs (issue 19): on disk, not in memory.

:func:`driftproof.site.build.generate_site` hands each file to :meth:`Staging.put` as it is
made; it is written at once into a private folder beside the site being built (the same file
system), and mkdocs gets a :class:`StagedFile` for it, which it *links* into the site
instead of copying (a copy when the file system cannot link). So the build holds no page in
memory after it is made, and writes each byte once.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File

__all__ = ["StagedFile", "Staging"]


class StagedFile(File):
    """A generated file backed by a staged file, linked (not copied) into the site."""

    def copy_file(self, dirty: bool = False) -> None:
        assert self.abs_src_path is not None  # made by Staging.file, always with a path
        dest = self.abs_dest_path
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        try:
            os.link(self.abs_src_path, dest)
        except OSError:
            shutil.copyfile(self.abs_src_path, dest)


class Staging:
    """A private folder under ``beside`` holding one build's generated files."""

    def __init__(self, beside: Path) -> None:
        Path(beside).mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix=".driftproof-generated-", dir=beside))
        self.paths: list[str] = []

    def put(self, path: str, data: bytes) -> None:
        """Write the file at site path ``path`` (relative, ``/``-separated)."""
        p = self.root / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        self.paths.append(path)

    def adopt(self, paths: list[str]) -> None:
        """Record files another process wrote under :attr:`root` (site paths)."""
        self.paths.extend(paths)

    def file(self, config: Any, path: str) -> File:
        """The mkdocs file for a staged ``path``."""
        return StagedFile.generated(config, path, abs_src_path=str(self.root / path))

    def remove(self) -> None:
        """Remove the folder (the site keeps its own links to the files)."""
        shutil.rmtree(self.root, ignore_errors=True)
