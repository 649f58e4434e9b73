"""promptfoo importer: explicit arm mapping, repeats grouped by content, failureReason 2 (D-15).

Expected values are read by hand from promptfoo/sample-export.json; each literal says where.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from interop_helpers import scores, sealed, write_json

from driftproof.errors import ImportError_
from driftproof.importers.promptfoo import PromptfooOptions, import_promptfoo

ARMS = {"with_skill": "openai:gpt-5-mini", "baseline": "openai:gpt-5"}


@pytest.fixture
def sample(shared: Path) -> Path:
    return shared / "data/interop/promptfoo/sample-export.json"


def test_sample_export(sample: Path) -> None:
    r = sealed(import_promptfoo(sample, PromptfooOptions(arms=ARMS, skill_name="riddles")))
    assert r.verification_level == "DECLARED" and len(r.cases) == 2  # 2 tests x 2 providers
    echo, boat = r.cases  # in file order: the echo riddle first (testIdx 0)
    assert echo.prompt.startswith("Solve this riddle: I speak without a mouth")
    # results[]: gpt-5-mini echo score 0.75, gpt-5 echo 0.5; both boat rows 0.6666666666666666
    assert scores(echo.arms.with_skill) == [0.75] and scores(echo.arms.baseline) == [0.5]
    assert scores(boat.arms.with_skill) == [pytest.approx(2 / 3)] and scores(
        boat.arms.baseline
    ) == [pytest.approx(2 / 3)]
    # failureReason 1 rows carry the latency reason in "error" but are measured, not lost
    assert all(
        d.lost is None and d.source_error is None for c in r.cases for d in c.arms.with_skill.draws
    )
    # echo / gpt-5-mini: response.tokenUsage prompt 37, completion 245
    t = echo.arms.with_skill.draws[0].tokens
    assert (t.input, t.output, t.counted_by) == (37, 245, "source")
    # judge tokens: gradingResult.tokensUsed prompt 227+186+213+222 = 848, completion 29+34+37+41 =
    # 141
    # (the file's own stats.tokenUsage.assertions says prompt 848, completion 141)
    jo = r.economics.judge_overhead
    assert (jo.input_tokens, jo.output_tokens, jo.usd, jo.judged_draws_counted) == (
        848,
        141,
        None,
        4,
    )
    # every assertion is a check beside the score (never in the verdict), in the file's order:
    # componentResults of results[0] are cost (pass), latency (fail: 5794ms > 3000ms), contains
    # echo (pass), llm-rubric "Do not apologize" (pass)
    assert [(c.kind, c.source_type, c.outcome) for c in echo.arms.with_skill.draws[0].checks] == [
        ("assertion", "cost", "pass"),
        ("assertion", "latency", "fail"),
        ("must_include", "contains", "pass"),
        ("assertion", "llm-rubric", "pass"),
    ]
    assert (
        r.provenance.tool == "promptfoo" and r.provenance.tool_version == "0.118.10"
    )  # metadata.promptfooVersion
    assert r.run.model is None  # the two arms used different providers
    assert r.run.generations_per_arm is None and r.run.judge_samples_per_generation is None


def _repeated(sample: Path, tmp: Path) -> Path:
    """The sample with --repeat 2: every row twice, each repetition under a new testIdx."""
    doc = json.loads(sample.read_text(encoding="utf-8"))
    rows = doc["results"]["results"]
    again = copy.deepcopy(rows)
    for r in again:
        r["testIdx"] += 2
        r["score"] = r["gradingResult"]["score"] = 1.0  # promptfoo copies the grading's score
    again[0]["failureReason"] = 2
    again[0]["error"] = "API error: 500 Internal Server Error"
    doc["results"]["results"] = rows + again
    return write_json(tmp / "repeat.json", doc)


def test_repeats_grouped_by_content_not_test_index(sample: Path, tmp_path: Path) -> None:
    r = sealed(
        import_promptfoo(
            _repeated(sample, tmp_path), PromptfooOptions(arms=ARMS, skill_name="riddles")
        )
    )
    assert len(r.cases) == 2  # testIdx 0..3 but two distinct tests
    echo = r.cases[0]
    # again[0] is the echo row of gpt-5-mini (results[0] in the file), now failureReason 2: lost,
    # listed
    assert scores(echo.arms.with_skill) == [0.75, None]
    lost = echo.arms.with_skill.draws[1]
    assert (
        lost.source_error == "API error: 500 Internal Server Error"
        and "API error" in lost.lost.reason
    )
    assert scores(echo.arms.baseline) == [0.5, 1.0]


def test_error_without_failure_reason_is_lost(sample: Path, tmp_path: Path) -> None:
    doc = json.loads(sample.read_text(encoding="utf-8"))
    row = doc["results"]["results"][0]
    for key in ("failureReason", "gradingResult", "score"):
        row.pop(key)
    row["error"] = "Request timed out"
    r = sealed(
        import_promptfoo(
            write_json(tmp_path / "old.json", doc), PromptfooOptions(arms=ARMS, skill_name="s")
        )
    )
    d = r.cases[0].arms.with_skill.draws[0]
    assert d.score is None and d.source_error == "Request timed out"


def test_prompt_label_mapping(sample: Path, tmp_path: Path) -> None:
    doc = json.loads(sample.read_text(encoding="utf-8"))
    for row in doc["results"]["results"]:
        row["prompt"]["label"] = (
            "with-skill" if row["provider"]["id"] == "openai:gpt-5-mini" else "bare"
        )
    f = write_json(tmp_path / "by-prompt.json", doc)
    r = sealed(
        import_promptfoo(
            f,
            PromptfooOptions(
                arms={"with_skill": "with-skill", "baseline": "bare"}, by="prompt", skill_name="s"
            ),
        )
    )
    assert scores(r.cases[0].arms.with_skill) == [0.75] and r.cases[0].prompt is None


def test_unmapped_label_refused(sample: Path) -> None:
    with pytest.raises(ImportError_) as e:
        import_promptfoo(
            sample,
            PromptfooOptions(
                arms={"with_skill": "openai:gpt-5-mini", "baseline": "anthropic:x"}, skill_name="s"
            ),
        )
    (p,) = e.value.problems
    # results[1] is the first gpt-5 row (promptIdx 0)
    assert p.pointer == "/results/results/1/provider" and "no arm maps" in p.message
    # the row's label is quoted as text and the mapping given is echoed, to see what to add
    assert p.message.startswith(
        'no arm maps this row\'s provider "openai:gpt-5" (given --arm with_skill=openai:gpt-5-mini'
        ", --arm baseline=anthropic:x); "
    )


def _unmapped_refusal(sample: Path, tmp_path: Path, providers: list[dict[str, str]]) -> str:
    """The refusal of the sample's first row followed by one row per provider in ``providers``."""
    doc = json.loads(sample.read_text(encoding="utf-8"))
    first = doc["results"]["results"][0]  # openai:gpt-5-mini, the with-skill arm
    doc["results"]["results"] = [first] + [
        {**copy.deepcopy(first), "provider": p} for p in providers
    ]
    f = write_json(tmp_path / "labels.json", doc)
    arms = {"with_skill": "openai:gpt-5-mini", "baseline": "anthropic:x"}
    with pytest.raises(ImportError_) as e:
        import_promptfoo(f, PromptfooOptions(arms=arms, skill_name="s"))
    (p,) = e.value.problems
    assert p.file == str(f) and p.pointer == "/results/results/1/provider"
    return p.message


