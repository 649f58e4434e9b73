"""What makes a promptfoo row a case, the parts of it hashed into a key, and what it must say.

Rows are the real export ``data/interop/promptfoo/sample-export.json`` (4 rows: 2 riddles, each
answered by openai:gpt-5 and openai:gpt-5-mini, no ``repeatIndex``, empty test metadata),
changed one member at a time. A JavaScript tool writes an integer past 2**53 - 1 (an id such as
1234567890123456789) with all its digits; no RFC 8785 key holds it exactly, so it is refused
where it is, as every importer refuses such an integer, never as "not JSON".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import write_json

from driftproof.errors import ImportError_
from driftproof.importers import get_importer
from driftproof.importers.claude_plugin_eval import ClaudePluginEvalOptions
from driftproof.importers.promptfoo import PromptfooOptions

PF = "data/interop/promptfoo/sample-export.json"
CPE = "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"
ARMS = {"with_skill": "openai:gpt-5", "baseline": "openai:gpt-5-mini"}
BIG = 1234567890123456789
#: The exact-integer refusal's words (driftproof/importers/_counts.py, exact_integer).
EXACT = "expected a number a receipt holds exactly: an integer of at most 9,007,199,254,740,991"


def _import(shared: Path, tmp_path: Path, change: Callable[[list[dict[str, Any]]], None]) -> Any:
    doc = json.loads((shared / PF).read_text("utf-8"))
    change(doc["results"]["results"])
    path = write_json(tmp_path / "out.json", doc)
    return path, lambda: get_importer("promptfoo")(
        path, PromptfooOptions(arms=ARMS, skill_name="s")
    )


@pytest.mark.parametrize("index", [-1, "0", 1.5, True])
def test_a_repeat_index_that_is_no_count_is_refused(
    shared: Path, tmp_path: Path, index: Any
) -> None:
    path, run = _import(shared, tmp_path, lambda rows: rows[1].update(repeatIndex=index))
    with pytest.raises(ImportError_) as e:
        run()
    p = e.value.problems[0]
    assert (p.file, p.pointer) == (str(path), "/results/results/1/repeatIndex")
    assert p.message.startswith("expected a repeat index (an integer from 0), found ")


def test_a_test_id_in_its_metadata_names_the_case(shared: Path, tmp_path: Path) -> None:
    def ids(rows: list[dict[str, Any]]) -> None:
        for r in rows:  # the two rows of one riddle share its id
            r["testCase"]["metadata"] = {"id": "boat" if "boat" in r["vars"]["riddle"] else "echo"}

    _, run = _import(shared, tmp_path, ids)
    (got,) = run()
    assert sorted(c.id for c in got.body.cases) == ["boat", "echo"]
    assert all(len(c.arms.with_skill.draws) == 1 for c in got.body.cases)


def test_an_integer_past_two_to_the_53_in_test_vars_is_refused_where_it_is(
    shared: Path, tmp_path: Path
) -> None:
    path, run = _import(shared, tmp_path, lambda rows: rows[0]["testCase"]["vars"].update(n=BIG))
    with pytest.raises(ImportError_) as e:  # was: "expected JSON-serialisable test vars (no NaN)"
        run()
    p = e.value.problems[0]
    assert (p.file, p.pointer) == (str(path), "/results/results/0/testCase/vars/n")
    assert p.message.startswith(EXACT)


def test_an_integer_past_two_to_the_53_in_a_grader_is_refused_where_it_is(
    shared: Path, tmp_path: Path
) -> None:
    doc = json.loads((shared / CPE).read_text("utf-8"))
    doc["cases"][0]["graders"][0]["config"]["maxCount"] = BIG
    path = write_json(tmp_path / "aggregate-result.json", doc)
    with pytest.raises(ImportError_) as e:  # was: "expected grader definitions ... (no NaN)"
        get_importer("claude-plugin-eval")(path, ClaudePluginEvalOptions())
    p = e.value.problems[0]
    assert (p.file, p.pointer) == (str(path), "/cases/0/graders/0/config/maxCount")
    assert p.message.startswith(EXACT)


@pytest.mark.parametrize("passed", [None, "absent"])
def test_an_assertion_result_saying_no_pass_or_fail_is_refused(
    shared: Path, tmp_path: Path, passed: Any
) -> None:
    # row 0's third component: {"pass": true, ..., "assertion": {"type": "contains"}}; with no
    # pass (and no grader error) it is neither a passed nor a failed check
    def change(rows: list[dict[str, Any]]) -> None:
        comp = rows[0]["gradingResult"]["componentResults"][2]
        comp.pop("pass") if passed == "absent" else comp.update({"pass": passed})

    path, run = _import(shared, tmp_path, change)
    with pytest.raises(ImportError_) as e:
        run()
    p = e.value.problems[0]
    assert (p.file, p.pointer, p.message) == (
        str(path),
        "/results/results/0/gradingResult/componentResults/2/pass",
        "expected the assertion's pass (true or false)",
    )
