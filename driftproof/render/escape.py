"""Untrusted text (answers, case ids, reasons, labels, file names) made safe, on one line.

:func:`terminal_safe` for a terminal; :func:`md_text` (``view``) and :func:`md_html` (``diff``)
for Markdown, each also escaping every character Markdown, GitHub or math extensions read.
"""

from __future__ import annotations

import html
import unicodedata

#: Unicode categories never sent to a terminal as they are: controls (ANSI escapes), format
#: characters (bidirectional embeddings, overrides and isolates, "Trojan Source"; zero-width
#: characters), line and paragraph separators, lone surrogates.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


#: What :func:`md_text` backslash-escapes: every ASCII punctuation mark that opens or closes
#: markup at the start of, or inside, a line, and ``&`` (an entity such as ``&#x202e;`` would
#: show another character than the text holds).
_MD_TEXT_SPECIALS = "\\`*_[]<>|#!$~&"

#: What :func:`md_html` backslash-escapes after HTML's entities (``&``, ``<``, ``>``).
_MD_HTML_SPECIALS = "\\`*_[]|$~"


def terminal_safe(value: str) -> str:
    r"""Untrusted text for a terminal, on one line.

    Control characters (ANSI escapes, line breaks) are shown as ``\xNN``; format characters
    (bidirectional controls, zero-width characters), line and paragraph separators and lone
    surrogates as ``\uNNNN`` (or ``\UNNNNNNNN``); nothing else changes.
    """
    out = []
    for ch in value:
        cat = unicodedata.category(ch)
        if cat == "Cc":
            out.append(f"\\x{ord(ch):02x}")
        elif cat in _UNSAFE_CATEGORIES:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "".join(out)


def md_text(value: str) -> str:
    r"""Untrusted text as Markdown text on one line, every markup character backslash-escaped.

    Control characters are first shown as :func:`terminal_safe` shows them (so a newline is
    the four characters ``\\x0a``, never a line break).
    """
    out = terminal_safe(value)
    for ch in _MD_TEXT_SPECIALS:
        out = out.replace(ch, "\\" + ch)
    return out


def md_html(text: str) -> str:
    """Untrusted text as Markdown on one line, HTML's specials as entities.

    :func:`terminal_safe` first; ``<script>`` becomes ``&lt;script&gt;``; the Markdown specials
    are backslash-escaped.
    """
    out = html.escape(terminal_safe(text), quote=False)
    for ch in _MD_HTML_SPECIALS:
        out = out.replace(ch, "\\" + ch)
    return out
