"""An Inspect log's run figures are checked for their meaning before they are kept as printed:
a spread (stderr, std, var, bootstrap_stderr) and a sample count are never below 0 (the
schema refuses a count that is no integer); otherwise the log is refused at the figure's
pointer, nothing written.

The real popularity log's one scorer reports accuracy 0.667 and stderr 0.333 over
``scored_samples`` 3.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from driftproof.cli import cli
from driftproof.errors import ImportError_

POP = "data/interop/inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"
S = "/results/scores/0"


@pytest.mark.parametrize(
    ("member", "value", "pointer", "message"),
    [
        (("metrics", "stderr", "value"), -0.1, "/metrics/stderr/value", "a stderr of 0 or more"),
        (("scored_samples",), -1, "/scored_samples", "a finite number from 0, found"),
        (("unscored_samples",), -2, "/unscored_samples", "a finite number from 0, found"),
    ],
)
def test_a_run_figure_outside_its_meaning_is_refused(
    shared: Path, tmp_path: Path, member: tuple[str, ...], value: Any, pointer: str, message: str
) -> None:
    # found: stderr -0.1 was kept as printed; a sample count of -1 was dropped unsaid
    doc = json.loads((shared / POP).read_text("utf-8"))
    holder = doc["results"]["scores"][0]
    for key in member[:-1]:
        holder = holder[key]
    holder[member[-1]] = value
    src = tmp_path / "log.json"
    src.write_text(json.dumps(doc), "utf-8")
    out = tmp_path / "out"
    args = ["import", "inspect", "--with-skill", str(src), "--skill-name", "s"]
    result = CliRunner().invoke(cli, [*args, "--out-dir", str(out)])
    assert isinstance(result.exception, ImportError_), result.output
    (p,) = result.exception.problems
    assert (p.file, p.pointer) == (str(src), S + pointer) and message in p.message, p.message
    assert not out.exists()