GIVEN = "(given --arm with_skill=openai:gpt-5-mini, --arm baseline=anthropic:x)"


def test_every_unmapped_label_named_at_once(sample: Path, tmp_path: Path) -> None:
    # rows 1 and 3 share a label (named once), row 2 has a label and an id; an empty label is none
    rows = [
        {"id": "openai:gpt-5", "label": ""},
        {"id": "openai:o3", "label": "O three"},
        {"id": "openai:gpt-5", "label": ""},
    ]
    assert _unmapped_refusal(sample, tmp_path, rows) == (
        "no arm maps 2 of the file's providers (this row's first): "
        '"openai:gpt-5"; "O three" or '
        f'"openai:o3" {GIVEN}; map each provider label to one arm (or leave those rows out of the '
        "file)"
    )


def test_an_unmapped_row_with_no_label_is_named_as_such(sample: Path, tmp_path: Path) -> None:
    # a provider whose label is not a string and that has no id: the row is one of the unmapped,
    # and the list read "this row's first: ; "x"", a blank for it
    rows = [{"label": 7}, {"id": "x"}]
    assert _unmapped_refusal(sample, tmp_path, rows) == (
        "no arm maps 2 of the file's providers (this row's first): "
        f'(no label); "x" {GIVEN}; map each '
        "provider label to one arm (or leave those rows out of the file)"
    )


