"""skill-validator results that name their schema: read when it is skill-validator's version 1.

skill-validator's own reader (dotnet/skills ``eng/skill-validator``,
``LegacySkillValidatorResultsSchema``: ``Owner = "skill-validator"``, ``CurrentVersion = 1``)
writes ``schemaOwner`` and ``schemaVersion`` on the file and on each verdict, reads unversioned
files as the predecessor of version 1, and refuses any other owner or version ("This command only
reads legacy skill-validator results version 1; Vally adapter results use a separate schema").
Its tests (``ResultsSchemaTests``: ``ExplicitSchemaVersionZeroIsRejected``,
``VallyAdapterSchemasAreRejectedByLegacyConsolidation`` for 3 and 4) are the cases below. The
file is the real run in the interop data (https://github.com/dotnet/skills, MIT, commit be943d7)
with those members added.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import write_json

from driftproof.errors import ImportError_
from driftproof.importers.dotnet_skills import import_skill_validator

RUN = "data/interop/dotnet-skills/skill-validator-results/run-2026-02-20T20-44-00-817Z/results.json"


def _named(shared: Path, owner: Any, version: Any, where: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((shared / RUN).read_text(encoding="utf-8"))
    v1 = {"schemaOwner": "skill-validator", "schemaVersion": 1}
    doc |= v1
    doc["verdicts"] = [v | v1 for v in doc["verdicts"]]
    place = doc if where == "" else doc["verdicts"][0]
    place.update(schemaOwner=owner, schemaVersion=version)
    return doc


def test_version_1_reads_as_the_unversioned_file(shared: Path, tmp_path: Path) -> None:
    (plain,) = import_skill_validator(shared / RUN)
    (named,) = import_skill_validator(
        write_json(tmp_path / "results.json", _named(shared, "skill-validator", 1, ""))
    )
    assert named.body.cases == plain.body.cases
    assert named.body.source_report == plain.body.source_report


@pytest.mark.parametrize(
    ("owner", "version", "where", "pointer"),
    [
        ("skill-validator", 2, "", "/schemaVersion"),  # a later version: not read as 1
        ("skill-validator", 0, "/verdicts/0", "/verdicts/0/schemaVersion"),
        ("skill-validator", True, "", "/schemaVersion"),
        (None, 4, "", "/schemaOwner"),  # a Vally adapter file's version, no owner
        ("vally", 1, "", "/schemaOwner"),
    ],
)
def test_another_schema_is_refused_at_its_member(
    shared: Path, tmp_path: Path, owner: Any, version: Any, where: str, pointer: str
) -> None:
    doc = _named(shared, owner, version, where)
    if owner is None:
        del (doc if where == "" else doc["verdicts"][0])["schemaOwner"]
    path = write_json(tmp_path / "results.json", doc)
    with pytest.raises(ImportError_) as exc:
        import_skill_validator(path)
    p = exc.value.problems[0]
    assert (p.file, p.pointer) == (str(path), pointer)
    assert "schemaOwner 'skill-validator' with schemaVersion 1" in p.message


@pytest.mark.parametrize(
    ("owner", "version", "where"),
    [
        (None, None, ""),  # both null on the file: unversioned, as absent
        ("skill-validator", None, "/verdicts/0"),  # a verdict's null version reads as 1
        (None, 1, "/verdicts/0"),  # a verdict's null owner reads as skill-validator
        ("skill-validator", "absent", "/verdicts/0"),
        ("absent", 1, "/verdicts/0"),
    ],
)
def test_what_skill_validator_reads_as_version_1_is_read(
    shared: Path, tmp_path: Path, owner: Any, version: Any, where: str
) -> None:
    """skill-validator's ``ConsolidateData`` reads JSON null as absent, and ``SkillVerdict``'s
    getters read a verdict's absent or null ``schemaOwner`` as "skill-validator" and
    ``schemaVersion`` as 1 before ``EnsureSupported`` looks at them: such files are read."""
    doc = _named(shared, owner, version, where)
    place = doc if where == "" else doc["verdicts"][0]
    for key, value in (("schemaOwner", owner), ("schemaVersion", version)):
        if value == "absent":
            del place[key]
    (plain,) = import_skill_validator(shared / RUN)
    (read,) = import_skill_validator(write_json(tmp_path / "results.json", doc))
    assert read.body.cases == plain.body.cases


def test_a_verdict_naming_another_version_without_an_owner_is_refused_at_its_version(
    shared: Path, tmp_path: Path
) -> None:
    doc = _named(shared, "skill-validator", 4, "/verdicts/0")
    del doc["verdicts"][0]["schemaOwner"]  # read as skill-validator's, so version 4 is wrong
    path = write_json(tmp_path / "results.json", doc)
    with pytest.raises(ImportError_) as exc:
        import_skill_validator(path)
    p = exc.value.problems[0]
    assert (p.file, p.pointer) == (str(path), "/verdicts/0/schemaVersion")
