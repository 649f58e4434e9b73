"""Untrusted text (model answers, case ids, reasons, imported labels, file names), made safe.

Two outputs, two rules:

- a terminal: :func:`terminal_safe` shows control characters (ANSI escapes included) as
  ``\\xNN`` and bidirectional controls and line separators as ``\\uNNNN``, so no byte of
  the input reaches the terminal as a command ("Trojan Source"); :func:`one_line` is the
  older spelling ``driftproof diff`` prints (Python's ``unicode_escape`` of every
  character that is not printable);
- Markdown: :func:`md_text` (``view``) backslash-escapes every character CommonMark, GitHub
  and the common math extensions read as markup; :func:`md_html` (``diff``) escapes HTML's
  specials as entities and the Markdown ones with a backslash. Both keep the text on one
  line, so a newline in a label can neither end a table row nor start a heading.

Both Markdown rules escape ``|`` (a table cell), ``` ` ``` (a code span), ``$`` (GitHub's
math), ``*``, ``_`` and ``~`` (emphasis, strikethrough), ``[``/``]`` (links), ``<``
(raw HTML such as ``<script>``) and ``&`` (entities). BRIEF: "Model answers and imported strings are
untrusted: escape them everywhere."
"""

from __future__ import annotations

import html
import unicodedata

__all__ = ["md_html", "md_text", "one_line", "printable", "terminal_safe"]

#: Characters that reorder or break a terminal line without being control characters:
#: bidirectional embeddings, overrides and isolates ("Trojan Source"), line and paragraph
#: separators.
_TERMINAL_UNSAFE = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029"
)

#: What :func:`md_text` backslash-escapes: every ASCII punctuation mark that opens or closes
#: markup at the start of, or inside, a line, and ``&`` (an entity such as ``&#x202e;`` would
#: show another character than the text holds).
_MD_TEXT_SPECIALS = "\\`*_[]<>|#!$~&"

#: What :func:`md_html` backslash-escapes after HTML's entities (``&``, ``<``, ``>``).
_MD_HTML_SPECIALS = "\\`*_[]|$~"


def terminal_safe(value: str) -> str:
    """Untrusted text for a terminal: control characters (ANSI escapes included) shown as
    ``\\xNN``, bidirectional controls and line separators as ``\\uNNNN``; never sent as they are."""
    out = []
    for ch in value:
        if unicodedata.category(ch) == "Cc":
            out.append(f"\\x{ord(ch):02x}")
        elif ch in _TERMINAL_UNSAFE:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def one_line(text: str) -> str:
    """Untrusted text on one line, every non-printable character as its Python escape
    (``\\n``, ``\\x1b``, ``\\u202e``): what ``driftproof diff`` prints."""
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


def printable(text: str) -> str:
    """Every character that is not printable shown as ``?`` (``driftproof plan``'s lines)."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def md_text(value: str) -> str:
    """Untrusted text as Markdown text on one line, every markup character backslash-escaped.

    Control characters are first shown as :func:`terminal_safe` shows them (so a newline is
    the four characters ``\\x0a``, never a line break)."""
    out = terminal_safe(value)
    for ch in _MD_TEXT_SPECIALS:
        out = out.replace(ch, "\\" + ch)
    return out


def md_html(text: str) -> str:
    """Untrusted text as Markdown on one line: :func:`one_line`, HTML's specials as entities
    (``<script>`` is ``&lt;script&gt;``), the Markdown ones backslash-escaped."""
    out = html.escape(one_line(text), quote=False)
    for ch in _MD_HTML_SPECIALS:
        out = out.replace(ch, "\\" + ch)
    return out
