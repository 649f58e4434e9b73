"""claude plugin eval: the members that change what a run's score means, read or refused.

claude plugin eval (``data/interop/claude-plugin-eval/SOURCE.md``, "The fields, in brief"):
``schemaVersion`` is the result-format version, ``1`` in both real files (an integer); a run's
``score`` is the weighted share of its scored graders that passed, so a grader weight below 0 or
not finite leaves it undefined. The real two-arm document's with run has one scored grader
(``criteria``, weight 1, passed) and scores 1.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import write_json

from driftproof.errors import ImportError_
from driftproof.importers.claude_plugin_eval import import_claude_plugin_eval

PLUGIN_DOC = "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"


def _problem(exc: pytest.ExceptionInfo[ImportError_]) -> tuple[str, str, str]:
    p = exc.value.problems[0]
    return p.file, p.pointer, p.message


def _plugin_doc(shared: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((shared / PLUGIN_DOC).read_text(encoding="utf-8"))
    return copy.deepcopy(doc)


def _negative_scored_grader(d: dict[str, Any]) -> None:
    # a second scored grader that failed, weight -1: the share 1 / (1 - 1) is undefined, yet the
    # run still says score 1
    d["cases"][0]["arms"]["with"][0]["graders"].append(
        {"name": "x", "passed": False, "weight": -1, "scored": True}
    )


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        (_negative_scored_grader, "/cases/0/arms/with/0/graders/2/weight"),
        (lambda d: d["cases"][0]["graders"][0].update(weight=-1), "/cases/0/graders/0/weight"),
    ],
)
def test_a_negative_grader_weight_is_refused_at_its_pointer(
    shared: Path, tmp_path: Path, change: Any, pointer: str
) -> None:
    doc = _plugin_doc(shared)
    change(doc)
    path = write_json(tmp_path / "aggregate-result.json", doc)
    with pytest.raises(ImportError_) as e:
        import_claude_plugin_eval(path)
    file, ptr, message = _problem(e)
    assert (file, ptr) == (str(path), pointer)
    assert "expected a grader weight of 0 or more, found -1" in message


def test_schema_version_other_than_the_integer_1_is_refused(shared: Path, tmp_path: Path) -> None:
    doc = _plugin_doc(shared)
    doc["schemaVersion"] = 1.0
    path = write_json(tmp_path / "aggregate-result.json", doc)
    assert '"schemaVersion": 1.0' in path.read_text(encoding="utf-8")
    with pytest.raises(ImportError_) as e:
        import_claude_plugin_eval(path)
    file, ptr, message = _problem(e)
    assert (file, ptr) == (str(path), "/schemaVersion")
    assert message == "expected schemaVersion 1 (the version this importer reads), found 1.0"


@pytest.mark.parametrize(("weight", "found"), [(True, "true"), ("1", '"1"')])
def test_a_run_grader_weight_that_is_no_number_is_refused(
    shared: Path, tmp_path: Path, weight: Any, found: str
) -> None:
    # found: weight true (or "1") on the with run's scored grader lost the run without a word of
    # the file, where weight -1 is refused
    doc = _plugin_doc(shared)
    doc["cases"][0]["arms"]["with"][0]["graders"][0]["weight"] = weight
    path = write_json(tmp_path / "aggregate-result.json", doc)
    with pytest.raises(ImportError_) as e:
        import_claude_plugin_eval(path)
    assert _problem(e)[:2] == (str(path), "/cases/0/arms/with/0/graders/0/weight")
    assert f"expected a grader weight of 0 or more, found {found}: " in _problem(e)[2]
