"""Inspect: a sample marked invalid, or an epoch early stopping skipped, is lost in the log's words.

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


def test_an_epoch_early_stopping_skipped_is_lost_in_the_logs_words(
    shared: Path, tmp_path: Path
) -> None:
    # Inspect's early stopping skips selected samples/epochs and says which in the log's
    # results.early_stopping (EvalResults.early_stopping: EarlyStoppingSummary{manager,
    # early_stops[{id, epoch, reason, metadata}], metadata}, src/inspect_ai/util/_early_stopping.py,
    # https://github.com/UKGovernmentBEIS/inspect_ai/blob/3e05d56606c8b5da730a1e331620b0d71f63a95e/src/inspect_ai/util/_early_stopping.py#L29).
    # found: the skipped epoch read "the log lists sample 1, epoch 2, but holds no record of it"
    doc = json.loads((shared / LOG).read_text("utf-8"))
    doc["eval"]["config"]["epochs"] = 2  # each held sample is epoch 1; epoch 2 was not run
    doc["results"]["early_stopping"] = {
        "manager": "confident",
        "early_stops": [{"id": 1, "epoch": 2, "reason": "score settled", "metadata": None}],
        "metadata": {},
    }
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc), "utf-8")
    r = sealed(import_inspect({"with_skill": path}, InspectOptions(skill_name="s")))
    one, two = r.cases[0].arms.with_skill.draws[1], r.cases[1].arms.with_skill.draws[1]
    assert one.lost.reason == "Inspect's early stopping skipped sample 1, epoch 2: score settled"
    assert two.lost.reason.startswith("the log lists sample 2, epoch 2, but holds no record")
