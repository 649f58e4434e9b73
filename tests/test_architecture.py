"""ARCHITECTURE.md stays true: its layer drawing is the import-linter contract `make lint` runs.

The contracts themselves are checked by `lint-imports` (``make lint``); this test holds the page
to them: the drawn layers equal the layers contract, line for line; every module of the package
is in a layer and every layer names a module that exists; the modules the page says ``pages``
never imports are the ones the forbidden contract lists; every path the page names exists.
No module is over 450 lines and no function over 80.
The README's performance section stays one short table whose scripts exist and have their
figures in benchmarks/README.md.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "ARCHITECTURE.md"
PACKAGE = ROOT / "driftproof"


def _contracts() -> dict[str, dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    linter = config["tool"]["importlinter"]
    assert linter["root_package"] == "driftproof"
    return {c["id"]: c for c in linter["contracts"]}


def _drawn_layers() -> list[str]:
    block = re.search(r"```text\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert block is not None, "ARCHITECTURE.md draws no layers (a ```text block)"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def _names(layer: str) -> list[str]:
    return [n.strip() for n in re.split(r"[|:]", layer)]


def _normal(layer: str) -> str:
    sep = ":" if ":" in layer else "|"
    return f" {sep} ".join(_names(layer))


def test_drawn_layers_are_the_contract():
    contract = _contracts()["layers"]
    assert contract["type"] == "layers"
    assert contract["containers"] == ["driftproof"]
    assert contract["exhaustive"] is True
    assert [_normal(x) for x in _drawn_layers()] == [_normal(x) for x in contract["layers"]]


def test_every_module_is_in_exactly_one_layer():
    named = [n for layer in _drawn_layers() for n in _names(layer)]
    assert len(named) == len(set(named)), "a module is drawn in two layers"
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    modules |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert set(named) == modules


def test_pages_rule_names_the_forbidden_contract():
    contract = _contracts()["pages-below-readers"]
    assert contract["type"] == "forbidden"
    assert contract["source_modules"] == ["driftproof.pages"]
    rule = next(
        line
        for line in PAGE.read_text(encoding="utf-8").splitlines()
        if line.startswith("- `pages` never imports")
    )
    drawn = re.findall(r"`([a-z_]+)`", rule.split("imports", 1)[1])
    assert sorted(f"driftproof.{n}" for n in drawn) == sorted(contract["forbidden_modules"])


def test_no_circles_contract_covers_the_package():
    contract = _contracts()["no-cycles"]
    assert contract["type"] == "acyclic_siblings"
    assert contract["ancestors"] == ["driftproof"]


def test_every_path_named_exists_and_the_page_is_short():
    text = PAGE.read_text(encoding="utf-8")
    paths = re.findall(r"`((?:driftproof|tests)/[^`]*)`", text)
    assert "driftproof/pages/" in paths and "driftproof/action.py" in paths
    assert [p for p in paths if not (ROOT / p).exists()] == []
    assert len(text.splitlines()) <= 60, "ARCHITECTURE.md is at most one page"


def test_readme_performance_is_one_short_table_of_scripts_that_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Performance", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    assert 3 <= len(rows) <= 15, "the performance table is at most 15 lines"
    assert all(len(line) <= 300 for line in rows), "figures belong in benchmarks/README.md"
    figures = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    headings = [line for line in figures.splitlines() if line.startswith("## ")]
    for row in rows[2:]:
        scripts = re.findall(r"`([a-z_]+\.py)`", row.split("|")[1])
        assert scripts, row
        for script in scripts:
            assert (ROOT / "benchmarks" / script).is_file(), script
            assert any(f"`{script}`" in h for h in headings), f"{script}: no section"


#: Lines: the largest module and the largest function (from its ``def`` line to its last line;
#: a click command's option decorators are declarations, not the function) the package allows.
MODULE_MAX_LINES = 450
FUNCTION_MAX_LINES = 80


def _too_long(source: str) -> tuple[int, list[tuple[str, int]]]:
    functions = [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno
    ]
    return len(source.splitlines()), [f for f in functions if f[1] > FUNCTION_MAX_LINES]


def test_no_module_over_450_lines_and_no_function_over_80():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines, functions = _too_long(path.read_text(encoding="utf-8"))
        name = path.relative_to(ROOT).as_posix()
        if lines > MODULE_MAX_LINES:
            found.append(f"{name}: {lines} lines")
        found += [f"{name}: {fn}() is {n} lines" for fn, n in functions]
    assert found == []


def test_the_size_rule_counts_a_function_from_def_to_its_last_line():
    body = "".join(f"    x{i} = {i}\n" for i in range(79))
    assert _too_long(f"@decorator\ndef f():\n{body}")[1] == []
    assert _too_long(f"def f():\n{body}    return 1\n")[1] == [("f", 81)]
    assert _too_long("x = 1\n" * 451)[0] == 451


#: Each hand-written page of site_src/ and the word README's map gives it.
SITE_PAGES = {
    "index.md": "home",
    "method.md": "method",
    "neutrality.md": "neutrality",
    "interop.md": "interop",
    "receipt-spec.md": "receipt specification",
    "decisions.md": "readings",
    "search.md": "search",
}


def test_readme_map_names_every_site_src_page():
    # the map listed six pages; search.md, the seventh, was missing
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = next(x for x in readme.splitlines() if x.startswith("| `site_src/` |"))
    assert sorted(p.name for p in (ROOT / "site_src").glob("*.md")) == sorted(SITE_PAGES)
    words = row.split("|")[2].split(":", 1)[1]
    named = {w.strip().split(" (")[0] for w in words.split(",")}
    assert named == set(SITE_PAGES.values())
