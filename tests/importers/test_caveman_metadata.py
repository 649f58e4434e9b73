"""caveman snapshots whose metadata, prompts or cells are not as caveman's snapshot contract
writes them (results.json: ``metadata`` an object of non-empty texts, ``prompts`` a non-empty
list, each arm one output per prompt; ``results.<lang>.json`` for a language run), on the small
snapshot of caveman_snapshot.py (2 prompts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from caveman_snapshot import small_snapshot, write_snapshot

from driftproof.errors import ImportError_
from driftproof.importers import get_importer


def test_a_blank_model_is_unrecorded_not_a_model(tmp_path: Path) -> None:
    # "   " is a non-empty string, as the contract asks, but it names no model
    doc = small_snapshot()
    doc["metadata"]["model"] = "   "
    snap, skills = write_snapshot(tmp_path, doc)
    (item,) = get_importer("caveman")(snap, skills_dir=skills)
    body = item.body.to_json_dict()
    assert body["run"]["model"] is None
    assert "model: the snapshot records none" in body["provenance"]["unrecorded"]


@pytest.mark.parametrize(
    ("change", "name", "pointer", "message"),
    [
        (
            lambda d: d.update(metadata=[]),
            "results.json",
            "/metadata",
            "expected an object (the snapshot's metadata)",
        ),
        (
            lambda d: d.update(prompts=[]),
            "results.json",
            "/prompts",
            "expected a non-empty list of prompt strings",
        ),
        (
            lambda d: d["arms"].update(caveman="x"),
            "results.json",
            "/arms/caveman",
            "expected a list of 2 outputs, found a string",
        ),
        (
            lambda d: d["metadata"].update(lang="fr"),
            "results.pt.json",
            "/metadata/lang",
            "expected 'pt', the language the file name results.pt.json names, found 'fr'",
        ),
    ],
)
def test_a_snapshot_unlike_the_contract_is_refused(
    tmp_path: Path, change: Any, name: str, pointer: str, message: str
) -> None:
    doc = small_snapshot()
    change(doc)
    snap, skills = write_snapshot(tmp_path, doc)
    snap = snap.rename(tmp_path / name)
    with pytest.raises(ImportError_) as e:
        get_importer("caveman")(snap, skills_dir=skills)
    p = e.value.problems[0]
    assert (p.file, p.pointer, p.message) == (str(snap), pointer, message)