def test_unmapped_labels_are_cut_to_80_characters(sample: Path, tmp_path: Path) -> None:
    # a hostile file's labels were named whole, ten of them in one refusal; two 100-character
    # labels differing only past character 80 are still two labels
    rows = [{"id": "p" * 99 + "1"}, {"id": "p" * 99 + "2"}]
    cut = '"' + "p" * 80 + '"…'
    assert _unmapped_refusal(sample, tmp_path, rows) == (
        f"no arm maps 2 of the file's providers (this row's first): {cut}; {cut} {GIVEN}; "
        "map each "
        "provider label to one arm (or leave those rows out of the file)"
    )


def test_unmapped_labels_past_ten_are_counted(sample: Path, tmp_path: Path) -> None:
    rows = [{"id": f"p{i}"} for i in (*range(12), 0)]  # 12 labels, p0 again last
    named = '"p0"; "p1"; "p2"; "p3"; "p4"; "p5"; "p6"; "p7"; "p8"; "p9"'
    assert _unmapped_refusal(sample, tmp_path, rows) == (
        f"no arm maps 12 of the file's providers (this row's first): {named}; and 2 more "
        f"{GIVEN}; map "
        "each provider label to one arm (or leave those rows out of the file)"
    )


def test_malformed_score_refused_naming_file_and_place(sample: Path, tmp_path: Path) -> None:
    doc = json.loads(sample.read_text(encoding="utf-8"))
    doc["results"]["results"][2]["score"] = "0.7"
    f = write_json(tmp_path / "bad.json", doc)
    with pytest.raises(ImportError_) as e:
        import_promptfoo(f, PromptfooOptions(arms=ARMS, skill_name="s"))
    (p,) = e.value.problems
    assert (
        p.file == str(f)
        and p.pointer == "/results/results/2/score"
        and "between 0 and 1" in p.message
    )


# ---------------------------------------------------------------- issue 14: fault kinds


def _jsonl(sample: Path, target: Path) -> Path:
    """The sample's results as promptfoo's JSONL export writes them: one EvaluateResult per line."""
    rows = json.loads(sample.read_text(encoding="utf-8"))["results"]["results"]
    target.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return target


def test_jsonl_export_gives_the_same_scores_as_the_json_file(sample: Path, tmp_path: Path) -> None:
    r = sealed(
        import_promptfoo(
            _jsonl(sample, tmp_path / "out.jsonl"),
            PromptfooOptions(arms=ARMS, skill_name="riddles"),
        )
    )
    echo, boat = r.cases
    # the same rows as the JSON file: echo 0.75 / 0.5, boat 2/3 / 2/3
    assert scores(echo.arms.with_skill) == [0.75] and scores(echo.arms.baseline) == [0.5]
    assert scores(boat.arms.with_skill) == [pytest.approx(2 / 3)]
    assert r.run.started_at is None  # a JSONL export carries no results.timestamp


def test_jsonl_problem_names_the_line(sample: Path, tmp_path: Path) -> None:
    path = _jsonl(sample, tmp_path / "out.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[2])
    row["score"] = 7
    lines[2] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ImportError_) as exc:
        import_promptfoo(path, PromptfooOptions(arms=ARMS, skill_name="riddles"))
    (p,) = exc.value.problems
    assert p.file == str(path) and p.pointer == "/line 3/score"


def test_one_arm_alone_is_a_single_arm_import(sample: Path, tmp_path: Path) -> None:
    # a file holding only the gpt-5-mini rows
    doc = json.loads(sample.read_text(encoding="utf-8"))
    doc["results"]["results"] = [
        x for x in doc["results"]["results"] if x["provider"]["id"] == "openai:gpt-5-mini"
    ]
    path = tmp_path / "mini.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    r = sealed(
        import_promptfoo(
            path, PromptfooOptions(arms={"with_skill": "openai:gpt-5-mini"}, skill_name="riddles")
        )
    )
    assert r.arms.baseline.recorded is False and all(c.arms.baseline.draws == [] for c in r.cases)
    assert [scores(c.arms.with_skill) for c in r.cases] == [[0.75], [pytest.approx(2 / 3)]]


