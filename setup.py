"""Build step only; the project's metadata is in pyproject.toml.

The site's templates, theme, hand-written pages and default mkdocs config live at the top of
the repository (``templates/``, ``site_src/``, ``mkdocs.yml``), where the site is edited. A
wheel ships a copy of them as package data under ``driftproof/_site/`` so that
``driftproof reports build`` works from an installed package in any directory
(:func:`driftproof.site._paths.site_data_root`). A source checkout or an editable install
reads them where they are.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
#: Copied into driftproof/_site/ of every built package, relative names kept.
SITE_DATA = ("templates", "site_src", "mkdocs.yml")


class BuildPyWithSite(build_py):
    """``build_py`` that also copies :data:`SITE_DATA` into ``driftproof/_site/``."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the source tree itself
            return
        dest = Path(self.build_lib) / "driftproof" / "_site"
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        for name in SITE_DATA:
            src = HERE / name
            if src.is_dir():
                shutil.copytree(
                    src, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
                )
            else:
                shutil.copy2(src, dest / name)


setup(cmdclass={"build_py": BuildPyWithSite})
