"""Rendering primitives of the site: one Jinja2 environment and one Markdown pipeline.

Untrusted text (model answers, imported strings, report prose) stays text: the
environment escapes by default (``autoescape``), a missing variable fails the build
(``StrictUndefined``, STYLE-EXAMPLES 19), and Markdown is rendered by markdown-it-py
with raw HTML off (``html=False``), so ``<script>`` in prose shows as text.
Numbers are formatted here, in Python, never in templates.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

__all__ = ["fmt_int", "make_env", "markdown_html", "relative_root"]

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


def make_env(template_dirs: Sequence[Path]) -> jinja2.Environment:
    """A strict, escaping Jinja2 environment over ``template_dirs`` (searched in order)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(d) for d in template_dirs]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
    )


def markdown_html(text: str) -> Markup:
    """CommonMark plus tables to HTML, raw HTML escaped (never passed through)."""
    return Markup(_MD.render(text))


def relative_root(page_path: str) -> str:
    """The relative URL from the page written at ``page_path`` back to the site root.

    ``index.html`` → ``"."``; ``reports/001/index.html`` → ``"../.."``.
    """
    depth = page_path.count("/")
    return "/".join([".."] * depth) if depth else "."


def fmt_int(x: int | None) -> str:
    """An integer with thousands separators, or an en dash when unknown."""
    if x is None:
        return "–"
    return f"{x:,}"