def test_a_single_arm_import_leaves_the_other_rows_out_and_says_so(sample: Path) -> None:
    # it refused the sample's two gpt-5 rows ("no arm maps ..."): one arm of a two-provider file
    # could not be imported without editing the file
    options = PromptfooOptions(arms={"with_skill": "openai:gpt-5-mini"}, skill_name="riddles")
    r = sealed(import_promptfoo(sample, options))
    assert [scores(c.arms.with_skill) for c in r.cases] == [[0.75], [pytest.approx(2 / 3)]]
    assert r.provenance.notes == ['Rows of other providers were not imported: "openai:gpt-5" (2)']
    # grader tokens of the two imported rows only: prompt 227 + 213, completion 29 + 37
    jo = r.economics.judge_overhead
    assert (jo.input_tokens, jo.output_tokens, jo.judged_draws_counted) == (440, 66, 2)


def test_an_arm_no_row_matches_names_the_files_labels(sample: Path) -> None:
    # a newcomer's --arm with_skill=gpt-5 read "no row matched it" with no hint of the labels
    # the file holds (openai:gpt-5 and openai:gpt-5-mini)
    options = PromptfooOptions(arms={"with_skill": "gpt-5"}, skill_name="riddles")
    with pytest.raises(ImportError_) as e:
        import_promptfoo(sample, options)
    assert str(e.value).endswith(
        "expected results for arm with_skill (provider 'gpt-5'); no row matched it (labels in the "
        "file: "
        '"openai:gpt-5-mini", "openai:gpt-5")'
    )


def test_timestamp_is_stored_in_utc_with_its_offset(sample: Path, tmp_path: Path) -> None:
    doc = json.loads(sample.read_text(encoding="utf-8"))
    assert doc["results"]["timestamp"] == "2025-10-01T20:08:11.168Z"
    r = sealed(import_promptfoo(sample, PromptfooOptions(arms=ARMS, skill_name="riddles")))
    assert (r.run.started_at, r.run.started_at_offset) == ("2025-10-01T20:08:11.168000Z", None)
    doc["results"]["timestamp"] = "2025-10-01T22:08:11+02:00"
    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    r = sealed(import_promptfoo(path, PromptfooOptions(arms=ARMS, skill_name="riddles")))
    assert (r.run.started_at, r.run.started_at_offset) == ("2025-10-01T20:08:11Z", "+02:00")


def test_jsonl_line_that_is_not_json_is_named_by_the_file_and_line(
    sample: Path, tmp_path: Path
) -> None:
    path = _jsonl(sample, tmp_path / "out.jsonl")
    path.write_text(path.read_text(encoding="utf-8") + "{oops\n", encoding="utf-8")
    with pytest.raises(ImportError_) as exc:
        import_promptfoo(path, PromptfooOptions(arms=ARMS, skill_name="riddles"))
    (p,) = exc.value.problems
    assert p.file == str(path) and p.pointer == "/line 5" and p.message.startswith("expected JSON")


def _python_assertions(sample: Path, tmp: Path) -> Path:
    """results[0] with two python assertions as promptfoo's src/assertions/python.ts writes them:
    one whose code raised (pass false, score 0, reason "Python code execution failed: …") and one
    that returned False (reason "Python code returned false" and the assertion's value)."""
    doc = json.loads(sample.read_text(encoding="utf-8"))
    comps = doc["results"]["results"][0]["gradingResult"]["componentResults"]
    comps.append(
        {
            "pass": False,
            "score": 0,
            "reason": "Python code execution failed: NameError: name 'outptu' is not defined",
            "assertion": {"type": "python", "value": "len(outptu) < 500"},
        }
    )
    comps.append(
        {
            "pass": False,
            "score": 0,
            "reason": "Python code returned false\n'echo' in output.lower()",
            "assertion": {"type": "python", "value": "'echo' in output.lower()"},
        }
    )
    return write_json(tmp / "python.json", doc)


