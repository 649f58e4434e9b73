"""A blank text (``""``, ``"   "``) where a source names a model, skill, tool version or harness
names nothing: it is never recorded as that name. Where the receipt can do without the value it
is unknown and listed as unrecorded (D-13); where it cannot (a skill's name), the file is refused
at the blank member's pointer. Each test starts from a real source file in the shared data,
copied and changed in ``tmp_path``; skill-eval-harness (no report is public) and summary-json
(Driftproof's own format) start from their tests' hand-built files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import write_json

from driftproof.errors import ImportError_
from driftproof.importers.dotnet_skills import import_skill_validator

BLANKS = pytest.mark.parametrize("blank", ["", "   "])
DATA = "data/interop"
RUN = "run-2026-02-20T20-44-00-817Z/results.json"


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _refused_at(call: Any, pointer: str) -> str:
    with pytest.raises(ImportError_) as exc:
        call()
    (p,) = exc.value.problems
    assert p.pointer == pointer
    return p.message


def _unrecorded(r: Any, head: str) -> bool:
    return any(u.startswith(head) for u in r.provenance.unrecorded)


@BLANKS
def test_skill_validator_blank_skill_name_is_refused(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    doc = _json(shared / DATA / "dotnet-skills/skill-validator-results" / RUN)
    doc["verdicts"][0]["skillName"] = blank
    message = _refused_at(
        lambda: import_skill_validator(write_json(tmp_path / "results.json", doc)),
        "/verdicts/0/skillName",
    )
    assert message.startswith("expected the skill's name, found the blank text")
