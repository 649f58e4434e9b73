"""promptfoo importer: fields whose value changes a result's meaning are read only as recognised.

The sample is promptfoo/sample-export.json: 2 tests x 2 providers, one row each, no repeat
count in its config. promptfoo's ResultFailureReason has three values (0 none, 1 an assertion
failed, 2 an error); ``config.evaluateOptions.repeat`` is how many times each test ran per
provider.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from interop_helpers import PROMPTFOO_ARMS as ARMS
from interop_helpers import promptfoo_import as _import
from interop_helpers import promptfoo_sample as _sample
from interop_helpers import sealed, write_json

from driftproof.cli import cli
from driftproof.errors import ImportError_
from driftproof.importers._text import error_reason
from driftproof.importers.promptfoo import PromptfooOptions, import_promptfoo


@pytest.mark.parametrize("reason", [3, "2", True, -1])
def test_an_unknown_failure_reason_is_refused(shared: Path, tmp_path: Path, reason: object) -> None:
    # "2" (a string) is no error code: read as a scored row, its error would be sealed as 0.75
    doc = _sample(shared)
    doc["results"]["results"][0]["failureReason"] = reason
    with pytest.raises(ImportError_) as exc:
        _import(doc, tmp_path)
    assert "out.json" in str(exc.value)
    assert "/results/results/0/failureReason" in str(exc.value)


def test_fewer_results_than_the_declared_repeat_are_refused(shared: Path, tmp_path: Path) -> None:
    # each test and provider holds one row; a repeat of 3 declares three per arm
    doc = _sample(shared)
    doc["config"]["evaluateOptions"] = {"repeat": 3}
    with pytest.raises(ImportError_) as exc:
        _import(doc, tmp_path)
    assert "/config/evaluateOptions/repeat" in str(exc.value)
    assert "expected 3 results per case and arm" in str(exc.value)
    assert "holds 1 for the with skill arm," in str(exc.value)  # the arm in words


def test_a_repeat_the_rows_bear_out_is_the_draws_per_arm(shared: Path, tmp_path: Path) -> None:
    doc = _sample(shared)
    doc["config"]["evaluateOptions"] = {"repeat": 1}
    r = sealed(_import(doc, tmp_path))
    assert r.run.generations_per_arm == 1
    assert [len(c.arms.with_skill.draws) for c in r.cases] == [1, 1]


@pytest.mark.parametrize("by", ["prompt", "provider"])
def test_an_arm_gathering_several_rows_per_repeat_leaves_its_draws_unrecorded(
    shared: Path, tmp_path: Path, by: str
) -> None:
    # promptfoo runs every prompt for every provider, test and repeat (src/evaluator.ts): with
    # a second prompt, an arm mapped by prompt gathers both providers' rows, and one mapped by
    # provider both prompts' rows; at a repeat of 1 each case and arm holds 2 rows, so the
    # repeat is not the draws per arm and is left unrecorded
    doc = _sample(shared)
    doc["config"]["evaluateOptions"] = {"repeat": 1}
    rows = doc["results"]["results"]
    other = json.loads(json.dumps(rows))
    for row in other:
        row["prompt"] = {
            **row["prompt"],
            "label": "terse",
            "raw": "Be terse. " + row["prompt"]["raw"],
        }
        row["promptId"] = "terse-id"
    doc["results"]["results"] = rows + other
    path = write_json(tmp_path / "out.json", doc)
    arms = (
        {"with_skill": "terse", "baseline": rows[0]["prompt"]["label"]} if by == "prompt" else ARMS
    )
    r = sealed(import_promptfoo(path, PromptfooOptions(arms=arms, skill_name="s", by=by)))
    assert r.run.generations_per_arm is None
    assert [len(c.arms.with_skill.draws) for c in r.cases] == [2, 2]
    several = "providers" if by == "prompt" else "prompts"
    assert f"generations_per_arm (an arm holds the repeats of several {several})" in (
        r.provenance.unrecorded
    )


def test_a_stack_trace_is_left_out_of_the_lost_reason(shared: Path, tmp_path: Path) -> None:
    # trimmed from reDreamAI/measure-ai-drift promptfoo-results.json (commit 1630742; the
    # repository states no licence, so only the error's shape is kept): promptfoo writes the
    # error's message and then its JavaScript stack; the lost reason showed every frame. Source:
    # https://github.com/reDreamAI/measure-ai-drift/blob/163074217f3f1f02d3056aec64422076f583f1cb/promptfoo-results.json
    error = (
        "RateLimitExhaustedError: Rate limit exceeded after 4 attempts\n"
        "    at ProviderRateLimitState.executeWithRetry (file:///x/providers.js:5544:12)\n"
        "    at async runEval (file:///x/evaluator.js:3661:38)"
    )
    doc = _sample(shared)
    row = doc["results"]["results"][0]
    row.update(error=error, failureReason=2, gradingResult=None)
    r = sealed(_import(doc, tmp_path))
    lost = [d for c in r.cases for a in (c.arms.with_skill, c.arms.baseline) for d in a.draws]
    lost = [d for d in lost if d.lost is not None]
    assert [d.lost.reason for d in lost] == [
        "source error: RateLimitExhaustedError: Rate limit exceeded after 4 attempts"
    ]
    assert lost[0].source_error == error


def test_a_message_line_opening_with_at_is_not_a_stack() -> None:
    # the message's own lines that open with "at" are the cause; only V8 frames are the stack
    message = (
        "Error: API error 400: invalid request\n"
        "  at least one message must have content\n"
        "at 12:00:05 the provider closed the stream"
    )
    frames = [
        "    at Object.<anonymous> (C:\\Program Files\\x\\run.js:10:15)",
        "    at new Promise (<anonymous>)",
        "    at async Promise.all (index 0)",
        "    at /x/evaluator.js:3661:38",
    ]
    for frame in frames:
        got = error_reason(f"{message}\n{frame}\n    at process (node:internal/q:95:5)")
        assert got == f"source error: {message}"


def _lines(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


EXPECTED = "expected a promptfoo result (an object with testCase and provider, one per line as "


def test_an_oaieval_run_log_is_refused_at_its_first_line(tmp_path: Path) -> None:
    # Trimmed from the record oaieval (openai/evals) printed in Auto-GPT-Benchmarks' README
    # (https://github.com/Significant-Gravitas/Auto-GPT-Benchmarks, /tmp/evallogs/
    # 230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl): a spec line, a final_report
    # line, then events. A single-arm import read every line as a row and refused only its arm:
    # "no row matched it (labels in the file: (no label))".
    spec = {"completion_fns": ["fn"], "eval_name": "test-match.s1.simple-v0", "run_id": "R"}
    event = {"run_id": "R", "event_id": 0, "sample_id": "test-match.s1.2", "type": "match"}
    event |= {"data": {"correct": False}, "created_by": "", "created_at": "2023-04-17 22:10:13"}
    path = _lines(tmp_path / "record.jsonl", [{"spec": spec}, {"final_report": {}}, event])
    with pytest.raises(ImportError_) as exc:
        import_promptfoo(path, PromptfooOptions(arms={"with_skill": "a"}, skill_name="s"))
    (p,) = exc.value.problems
    assert (p.file, p.pointer) == (str(path), "/line 1")
    assert p.message.startswith(EXPECTED) and "found a line of an oaieval run log" in p.message


def test_openai_evals_items_are_refused_naming_the_importer_that_reads_them(
    shared: Path, tmp_path: Path
) -> None:
    # the real file data/interop/openai-evals/promptfoo-fixture-openai-evals-items.jsonl (rows
    # of run_id, data_source_idx, item, grades): refused only at "/line 1/provider" as "no arm
    # maps this row's provider (no label)"
    path = shared / "data/interop/openai-evals/promptfoo-fixture-openai-evals-items.jsonl"
    run = ["import", "promptfoo", str(path), "--arm", "with_skill=a", "--arm", "baseline=b"]
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, [*run, "--skill-name", "s", "--out-dir", str(out)])
    assert isinstance(res.exception, ImportError_), res.output
    line, hint = res.exception.problems
    assert (line.file, line.pointer) == (str(path), "/line 1")
    assert line.message.startswith(EXPECTED)
    assert line.message.endswith("found an OpenAI Evals output item")
    assert hint.message == "driftproof import openai-evals (give --skill-name NAME) reads this file"
    assert not out.exists()


def test_a_foreign_line_among_results_is_named_by_its_members(shared: Path, tmp_path: Path) -> None:
    rows = _sample(shared)["results"]["results"]
    path = _lines(tmp_path / "out.jsonl", [*rows[:2], {"question": "q", "answer": "a"}, rows[2]])
    with pytest.raises(ImportError_) as exc:
        import_promptfoo(path, PromptfooOptions(arms=ARMS, skill_name="s"))
    (p,) = exc.value.problems
    assert (p.file, p.pointer) == (str(path), "/line 3")
    assert p.message.startswith(EXPECTED)
    assert p.message.endswith('found an object with members "question", "answer"')


def _cli_import(path: Path, tmp_path: Path, capsys: Any) -> tuple[int, str]:
    from factories import run_main

    arms = [x for a, label in ARMS.items() for x in ("--arm", f"{a}={label}")]
    argv = ["import", "promptfoo", str(path), *arms, "--skill-name", "s"]
    code, _, err = run_main([*argv, "--out-dir", str(tmp_path / "o")], capsys)
    assert "Traceback" not in err and not (tmp_path / "o").exists()
    return code, err


def test_a_repeat_index_given_twice_for_one_test_and_arm_is_refused(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    doc = _sample(shared)
    rows = doc["results"]["results"]
    for row in rows:
        row["repeatIndex"] = 0
    rows.append(json.loads(json.dumps(rows[0])))  # row 4: test 0, gpt-5-mini, repeat 0 again
    code, err = _cli_import(write_json(tmp_path / "out.json", doc), tmp_path, capsys)
    assert code == 2
    assert err == (
        f"error: {tmp_path / 'out.json'}: /results/results/4/repeatIndex: expected each repeat "
        "index once per test and arm; 0 is also at /results/results/0\n"
    )


def test_a_null_score_is_refused(shared: Path, tmp_path: Path, capsys: Any) -> None:
    doc = _sample(shared)
    doc["results"]["results"][1]["score"] = None
    code, err = _cli_import(write_json(tmp_path / "out.json", doc), tmp_path, capsys)
    assert code == 2
    assert err == (
        f"error: {tmp_path / 'out.json'}: /results/results/1/score: expected the result's score "
        "(a number between 0 and 1)\n"
    )


def test_a_jsonl_export_of_blank_lines_is_refused(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    code, err = _cli_import(path, tmp_path, capsys)
    assert code == 2
    assert err == f"error: {path}: expected one promptfoo result per line; the file holds none\n"


def test_nan_in_test_vars_is_refused_at_its_line_and_column(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    doc = _sample(shared)
    doc["results"]["results"][0]["testCase"]["vars"] = {"x": float("nan")}
    text = json.dumps(doc, indent=1)  # Python writes the bare NaN that JSON has no word for
    path = tmp_path / "out.json"
    path.write_text(text, encoding="utf-8")
    before = text[: text.index(": NaN") + 2]  # NaN appears once, after '"x": '
    line, column = before.count("\n") + 1, len(before) - before.rfind("\n")
    code, err = _cli_import(path, tmp_path, capsys)
    assert code == 2
    assert (
        err
        == f"error: {path}: expected JSON: NaN is not valid JSON at line {line} column {column}\n"
    )


@pytest.mark.parametrize(
    ("stamp", "words"),
    [
        ("yesterday", 'expected a date-time with a UTC offset, found the string "yesterday"'),
        (
            "2026-01-01T10:00:00",
            "expected a date-time with a UTC offset (no instant without one), found the string "
            '"2026-01-01T10:00:00"',
        ),
    ],
)
def test_a_run_timestamp_that_is_no_instant_is_refused(
    shared: Path, tmp_path: Path, capsys: Any, stamp: str, words: str
) -> None:
    doc = _sample(shared)
    doc["results"]["timestamp"] = stamp
    code, err = _cli_import(write_json(tmp_path / "out.json", doc), tmp_path, capsys)
    assert code == 2
    assert err == f"error: {tmp_path / 'out.json'}: /results/timestamp: {words}\n"


@pytest.mark.parametrize("stamp", [1747096093296, "", ["2025-05-12T20:28:13-04:00"]])
def test_a_run_time_that_is_no_date_time_is_refused_at_its_pointer(
    shared: Path, tmp_path: Path, stamp: object
) -> None:
    # promptfoo writes results.timestamp as an ISO 8601 string (the sample's own); a number (ms
    # since 1970), an empty string or a list was dropped, the receipt saying "not recorded"
    doc = _sample(shared)
    doc["results"]["timestamp"] = stamp
    with pytest.raises(ImportError_) as exc:
        _import(doc, tmp_path)
    assert "out.json" in str(exc.value) and "/results/timestamp" in str(exc.value)
    assert "expected a date-time with a UTC offset" in str(exc.value)


def _assert_set(doc: dict[str, Any]) -> dict[str, Any]:
    """Row 0's contains and llm-rubric put in an assert-set of threshold 0.5, as promptfoo
    writes it: the set's own result (no assertion) first, then its assertions' results."""
    row = doc["results"]["results"][0]
    cost, latency, contains, rubric = row["gradingResult"]["componentResults"]
    contains |= {"pass": False, "score": 0, "reason": "Expected output to contain 'echo'"}
    held = {"type": "assert-set", "assertionCount": 2, "threshold": 0.5}
    whole = {"pass": True, "score": 0.5, "reason": "Aggregate score 0.50 ≥ 0.5 threshold"}
    whole |= {"componentResults": [contains, rubric], "metadata": {"assertionSet": held}}
    row["gradingResult"]["componentResults"] = [cost, latency, whole, contains, rubric]
    row["gradingResult"]["score"] = row["score"] = 0.5  # (1 + 0 + 0.5) / 3
    return doc


def test_an_assert_sets_own_result_is_a_check(shared: Path, tmp_path: Path) -> None:
    # found: the set's result (it passes on its threshold while its contains fails) was
    # passed over in silence, having no assertion; it is a check of its own, in its place
    (item,) = _import(_assert_set(_sample(shared)), tmp_path)
    checks = item.body.cases[0].arms.with_skill.draws[0].checks
    assert [(c.name, c.pass_) for c in checks] == [
        ("cost", True),
        ("latency", False),
        ('assert-set: {"assertionCount":2,"threshold":0.5}', True),
        ("contains: echo", False),
        ("llm-rubric: Do not apologize", True),
    ]


@pytest.mark.parametrize("comp", [{"pass": True, "score": 1, "reason": "x"}, "passed"])
def test_a_component_result_grading_nothing_is_refused(
    shared: Path, tmp_path: Path, comp: Any
) -> None:
    doc = _sample(shared)
    doc["results"]["results"][0]["gradingResult"]["componentResults"].append(comp)
    with pytest.raises(ImportError_) as exc:
        _import(doc, tmp_path)
    said = str(exc.value)
    assert "out.json" in said and "/results/results/0/gradingResult/componentResults/4" in said


def test_an_assert_sets_result_without_its_definition_is_a_check(
    shared: Path, tmp_path: Path
) -> None:
    # promptfoo's AssertionsResult.testResult() before it kept metadata.assertionSet gives the
    # set's own result "assertion": null and its assertions' results as its componentResults;
    # such an export was refused at componentResults/2 as grading nothing
    doc = _assert_set(_sample(shared))
    whole = doc["results"]["results"][0]["gradingResult"]["componentResults"][2]
    del whole["metadata"]
    whole["assertion"] = None
    (item,) = _import(doc, tmp_path)
    checks = item.body.cases[0].arms.with_skill.draws[0].checks
    assert [(c.name, c.pass_) for c in checks][2:] == [
        ("assert-set", True),
        ("contains: echo", False),
        ("llm-rubric: Do not apologize", True),
    ]


@pytest.mark.parametrize(
    ("type_", "found"), [(5, "a number"), (["contains"], "an array"), ("", "an empty string")]
)
def test_an_assertion_whose_type_is_not_a_name_is_refused(
    shared: Path, tmp_path: Path, type_: Any, found: str
) -> None:
    # found: the type was put through str(), so a check "5: echo" or "None: echo" was sealed
    doc = _sample(shared)
    doc["results"]["results"][0]["gradingResult"]["componentResults"][2]["assertion"]["type"] = (
        type_
    )
    with pytest.raises(ImportError_) as exc:
        _import(doc, tmp_path)
    said = str(exc.value)
    assert "/results/results/0/gradingResult/componentResults/2/assertion/type" in said
    assert said.endswith(f"expected the assertion's type, a name such as 'contains', found {found}")


def test_an_assertion_with_no_type_is_refused(shared: Path, tmp_path: Path) -> None:
    doc = _sample(shared)
    del doc["results"]["results"][0]["gradingResult"]["componentResults"][2]["assertion"]["type"]
    with pytest.raises(ImportError_) as exc:
        _import(doc, tmp_path)
    assert str(exc.value).endswith("a name such as 'contains', found none")


def test_more_assertion_results_than_a_receipt_keeps_are_refused_at_the_source(
    shared: Path, tmp_path: Path
) -> None:
    # found: refused at a place of the receipt ("/cases/0/arms/baseline/draws/0/checks")
    doc = _sample(shared)
    grading = doc["results"]["results"][0]["gradingResult"]
    grading["componentResults"] = [grading["componentResults"][2]] * 10_000
    with pytest.raises(ImportError_) as exc:
        _import(doc, tmp_path)
    assert str(exc.value).endswith(
        "/results/results/0/gradingResult/componentResults: expected at most 200 assertion "
        "results (a receipt keeps each as a check of its answer), found 10,000"
    )


@pytest.mark.parametrize(
    ("grader", "provider"),
    [
        ("openai:gpt-5", "openai"),
        ("azureopenai:chat:my-deployment", "azureopenai"),
        ("bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock"),
        ("file://path/to/grader.js", None),  # a file of the user's, no provider promptfoo names
        ("simulated:judge", None),  # not promptfoo's; read as Driftproof's, the import was
        ("stub:judge", None),  # taken as simulated, or as graded by no model
        ("OpenAI:gpt-5", None),  # promptfoo matches its prefixes case and all
        ("echo", None),
    ],
)
def test_the_grader_provider_is_one_promptfoo_names(
    shared: Path, tmp_path: Path, grader: str, provider: str | None
) -> None:
    # promptfoo's provider registry (src/providers/registry.ts) picks a provider by the id's
    # prefix: "openai:", "azureopenai:", "bedrock:"; "file://…js" is a JavaScript file of the
    # user's and "simulated:" no prefix it has. The grader's id is kept whole either way.
    doc = _sample(shared)
    doc["config"]["defaultTest"]["options"]["provider"] = grader
    r = sealed(_import(doc, tmp_path))
    assert (r.judge.model, r.judge.provider) == (grader, provider)


def test_a_results_cost_in_us_dollars_is_listed_as_not_recorded(
    shared: Path, tmp_path: Path
) -> None:
    # found: each of the sample's four results holds promptfoo's cost (0.00049925 USD, …); no
    # draw keeps it, yet the receipt did not list it among what it does not record
    doc = _sample(shared)
    cost = "each result's cost in US dollars (results[].cost; tokens are kept)"
    assert cost in sealed(_import(doc, tmp_path)).provenance.unrecorded
    for row in doc["results"]["results"]:
        del row["cost"]
    assert cost not in sealed(_import(doc, tmp_path)).provenance.unrecorded
