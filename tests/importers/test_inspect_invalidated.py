"""Inspect: a sample marked invalid after its run is lost in the source's words, never counted.

Inspect's ``invalidate_samples()`` (src/inspect_ai/log/_edit.py,
https://github.com/UKGovernmentBEIS/inspect_ai/blob/a4257f7045c7e4a8915d9aff7af064ceb4bf2618/src/inspect_ai/log/_edit.py#L197)
keeps the sample, score and all, and sets its ``invalidation`` (``ProvenanceData``: timestamp,
author, reason, metadata; ``EvalSample.invalidation`` in src/inspect_ai/log/_log.py) and the
log's ``invalidated: true``; "Logs with invalidated samples will be automatically retried when
executing eval sets".
"""

from __future__ import annotations

import json
from pathlib import Path

from interop_helpers import sealed

from driftproof.importers.inspect_ai import InspectOptions, import_inspect

LOG = "data/interop/inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json"


def test_an_invalidated_sample_is_a_lost_draw_naming_who_and_why(
    shared: Path, tmp_path: Path
) -> None:
    # found: the sample was imported as measured, with the score the log's author had disowned
    doc = json.loads((shared / LOG).read_text("utf-8"))
    first = doc["samples"][0]
    assert first["scores"]  # scored in the real log
    doc["invalidated"] = True
    first["invalidation"] = {
        "timestamp": "2026-01-02T03:04:05+00:00",
        "author": "alice",
        "reason": "the grader saw the reference answer",
        "metadata": {},
    }
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc), "utf-8")
    r = sealed(import_inspect({"with_skill": path}, InspectOptions(skill_name="s")))
    d = r.cases[0].arms.with_skill.draws[0]
    assert d.score is None and d.lost.kind == "invalidated"
    assert d.lost.reason == (
        "invalidated in the source by alice: the grader saw the reference answer"
    )
    assert all(c.arms.with_skill.draws[0].lost is None for c in r.cases[1:])  # the others count
