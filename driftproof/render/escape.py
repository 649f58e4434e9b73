"""Untrusted text made safe on one line, and facts and tables laid out from it, byte-stable.

Answers, case ids, reasons, labels and file names are untrusted: :func:`terminal_safe` for a
terminal; :func:`shell_word` for a command to copy; :func:`md_text` (``view``) and
:func:`md_html` (``diff``) for Markdown, each also escaping every character Markdown, GitHub or
math extensions read.
"""

from __future__ import annotations

import html
import re
import shlex
import textwrap
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from driftproof.errors import shown_char

if TYPE_CHECKING:  # the printers of the CLI's error lines import this module: keep it light
    from driftproof.pages.words import Fact

#: Unicode categories never sent to a terminal as they are: controls (ANSI escapes), format
#: characters (bidirectional embeddings, overrides and isolates, "Trojan Source"; zero-width
#: characters), line and paragraph separators, lone surrogates.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


#: What :func:`md_text` backslash-escapes: every ASCII punctuation mark that opens or closes
#: markup at the start of, or inside, a line, and ``&`` (an entity such as ``&#x202e;`` would
#: show another character than the text holds).
_MD_TEXT_SPECIALS = str.maketrans({c: "\\" + c for c in "\\`*_[]<>|#!$~&"})

#: What :func:`md_html` backslash-escapes after HTML's entities (``&``, ``<``, ``>``).
_MD_HTML_SPECIALS = str.maketrans({c: "\\" + c for c in "\\`*_[]|$~"})


#: ``@`` before a name: GitHub reads ``@name`` in a comment as a mention and notifies that account,
#: and a backslash does not stop it (github/markup#1168); a zero-width space after the ``@``,
#: written as an entity, does, and the text reads the same (as Dependabot writes mentions). An
#: ``@`` after a letter, digit or ``_`` is no mention (``a@b.io`` is an e-mail address, below).
_MENTION = re.compile(r"(?<![A-Za-z0-9_])@(?=[A-Za-z0-9])")
_NO_MENTION = "@&#8203;"
#: Where GitHub makes a link of a bare address (the GFM spec's autolink extension): ``www.``, a
#: scheme's ``://`` (``https://evil.example``), in any letter case, past any backslash, and an
#: e-mail address (a character of a local part, ``@``, a domain name with a period; ``mailto:``
#: and ``xmpp:`` hold one). The address, from ``www.``, its scheme's characters (:data:`_SCHEME`)
#: or its local part's (those and ``_``), is written as a code span (never linked, copied exactly).
_AUTOLINK = re.compile(r"(?i)www\.|://|[\w.+-]@[\w-]+\.[\w-]")
_SCHEME = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-"
#: Words (a pipe never goes inside a code span: a table cell would end there), and what is between.
_WORDS = re.compile(r"([^\s|]+)")
#: Not part of an address at its end: the punctuation ending a sentence or a quotation after it
#: (and a closing bracket the address does not open, :func:`_address`).
_AFTER_LINK = "?!.,:;*_~'\"`>"

#: ``::`` where a wrapped line could start with it: at the start or after whitespace.
_COMMAND_START = re.compile(r"(?:^|(?<=\s))::")


def terminal_safe(value: str) -> str:
    r"""Untrusted text for a terminal, on one line.

    Control characters (ANSI escapes, line breaks) are shown as ``\xNN``; format characters
    (bidirectional controls, zero-width characters), line and paragraph separators and lone
    surrogates as ``\uNNNN`` (or ``\UNNNNNNNN``); ``##[`` as ``#\x23[`` (a GitHub Actions runner
    reads ``##[error]…`` anywhere in a logged line as a workflow command), and ``::`` at the
    start or after a space as ``:\x3a`` (it reads a line starting ``::`` as one, and a terminal
    wraps at spaces; ``std::vector`` stays); nothing else changes.
    """
    out = (shown_char(ch) if unicodedata.category(ch) in _UNSAFE_CATEGORIES else ch for ch in value)
    return _COMMAND_START.sub(":\\\\x3a", "".join(out).replace("##[", "#\\x23["))


