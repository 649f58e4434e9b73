"""Where the site's templates, theme, hand-written pages and default mkdocs config are.

A wheel carries them as package data in ``driftproof/_site/`` (``setup.py`` copies
``templates/``, ``site_src/`` and ``mkdocs.yml`` there when the package is built); a source
checkout or an editable install reads them at the top of the repository. Either way the
layout below :func:`site_data_root` is the same::

    mkdocs.yml        the default config (docs_dir site_src, theme templates/theme,
                      plugin driftproof)
    site_src/         hand-written pages
    templates/pages   the generator's templates
    templates/theme   the mkdocs theme
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

__all__ = ["default_config", "site_data_root", "templates_dir"]

_PACKAGE = Path(__file__).resolve().parents[1]


@cache
def site_data_root() -> Path:
    """The folder holding ``mkdocs.yml``, ``site_src/`` and ``templates/``.

    Raises:
        FileNotFoundError: neither the packaged copy nor a source checkout is there (a broken
            install).
    """
    for root in (_PACKAGE / "_site", _PACKAGE.parent):
        if (root / "templates" / "theme").is_dir() and (root / "mkdocs.yml").is_file():
            return root
    raise FileNotFoundError(
        f"the site's templates are missing: neither {_PACKAGE / '_site'} nor a source "
        f"checkout at {_PACKAGE.parent} holds templates/ and mkdocs.yml"
    )


def templates_dir() -> Path:
    """The ``templates/`` folder (``pages/`` and ``theme/``).

    The source checkout's when none is found, so that importing never fails and the missing
    template is named when it is first needed.
    """
    try:
        return site_data_root() / "templates"
    except FileNotFoundError:
        return _PACKAGE.parent / "templates"


def default_config() -> Path:
    """The mkdocs config ``driftproof reports build`` uses when the working directory has none."""
    return site_data_root() / "mkdocs.yml"
