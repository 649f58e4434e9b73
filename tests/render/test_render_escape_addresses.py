"""E-mail addresses and brackets around an address in untrusted Markdown (GFM autolinks).

The GFM spec's autolink extension links an e-mail address written bare (a local part of letters,
digits, ``.``, ``-``, ``_``, ``+``; ``@``; a domain with at least one period), and in its
``mailto:`` and ``xmpp:`` forms; an address starts after an opening ``(``, and a trailing ``)``
with no opening one in the address is no part of it (``(www.a.io/b_(c))`` links
``www.a.io/b_(c)``). Nothing inside a code span is linked.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest
from markdown_it import MarkdownIt

from driftproof.render.escape import md_escape, md_html, md_text

ESCAPES = pytest.mark.parametrize("escape", [md_text, md_html, md_escape])


def _read(out: str) -> tuple[list[str], str]:
    """The code spans' text and the whole text a reader sees, as CommonMark renders ``out``."""
    rendered = MarkdownIt().render(out)
    text = html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()
    return re.findall(r"<code>(.*?)</code>", rendered), text


@ESCAPES
def test_an_email_address_is_never_a_github_link(escape: Callable[[str], str]) -> None:
    # Found: "user@evil.example" and "mailto:user@evil.example" went through as they were,
    # and GitHub links both; "x_@y" has no period after the "@", so is no address
    raw = "mail user@evil.example, mailto:a.b-c+d@e_f.example or xmpp:foo@bar.baz/txt. x_@y"
    out = escape(raw)
    assert out == (
        "mail `user@evil.example`, `mailto:a.b-c+d@e_f.example` or `xmpp:foo@bar.baz/txt`. x\\_@y"
    )
    codes, text = _read(out)
    assert codes == ["user@evil.example", "mailto:a.b-c+d@e_f.example", "xmpp:foo@bar.baz/txt"]
    assert text == raw


@ESCAPES
def test_brackets_around_an_address_stay_outside_its_code_span(
    escape: Callable[[str], str],
) -> None:
    # Found: "(http://127.0.0.1:38857 and http://127.0.0.1:37901)" showed as
    # "`(http://127.0.0.1:38857` and `http://127.0.0.1:37901)`", the brackets inside the code
    raw = "by (http://127.0.0.1:38857 and http://127.0.0.1:37901): (www.a.io/b_(c)). (a@b.io)"
    out = escape(raw)
    assert out == (
        "by (`http://127.0.0.1:38857` and `http://127.0.0.1:37901`): (`www.a.io/b_(c)`). (`a@b.io`)"
    )
    codes, text = _read(out)
    assert codes == ["http://127.0.0.1:38857", "http://127.0.0.1:37901", "www.a.io/b_(c)", "a@b.io"]
    assert text == raw