def test_an_errored_and_a_failed_python_assertion_are_both_kept_apart(
    sample: Path, tmp_path: Path
) -> None:
    r = sealed(
        import_promptfoo(
            _python_assertions(sample, tmp_path), PromptfooOptions(arms=ARMS, skill_name="riddles")
        )
    )
    checks = r.cases[0].arms.with_skill.draws[0].checks
    assert [(c.source_type, c.outcome, c.pass_) for c in checks[-2:]] == [
        ("python", "error", False),
        ("python", "fail", False),
    ]
    assert checks[-2].name == "python: len(outptu) < 500"


def test_repeat_index_orders_the_draws(sample: Path, tmp_path: Path) -> None:
    doc = json.loads(_repeated(sample, tmp_path).read_text(encoding="utf-8"))
    rows = doc["results"]["results"]
    half = len(rows) // 2
    for i, row in enumerate(rows):  # the second repetition written first, as a resumed run may
        row["repeatIndex"] = 0 if i >= half else 1
    r = sealed(
        import_promptfoo(
            write_json(tmp_path / "ri.json", doc), PromptfooOptions(arms=ARMS, skill_name="s")
        )
    )
    # repeatIndex 0 is the second half: echo / gpt-5-mini there is the failureReason 2 row (lost)
    assert scores(r.cases[0].arms.with_skill) == [None, 0.75]
    assert [d.index for d in r.cases[0].arms.with_skill.draws] == [0, 1]


def test_repeat_index_on_some_rows_only_is_refused(sample: Path, tmp_path: Path) -> None:
    doc = json.loads(_repeated(sample, tmp_path).read_text(encoding="utf-8"))
    doc["results"]["results"][0]["repeatIndex"] = 0
    with pytest.raises(ImportError_) as exc:
        import_promptfoo(
            write_json(tmp_path / "ri.json", doc), PromptfooOptions(arms=ARMS, skill_name="s")
        )
    assert "ri.json" in str(exc.value) and "/results/results/4/repeatIndex" in str(exc.value)


def test_v2_error_field_ambiguity_is_flagged(sample: Path, tmp_path: Path) -> None:
    doc = json.loads(sample.read_text(encoding="utf-8"))
    doc["results"]["version"] = 2
    for row in doc["results"]["results"]:
        row.pop("failureReason")
    r = sealed(
        import_promptfoo(
            write_json(tmp_path / "v2.json", doc), PromptfooOptions(arms=ARMS, skill_name="s")
        )
    )
    # all four rows hold "error" (the grader's reason) and grading: measured, and flagged
    assert all(d.lost is None for c in r.cases for d in c.arms.with_skill.draws)
    assert r.provenance.notes and "4 row(s)" in r.provenance.notes[0]


def test_a_label_that_is_also_the_id_is_named_once() -> None:
    # by prompt, a prompt's label is often its raw text: the hint read '"Solve this riddle:
    # {{riddle}}" or "Solve this riddle: {{riddle}}"'
    from driftproof.importers.promptfoo import _shown

    assert _shown(["Solve: {{r}}", "Solve: {{r}}"]) == '"Solve: {{r}}"'
    assert _shown(["label", "id"]) == '"label" or "id"'


def test_arm_labels_naming_providers_are_said_to_be_the_sources_names_not_a_model(
    sample: Path,
) -> None:
    # sample-export.json's results give provider.id ("openai:gpt-5") and no model that answered
    # (response: output, tokenUsage, cached, finishReason, cost): the arms' providers differ, so
    # no model is recorded; the labels are promptfoo's names, and the sheet says whose they are
    from driftproof.pages.sheet import sheet

    s = sheet(sealed(import_promptfoo(sample, PromptfooOptions(arms=ARMS, skill_name="riddles"))))
    facts = {f.label: f.value for f in s.provenance}
    assert s.title == "riddles on an unrecorded model"
    assert facts["model"] == (
        "not recorded: the arm labels below are the source's own names for its arms, not a "
        "model it records as answering"
    )
    assert facts["arm labels"] == (
        "with skill: provider:openai:gpt-5-mini; baseline: provider:openai:gpt-5"
    )
