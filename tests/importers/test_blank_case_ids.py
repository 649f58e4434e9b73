"""A blank text (``""``, ``"   "``) where a source names a case, a grader or an arm names nothing:
the file is refused at that member's pointer (or the option on the command line), never given a
made-up id. A source's model or executor model longer than a receipt holds (200 characters) is
refused at its own pointer, and a configuration whose object holds no run is refused, not left
out as an arm with no run. Each test starts from a real source file in the shared data (or the
OpenAI Evals items of the importer's tests), copied and changed in ``tmp_path``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import write_json

from driftproof.errors import ImportError_
from driftproof.importers.inspect_ai import InspectOptions, import_inspect

BLANKS = pytest.mark.parametrize("blank", ["", "   "])
DATA = "data/interop"
INSPECT = f"{DATA}/inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json"
PROMPTFOO = f"{DATA}/promptfoo/sample-export.json"
SC = f"{DATA}/skill-creator/anthropic-schemas-examples/benchmark.json"
NEBIUS = f"{DATA}/skill-creator/nebius-skills-workspace/evals/iteration-1/benchmark.json"


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _refused_at(call: Any, pointer: str) -> str:
    with pytest.raises(ImportError_) as exc:
        call()
    (p,) = exc.value.problems
    assert p.pointer == pointer
    return p.message


@BLANKS
def test_inspect_blank_sample_id_is_refused(shared: Path, tmp_path: Path, blank: str) -> None:
    doc = _json(shared / INSPECT)
    doc["samples"][0]["id"] = blank
    path = write_json(tmp_path / "log.json", doc)
    message = _refused_at(
        lambda: import_inspect({"with_skill": path}, InspectOptions(skill_name="s")),
        "/samples/0/id",
    )
    assert message == f"expected the sample id, found the blank text {json.dumps(blank)}"


@BLANKS
def test_inspect_blank_listed_sample_id_is_refused(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    doc = _json(shared / INSPECT)
    doc["eval"]["dataset"]["sample_ids"][2] = blank  # the log's third sample is id 3
    path = write_json(tmp_path / "log.json", doc)
    message = _refused_at(
        lambda: import_inspect({"with_skill": path}, InspectOptions(skill_name="s")),
        "/eval/dataset/sample_ids/2",
    )
    assert message == f"expected a sample id, found the blank text {json.dumps(blank)}"
