"""The demo sits beside the command line, not on it: it imports no ``driftproof.cli`` module."""

from __future__ import annotations

import ast
from pathlib import Path

import driftproof.demo


def test_the_demo_imports_nothing_from_the_command_line() -> None:
    tree = ast.parse(Path(driftproof.demo.__file__).read_text(encoding="utf-8"))
    imported = {
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    } | {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert (
        sorted(m for m in imported if m == "driftproof.cli" or m.startswith("driftproof.cli."))
        == []
    )
