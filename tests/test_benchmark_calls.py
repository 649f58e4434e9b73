"""The benchmark scripts and ``make bench``, checked without timing anything.

``make bench`` is not part of the test run (it times things for minutes), so a script calling a
function or class it imports from ``driftproof`` with a keyword or argument count the callable no
longer accepts is caught here: each call is bound against the callable's signature, nothing run.
``make bench`` itself is run on stand-in scripts, and ``plan_calibration.py`` on a few pilots.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("*.py"))
PLAN_CALIBRATION = BENCHMARKS / "plan_calibration.py"


def library_calls(source: str) -> list[tuple[int, str, str, int, list[str]]]:
    """(line, module, name, positional count, keywords) of each call of a ``driftproof`` import.

    A call spreading ``*args`` or ``**kwargs`` cannot be bound from the text and is left out.
    """
    tree = ast.parse(source)
    imported = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("driftproof")
        for alias in node.names
    }
    return [
        (node.lineno, *imported[node.func.id], len(node.args), [k.arg for k in node.keywords])
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in imported
        and not any(isinstance(a, ast.Starred) for a in node.args)
        and all(k.arg is not None for k in node.keywords)
    ]


def test_the_walk_sees_the_calls_it_binds():
    source = (
        "from driftproof.importers.caveman import import_caveman as ic\n"
        "def main():\n"
        "    ic(path, skills_dir=d)\n"
        "    ic(*both)\n"
    )
    assert library_calls(source) == [
        (3, "driftproof.importers.caveman", "import_caveman", 1, ["skills_dir"])
    ]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_each_library_call_binds_to_its_signature(script: Path):
    wrong = []
    for line, module, name, positional, keywords in library_calls(script.read_text("utf-8")):
        target = getattr(importlib.import_module(module), name)
        if not callable(target):
            continue
        try:
            signature = inspect.signature(target)
        except ValueError:  # a builtin with no signature to read
            continue
        try:
            signature.bind(*range(positional), **dict.fromkeys(keywords))
        except TypeError as err:
            wrong.append(f"{script.name}:{line}: {name}{signature}: {err}")
    assert wrong == []


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_bench_runs_every_script_and_names_the_failed_ones(tmp_path: Path):
    shutil.copy(BENCHMARKS.parent / "Makefile", tmp_path / "Makefile")
    for name in ("requirements.lock", "pyproject.toml"):
        (tmp_path / name).touch()
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    (tmp_path / ".venv" / ".installed").touch()  # newer than both: nothing is installed
    (tmp_path / "benchmarks").mkdir()
    for name, code in (("a_breaks", "raise SystemExit(3)"), ("b_runs", "print('b ran')")):
        (tmp_path / "benchmarks" / f"{name}.py").write_text(code, encoding="utf-8")
    (tmp_path / "benchmarks" / "c_breaks.py").write_text("1/0", encoding="utf-8")
    done = subprocess.run(["make", "-s", "bench"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0
    assert "b ran" in done.stdout
    assert "make bench: failed: benchmarks/a_breaks.py benchmarks/c_breaks.py" in (
        done.stderr.splitlines()
    )


def test_plan_calibration_writes_a_dash_not_nan_where_no_run_was_planned(monkeypatch, capsys):
    # At σ 0.032 the two spreads alone reach the 0.05 floor, so no case is given a count: no
    # planned run reads underpowered and no count has a median. Those cells printed "nan%".
    spec = importlib.util.spec_from_file_location("plan_calibration", PLAN_CALIBRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(sys, "argv", ["plan_calibration.py", "--trials", "20", "--suites", "3"])
    module.main()
    out = capsys.readouterr().out
    assert "nan" not in out
    row = next(line for line in out.splitlines() if line.startswith("| 10 | 3 | 0.032 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[5] == cells[11] == cells[16] == "–"  # underpowered twice, the median count
    assert "\n–: no case in this row was given a count, so no run was planned" in out
