"""skill-creator importer on the real nebius-skills workspace and the schema/spec examples
(D-13, D-15).

Expected values are read by hand from the source files; each literal says where.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from interop_helpers import mean, scores, sealed, write_json

from driftproof.errors import ImportError_
from driftproof.importers import get_importer
from driftproof.importers.skill_creator import SkillCreatorOptions, import_skill_creator

SC = "data/interop/skill-creator"


@pytest.fixture
def nebius(shared: Path) -> object:
    docs = import_skill_creator([shared / SC / "nebius-skills-workspace"])
    assert len(docs) == 1  # one iteration: evals/iteration-1
    return sealed(docs[0])


def test_nebius_cases_scores_and_means(nebius) -> None:
    r = nebius
    assert r.verification_level == "DECLARED"  # D-15: never a verdict
    assert r.skill.name == "nebius-skills"  # benchmark.json "skill_name"
    assert [c.id for c in r.cases] == [str(i) for i in range(9)]  # evals[].eval_id 0..8
    by = {c.id: c for c in r.cases}
    # benchmark.json evals[].with_skill.pass_rate, in order 0..8
    assert [scores(by[str(i)].arms.with_skill)[0] for i in range(9)] == [
        1.0,
        1.0,
        1.0,
        1.0,
        0.4,
        0.8,
        0.0,
        1.0,
        0.0,
    ]
    # summary.with_skill.mean_pass_rate printed as 0.689 (rounded): 6.2 / 9
    ws = [by[str(i)].arms.with_skill.draws[0].score for i in range(9)]
    assert mean(ws) == pytest.approx(0.689, abs=5e-4)
    # summary.without_skill.mean_pass_rate 0.585 over 8 evals with data (eval 2 missing)
    base = [s for c in r.cases for s in scores(c.arms.baseline) if s is not None]
    assert len(base) == 8
    assert mean(base) == pytest.approx(0.585, abs=5e-4)


def test_nebius_runs_that_never_loaded_the_skill(nebius) -> None:
    by = {c.id: c for c in nebius.cases}
    fired = {cid: c.arms.with_skill.draws[0].skill_fired for cid, c in by.items()}
    # evals 4, 6 and 8 carry "skill_loaded": false; the other six true (summary: 6 loaded, 3 failed)
    assert sorted(cid for cid, f in fired.items() if f is False) == ["4", "6", "8"]
    assert sum(1 for f in fired.values() if f is True) == 6
    # the score is kept as recorded beside the flag, never changed by it: eval 6 recorded 0.0
    assert by["6"].arms.with_skill.draws[0].score == 0.0
    # summary.with_skill.mean_pass_rate_skill_loaded_only 0.967 = 5.8 / 6
    loaded = [
        c.arms.with_skill.draws[0].score
        for c in nebius.cases
        if c.arms.with_skill.draws[0].skill_fired
    ]
    assert mean(loaded) == pytest.approx(0.967, abs=5e-4)
    # baseline runs record no skill_loaded: unknown, not false (D-13)
    assert all(c.arms.baseline.draws[0].skill_fired is None for c in nebius.cases)


def test_nebius_missing_baseline_is_a_lost_draw_with_the_source_note(nebius) -> None:
    d = {c.id: c for c in nebius.cases}["2"].arms.baseline.draws[0]
    assert d.score is None and d.lost is not None
    assert "still pending at time of grading" in d.lost.reason  # evals[2].without_skill.note


def test_nebius_provenance_and_prompts(nebius, shared: Path) -> None:
    p = nebius.provenance
    bench = shared / SC / "nebius-skills-workspace/evals/iteration-1/benchmark.json"
    import hashlib

    assert p.tool == "skill-creator" and p.document == str(bench)
    assert p.document_sha256 == hashlib.sha256(bench.read_bytes()).hexdigest()
    assert any(u.startswith("judge.model") for u in p.unrecorded)
    # benchmark.json's metadata holds no timestamp: the start is named as not recorded
    assert nebius.run.started_at is None
    assert "run.started_at (no metadata.timestamp)" in p.unrecorded
    # no runs_per_configuration in this file: the count stays unknown, never 1 (D-13)
    assert (
        nebius.run.generations_per_arm is None and nebius.run.judge_samples_per_generation is None
    )
    assert nebius.run.model is None
    # prompt of eval 0 from evals/evals.json
    assert nebius.cases[0].prompt.startswith(
        "I have a customer support JSONL dataset (~500 examples)"
    )


def test_canonical_runs_with_string_delta(shared: Path) -> None:
    r = sealed(import_skill_creator([shared / SC / "anthropic-schemas-examples/benchmark.json"])[0])
    # schemas.md example: one run, eval_id 1, with_skill, run_number 1, pass_rate 0.85
    assert r.skill.name == "pdf" and [c.id for c in r.cases] == ["1"]
    d = r.cases[0].arms.with_skill.draws
    assert [(x.index, x.score) for x in d] == [(0, 0.85)]
    assert r.run.model == "claude-sonnet-4-20250514"  # metadata.executor_model
    assert r.run.started_at == "2026-01-15T10:30:00Z"
    # runs_per_configuration says 3 but one run is recorded: not taken as the count
    assert r.run.generations_per_arm is None
    # result.tokens 3800: aggregate_benchmark.py writes timing.json's total_tokens only when
    # grading.json has no timing, else execution_metrics.output_chars (characters), else 0
    assert d[0].tokens is None
    assert any(u.startswith("draw tokens (runs[].result.tokens") for u in r.provenance.unrecorded)


def test_spec_run_summary_only_is_aggregates_only_with_numeric_delta(shared: Path) -> None:
    r = sealed(
        import_skill_creator(
            [shared / SC / "agentskills-spec-examples"],
            SkillCreatorOptions(skill_name="csv-analyzer"),
        )[0]
    )
    assert r.is_aggregates_only and r.cases == [] and r.judge is None
    # run_summary.delta.pass_rate printed as the number 0.50; with_skill mean 0.83
    summary = r.source_figures.run_summary
    assert summary["delta"]["pass_rate"] == 0.5
    assert summary["with_skill"]["pass_rate"]["mean"] == 0.83


def _workspace(tmp: Path, grading_key: str) -> Path:
    it = tmp / "ws" / "iteration-2"
    for cfg, flags in (
        ("with_skill", [True, True, False]),
        ("without_skill", [False, False, False]),
    ):
        for k in (1, 2):
            write_json(
                it / "eval-7-demo" / cfg / f"run-{k}" / "grading.json",
                {
                    grading_key: [
                        {"text": f"a{i}", "passed": f, "evidence": ""} for i, f in enumerate(flags)
                    ]
                },
            )
    write_json(it / "eval-7-demo" / "eval_metadata.json", {"eval_id": 7, "prompt": "Do the thing."})
    write_json(tmp / "ws" / "evals" / "evals.json", {"skill_name": "demo", "evals": []})
    return it


@pytest.mark.parametrize("key", ["expectations", "assertion_results"])
def test_grading_files_with_either_assertion_key(tmp_path: Path, key: str) -> None:
    it = _workspace(tmp_path, key)
    r = sealed(import_skill_creator([it], SkillCreatorOptions(skill_name="demo"))[0])
    c = r.cases[0]
    assert c.id == "7" and c.prompt == "Do the thing."
    # 2 of 3 assertions passed in each with-skill run, 0 of 3 without
    assert scores(c.arms.with_skill) == [pytest.approx(2 / 3)] * 2
    assert scores(c.arms.baseline) == [0.0, 0.0]
    assert [d.index for d in c.arms.with_skill.draws] == [0, 1]  # run-1, run-2


def test_configurations_shape_and_explicit_arm_mapping(tmp_path: Path) -> None:
    bench = write_json(
        tmp_path / "iteration-1" / "benchmark.json",
        {
            "skill_name": "fd",
            "configurations": [
                {
                    "name": "new_skill",
                    "evals": [
                        {
                            "eval_id": 0,
                            "pass_rate": 1.0,
                            "assertions_passed": 6,
                            "assertions_total": 6,
                        }
                    ],
                },
                {
                    "name": "old_skill",
                    "evals": [
                        {
                            "eval_id": 0,
                            "pass_rate": 0.167,
                            "assertions_passed": 1,
                            "assertions_total": 6,
                        }
                    ],
                },
            ],
        },
    )
    with pytest.raises(ImportError_) as e:
        import_skill_creator([bench])
    assert "/configurations/0/evals/0" in str(e.value) and "new_skill" in str(e.value)
    r = sealed(
        import_skill_creator(
            [bench], SkillCreatorOptions(arms={"with_skill": "new_skill", "baseline": "old_skill"})
        )[0]
    )
    assert scores(r.cases[0].arms.with_skill) == [1.0] and scores(r.cases[0].arms.baseline) == [
        0.167
    ]
    assert r.arms.with_skill.label == "new_skill"


def test_configs_results_spelling(tmp_path: Path) -> None:
    # the shape of a real workspace seen in the wild: "configs" with "results" and assertion counts
    bench = write_json(
        tmp_path / "iteration-1" / "benchmark.json",
        {
            "skill_name": "topo",
            "configs": [
                {
                    "name": "with_skill",
                    "results": [
                        {
                            "eval_id": 1,
                            "assertions_passed": 4,
                            "assertions_total": 5,
                            "pass_rate": 0.8,
                        }
                    ],
                },
                {
                    "name": "without_skill",
                    "results": [{"eval_id": 1, "assertions_passed": 1, "assertions_total": 5}],
                },
            ],
        },
    )
    r = sealed(import_skill_creator([bench])[0])
    # with: pass_rate 0.8 as recorded; without: no pass_rate, so 1 of 5 assertions = 0.2
    assert scores(r.cases[0].arms.with_skill) == [0.8] and scores(r.cases[0].arms.baseline) == [0.2]


def test_malformed_benchmark_refused_naming_file_and_place(tmp_path: Path) -> None:
    bench = write_json(
        tmp_path / "benchmark.json",
        {
            "metadata": {"skill_name": "x"},
            "runs": [
                {
                    "eval_id": 1,
                    "configuration": "with_skill",
                    "run_number": 1,
                    "result": {"pass_rate": "high"},
                }
            ],
        },
    )
    with pytest.raises(ImportError_) as e:
        import_skill_creator([bench])
    (problem,) = e.value.problems
    assert problem.file == str(bench) and problem.pointer == "/runs/0/result/pass_rate"
    assert "between 0 and 1" in problem.message


def test_registered_importer_writes_nothing_on_failure(tmp_path: Path, shared: Path) -> None:
    from driftproof.importers import write_imported

    items = get_importer("skill-creator")([shared / SC / "nebius-skills-workspace"])
    assert [i.filename for i in items][0].startswith("skill-creator-nebius-skills-iteration-1-")
    bad = write_json(tmp_path / "bad" / "benchmark.json", {"runs": "nope"})
    out = tmp_path / "out"
    with pytest.raises(ImportError_):
        write_imported(get_importer("skill-creator")([bad], skill_name="x"), out)
    assert not out.exists()
    json.dumps([i.body.to_json_dict() for i in items])  # plain JSON data


def test_legacy_runs_layout_without_benchmark(tmp_path: Path) -> None:
    # legacy layout runs/eval-N/<configuration>/grading.json, no benchmark.json
    it = tmp_path / "legacy"
    write_json(
        it / "runs" / "eval-3" / "with_skill" / "grading.json",
        {"summary": {"passed": 3, "failed": 1, "total": 4, "pass_rate": 0.75}},
    )
    write_json(
        it / "runs" / "eval-3" / "without_skill" / "grading.json",
        {"summary": {"passed": 1, "failed": 3, "total": 4, "pass_rate": 0.25}},
    )
    r = sealed(import_skill_creator([it], SkillCreatorOptions(skill_name="legacy"))[0])
    assert [c.id for c in r.cases] == ["3"]
    assert scores(r.cases[0].arms.with_skill) == [0.75] and scores(r.cases[0].arms.baseline) == [
        0.25
    ]
    assert r.provenance.document == str(it)  # built from the grading files: a manifest sha256


def test_runs_with_condition_case_id_and_percent_pass_rate(tmp_path: Path) -> None:
    # a harness writing runs[] with case_id, condition and pass_rate in percent, confirmed by its
    # counts
    bench = write_json(
        tmp_path / "iteration-1" / "benchmark.json",
        {
            "metadata": {"skill_name": "rubrix-skills"},
            "runs": [
                {
                    "case_id": "plan-01",
                    "condition": "with_skill",
                    "passed": 4,
                    "total": 5,
                    "pass_rate": 80,
                    "input_tokens": 11,
                    "output_tokens": 2415,
                    "model": "claude-sonnet-4-6",
                },
                {
                    "case_id": "plan-01",
                    "condition": "baseline",
                    "passed": 3,
                    "total": 5,
                    "pass_rate": 60,
                    "input_tokens": 5,
                    "output_tokens": 1777,
                    "model": "claude-sonnet-4-6",
                },
            ],
        },
    )
    r = sealed(import_skill_creator([bench])[0])
    c = r.cases[0]
    assert (
        c.id == "plan-01"
        and scores(c.arms.with_skill) == [0.8]
        and scores(c.arms.baseline) == [0.6]
    )
    assert c.arms.with_skill.draws[0].tokens.output == 2415 and r.run.model == "claude-sonnet-4-6"


def _with_skill_scored(tmp_path: Path, result: dict):
    """The receipt of one eval whose with-skill run holds ``result`` (baseline pass_rate .5)."""
    runs = [
        {"eval_id": 1, "configuration": "with_skill", "result": result},
        {"eval_id": 1, "configuration": "without_skill", "result": {"pass_rate": 0.5}},
    ]
    doc = {"metadata": {"skill_name": "x"}, "runs": runs}
    return sealed(import_skill_creator([write_json(tmp_path / "benchmark.json", doc)])[0])


def test_passed_and_total_are_read_by_one_name_order(tmp_path: Path) -> None:
    # a run holding passed/total and assertions_passed/assertions_total: both the percent check
    # of pass_rate and the score read passed/total first, so 80 is 4 of 5 and no count disagrees
    run = {"pass_rate": 80, "passed": 4, "total": 5, "assertions_passed": 3}
    r = _with_skill_scored(tmp_path, {**run, "assertions_total": 5})
    assert scores(r.cases[0].arms.with_skill) == [0.8]
    assert r.provenance is not None and r.provenance.notes is None


@pytest.mark.parametrize("flag", [True, False, None, "4"])
def test_a_passed_flag_beside_assertion_counts_does_not_hide_them(tmp_path: Path, flag) -> None:
    # a run-level passed flag (not a count) beside assertions_passed/assertions_total: the
    # counts are read, 4 of 5 = 0.8, as before the two name orders became one
    result = {"passed": flag, "assertions_passed": 4, "assertions_total": 5}
    assert scores(_with_skill_scored(tmp_path, result).cases[0].arms.with_skill) == [0.8]


def test_percent_pass_rate_without_confirming_counts_is_refused(tmp_path: Path) -> None:
    bench = write_json(
        tmp_path / "benchmark.json",
        {
            "metadata": {"skill_name": "x"},
            "runs": [{"eval_id": 1, "configuration": "with_skill", "result": {"pass_rate": 80}}],
        },
    )
    with pytest.raises(ImportError_) as e:
        import_skill_creator([bench])
    assert e.value.problems[0].pointer == "/runs/0/result/pass_rate"


@pytest.mark.parametrize(
    "stamp",
    [
        "yesterday at noon",
        "2026-01-15T10:30:00Z\n",  # a trailing line break
        "\u0661\u0662\u0663\u0664-01-15T10:30:00Z",  # Arabic-Indic digits
        "2026-02-30T10:30:00Z",  # no such day
        "0001-01-01T00:00:00+01:00",  # before year 1 in UTC
    ],
)
def test_a_timestamp_that_is_no_date_time_is_named_in_its_own_words(
    tmp_path: Path, shared: Path, stamp: str
) -> None:
    bench = json.loads((shared / SC / "anthropic-schemas-examples/benchmark.json").read_bytes())
    bench["metadata"]["timestamp"] = stamp
    (tmp_path / "benchmark.json").write_text(json.dumps(bench), encoding="utf-8")
    r = sealed(import_skill_creator([tmp_path / "benchmark.json"])[0])
    assert r.run.started_at is None
    assert (
        f"run.started_at (metadata.timestamp {stamp!r} is not an RFC 3339 date-time)"
        in r.provenance.unrecorded
    )


def test_an_arm_is_labelled_by_the_configuration_the_runs_hold(tmp_path: Path) -> None:
    # the shape of jaehoonE7877/rubrix iteration-1/benchmark.json (commit 817ecfd; the repository
    # states no licence, so only its field names and two figures are kept): its runs name the
    # baseline's configuration "baseline", never "without_skill". Source:
    # https://github.com/jaehoonE7877/rubrix/blob/817ecfd4db7a6c478b3d9a174ab342a2bd074fe0/iteration-1/benchmark.json
    run = {"case_id": "matrix-01", "passed": 5, "total": 5, "pass_rate": 100}
    bench = write_json(
        tmp_path / "iteration-1" / "benchmark.json",
        {
            "metadata": {"skill_name": "rubrix-skills"},
            "runs": [
                {**run, "condition": "with_skill"},
                {**run, "condition": "baseline", "passed": 3, "pass_rate": 60},
            ],
        },
    )
    r = sealed(import_skill_creator([bench])[0])
    assert r.arms.with_skill.label == "with_skill" and r.arms.baseline.label == "baseline"
    assert scores(r.cases[0].arms.baseline) == [0.6]


def test_two_configurations_of_one_arm_are_refused(tmp_path: Path) -> None:
    # without_skill and baseline both map to the baseline arm by default: read together, the
    # arm's mean would mix two configurations' runs
    run = {"case_id": "c1", "passed": 1, "total": 1, "pass_rate": 1.0}
    runs = [{**run, "condition": c} for c in ("with_skill", "without_skill", "baseline")]
    bench = write_json(
        tmp_path / "i" / "benchmark.json", {"metadata": {"skill_name": "s"}, "runs": runs}
    )
    with pytest.raises(ImportError_) as e:
        import_skill_creator([bench])
    assert "/runs/2" in str(e.value)
    assert "'baseline' maps to the baseline arm" in str(e.value)
    assert "runs of 'without_skill' (at /runs/1)" in str(e.value)
