"""skill-creator, issue 14: each fault kind on a small workspace of our own making.

- ``timing.json`` beside ``grading.json`` gives each run's total tokens (84,852 with the skill and
  21,007 without, the totals the issue's user saw), shown by ``view``;
- ``assertions`` beside ``expectations`` are both counted, in the import and in ``run``'s suite;
- a ``summary`` that disagrees with the counted ``expectations`` does not win silently.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import docs, sealed

from driftproof.errors import ImportError_
from driftproof.importers.skill_creator import SkillCreatorOptions, import_skill_creator
from driftproof.pages.sheet import sheet
from driftproof.run.suite import load_suite


def _write(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")


def _grading(flags: list[bool], key: str = "expectations", **extra: Any) -> dict[str, Any]:
    return {
        key: [{"text": f"a{i}", "passed": f, "evidence": ""} for i, f in enumerate(flags)],
        **extra,
    }


def test_timing_json_totals_are_kept_per_draw_and_shown(tmp_path: Path) -> None:
    it = tmp_path / "ws" / "iteration-1"
    for cfg, flags, total in (
        ("with_skill", [True, True], 84852),
        ("without_skill", [True, False], 21007),
    ):
        _write(it / "eval-1" / cfg / "grading.json", _grading(flags))
        _write(it / "eval-1" / cfg / "timing.json", {"total_tokens": total, "duration_ms": 23332})
    (doc,) = import_skill_creator([it], SkillCreatorOptions(skill_name="s"))
    r = sealed(doc)
    w, b = r.cases[0].arms.with_skill.draws[0], r.cases[0].arms.baseline.draws[0]
    assert (w.tokens.total, b.tokens.total) == (84852, 21007)
    assert w.tokens.input is None and w.tokens.output is None  # never split when the source did not
    arms = {a.arm: a.output_tokens for a in sheet(r).arms}
    assert (
        "84,852 total tokens over 1 draw" in arms["with skill"]
        and "21,007 total tokens" in arms["baseline"]
    )
    # the timing files are part of the converted document's manifest: a changed total changes its
    # sha256
    (again,) = docs(import_skill_creator([it], SkillCreatorOptions(skill_name="s")))
    _write(it / "eval-1" / "with_skill" / "timing.json", {"total_tokens": 1})
    (changed,) = docs(import_skill_creator([it], SkillCreatorOptions(skill_name="s")))
    assert again["provenance"]["document_sha256"] != changed["provenance"]["document_sha256"]


def test_a_null_timing_total_stays_unknown(tmp_path: Path) -> None:
    it = tmp_path / "ws" / "iteration-1"
    for cfg in ("with_skill", "without_skill"):
        _write(it / "eval-1" / cfg / "grading.json", _grading([True]))
        _write(it / "eval-1" / cfg / "timing.json", {"total_tokens": None, "_note": "not captured"})
    r = sealed(import_skill_creator([it], SkillCreatorOptions(skill_name="s"))[0])
    assert r.cases[0].arms.with_skill.draws[0].tokens is None


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("without_skill/grading.json", "a link that leads to no file"),
        ("without_skill/timing.json", "a directory"),
        ("eval_metadata.json", "a link that leads to no file"),
        ("with_skill/timing.json", "a named pipe, socket or device"),  # read as a broken link
    ],
)
def test_a_workspace_file_that_is_no_file_is_refused_not_skipped(
    tmp_path: Path, name: str, found: str
) -> None:
    # a grading.json that is a broken link left the baseline out (a single-arm import); a timing
    # or eval_metadata.json that is no file dropped its tokens or its eval's words, unsaid
    it = tmp_path / "ws" / "iteration-1"
    for cfg in ("with_skill", "without_skill"):
        _write(it / "eval-1" / cfg / "grading.json", _grading([True]))
    odd = it / "eval-1" / name
    odd.unlink(missing_ok=True)
    if found == "a directory":
        odd.mkdir()
    elif "pipe" in found:
        os.mkfifo(odd)
    else:
        odd.symlink_to(tmp_path / "gone.json")
    with pytest.raises(ImportError_) as exc:
        import_skill_creator([it], SkillCreatorOptions(skill_name="s"))
    assert str(exc.value) == f"{odd}: expected a file, found {found}"


def test_assertions_beside_expectations_are_both_counted(tmp_path: Path) -> None:
    it = tmp_path / "ws" / "iteration-1"
    grading = _grading([True, True])
    grading["assertions"] = [{"text": "b0", "passed": False, "evidence": ""}]
    _write(it / "eval-1" / "with_skill" / "grading.json", grading)
    _write(it / "eval-1" / "without_skill" / "grading.json", _grading([False], "assertions"))
    r = sealed(import_skill_creator([it], SkillCreatorOptions(skill_name="s"))[0])
    # 2 of 3 assertions passed with the skill (two expectations, one assertion); 0 of 1 without
    assert r.cases[0].arms.with_skill.draws[0].score == 2 / 3
    assert r.cases[0].arms.baseline.draws[0].score == 0.0


def test_a_disagreeing_summary_does_not_win_silently(tmp_path: Path) -> None:
    it = tmp_path / "ws" / "iteration-1"
    summary = {"passed": 3, "failed": 1, "total": 4, "pass_rate": 0.75}
    _write(
        it / "eval-1" / "with_skill" / "grading.json",
        _grading([True, False, False, False], summary=summary),
    )
    _write(
        it / "eval-1" / "without_skill" / "grading.json",
        _grading([True, False], summary={"passed": 1, "failed": 1, "total": 2, "pass_rate": 0.5}),
    )
    r = sealed(import_skill_creator([it], SkillCreatorOptions(skill_name="s"))[0])
    # the counted expectations: 1 of 4 = 0.25, not the summary's 0.75; the agreeing arm is as
    # recorded
    assert r.cases[0].arms.with_skill.draws[0].score == 0.25
    assert r.cases[0].arms.baseline.draws[0].score == 0.5
    (note,) = r.provenance.notes
    assert (
        "with_skill/grading.json" in note
        and "summary.pass_rate 0.75 disagrees with the 1 of 4" in note
    )


def test_run_suite_reads_assertions_beside_expectations(tmp_path: Path) -> None:
    evals = {
        "skill_name": "s",
        "evals": [
            {"id": 1, "prompt": "p", "expectations": ["e1"], "assertions": ["a1", "a2"]},
            {"id": 2, "prompt": "q", "expectations": [], "assertions": ["only"]},
        ],
    }
    path = tmp_path / "evals.json"
    _write(path, evals)
    suite = load_suite(path)
    one, two = suite.cases
    assert [c.description for c in one.criteria] == ["e1", "a1", "a2"]
    # an empty expectations list beside assertions is not a case with no criteria
    assert [c.description for c in two.criteria] == ["only"]


def test_a_single_configuration_is_a_single_arm_import_never_a_zero_baseline(
    tmp_path: Path,
) -> None:
    it = tmp_path / "ws" / "iteration-1"
    _write(it / "eval-1" / "with_skill" / "grading.json", _grading([True, False]))
    r = sealed(import_skill_creator([it], SkillCreatorOptions(skill_name="s"))[0])
    assert r.arms.baseline.recorded is False and r.cases[0].arms.baseline.draws == []
    assert r.cases[0].arms.with_skill.draws[0].score == 0.5
    assert sheet(r).lift.startswith("n/a: single-arm source")


def _bench(result: dict[str, Any]) -> dict[str, Any]:
    """A one-run benchmark.json, its result as given (the schema example's shape)."""
    run = {"eval_id": 1, "configuration": "with_skill", "run_number": 1, "result": result}
    return {"metadata": {"skill_name": "s"}, "runs": [run]}


@pytest.mark.parametrize(
    ("result", "pointer", "words"),
    [
        # 6 of 7 passed is 0.857; 0.2 is no print of it
        ({"pass_rate": 0.2, "passed": 6, "total": 7}, "pass_rate", "expected 0.857, the 6 of 7"),
        ({"pass_rate": 1.0, "passed": 9, "total": 7}, "passed", "at most the run's 7"),
        # 6 passed and 5 failed are 11 assertions, not 7
        ({"pass_rate": 0.85, "passed": 6, "failed": 5, "total": 7}, "total", "expected 11,"),
    ],
)
def test_a_result_its_own_counts_contradict_is_refused(
    tmp_path: Path, result: dict[str, Any], pointer: str, words: str
) -> None:
    path = tmp_path / "benchmark.json"
    _write(path, _bench(result))
    with pytest.raises(ImportError_) as exc:
        import_skill_creator([path])
    (p,) = exc.value.problems
    assert p.pointer == f"/runs/0/result/{pointer}" and words in p.message


def test_a_rate_printed_to_two_decimals_agrees_with_its_counts(tmp_path: Path) -> None:
    """The schema example's run: pass_rate 0.85 beside 6 passed, 1 failed of 7; imported, the
    counted 6 / 7 its score."""
    path = tmp_path / "benchmark.json"
    _write(path, _bench({"pass_rate": 0.85, "passed": 6, "failed": 1, "total": 7}))
    (doc,) = import_skill_creator([path])
    assert sealed(doc).cases[0].arms.with_skill.draws[0].score == 6 / 7


# skill-creator's schemas.md (SOURCE.md, section 1): run_number is an "Integer run number (1, 2,
# 3...)"; result.errors is aggregate_benchmark.py's copy of the executor's errors_encountered,
# "Number of errors during execution" (metrics.json), beside a pass rate still graded.
SCHEMA_BENCH = "data/interop/skill-creator/anthropic-schemas-examples/benchmark.json"


def _schema_bench(shared: Path, tmp_path: Path, change: Any) -> Path:
    doc = json.loads((shared / SCHEMA_BENCH).read_text(encoding="utf-8"))
    change(doc)
    path = tmp_path / "iteration-1" / "benchmark.json"
    _write(path, doc)
    return path


def test_run_number_0_is_refused(shared: Path, tmp_path: Path) -> None:
    path = _schema_bench(shared, tmp_path, lambda d: d["runs"][0].update(run_number=0))
    with pytest.raises(ImportError_) as e:
        import_skill_creator([path])
    p = e.value.problems[0]
    assert (p.file, p.pointer) == (str(path), "/runs/0/run_number")
    assert p.message == "expected a run number of 1 or more, found 0"


def test_a_run_0_directory_is_refused(tmp_path: Path) -> None:
    it = tmp_path / "iteration-1"
    _write(it / "eval-1" / "with_skill" / "run-0" / "grading.json", _grading([True]))
    with pytest.raises(ImportError_) as e:
        import_skill_creator([it], SkillCreatorOptions(skill_name="s"))
    p = e.value.problems[0]
    assert p.file == str(it / "eval-1" / "with_skill" / "run-0")
    assert "numbered from 1, found run-0" in p.message


def test_errors_during_execution_are_noted_and_the_graded_rate_kept(
    shared: Path, tmp_path: Path
) -> None:
    path = _schema_bench(shared, tmp_path, lambda d: d["runs"][0]["result"].update(errors=3))
    r = sealed(import_skill_creator([path])[0])
    assert r.cases[0].arms.with_skill.draws[0].score == 0.85  # the run's own pass_rate
    assert any(
        n.endswith(
            "/runs/0: the run met 3 errors during execution (as the executor counted "
            "them); its graded pass rate is kept"
        )
        for n in r.provenance.notes
    )
    bad = _schema_bench(shared, tmp_path, lambda d: d["runs"][0]["result"].update(errors=-1))
    with pytest.raises(ImportError_) as e:
        import_skill_creator([bad])
    assert e.value.problems[0].pointer == "/runs/0/result/errors"


def test_an_arm_mapping_on_a_summary_only_file_is_refused_not_dropped(shared: Path) -> None:
    # agentskills.io's benchmark.json holds only run_summary: a mapping had nothing to map and
    # was dropped without a word
    src = shared / "data/interop/skill-creator/agentskills-spec-examples"
    arms = {"with_skill": "with_skill", "baseline": "baseline"}
    with pytest.raises(ImportError_) as e:
        import_skill_creator([src], SkillCreatorOptions(skill_name="x", arms=arms))
    assert "holds only run_summary" in str(e.value) and "leave --arm out" in str(e.value)
    # the default mapping still reads it
    assert import_skill_creator([src], SkillCreatorOptions(skill_name="x"))


def test_the_interop_page_names_a_run_summary_alone_as_aggregates_only() -> None:
    # such an import validates as "aggregates only: no band, no lift, no verdict", as NVIDIA's
    # do, but the page's aggregates-only rule named NVIDIA's cards alone
    page = (Path(__file__).resolve().parents[2] / "site_src" / "interop.md").read_text("utf-8")
    rule = page.split("- **Aggregates-only sources", 1)[1].split("\n- **", 1)[0]
    assert "`benchmark.json` holding only `run_summary`" in rule


# A promptfoo export's top level (trimmed from data/interop/promptfoo/sample-export.json) beside a
# real iteration (data/interop/skill-creator/nebius-skills-workspace/evals/iteration-1, whose
# eval-0 with_skill/without_skill grading.json files pass 5 of 5 and 2 of 5).
PROMPTFOO_TOP = {
    "evalId": "eval-WJi-2025-10-01T20:08:11",
    "results": {"version": 3, "timestamp": "2025-10-01T20:08:11.168Z", "prompts": []},
    "config": {},
    "shareableUrl": None,
    "metadata": {"promptfooVersion": "0.118.11"},
}
NEBIUS_ITERATION = "data/interop/skill-creator/nebius-skills-workspace/evals/iteration-1"


def _scratch(shared: Path, tmp_path: Path, *runs: str) -> Path:
    """A scratch folder: results.json (a promptfoo export) and copies of a real iteration."""
    for name in runs:
        shutil.copytree(shared / NEBIUS_ITERATION, tmp_path / "t" / name)
        (tmp_path / "t" / name / "benchmark.json").unlink()  # only its grading.json files
    _write(tmp_path / "t" / "results.json", PROMPTFOO_TOP)
    return tmp_path / "t"


def test_a_file_holding_no_benchmark_member_is_refused_not_replaced_by_its_folder(
    shared: Path, tmp_path: Path
) -> None:
    t = _scratch(shared, tmp_path, "some-old-run")
    with pytest.raises(ImportError_) as e:
        import_skill_creator([t / "results.json"], SkillCreatorOptions(skill_name="s"))
    p = e.value.problems[0]
    assert (p.file, p.pointer) == (str(t / "results.json"), "")
    assert "runs[], evals[], configurations[] (or configs[]) or run_summary" in p.message
    assert "'evalId', 'results', 'config', 'shareableUrl', 'metadata'" in p.message


def test_a_benchmark_file_with_no_run_is_not_replaced_by_its_folder(
    shared: Path, tmp_path: Path
) -> None:
    t = _scratch(shared, tmp_path, "iteration-1")
    bench = t / "iteration-1" / "benchmark.json"
    _write(bench, {"metadata": {"skill_name": "s"}, "runs": []})
    with pytest.raises(ImportError_) as e:
        import_skill_creator([bench])
    assert (e.value.problems[0].file, e.value.problems[0].pointer) == (str(bench), "")
    assert "give their iteration's folder" in e.value.problems[0].message
    (doc,) = import_skill_creator([t / "iteration-1"])  # the folder: its grading.json files
    (case,) = sealed(doc).cases
    assert [d.score for d in case.arms.with_skill.draws] == [1.0]  # 5 of 5 expectations
    assert [d.score for d in case.arms.baseline.draws] == [0.4]  # 2 of 5


def test_grading_files_of_two_iterations_are_never_mixed(shared: Path, tmp_path: Path) -> None:
    t = _scratch(shared, tmp_path, "a", "b")
    with pytest.raises(ImportError_) as e:
        import_skill_creator([t], SkillCreatorOptions(skill_name="s"))
    p = e.value.problems[0]
    assert p.file == str(t)
    assert f"found those of two: {t / 'a'} (e.g. " in p.message
    assert f" and {t / 'b'} (e.g. " in p.message
    # one iteration in a scratch folder is still read (as importing a whole data folder does)
    shutil.rmtree(t / "b")
    (doc,) = import_skill_creator([t], SkillCreatorOptions(skill_name="s"))
    assert len(sealed(doc).cases) == 1


def test_an_iteration_deep_in_a_folder_given_is_read_with_its_benchmark(
    shared: Path, tmp_path: Path
) -> None:
    # the Nebius workspace three folders down (up/ws/evals/iteration-1): its one eval's
    # grading.json files were read as the folder given's, its benchmark.json of 9 evals
    # (eval_id 0 to 8, one run per configuration) left out in silence: 1 case, not 9
    it = tmp_path / "up" / "ws" / "evals" / "iteration-1"
    shutil.copytree(shared / NEBIUS_ITERATION, it)
    (doc,) = import_skill_creator([tmp_path / "up"], SkillCreatorOptions(skill_name="s"))
    body = sealed(doc)
    assert [c.id for c in body.cases] == [str(k) for k in range(9)]
    assert body.provenance is not None
    assert body.provenance.document == str(it / "benchmark.json")


def test_the_interop_page_says_grading_files_are_read_from_a_folder_given() -> None:
    # the two tests above: a benchmark.json given as a file is never replaced by its folder's
    # grading.json files, and two iterations' files are refused; the page says both
    page = (Path(__file__).resolve().parents[2] / "site_src" / "interop.md").read_text("utf-8")
    rule = " ".join(page.split("- with no per-run data in `benchmark.json`", 1)[1].split(";")[0:2])
    words = " ".join(rule.split())
    assert "when the iteration's folder is given" in words
    assert "a `benchmark.json` given as a file is read alone" in words
    assert "belong to two iterations are refused" in words


def _lustre_configs(total: Any = 41567) -> dict[str, Any]:
    """A trimmed copy of a real ``configs[]`` benchmark.json: github.com/vinodjohnson/
    claude-lustre-testing-skills/blob/eecd53e48b2fc1695eed624a13da8241231521db/iteration-1/
    benchmark.json (evals 1 and 3 of each configuration, eval_name and aggregate dropped)."""

    def run(eval_id: int, passed: int, rate: float, tokens: Any, ms: int) -> dict[str, Any]:
        counts = {"assertions_passed": passed, "assertions_total": 5, "pass_rate": rate}
        return {"eval_id": eval_id, **counts, "total_tokens": tokens, "duration_ms": ms}

    with_skill = [run(1, 5, 1.0, total, 84818), run(3, 4, 0.8, 39839, 72868)]
    without = [run(1, 4, 0.8, 49340, 86779), run(3, 1, 0.2, 43142, 67981)]
    return {
        "skill_name": "get-available-topology",
        "iteration": 1,
        "configs": [
            {"name": "with_skill", "results": with_skill},
            {"name": "without_skill", "results": without},
        ],
    }


def test_configs_total_tokens_are_each_runs_total(tmp_path: Path) -> None:
    # skill-creator's schemas.md and SKILL.md: total_tokens is the run's total from the subagent
    # task notification; the real file's 12 values equal its timing.json files' total_tokens
    bench = tmp_path / "iteration-1" / "benchmark.json"
    _write(bench, _lustre_configs())
    r = sealed(import_skill_creator([bench])[0])
    by = {c.id: c for c in r.cases}
    got = {
        (cid, arm): getattr(by[cid].arms, arm).draws[0].tokens.total
        for cid in ("1", "3")
        for arm in ("with_skill", "baseline")
    }
    assert got == {
        ("1", "with_skill"): 41567,
        ("3", "with_skill"): 39839,
        ("1", "baseline"): 49340,
        ("3", "baseline"): 43142,
    }
    w = by["1"].arms.with_skill.draws[0].tokens
    assert w.input is None and w.output is None  # a total only: never split


@pytest.mark.parametrize("bad", ["41567", 41567.5, -1, True])
def test_configs_total_tokens_not_a_count_refused(tmp_path: Path, bad: Any) -> None:
    bench = tmp_path / "iteration-1" / "benchmark.json"
    _write(bench, _lustre_configs(total=bad))
    with pytest.raises(ImportError_) as e:
        import_skill_creator([bench])
    (problem,) = e.value.problems
    assert problem.file == str(bench) and problem.pointer == "/configs/0/results/0/total_tokens"


def test_configs_null_total_tokens_stay_unknown(tmp_path: Path) -> None:
    bench = tmp_path / "iteration-1" / "benchmark.json"
    _write(bench, _lustre_configs(total=None))
    r = sealed(import_skill_creator([bench])[0])
    assert next(c for c in r.cases if c.id == "1").arms.with_skill.draws[0].tokens is None


def test_a_benchmark_json_that_is_a_broken_link_is_refused_not_passed_over(tmp_path: Path) -> None:
    # Found: an iteration whose benchmark.json is a link to a file not there was imported from its
    # grading.json files instead, without a word
    it = tmp_path / "ws" / "iteration-1"
    for cfg in ("with_skill", "without_skill"):
        _write(it / "eval-1" / cfg / "grading.json", _grading([True]))
    (bench := it / "benchmark.json").symlink_to(tmp_path / "gone.json")
    for given in (it, tmp_path / "ws"):
        with pytest.raises(ImportError_) as exc:
            import_skill_creator([given], SkillCreatorOptions(skill_name="s"))
        assert str(exc.value) == f"{bench}: expected a file, found a link that leads to no file"
