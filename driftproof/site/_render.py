"""Rendering primitives of the site: one Jinja2 environment and one Markdown pipeline.

Untrusted text (model answers, imported strings, report prose) stays text: the
environment escapes by default (``autoescape``), a missing variable fails the build
(``StrictUndefined``, STYLE-EXAMPLES 19), and Markdown is rendered by markdown-it-py
with raw HTML off (``html=False``), so ``<script>`` in prose shows as text.
Numbers are formatted here, in Python, never in templates.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, overload

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

__all__ = ["fmt_int", "make_env", "markdown_html", "printable", "relative_root", "wrap_tables"]

# C0 controls but tab, line feed and carriage return; DEL; C1 controls; lone surrogates (which
# UTF-8 cannot encode) and the noncharacters HTML forbids.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")


def _visible(m: re.Match[str]) -> str:
    c = ord(m.group())
    if c < 0x20:
        return chr(0x2400 + c)  # U+2400 CONTROL PICTURES: NUL shows as ␀
    if c == 0x7F:
        return "\u2421"  # ␡
    return f"\\u{c:04x}"


@overload
def printable(value: str) -> str: ...
@overload
def printable(value: object) -> object: ...
def printable(value: object) -> object:
    """``value`` with every control character shown as a visible symbol (NUL as ␀, U+0085 as
    ``\\u0085``), never written raw into a page. Strings only; Markup stays Markup (the
    replacement adds no markup character); other values are returned as they are."""
    if not isinstance(value, str) or value.isprintable():
        # every character _CONTROL matches is one str.isprintable() refuses: a printable
        # string (most of them; checked in C) holds none (issue 19: once per printed value)
        return value
    if isinstance(value, Markup):
        return Markup(_CONTROL.sub(_visible, str(value))) if _CONTROL.search(value) else value
    return _CONTROL.sub(_visible, value) if _CONTROL.search(value) else value


_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    "table"
)


#: What ``obj.name`` finds on a plain dict by attribute (its methods): every other name is
#: looked up as an item, as Jinja would after its attribute lookup failed.
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja2's environment with one shortcut: ``d.name`` on a plain ``dict``, for a name that
    is no attribute of ``dict``, is the item ``d["name"]`` at once. Jinja finds the same value
    (attribute first, then item) but only after raising and catching an ``AttributeError``;
    a case page looks up some 600 such names (issue 19)."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


def make_env(template_dirs: Sequence[Path]) -> jinja2.Environment:
    """A strict, escaping Jinja2 environment over ``template_dirs`` (searched in order)."""
    return _Environment(
        loader=jinja2.FileSystemLoader([str(d) for d in template_dirs]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
        finalize=printable,  # issue 15: control characters are escaped, never written raw
    )


def markdown_html(text: str) -> Markup:
    """CommonMark plus tables to HTML, raw HTML escaped (never passed through); control
    characters shown as visible symbols (:func:`printable`)."""
    return Markup(wrap_tables(printable(_MD.render(text))))


def wrap_tables(html: str) -> str:
    """Each ``<table>`` of rendered Markdown inside ``<div class="table-wrap">``, which scrolls
    sideways on its own, so a wide table never widens the page (issue 15, phones). Only for
    HTML this project rendered (Markdown tables carry no attributes)."""
    # Focusable (tabindex) and named, each name unique on the page, so a keyboard can scroll it
    # (axe: scrollable-region-focusable, landmark-unique).
    parts = html.split("<table>")
    out = [parts[0]]
    for i, part in enumerate(parts[1:], 1):
        out.append(
            f'<div class="table-wrap" tabindex="0" role="region" aria-label="Table {i}, '
            'scrolls sideways on a narrow screen"><table>'
            + part.replace("</table>", "</table></div>", 1)
        )
    return "".join(out)


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
