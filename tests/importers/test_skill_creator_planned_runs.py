"""skill-creator's ``metadata.runs_per_configuration``: the generations per arm when every
configuration of every eval recorded that many runs.

From ``data/interop/skill-creator/anthropic-schemas-examples/benchmark.json`` (Anthropic's
schema example): one run, eval 1 with_skill (6 of 7 assertions passed), and
``runs_per_configuration`` 3, so the runs recorded differ from the plan; this copy plans 1 and
adds eval 1's without_skill run (2 of 7 passed), so each arm of the one eval holds the 1 run
planned.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from interop_helpers import write_json

from driftproof.importers import get_importer

SAMPLE = "data/interop/skill-creator/anthropic-schemas-examples/benchmark.json"


def test_runs_as_planned_are_the_generations_per_arm(shared: Path, tmp_path: Path) -> None:
    doc = json.loads((shared / SAMPLE).read_text("utf-8"))
    doc["metadata"]["runs_per_configuration"] = 1
    without = copy.deepcopy(doc["runs"][0])
    without["configuration"] = "without_skill"
    without["result"].update(pass_rate=2 / 7, passed=2, failed=5)
    doc["runs"].append(without)
    (item,) = get_importer("skill-creator")([write_json(tmp_path / "benchmark.json", doc)])
    body = item.body.to_json_dict()
    assert body["run"]["generations_per_arm"] == 1
    assert not [u for u in body["provenance"]["unrecorded"] if "generations_per_arm" in u]
