"""OpenAI Evals importer faults: arm mappings and grader ranges refused, wrong types and lines
that are not JSON named by file and pointer (items built as in test_openai_evals)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from openai_evals_items import api_item, jsonl, problem

from driftproof.cli import cli
from driftproof.errors import ImportError_
from driftproof.importers.openai_evals import OpenAIEvalsOptions, import_openai_evals


@pytest.mark.parametrize(
    ("rows", "arms", "pointer", "words"),
    [
        ([api_item("a", 0, 1.0), api_item("b", 0, 1.0)], None, "", "'a', 'b'"),
        (
            [api_item("a", 0, 1.0), api_item("b", 0, 1.0)],
            {"with_skill": "a"},
            "/1/run_id",
            "not mapped",
        ),
        ([api_item("a", 0, 1.0)], {"with_skill": "a", "baseline": "z"}, "", "run 'z'"),
        (
            [api_item("a", 3, 1.0), api_item("a", 3, 0.5)],
            None,
            "/1",
            "item 3 of run 'a' is also at /0",
        ),
        ([api_item("a", 0, 1.5)], None, "/0/results/0/score", "scale of grader 'quality', 0..1"),
    ],
)
def test_mapping_and_value_faults(
    tmp_path: Path,
    rows: list[dict[str, Any]],
    arms: dict[str, str] | None,
    pointer: str,
    words: str,
) -> None:
    path = jsonl(tmp_path / "i.jsonl", rows)
    with pytest.raises(ImportError_) as e:
        import_openai_evals(path, OpenAIEvalsOptions(skill_name="s", arms=arms, grader="quality"))
    file, ptr, message = problem(e)
    assert (file, ptr) == (str(path), pointer)
    assert words in message


def test_same_run_for_both_arms_is_refused(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "i.jsonl", [api_item("a", 0, 1.0)])
    with pytest.raises(ImportError_) as e:
        import_openai_evals(
            path,
            OpenAIEvalsOptions(
                skill_name="s", arms={"with_skill": "a", "baseline": "a"}, grader="quality"
            ),
        )
    assert "same run 'a'" in problem(e)[2]


@pytest.mark.parametrize(
    ("change", "pointer", "message"),
    [
        (
            lambda r: r["sample"].update(usage=[1]),
            "/1/sample/usage",
            "expected an object or null, found an array",
        ),
        (
            lambda r: r.update(results={"quality": 1}),
            "/1/results",
            "expected an array or null, found an object",
        ),
        (
            lambda r: r["results"][0].update(passed="yes"),
            "/1/results/0/passed",
            "expected true or false or null, found a string",
        ),
        (lambda r: r.update(run_id=7), "/1/run_id", "expected a string or null, found a number"),
    ],
)
def test_wrong_types_name_file_and_pointer(
    tmp_path: Path, change: Any, pointer: str, message: str
) -> None:
    bad = copy.deepcopy(api_item("a", 1, 0.5))
    change(bad)
    path = jsonl(tmp_path / "i.jsonl", [api_item("a", 0, 0.5), bad])
    with pytest.raises(ImportError_) as e:
        import_openai_evals(path, OpenAIEvalsOptions(skill_name="s", grader="quality"))
    assert problem(e) == (str(path), pointer, message)


def test_a_line_that_is_not_json_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "i.jsonl"
    path.write_text(json.dumps(api_item("a", 0, 0.5)) + '\n{"run_id": \n', encoding="utf-8")
    with pytest.raises(ImportError_) as e:
        import_openai_evals(path, OpenAIEvalsOptions(skill_name="s", grader="quality"))
    file, ptr, message = problem(e)
    assert (file, ptr) == (str(path), "/1") and message.startswith("line 2: expected JSON")


def test_fixture_shape_wrong_types_name_the_line(items: Path, tmp_path: Path) -> None:
    lines = items.read_text(encoding="utf-8").splitlines()
    second = json.loads(lines[1])
    second["grades"] = [1, 3, 1]
    path = tmp_path / "items.jsonl"
    path.write_text(lines[0] + "\n" + json.dumps(second) + "\n", encoding="utf-8")
    with pytest.raises(ImportError_) as e:
        import_openai_evals(path, OpenAIEvalsOptions(skill_name="s", grader="Tool called"))
    assert problem(e) == (str(path), "/1/grades", "expected an object or null, found an array")


def test_cli_refuses_a_control_arm(items: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "import",
            "openai-evals",
            str(items),
            "--arm",
            "control=evalrun_import_fixture",
            "--grader",
            "Tool called",
            "--skill-name",
            "s",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert result.exit_code == 2 and "with_skill and baseline only" in result.output
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("-1e308:1e308", "-1e+308:1e+308"),  # 2e308: past the largest float, so infinite
        ("0:inf", "0:inf"),
        ("1:1", "1:1"),
        ("nan:1", "nan:1"),
    ],
)
def test_grader_range_without_a_finite_positive_width_refused(
    tmp_path: Path, text: str, shown: str
) -> None:
    path = jsonl(tmp_path / "i.jsonl", [api_item("a", 0, 3.0)])
    out = tmp_path / "r"
    args = ["import", "openai-evals", str(path), "--grader", "quality", "--grader-range", text]
    result = CliRunner().invoke(cli, [*args, "--skill-name", "s", "--out", str(out)])
    assert result.exit_code == 2 and not out.exists()  # an option's value: click's usage error
    assert result.output.splitlines()[-1] == (
        f"Error: --grader-range {shown}: expected WORST:BEST, two different finite scores (the "
        "grader's worst is mapped to 0 and its best to 1)"
    )


def test_a_list_page_with_more_items_to_follow_is_refused(tmp_path: Path) -> None:
    """A page of output_items.list whose has_more is true holds only part of the run.

    Shape: the API reference's "Get eval run output items" response
    (https://platform.openai.com/docs/api-reference/evals/getRunOutputItems), one item and
    ``"has_more": true``; the run's other items are on later pages, so reading this page as the
    run would drop them without a word.
    """
    rows = [api_item("a", 5, 1.0)]
    page = {"object": "list", "data": rows, "first_id": "x", "last_id": "x", "has_more": True}
    path = tmp_path / "page.json"
    path.write_text(json.dumps(page), encoding="utf-8")
    with pytest.raises(ImportError_) as exc:
        import_openai_evals(path, OpenAIEvalsOptions(skill_name="s"))
    file, pointer, message = problem(exc)
    assert (file, pointer) == (str(path), "/has_more")
    assert "has_more false" in message and "every page" in message
    assert not list(tmp_path.glob("openai-evals-*.json"))


def test_an_oaieval_record_is_refused_as_one(tmp_path: Path) -> None:
    """A run log written by oaieval (the openai/evals repository) is not an output item list.

    Shape: the record printed in Auto-GPT-Benchmarks' README
    (https://github.com/Significant-Gravitas/Auto-GPT-Benchmarks, ``cat /tmp/evallogs/
    230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl``), trimmed: a spec line, a
    final_report line, then events whose created_at is a date string. It was refused at
    ``/2/created_at`` as "expected a number or null", which never said what the file was.
    """
    spec = {"completion_fns": ["fn"], "eval_name": "test-match.s1.simple-v0", "run_id": "R"}
    event = {"run_id": "R", "event_id": 0, "sample_id": "test-match.s1.2", "type": "match"}
    event |= {"data": {"correct": False}, "created_at": "2023-04-17 22:10:13.127550+00:00"}
    path = jsonl(tmp_path / "record.jsonl", [{"spec": spec}, {"final_report": {}}, event])
    with pytest.raises(ImportError_) as exc:
        import_openai_evals(path, OpenAIEvalsOptions(skill_name="s"))
    file, pointer, message = problem(exc)
    assert (file, pointer) == (str(path), "/0")
    assert "oaieval record" in message and "eval.run.output_item" in message


def test_a_grader_the_rows_do_not_carry_is_refused_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from factories import run_main

    path = jsonl(tmp_path / "i.jsonl", [api_item("a", 0, 1.0)])  # graded by quality and exact
    out = tmp_path / "r"
    args = ["import", "openai-evals", str(path), "--grader", "nope", "--skill-name", "s"]
    code, _, err = run_main([*args, "--out", str(out)], capsys)
    assert code == 2 and not out.exists()
    assert (
        err == f"error: {path}: --grader 'nope': expected a grader the rows carry: quality, exact\n"
    )


@pytest.mark.parametrize(("name", "text"), [("i.jsonl", "\n\n"), ("i.json", "[]")])
def test_a_file_of_no_items_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    from factories import run_main

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "r"
    code, _, err = run_main(
        ["import", "openai-evals", str(path), "--skill-name", "s", "--out", str(out)], capsys
    )
    assert code == 2 and not out.exists()
    assert err == (
        f"error: {path}: expected OpenAI Evals output items (JSONL, a JSON array or a list page); "
        "found none\n"
    )


@pytest.mark.parametrize("created", [-5, 10**12, 1e400])  # before 1970; milliseconds; infinite
def test_a_creation_time_that_is_no_unix_seconds_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], created: float
) -> None:
    from factories import run_main

    path = tmp_path / "i.jsonl"
    text = json.dumps(api_item("a", 0, 1.0, created=0)).replace(
        '"created_at": 0', '"created_at": CREATED'
    )
    path.write_text(text.replace("CREATED", "1e400" if created == 1e400 else str(created)) + "\n")
    out = tmp_path / "r"
    args = ["import", "openai-evals", str(path), "--grader", "quality", "--skill-name", "s"]
    code, _, err = run_main([*args, "--out", str(out)], capsys)
    assert code == 2 and not out.exists()
    shown = "inf" if created == 1e400 else str(created)
    assert err == (
        f"error: {path}: /0/created_at: expected Unix seconds from 0 to 253402300799 (1970 to "
        f"9999), found {shown}\n"
    )
