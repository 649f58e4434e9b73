"""``printable`` (issue 15: no control character is written raw into a page) and its fast
path (issue 19): a string ``str.isprintable()`` accepts is returned as it is, which is right
only if every character the control pattern matches is one ``isprintable()`` refuses."""

from __future__ import annotations

import sys

from markupsafe import Markup

from driftproof.site import html as _render
from driftproof.site.html import printable


def test_every_character_the_pattern_shows_is_one_isprintable_refuses() -> None:
    shown = [
        chr(c)
        for c in range(sys.maxunicode + 1)
        if _render._CONTROL.match(chr(c)) and chr(c).isprintable()
    ]
    assert shown == []


def test_controls_are_shown_and_printable_text_is_returned_as_it_is() -> None:
    assert printable("a\x00b\x7fc\x85d") == "a\u2400b\u2421c\\u0085d"
    assert printable("tab\tline\nfeed") == "tab\tline\nfeed"  # allowed: not printable, kept
    # a right-to-left override or isolate reverses what follows it on the page: shown instead
    assert printable("name \u202e on m \u2067x\u2069") == "name \\u202e on m \\u2067x\\u2069"
    # Found: a zero-width space went into the page as it was, so a skill named "cave\u200bman"
    # read as "caveman"; it, the word joiner, the byte-order mark and a tag character are shown
    assert printable("cave\u200bman\u2060\ufeff\U000e0041") == (
        "cave\\u200bman\\u2060\\ufeff\\U000e0041"
    )
    # the zero-width joiner and non-joiner, and the right-to-left mark, are text: kept
    joined = (
        "\U0001f469\u200d\U0001f4bb \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 \u05d0\u200f"
    )
    assert printable(joined) is joined
    text = "plain ünïcode text"
    assert printable(text) is text
    marked = Markup("<b>x\x01</b>")
    assert printable(marked) == Markup("<b>x\u2401</b>") and isinstance(printable(marked), Markup)
    assert printable(3) == 3
