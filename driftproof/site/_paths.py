"""Where the site's templates, hand-written pages (``site_src/``) and mkdocs.yml are.

In ``driftproof/_site/`` of a wheel (``setup.py`` copies them), else at the top of the source
checkout.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]


@cache
def site_data_root() -> Path:
    """The folder holding ``mkdocs.yml``, ``site_src/`` and ``templates/``.

    Raises:
        FileNotFoundError: neither the packaged copy nor a source checkout is there.
    """
    for root in (_PACKAGE / "_site", _PACKAGE.parent):
        if (root / "templates" / "theme").is_dir() and (root / "mkdocs.yml").is_file():
            return root
    raise FileNotFoundError(
        f"the site's templates are missing: neither {_PACKAGE / '_site'} nor a source "
        f"checkout at {_PACKAGE.parent} holds templates/ and mkdocs.yml"
    )


def templates_dir() -> Path:
    """The ``templates/`` folder; the checkout's when none is found (named when first needed)."""
    try:
        return site_data_root() / "templates"
    except FileNotFoundError:
        return _PACKAGE.parent / "templates"


def default_config() -> Path:
    """The mkdocs config ``driftproof reports build`` uses when the working directory has none."""
    return site_data_root() / "mkdocs.yml"
