"""Untrusted text in the CLI's Markdown and terminal output (issue 18, item 5; BRIEF: "Model
answers and imported strings are untrusted: escape them everywhere").

Each shape that could break a table or inject markup is checked twice: against the escaped
text worked out by hand (CommonMark: a backslash before ASCII punctuation makes it literal;
HTML entities for the diff's style), and by parsing the output with markdown-it-py (GFM
tables and strikethrough on) and reading back exactly the text that went in.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from factories import run_main
from markdown_it import MarkdownIt

from driftproof.render.escape import (
    md_escape,
    md_html,
    md_table,
    md_text,
    terminal_safe,
    text_table,
)

#: Every shape the brief names, and the ones CommonMark and GitHub read as markup.
HOSTILE = {
    "pipe": "a|b",
    "backtick": "run `rm -rf` now",
    "dollar": "costs $5 and $x^2$",
    "script": "<script>alert(1)</script>",
    "newline": "first\n# heading",
    "crlf": "one\r\ntwo",
    "emphasis": "*bold* _em_ **x**",
    "strike": "~~gone~~",
    "link": "[click](http://evil.example)",
    "image": "![x](http://evil.example/a.png)",
    "backslash pipe": "a\\|b",
    "entity": "&lt;b&gt; &amp;",
    "heading": "# title",
    "ansi": "\x1b[31mred\x1b[0m",
    "bidi": "abc\u202edcba",
    "line separator": "a\u2028b",
}


def _md() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _cells(rendered: str) -> list[str]:
    """The text of every body cell of the one table in ``rendered`` (HTML), entities decoded."""
    return [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", rendered, re.S)]


# ---------------------------------------------------------------- by hand


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a|b", "a\\|b"),
        ("run `x`", "run \\`x\\`"),
        ("$5", "\\$5"),
        ("<script>", "\\<script\\>"),
        ("a\nb", "a\\\\x0ab"),
        ("~~x~~", "\\~\\~x\\~\\~"),
        ("a\\b", "a\\\\b"),
        ("[l](u)", "\\[l\\](u)"),
        ("#!", "\\#\\!"),
        ("&#x202e;", "\\&\\#x202e;"),
    ],
)
def test_md_text_escapes_each_shape(raw: str, expected: str) -> None:
    assert md_text(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a|b", "a\\|b"),
        ("run `x`", "run \\`x\\`"),
        ("$5", "\\$5"),
        ("<script>", "&lt;script&gt;"),
        ("a\nb", "a\\\\x0ab"),
        ("*x* _y_ ~z~", "\\*x\\* \\_y\\_ \\~z\\~"),
        ("x & y", "x &amp; y"),
    ],
)
def test_md_html_escapes_each_shape(raw: str, expected: str) -> None:
    assert md_html(raw) == expected


def test_terminal_safe_shows_every_control() -> None:
    assert terminal_safe("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m"
    assert terminal_safe("a\nb\tc") == "a\\x0ab\\x09c"
    assert terminal_safe("abc\u202edcba\u2066") == "abc\\u202edcba\\u2066"
    assert terminal_safe("a\u2028b") == "a\\u2028b"
    assert terminal_safe("plain ± – é") == "plain ± – é"


def test_terminal_safe_breaks_the_runners_legacy_workflow_command() -> None:
    # a GitHub Actions runner reads "##[name]data" anywhere in a logged line (stdout or stderr)
    # as a workflow command; "::name::" only at a line's start, which one line never reaches
    assert terminal_safe("m ##[error]pwned") == "m #\\x23[error]pwned"
    assert terminal_safe("###[add-mask]x ##[") == "##\\x23[add-mask]x #\\x23["
    assert "##[" not in terminal_safe("#\x00#[ #\u200b#[")


def test_no_wrapped_line_of_run_output_starts_a_workflow_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # "::name::" starts a workflow command at a line's start (after spaces); the terminal
    # wraps a long skill name at its spaces, so "::" after a space is shown as ":\x3a"
    monkeypatch.setenv("COLUMNS", "80")
    skill = tmp_path / "SKILL.md"
    name = "a-skill-whose-name-is-long-enough-to-wrap-the-heading-of-the-run-output"
    skill.write_text(f"---\nname: {name} ::error title=x::PWNED\n---\nBe terse.\n")
    suite = Path(__file__).parents[2] / "driftproof" / "demo_files" / "suite.json"
    argv = ["run", str(suite), "--skill", str(skill), "--model", "m", "--provider", "simulated"]
    code, out, err = run_main([*argv, "--quick", "--out", str(tmp_path / "r.json")], capsys)
    assert code == 0 and "PWNED" in out, err
    assert not [x for x in (out + err).splitlines() if x.lstrip().startswith("::")]
    assert terminal_safe("x ::error::y") == "x :\\x3aerror::y" and terminal_safe("::a") == ":\\x3aa"
    assert terminal_safe("std::vector at [::1]") == "std::vector at [::1]"


def test_a_cut_cell_ends_at_a_word_not_inside_one() -> None:
    # the Action's summary cut a lost reason as "…; not retryab…", then as "…; not …", which
    # reads as if the draw were not lost: a cut ends a clause where one ends in the second half
    note = "the reply was lost: the server refused it, so the draw is lost; not retryable"
    assert (
        md_escape(note, 70) == "the reply was lost: the server refused it, so the draw is lost; …"
    )
    assert md_escape("one two three four five six seven", 30) == "one two three four five six …"
    assert md_escape("x" * 80, 60) == "x" * 60 + "…"  # no space in its second half: cut there


def test_md_escape_escapes_dollar_math() -> None:
    # Found: the Action's summary left "$" as it was, so a skill or model named
    # "$\\color{red}\\Huge{PASSED}$" drew large red text through GitHub's math.
    assert md_escape("costs $5 and $x^2$") == "costs \\$5 and \\$x^2\\$"
    assert md_escape("$$\\Huge{x}$$") == "\\$\\$\\\\Huge{x}\\$\\$"


@pytest.mark.parametrize("escape", [md_text, md_html, md_escape])
def test_a_name_after_an_at_sign_is_never_a_github_mention(escape: Callable[[str], str]) -> None:
    # Found: "ask @octocat" went through to diff's Markdown and the Action's summary, and a
    # backslash does not stop GitHub's mention (github/markup#1168); a zero-width space after
    # the "@" does, and reads the same. An "@" before a space or at the end is left alone, and
    # so is one after a letter, digit or "_" (no mention: GitHub mentions only after the start
    # or a character of none of those); an e-mail address had a zero-width space in it when
    # copied from the page (it is code now: tests/render/test_render_escape_addresses.py)
    out = escape("ask @octocat, mail a@b.io or x_@y, (@z or @ alone@")
    assert out.count("@&#8203;") == 2 and "@octocat" not in out and out.endswith("@ alone@")
    text = html.unescape(re.sub(r"<[^>]+>", "", MarkdownIt().render(out))).strip()
    assert text == "ask @\u200boctocat, mail a@b.io or x_@y, (@\u200bz or @ alone@"


@pytest.mark.parametrize("escape", [md_text, md_html, md_escape])
def test_a_bare_address_is_never_a_github_link_and_copies_exactly(
    escape: Callable[[str], str],
) -> None:
    # Found: a lost draw's reason "wrote www.evil-login.example and https://evil.example/login"
    # was a live link in the Action's summary: GitHub links "www." and "scheme://" followed by a
    # domain (the GFM spec's autolink extension) past any backslash, never inside a code span.
    # A zero-width space broke the link, and a reader copying the address got it too: the
    # address is a code span (a fence longer than any backtick run in it), the sentence's
    # closing punctuation and the quote marks around it outside
    raw = "see www.evil-login.example, HTTPS://evil.example/login and `WWW.x.io` https://a``b`c."
    out = escape(raw)
    assert out == (
        "see `www.evil-login.example`, `HTTPS://evil.example/login` and \\``WWW.x.io`\\` "
        "```https://a``b`c```."
    )
    rendered = MarkdownIt().render(out)
    assert re.findall(r"<code>(.*?)</code>", rendered) == [
        "www.evil-login.example",
        "HTTPS://evil.example/login",
        "WWW.x.io",
        "https://a``b`c",
    ]
    assert html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip() == raw


@pytest.mark.parametrize("escape", [md_text, md_html, md_escape])
def test_an_address_in_brackets_is_code_without_them(escape: Callable[[str], str]) -> None:
    # Found: diff's note "served by different services (http://10.0.0.9/v1 and
    # https://api.anthropic.com):" showed `(http://10.0.0.9/v1` and `https://api.anthropic.com):`
    # as code, so a reader copying an address got the bracket too. The code starts at the
    # scheme or www. and leaves out a closing bracket the address does not open (GFM's rule)
    raw = "(http://10.0.0.9/v1 and https://api.anthropic.com): see [https://x.io/a_(b)]."
    rendered = MarkdownIt().render(escape(raw))
    assert re.findall(r"<code>(.*?)</code>", rendered) == [
        "http://10.0.0.9/v1",
        "https://api.anthropic.com",
        "https://x.io/a_(b)",
    ]
    assert html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip() == raw


@pytest.mark.parametrize("escape", [md_text, md_html, md_escape])
def test_an_address_in_a_table_cell_keeps_its_cell_and_its_pipe(
    escape: Callable[[str], str],
) -> None:
    # a pipe inside a code span still ends a GFM table cell: it stays outside, escaped
    out = escape("https://x.io/a|b <i>")
    assert out.startswith("`https://x.io/a`\\|b ")
    rendered = _md().render(f"| a |\n|---|\n| {out} |\n")
    assert _cells(rendered) == ["<code>https://x.io/a</code>|b <i>"]


def test_terminal_safe_shows_format_characters_and_surrogates() -> None:
    # zero-width space, byte-order mark, a tag character (outside the BMP), a lone surrogate
    assert terminal_safe("a\u200bb\ufeff") == "a\\u200bb\\ufeff"
    assert terminal_safe("x\U000e0041") == "x\\U000e0041"
    assert terminal_safe("\ud800") == "\\ud800"


# ---------------------------------------------------------------- parsed back


@pytest.mark.parametrize("escape", [md_text, md_html], ids=["md_text", "md_html"])
@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_hostile_cell_stays_one_cell_of_plain_text(
    shape: str, escape: Callable[[str], str]
) -> None:
    raw = HOSTILE[shape]
    lines = md_table(["case", "reason"], [["c1", raw], [raw, "x"]], escape=escape)
    rendered = _md().render("\n".join(lines) + "\n")
    assert rendered.count("<table>") == 1 and rendered.count("<tr>") == 3
    # two rows of two cells each: no pipe in the text split a cell, no newline ended the row
    seen = _cells(rendered)
    assert len(seen) == 4
    # no markup made from the text: no emphasis, strikethrough, link, image or raw HTML, and a
    # code span only around an address
    for tag in ("<em", "<strong", "<s>", "<del", "<a ", "<img", "<script", "<h1"):
        assert tag not in rendered, (shape, tag, rendered)
    assert all("://" in x for x in re.findall("<code>(.*?)</code>", rendered))
    # and the reader sees the text that went in, controls shown as escapes
    shown = [re.sub("</?code>", "", x) for x in seen]
    assert shown[1] == terminal_safe(raw) and shown[2] == terminal_safe(raw)


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_hostile_text_in_a_list_item_is_one_plain_item(shape: str) -> None:
    raw = HOSTILE[shape]
    rendered = _md().render(f"- **label**: {md_text(raw)}\n")
    assert rendered.count("<li>") == 1 and rendered.count("<strong>") == 1
    for tag in ("<em", "<s>", "<del", "<a ", "<img", "<script", "<h1", "<table"):
        assert tag not in rendered, (shape, tag)
    assert all("://" in x for x in re.findall("<code>(.*?)</code>", rendered))
    text = html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()
    assert text == "label: " + terminal_safe(raw)  # as in a cell


def test_text_table_escapes_header_and_cells() -> None:
    # a header may hold a file name (diff): it is escaped like every cell
    lines = text_table(["a\x1b[2J", "b"], [["x\ny", "z"]], indent="")
    assert lines == ["a\\x1b[2J  b", "x\\x0ay    z"]
    assert not any("\x1b" in ln or "\n" in ln for ln in lines)


def test_text_table_refuses_a_row_of_another_width() -> None:
    with pytest.raises(ValueError):
        text_table(["a", "b"], [["only one"]])
