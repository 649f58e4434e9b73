"""Files given to ``import promptfoo`` that hold no promptfoo result, named for what they hold.

A JSONL export holds one result object per line (``testCase``, ``provider``); an OpenAI Evals
API list page (``{"object": "list", "data": [output items], "has_more": false}``, as the API's
"Get eval run output items" returns it) is the other importer's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from driftproof.cli import cli

ITEMS = "data/interop/openai-evals/promptfoo-fixture-openai-evals-items.jsonl"
EXPECTED = (
    "/line 1: expected a promptfoo result (an object with testCase and provider, one per line as "
    "`promptfoo eval -o x.jsonl` writes), found "
)


def _refusal(path: Path, out: Path) -> str:
    args = ["import", "promptfoo", str(path), "--arm", "with_skill=x", "--skill-name", "s"]
    result = CliRunner().invoke(cli, [*args, "--out-dir", str(out)])
    assert result.exit_code != 0 and not out.exists()
    return "\n".join(map(str, getattr(result.exception, "problems", [result.exception])))


@pytest.mark.parametrize(("line", "found"), [("[1, 2]", "an array"), ("{}", "an empty object")])
def test_a_jsonl_line_that_is_no_result_is_named(tmp_path: Path, line: str, found: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    assert _refusal(path, tmp_path / "r") == f"{path}: {EXPECTED}{found}"


def test_an_openai_evals_list_page_is_named_as_the_other_importers(
    shared: Path, tmp_path: Path
) -> None:
    item = json.loads((shared / ITEMS).read_text("utf-8").splitlines()[0])
    path = tmp_path / "page.json"
    path.write_text(json.dumps({"object": "list", "data": [item], "has_more": False}), "utf-8")
    assert "driftproof import openai-evals (give --skill-name NAME) reads this file" in _refusal(
        path, tmp_path / "r"
    )
