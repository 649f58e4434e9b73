"""HTML of the site: one Jinja2 environment and one Markdown pipeline; untrusted text stays text.

The environment escapes, fails on a missing variable and shows control characters
(:func:`printable`); Markdown is rendered with raw HTML off.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, overload

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

from driftproof.site._paths import templates_dir

# C0 controls but tab, line feed and carriage return; DEL; C1 controls; bidirectional
# embeddings, overrides and isolates (they reverse the text after them: "Trojan Source"); lone
# surrogates (which UTF-8 cannot encode) and the noncharacters HTML forbids.
_CONTROL = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufdd0-\ufdef"
    "\ufffe\uffff]"
)


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
    r"""``value`` with every control character shown (NUL as ␀, U+0085 as ``\\u0085``).

    Strings only (Markup stays Markup); other values are returned as they are.
    """
    # every character _CONTROL matches is one str.isprintable() refuses, so a printable
    # string (most of them; checked in C) holds none
    if not isinstance(value, str) or value.isprintable() or not _CONTROL.search(value):
        return value
    shown = _CONTROL.sub(_visible, str(value))
    return Markup(shown) if isinstance(value, Markup) else shown


_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    "table"
)

#: What ``obj.name`` finds on a plain dict as an attribute (its methods).
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja2's environment; ``d.name`` on a plain dict is ``d["name"]`` without raising first."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``obj.attribute`` as Jinja looks it up."""
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
        finalize=printable,
    )


def page_env(
    templates: Path | None = None, site_name: str = "", nav: Sequence[Mapping[str, str]] = ()
) -> jinja2.Environment:
    """The environment of the site's pages (``pages``, then ``theme``), name and navigation set."""
    templates = templates or templates_dir()
    env = make_env([templates / "pages", templates / "theme"])
    env.globals.update(site_name=site_name, site_nav=list(nav))
    return env


def markdown_html(text: str) -> Markup:
    """CommonMark plus tables as HTML, raw HTML escaped, control characters made visible."""
    return Markup(wrap_tables(printable(_MD.render(text))))


def wrap_tables(html: str) -> str:
    """Each ``<table>`` of HTML this project rendered inside a focusable, named scroller."""
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
    """The relative URL from the page at ``page_path`` to the site root (``"."``, ``"../.."``)."""
    depth = page_path.count("/")
    return "/".join([".."] * depth) if depth else "."


def page(env: jinja2.Environment, template: str, path: str, **ctx: Any) -> bytes:
    """``template`` rendered for the page at site path ``path`` (its relative root set)."""
    root = relative_root(path)
    return env.get_template(template).render(base_url=root, root=root, **ctx).encode("utf-8")
