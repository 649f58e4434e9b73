"""Inspect logs written without their samples, documents that are no Inspect log, and logs of a
run that stopped.

Built from the real logs under ``data/interop/inspect_ai`` (inspect_ai's tests/analysis/test_logs,
MIT): ``..._popularity.json`` (status "cancelled", results.completed_samples 3, three samples),
``..._security-guide.json`` (status "success"), and the popularity ``.eval`` (header.json:
status "success", results.completed_samples 10, ten ``samples/*.json`` members). inspect_ai's own
``2025-05-12T20-28-13-04-00_no-samples.json`` is the popularity log with ``samples: []``: its
results still count 3 completed samples, scored (accuracy 0.667), that the log does not hold.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from interop_helpers import sealed

from driftproof.errors import ImportError_
from driftproof.importers.inspect_ai import InspectOptions, import_inspect

DIR = "data/interop/inspect_ai"
POP_JSON = "2025-05-12T20-28-13-04-00_popularity.json"
GUIDE_JSON = "2025-05-12T20-28-26-04-00_security-guide.json"
POP_EVAL = "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"


def _refused(path: Path) -> tuple[str, str, str]:
    with pytest.raises(ImportError_) as e:
        import_inspect(path, InspectOptions(skill_name="s"))
    p = e.value.problems[0]
    return p.file + (f":{p.member}" if p.member else ""), p.pointer, p.message


@pytest.mark.parametrize("held", [[], None])
def test_a_log_written_without_its_samples_is_refused(
    shared: Path, tmp_path: Path, held: list[object] | None
) -> None:
    doc = json.loads((shared / DIR / POP_JSON).read_text(encoding="utf-8"))
    if held is None:
        del doc["samples"]
    else:
        doc["samples"] = held
    path = tmp_path / "no-samples.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    file, pointer, words = _refused(path)
    assert (file, pointer) == (str(path), "/results/completed_samples")
    assert "count 3 completed sample(s)" in words and "written without its samples" in words
    assert "cancelled" not in words


def test_an_eval_archive_without_its_samples_is_refused(shared: Path, tmp_path: Path) -> None:
    path = tmp_path / "header-only.eval"
    with zipfile.ZipFile(shared / DIR / POP_EVAL) as src, zipfile.ZipFile(path, "w") as out:
        for name in src.namelist():
            if not name.startswith("samples/"):
                out.writestr(name, src.read(name))
    file, pointer, words = _refused(path)
    assert (file, pointer) == (f"{path}:header.json", "/results/completed_samples")
    assert "count 10 completed sample(s)" in words


def test_a_document_that_is_no_inspect_log_says_so(tmp_path: Path) -> None:
    # lm-evaluation-harness's results file: results, configs, versions, no eval spec
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": {"mmlu": {"acc,none": 0.3}}, "versions": {}}), "utf-8")
    assert _refused(path) == (
        str(path),
        "",
        "expected an Inspect log (an object whose `eval` spec names its task); this is not an "
        "Inspect log",
    )


def test_a_run_that_stopped_is_partial(shared: Path) -> None:
    stopped = sealed(import_inspect(shared / DIR / POP_JSON, InspectOptions(skill_name="s")))
    assert stopped.provenance.partial is True  # status "cancelled"
    done = sealed(import_inspect(shared / DIR / GUIDE_JSON, InspectOptions(skill_name="s")))
    assert done.provenance.partial is None  # status "success": the source says nothing partial
