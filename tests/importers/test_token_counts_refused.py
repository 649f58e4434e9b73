"""A token count a source gives must be a whole number of 0 or more: true, -3, 2.5 or "64" is
refused at its pointer, nothing written; a count absent or null stays unknown (D-13).

Found: such a count made the draw's tokens unknown without a word (Inspect's
``output.usage``, promptfoo's ``response.tokenUsage``).
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
PF = "data/interop/promptfoo/sample-export.json"
PF_ARMS = ["--arm", "with_skill=openai:gpt-5-mini", "--arm", "baseline=openai:gpt-5"]
CASES = [(True, "true"), (-3, "-3"), (2.5, "2.5"), ("64", '"64"')]


def _refused(tmp_path: Path, args: list[str], src: Path, pointer: str, found: str) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["import", *args, "--out-dir", str(out)])
    assert isinstance(result.exception, ImportError_), result.output
    (p,) = result.exception.problems
    assert (p.file, p.pointer) == (str(src), pointer)
    assert p.message == f"expected a token count of 0 or more, found {found}"
    assert not out.exists()


@pytest.mark.parametrize(("value", "found"), CASES)
def test_an_inspect_token_count_that_is_no_count_is_refused(
    shared: Path, tmp_path: Path, value: Any, found: str
) -> None:
    doc = json.loads((shared / POP).read_text("utf-8"))
    doc["samples"][1]["output"]["usage"]["output_tokens"] = value  # the real log: 2
    src = tmp_path / "log.json"
    src.write_text(json.dumps(doc), "utf-8")
    args = ["inspect", "--with-skill", str(src), "--skill-name", "s"]
    _refused(tmp_path, args, src, "/samples/1/output/usage/output_tokens", found)


@pytest.mark.parametrize(("value", "found"), CASES)
def test_a_promptfoo_token_count_that_is_no_count_is_refused(
    shared: Path, tmp_path: Path, value: Any, found: str
) -> None:
    doc = json.loads((shared / PF).read_text("utf-8"))
    doc["results"]["results"][0]["response"]["tokenUsage"]["prompt"] = value  # the export: 37
    src = tmp_path / "out.json"
    src.write_text(json.dumps(doc), "utf-8")
    args = ["promptfoo", str(src), "--skill-name", "s", *PF_ARMS]
    _refused(tmp_path, args, src, "/results/results/0/response/tokenUsage/prompt", found)


def test_a_null_token_count_stays_unknown(shared: Path, tmp_path: Path) -> None:
    doc = json.loads((shared / POP).read_text("utf-8"))
    doc["samples"][1]["output"]["usage"]["output_tokens"] = None
    src = tmp_path / "log.json"
    src.write_text(json.dumps(doc), "utf-8")
    out = tmp_path / "out"
    args = ["import", "inspect", "--with-skill", str(src), "--skill-name", "s"]
    result = CliRunner().invoke(cli, [*args, "--out-dir", str(out)])
    assert result.exit_code == 0, result.output