def shell_word(arg: str) -> str:
    r"""``arg`` as one word a POSIX shell reads back as ``arg``, every character shown safely.

    :func:`shlex.quote` when each character is safe on a terminal (:func:`terminal_safe`); else
    ``$'…'`` with each unsafe character's UTF-8 bytes as ``\xNN``, which a shell reads back in any
    locale (a byte of a name that is no UTF-8 as it was).
    """
    if all(terminal_safe(ch) == ch for ch in arg):  # '::' or '##[' alone: as shlex quotes it
        return shlex.quote(arg)
    out = []
    for ch in arg:
        if ch in "\\'":
            out.append("\\" + ch)
        elif terminal_safe(ch) == ch:
            out.append(ch)
        else:
            out += (f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogateescape"))
    return "$'" + "".join(out) + "'"


def shell_path(path: object) -> str:
    """``path`` as :func:`shell_word` gives it, as ``./-…`` when it starts with ``-``.

    A command given a word that starts with ``-`` reads it as an option, never as a file.
    """
    text = str(path)
    return shell_word("./" + text if text.startswith("-") else text)


def md_text(value: str) -> str:
    r"""Untrusted text as Markdown text on one line, every markup character backslash-escaped.

    Control characters are first shown as :func:`terminal_safe` shows them (so a newline is
    the four characters ``\\x0a``, never a line break); ``@name`` is never a mention, and an
    address (``www.…``, ``https://…``, ``a@b.io``) is code, never a link.
    """
    return _inert(terminal_safe(value), lambda s: s.translate(_MD_TEXT_SPECIALS))


def _inert(text: str, escape: Callable[[str], str]) -> str:
    """``text`` as Markdown with no ``@name`` mention and no bare address GitHub would link.

    An address is a code span (:func:`_address`, :func:`_code`); the rest is ``escape``-d.
    """
    out = []
    for word in _WORDS.split(text):
        start = m.start() if (m := _AUTOLINK.search(word)) else len(word)
        if m and (m[0] == "://" or "@" in m[0]):  # back to the scheme's or local part's start
            start = len(word[:start].rstrip(_SCHEME + ("_" if "@" in m[0] else "")))
            scheme = [s for s in ("mailto:", "xmpp:") if word[:start].lower().endswith(s)]
            start -= len(scheme[0]) if scheme and "@" in m[0] else 0
        link = _address(word[start:])
        rest = (word[:start], word[start + len(link) :])
        out += [_MENTION.sub(_NO_MENTION, escape(x)) for x in rest]
        out[-1:-1] = [_code(link)] if link else []
    return "".join(out)


def _address(word: str) -> str:
    """The address ``word`` starts with, without the punctuation after it.

    A closing bracket the address does not open is left out (``https://x.io/a_(b)`` whole,
    ``https://x.io)`` without its ``)``), as GitHub ends a link.
    """
    n, spare = len(word), {c: word.count(c) - word.count(o) for o, c in ("()", "[]")}
    while n and (word[n - 1] in _AFTER_LINK or spare.get(word[n - 1], 0) > 0):
        n -= 1
        if word[n] in spare:
            spare[word[n]] -= 1
    return word[:n]


def _code(word: str) -> str:
    """``word`` (no space, no pipe, no backtick at either end) as a code span, never a link.

    Shown and copied exactly: its backtick fence is longer than any run of backticks in it.
    """
    fence = "`" * (max(map(len, re.findall("`+", word)), default=0) + 1)
    return f"{fence}{word}{fence}"


def md_html(text: str) -> str:
    """Untrusted text as Markdown on one line, HTML's specials as entities.

    :func:`terminal_safe` first; ``<script>`` becomes ``&lt;script&gt;``; the Markdown specials
    are backslash-escaped; ``@name`` is never a mention, and an address is code, never a link.
    """
    return _inert(
        terminal_safe(text),
        lambda s: html.escape(s, quote=False).translate(_MD_HTML_SPECIALS),
    )


def text_facts(facts: Sequence[Fact]) -> list[str]:
    """One line per fact, ``  label  value``, labels padded to the longest one."""
    width = max((len(f.label) for f in facts), default=0)
    return [f"  {terminal_safe(f.label).ljust(width)}  {terminal_safe(f.value)}" for f in facts]


def text_table(
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    indent: str = "  ",
    width: int | None = None,
) -> list[str]:
    """Columns padded to their widest cell, two spaces apart, trailing spaces dropped.

    Every cell passes through :func:`terminal_safe`, the header's too (it may hold a file name).
    ``width``: the terminal's width in characters, or ``None`` (not a terminal). A table with
    a line wider than it is laid out as a list instead: per row, its first cell at ``indent``,
    then ``column: value`` per other non-empty cell, two spaces further in (:func:`fit_text`
    wraps a line still too wide); a table with no row keeps its header line, for
    :func:`fit_text` to wrap, so no word of it is lost.

    Raises:
        ValueError: a row has another number of cells than ``head``.
    """
    cells = [[terminal_safe(x) for x in row] for row in (head, *rows)]
    if any(len(r) != len(head) for r in cells):
        raise ValueError(f"every row needs {len(head)} cells, one per column of {list(head)}")
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    lines = [
        indent + "  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip()
        for r in cells
    ]
    if width is None or not rows or max(map(len, lines)) <= width:
        return lines
    names, *body = cells
    return [
        line
        for r in body
        for line in [
            indent + r[0],
            *(f"{indent}  {n}: {v}" for n, v in zip(names[1:], r[1:], strict=True) if v),
        ]
    ]


#: The fewest characters a wrapped line holds after its indent, however narrow the terminal.
MIN_WRAP = 20


#: A label and its value two or more spaces apart (``key  value``), after a line's indent.
_LABEL_GAP = re.compile(r"\S+(?: \S+)*  +(?=\S)")


def fit_text(text: str, width: int | None = None) -> str:
    """``text`` with every line's trailing spaces dropped and, given ``width``, wrapped to it.

    ``width``: the terminal's width in characters, or ``None`` (not a terminal: no line is
    wrapped). A longer line is broken at spaces, never inside a word (a hash or a file name
    stays whole), its first part at the line's own indent. The rest continues under its value
    when the line is a label and a value two spaces apart (``key  value``) and that leaves
    room for :data:`MIN_WRAP` characters and for its longest word, else four spaces further in
    than the line: never at a list item's indent two in, so it does not read as the next item.
    """
    out = []
    for line in text.split("\n"):
        line = line.rstrip(" ")
        if width is None or len(line) <= width:
            out.append(line)
            continue
        body = line.lstrip(" ")
        indent = line[: len(line) - len(body)]
        label = _LABEL_GAP.match(body)
        hang = len(indent) + label.end() if label else width
        if hang + max(MIN_WRAP, *map(len, body.split())) > width:  # the longest word too
            hang = len(indent) + 4
        out += textwrap.wrap(
            body,
            width=max(width, hang + MIN_WRAP),
            initial_indent=indent,
            subsequent_indent=" " * hang,
            break_long_words=False,
            break_on_hyphens=False,
        )
    return "\n".join(out)


def md_facts(facts: Sequence[Fact]) -> list[str]:
    """One list item per fact, ``- **label**: value``."""
    return [f"- **{md_text(f.label)}**: {md_text(f.value)}" for f in facts]


def md_table(
    head: Sequence[str], rows: Sequence[Sequence[str]], *, escape: Callable[[str], str] = md_text
) -> list[str]:
    """A CommonMark/GFM pipe table; every cell (header included) escaped by ``escape``."""
    return ["| " + " | ".join(escape(h) for h in head) + " |", "|" + "---|" * len(head)] + [
        "| " + " | ".join(escape(x) for x in row) + " |" for row in rows
    ]


#: Inline Markdown and HTML syntax, and ``$`` (GitHub renders ``$…$`` as math, which can draw
#: any text in any colour and size); cells and lines never start a block, so these suffice.
_MD_SPECIALS = str.maketrans({c: "\\" + c for c in "\\`*_[]|<>~&$"})


def md_escape(text: object, limit: int = 200) -> str:
    """Untrusted text as one line of inert inline Markdown, cut to ``limit`` characters and "…".

    A cut falls after the last clause (``; `` or ``, ``) within ``limit`` when one ends in its
    second half, else at the last space there (never mid-word). Inline syntax (emphasis, code,
    links, table pipes, HTML ``<``/``>``, entities, ``$`` math) is escaped; ``@name`` is never
    a mention, and an address is code, never a link.
    """
    return _inert(cut_plain(text, limit), lambda s: s.translate(_MD_SPECIALS))


def cut_plain(text: object, limit: int) -> str:
    """Untrusted text on one line, terminal-safe, cut as :func:`md_escape` cuts it; not escaped."""
    s = terminal_safe(" ".join(str(text).split()))
    if len(s) > limit:
        clause = max(s.rfind(sep, limit // 2, limit) for sep in ("; ", ", "))
        cut = clause + 1 if clause > 0 else s.rfind(" ", limit // 2, limit + 1)
        s = s[:cut] + " …" if cut > 0 else s[:limit] + "…"
    return s
