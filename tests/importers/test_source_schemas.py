"""Source schemas: a malformed source file (a wrong type at a nested member) is refused before
the importer walks it, naming the file, the RFC 6901 JSON pointer and what was expected.

Each test takes a real file from data/interop, breaks one nested member by hand and states the
pointer of that member (worked out from the file's own layout) and the expectation in plain words.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from driftproof.errors import ImportError_
from driftproof.importers._schema import MAX_SCHEMA_PROBLEMS, source_schema, validate_source
from driftproof.importers.inspect_ai import InspectOptions, import_inspect
from driftproof.importers.nvidia import import_nvidia
from driftproof.importers.promptfoo import PromptfooOptions, import_promptfoo
from driftproof.importers.skill_creator import SkillCreatorOptions, import_skill_creator

SCHEMAS = Path(__file__).resolve().parents[2] / "driftproof" / "importers" / "schemas"
FORMATS = (
    "promptfoo",
    "inspect_ai",
    "nvidia",
    "skill-creator",
    "claude-plugin-eval",
    "openai-evals",
)
PF_ARMS = {"with_skill": "openai:gpt-5", "baseline": "openai:gpt-5-mini"}
POP_JSON = "2025-05-12T20-28-13-04-00_popularity.json"
POP_EVAL = "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"


@pytest.fixture
def interop(shared: Path) -> Path:
    return shared / "data/interop"


def _broken(src: Path, dst: Path, path: tuple[Any, ...], value: Any) -> Path:
    doc = json.loads(src.read_text(encoding="utf-8"))
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    dst.write_text(json.dumps(doc), encoding="utf-8")
    return dst


def _one_problem(exc: pytest.ExceptionInfo[ImportError_]) -> tuple[str, str, str]:
    (p,) = exc.value.problems
    return p.file + (f", member {p.member}" if p.member else ""), p.pointer, p.message


def test_every_schema_is_draft_2020_12_and_shipped() -> None:
    assert sorted(f.name for f in SCHEMAS.glob("*.schema.json")) == sorted(
        f"{n}.schema.json" for n in FORMATS
    )
    for name in FORMATS:
        schema = source_schema(name)  # read as package data
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)
    pyproject = (SCHEMAS.parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"importers/schemas/*.json"' in pyproject


def test_promptfoo_component_results_object_refused(interop: Path, tmp_path: Path) -> None:
    bad = _broken(
        interop / "promptfoo/sample-export.json",
        tmp_path / "export.json",
        ("results", "results", 1, "gradingResult", "componentResults"),
        {"pass": True},
    )
    with pytest.raises(ImportError_) as e:
        import_promptfoo(bad, PromptfooOptions(arms=PF_ARMS, skill_name="s"))
    assert _one_problem(e) == (
        str(bad),
        "/results/results/1/gradingResult/componentResults",
        "expected an array or null, found an object",
    )


def test_promptfoo_test_metadata_array_refused(interop: Path, tmp_path: Path) -> None:
    bad = _broken(
        interop / "promptfoo/sample-export.json",
        tmp_path / "export.json",
        ("results", "results", 0, "testCase", "metadata"),
        ["id"],
    )
    with pytest.raises(ImportError_) as e:
        import_promptfoo(bad, PromptfooOptions(arms=PF_ARMS, skill_name="s"))
    assert _one_problem(e) == (
        str(bad),
        "/results/results/0/testCase/metadata",
        "expected an object or null, found an array",
    )


def test_inspect_json_choices_number_refused(interop: Path, tmp_path: Path) -> None:
    bad = _broken(
        interop / "inspect_ai" / POP_JSON,
        tmp_path / "log.json",
        ("samples", 2, "output", "choices"),
        7,
    )
    with pytest.raises(ImportError_) as e:
        import_inspect(
            {"with_skill": bad, "baseline": interop / "inspect_ai" / POP_JSON},
            InspectOptions(skill_name="s"),
        )
    assert _one_problem(e) == (
        str(bad),
        "/samples/2/output/choices",
        "expected an array or null, found a number",
    )


def _eval_with(src: Path, dst: Path, member: str, path: tuple[Any, ...], value: Any) -> Path:
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, "w") as out:
        for name in z.namelist():
            data = z.read(name)
            if name == member:
                doc = json.loads(data)
                node = doc
                for key in path[:-1]:
                    node = node[key]
                node[path[-1]] = value
                data = json.dumps(doc).encode("utf-8")
            out.writestr(name, data)
    return dst


def test_inspect_eval_sample_member_pointer_starts_with_member(
    interop: Path, tmp_path: Path
) -> None:
    # the archive holds samples/1_epoch_1.json .. samples/10_epoch_1.json; the member is named
    # as a member, the pointer is inside it
    bad = _eval_with(
        interop / "inspect_ai" / POP_EVAL,
        tmp_path / "log.eval",
        "samples/6_epoch_1.json",
        ("scores",),
        ["C"],
    )
    with pytest.raises(ImportError_) as e:
        import_inspect({"with_skill": bad, "baseline": bad}, InspectOptions(skill_name="s"))
    assert _one_problem(e) == (
        f"{bad}, member samples/6_epoch_1.json",
        "/scores",
        "expected an object or null, found an array",
    )


def test_inspect_eval_header_member_pointer_starts_with_member(
    interop: Path, tmp_path: Path
) -> None:
    # the archive's header.json holds eval.config ({"limit": 10})
    bad = _eval_with(
        interop / "inspect_ai" / POP_EVAL,
        tmp_path / "log.eval",
        "header.json",
        ("eval", "config"),
        "epochs=1",
    )
    with pytest.raises(ImportError_) as e:
        import_inspect({"with_skill": bad, "baseline": bad}, InspectOptions(skill_name="s"))
    assert _one_problem(e) == (
        f"{bad}, member header.json",
        "/eval/config",
        "expected an object or null, found a string",
    )


def test_nvidia_tasks_string_refused(interop: Path, tmp_path: Path) -> None:
    bad = _broken(
        interop / "nvidia/benchmarks.json",
        tmp_path / "benchmarks.json",
        ("skills", 1, "tasks"),
        "2",
    )
    with pytest.raises(ImportError_) as e:
        import_nvidia([bad])
    assert _one_problem(e) == (
        str(bad),
        "/skills/1/tasks",
        "expected an integer or null, found a string",
    )


def test_nvidia_agent_not_a_string_refused_at_its_pointer(interop: Path, tmp_path: Path) -> None:
    # aggregate_benchmarks.py writes each agent as its name (normalize_agent returns a string);
    # an agent of another type was left out of the receipt's agents but kept in its summary
    bad = _broken(
        interop / "nvidia/benchmarks.json",
        tmp_path / "benchmarks.json",
        ("skills", 1, "agents", 1),
        {"name": "codex"},
    )
    with pytest.raises(ImportError_) as e:
        import_nvidia([bad])
    assert _one_problem(e) == (str(bad), "/skills/1/agents/1", "expected a string, found an object")


def test_nvidia_missing_member_named_at_its_own_pointer(tmp_path: Path) -> None:
    bad = tmp_path / "benchmarks.json"
    bad.write_text(
        json.dumps(
            {
                "schema_version": 2,
                "skills": [{"catalog_dir": "x", "skill": "x"}],
                "results": [
                    {
                        "catalog_dir": "x",
                        "dimension": "d",
                        "num": 1,
                        "score_pct": 50,
                        "uplift_pct": 0,
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(ImportError_) as e:
        import_nvidia([bad])
    assert _one_problem(e) == (str(bad), "/results/0/agent", "expected member 'agent', found none")


def test_skill_creator_result_array_refused(interop: Path, tmp_path: Path) -> None:
    bad = _broken(
        interop / "skill-creator/anthropic-schemas-examples/benchmark.json",
        tmp_path / "benchmark.json",
        ("runs", 0, "result"),
        [0.5],
    )
    with pytest.raises(ImportError_) as e:
        import_skill_creator([bad], SkillCreatorOptions(skill_name="s"))
    assert _one_problem(e) == (
        str(bad),
        "/runs/0/result",
        "expected an object or null, found an array",
    )


def test_skill_creator_grading_assertion_number_refused(interop: Path, tmp_path: Path) -> None:
    it = tmp_path / "iteration-1"
    good = interop / "skill-creator/agentskills-spec-examples/grading.json"
    bad = _broken(
        good, _mkparents(it / "eval-1/with_skill/grading.json"), ("assertion_results", 1), 3
    )
    _mkparents(it / "eval-1/without_skill/grading.json").write_bytes(good.read_bytes())
    with pytest.raises(ImportError_) as e:
        import_skill_creator([it], SkillCreatorOptions(skill_name="s"))
    assert _one_problem(e) == (
        str(bad),
        "/assertion_results/1",
        "expected an object, found a number",
    )


def _mkparents(p: Path) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


def test_pointer_tokens_escaped_per_rfc_6901() -> None:
    # member "a/b~c" -> token "a~1b~0c" ("~" first to "~0", then "/" to "~1")
    with pytest.raises(ImportError_) as e:
        validate_source(
            {"scores": {"a/b~c": 0.5}}, "inspect_ai", "f.json", definition="sample", prefix=("m/1",)
        )
    assert _one_problem(e) == (
        "f.json",
        "/m~11/scores/a~1b~0c",
        "expected an object, found a number",
    )


def test_problems_capped_and_in_document_order(tmp_path: Path) -> None:
    rows = [
        {
            "catalog_dir": "x",
            "dimension": "d",
            "num": 1,
            "agent": "a",
            "score_pct": "50%",
            "uplift_pct": 0,
        }
        for _ in range(12)
    ]
    bad = tmp_path / "benchmarks.json"
    bad.write_text(
        json.dumps({"schema_version": 2, "skills": [], "results": rows}), encoding="utf-8"
    )
    with pytest.raises(ImportError_) as e:
        import_nvidia([bad])
    # rows 0..11 are each wrong once; the first five in numeric (not string: 10 < 2) order are named
    assert [p.pointer for p in e.value.problems] == [
        f"/results/{i}/score_pct" for i in range(MAX_SCHEMA_PROBLEMS)
    ]
    assert MAX_SCHEMA_PROBLEMS == 5


def test_a_long_list_of_wrong_items_is_named_in_steps_that_grow_with_the_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """100,000 nulls where objects belong (a 600 KB file) took minutes: every problem was
    compared with every one kept before. Only the first MAX_SCHEMA_PROBLEMS are worded."""
    from driftproof.importers import _schema

    worded: list[Any] = []
    real = _schema._expectation
    monkeypatch.setattr(_schema, "_expectation", lambda e: worded.append(e) or real(e))
    errors = Draft202012Validator({"items": {"type": "object"}}).iter_errors([None] * 3000)
    problems = _schema.schema_problems(errors, "f.json")
    # items 0..2999 are each wrong once; the first five in document order are named
    assert [p.pointer for p in problems] == [f"/{i}" for i in range(MAX_SCHEMA_PROBLEMS)]
    assert problems[0].message == "expected an object, found null"
    assert len(worded) == MAX_SCHEMA_PROBLEMS


def test_a_boolean_written_as_0_or_1_is_counted_past_the_cap() -> None:
    # items 0, 7, 8 and 9 write member a as 0 or 1, item 10 as 2 (a number, not a boolean's
    # stand-in); every b of items 0..6 is a number: the cap of five names a's first place and
    # four b's, and the count still takes in the three 0s past the cap
    from driftproof.importers._schema import schema_problems

    schema = {"items": {"properties": {"a": {"type": "boolean"}, "b": {"type": "string"}}}}
    doc = [{"a": 1, "b": 2}] + [{"b": 2}] * 6 + [{"a": 0}] * 3 + [{"a": 2}]
    problems = schema_problems(Draft202012Validator(schema).iter_errors(doc), "f.json")
    assert [str(p) for p in problems] == [
        "f.json: /0/a: expected a boolean (true or false), found the number 1; 3 more places "
        "write a boolean as 0 or 1",
        *(f"f.json: /{i}/b: expected a string, found a number" for i in range(4)),
    ]
