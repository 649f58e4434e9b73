"""``driftproof view`` and ``driftproof diff`` in Markdown on receipts whose file names and
lost-draw reasons carry every hostile shape: each table keeps its rows and cells, and no
markup comes from the receipt's text (parsed back with markdown-it-py, GFM tables on).

The scores are the hand-worked ones of tests/cli/test_diff.py (C1 .60 .62 .61 → .71 .72 .70).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from factories import arm, case, make_receipt, run_main
from markdown_it import MarkdownIt

from driftproof.render.escape import terminal_safe

SHAPES = {
    "pipe": "a|b|c",
    "backtick": "`rm -rf /`",
    "dollar": "$x^2$ costs $5",
    "script": "<script>alert(1)</script>",
    "newline": "one\n# two\n| x | y |",
    "emphasis": "**bold** _em_ ~~s~~",
    "link": "[a](javascript:alert(1))",
}
_MARKUP = ("<code", "<em>", "<strong>bold", "<del", "<s>", "<a ", "<script", "<h1>two", "<img")


def _hostile_pair(tmp_path: Path, text: str) -> tuple[Path, Path]:
    """Two receipts, each with a lost draw whose reason is ``text``, in files whose names hold
    ``text`` (the diff's table header names the files) where a file name can."""
    paths = []
    for i, scores in enumerate(([0.60, 0.62, 0.61], [0.71, 0.72, 0.70])):
        c2 = case("C2", [*scores, None], scores)
        c2["arms"]["with_skill"] = arm([*scores, None], lost_reason=text)
        doc = make_receipt([case("C1", scores, [0.45, 0.50, 0.48]), c2])
        p = tmp_path / f"{text.replace('/', '-')} {i}.json"
        p.write_text(json.dumps(doc), encoding="utf-8")
        paths.append(p)
    return paths[0], paths[1]


def _tables(md: str) -> list[list[list[str]]]:
    html = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)
    for tag in _MARKUP:
        assert tag not in html, (tag, html)
    return [
        [
            re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
            for row in re.findall(r"<tr>(.*?)</tr>", t, re.S)
        ]
        for t in re.findall(r"<table>(.*?)</table>", html, re.S)
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_view_markdown_keeps_every_table_whole(shape: str, tmp_path: Path, capsys: Any) -> None:
    _, b = _hostile_pair(tmp_path, SHAPES[shape])
    code, out, err = run_main(["view", str(b), "--format", "markdown"], capsys)
    assert code == 0, err
    # the file name is the one code span, on one line, shown as it is (its backticks kept)
    (file_line,) = [ln for ln in out.splitlines() if ln.startswith("File: ")]
    shown = html.escape(terminal_safe(str(b)), quote=False)
    assert MarkdownIt("commonmark").renderInline(file_line) == f"File: <code>{shown}</code>"
    tables = _tables(out.replace(file_line, "File: (checked above)"))
    # arms (2 arms + header), cases (2 cases + header), breakdown (2 cases + header)
    assert [len(t) for t in tables] == [3, 3, 3]
    for t in tables:
        assert len({len(row) for row in t}) == 1  # every row as wide as its header
    assert not any(line.startswith("# two") for line in out.splitlines())


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_diff_markdown_keeps_its_table_whole(shape: str, tmp_path: Path, capsys: Any) -> None:
    a, b = _hostile_pair(tmp_path, SHAPES[shape])
    code, out, err = run_main(["diff", str(a), str(b), "--format", "markdown"], capsys)
    assert code in (0, 1, 2), err
    (table,) = _tables(out)
    assert len(table) == 3 and len({len(row) for row in table}) == 1
    assert not any(line.startswith("# two") for line in out.splitlines())


def test_view_markdown_shows_a_file_name_with_a_backtick_as_it_is(
    tmp_path: Path, capsys: Any
) -> None:
    # x`y.json read "xy.json": the backtick was dropped to keep the code span whole. A fence of
    # two backticks, padded with a space each side, holds the one backtick as it is
    p = tmp_path / "x`y.json"
    p.write_text(json.dumps(make_receipt([case("C1", [0.6], [0.5])])), encoding="utf-8")
    code, out, err = run_main(["view", str(p), "--format", "markdown"], capsys)
    assert code == 0, err
    assert f"\nFile: `` {tmp_path}/x`y.json ``\n" in out
    rendered = MarkdownIt("commonmark").render(out)
    assert f"<code>{html.escape(str(tmp_path), quote=False)}/x`y.json</code>" in rendered
