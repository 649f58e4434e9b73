"""An Inspect ``.eval`` archive lacking a member Inspect's writer puts there, refused by name.

The real archive ``data/interop/inspect_ai/2025-02-11T15-18-04-05-00_popularity_
mj7khqpMM4GBCfVQozKgzB.eval`` holds ``_journal/start.json``, ``header.json``, one
``samples/<id>_epoch_1.json`` per sample (1 to 10) and ``reductions.json`` (scorer ``match``,
one ``{"value", "answer", "explanation", "sample_id"}`` per sample); each test copies it with a
member left out or changed.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from driftproof.errors import ImportError_
from driftproof.importers.inspect_ai import InspectOptions, import_inspect

EVAL = "data/interop/inspect_ai/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"


def _copy(
    shared: Path, out: Path, keep: Callable[[str], bool], edit: Callable[[str, bytes], bytes]
) -> Path:
    with zipfile.ZipFile(shared / EVAL) as z, zipfile.ZipFile(out, "w") as w:
        for name in filter(keep, z.namelist()):
            w.writestr(name, edit(name, z.read(name)))
    return out


def _no_value(name: str, data: bytes) -> bytes:
    if name != "reductions.json":
        return data
    doc = json.loads(data)
    del doc[0]["samples"][2]["value"]
    return json.dumps(doc).encode()


def _none_completed(name: str, data: bytes) -> bytes:
    if name != "header.json":
        return data
    doc = json.loads(data)
    doc["results"]["completed_samples"] = 0
    return json.dumps(doc).encode()


@pytest.mark.parametrize(
    ("keep", "edit", "member", "pointer", "words"),
    [
        (
            lambda n: n not in ("header.json", "_journal/start.json"),
            lambda n, d: d,
            "header.json",
            "",
            "expected header.json (or _journal/start.json) in the .eval archive",
        ),
        (  # a header counting no completed sample: none was logged
            lambda n: not n.startswith("samples/"),
            _none_completed,
            "",
            "",
            "expected samples/<id>_epoch_<n>.json members; found none",
        ),
        (
            lambda n: True,
            _no_value,
            "reductions.json",
            "/0/samples/2/value",
            "expected the sample's reduced value, found none",
        ),
    ],
)
def test_a_member_inspect_writes_missing_is_refused(
    shared: Path,
    tmp_path: Path,
    keep: Callable[[str], bool],
    edit: Callable[[str, bytes], bytes],
    member: str,
    pointer: str,
    words: str,
) -> None:
    path = _copy(shared, tmp_path / "log.eval", keep, edit)
    with pytest.raises(ImportError_) as e:
        import_inspect({"with_skill": path}, InspectOptions(skill_name="s"))
    p = e.value.problems[0]
    assert (p.file, p.member, p.pointer, p.message) == (str(path), member, pointer, words)
