"""skill-eval-harness ``benchmark.json`` (issue 36): paired runs per case and repetition as
draws, the paired sign-flip interval and test kept as the source's figures; DECLARED, no verdict
(D-15).

No public report exists, so the fixture follows the harness's own writer
(``benchmark_reports.build_benchmark_report``: ``population``, ``results[]`` rows with
``case_id``/``variant``/``run_number``/``objective_pass_rate``; ``paired_summary`` from
``lift_statistics.build_paired_summary`` with ``significance``, ``interval`` and
``noise_check`` from ``effect_estimates``). Its figures are worked by hand:

per-case deltas (mean of with − mean of without over 2 runs): c1 1 − .25 = .75, c2 .75 − .5 =
.25, c3 1 − 1 = 0, c4 .75 − .25 = .5, c5 .75 − .5 = .25, c6 .25 − .5 = −.25; with 4.5 / 6 = .75,
without 3 / 6 = .5, delta .25, normalized gain .25 / .5 = .5. Sign-flip test, exact over 2**6
patterns: |Σ ±d| ≥ 1.5 in 8 of the 32 patterns of the five non-zero deltas -> p .25. The
interval inverts it: with 6 cases a shift is rejected only when every d − shift has one sign
(2 / 64 ≤ .05), so the 95% interval is [min d, max d] = [−.25, .75]. Noise check: 5 cases moved
of the 6 needed at .05 (log2(2 / .05) = 5.3 -> 6), smallest p 2 / 2**5 = .0625, floor (.75 +
.25) / 2 = .5, headroom 1 − .5 = .5.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from interop_helpers import scores, sealed, write_json

from driftproof.cli import cli
from driftproof.errors import ImportError_
from driftproof.importers.skill_eval_harness import import_skill_eval_harness
from driftproof.pages.sheet import sheet
from driftproof.receipt import read_receipt
from driftproof.render.sheet import sheet_text

RATES = {  # case: (with_skill runs 1, 2), (without_skill runs 1, 2)
    "c1": ((1.0, 1.0), (0.5, 0.0)),
    "c2": ((1.0, 0.5), (0.5, 0.5)),
    "c3": ((1.0, 1.0), (1.0, 1.0)),
    "c4": ((0.5, 1.0), (0.0, 0.5)),
    "c5": ((1.0, 0.5), (1.0, 0.0)),
    "c6": ((0.0, 0.5), (0.5, 0.5)),
}


def _row(case: str, variant: str, run: int, rate: float | None) -> dict[str, Any]:
    return {
        "case_id": case,
        "variant": variant,
        "run_number": run,
        "model": "claude-sonnet-4-5",
        "run_base": f"runs/{case}/{variant}/run-{run}",
        "objective_pass_rate": rate,
        "combined_pass_rate": rate,
        "missing_output": False,
        "execution_valid": True,
        "grading_availability": "complete",
        "assertions": [],
    }


def _report() -> dict[str, Any]:
    results = [
        _row(case, variant, run, rates[k][run - 1])
        for case, rates in RATES.items()
        for k, variant in enumerate(("with_skill", "without_skill"))
        for run in (1, 2)
    ]
    results.append(_row("c1", "ablation:examples", 1, 0.5))
    return {
        "manifest": "evals/benchmark.json",
        "skill_name": "demo-skill",
        "generated_at": 1790000000,
        "population": "answer",
        "availability": "complete",
        "paired_summary": {
            "with_skill_objective_pass_rate": 0.75,
            "without_skill_objective_pass_rate": 0.5,
            "absolute_delta": 0.25,
            "normalized_gain": 0.5,
            "significance": {
                "method": "sign-flip-exact",
                "n": 6,
                "observed_mean_delta": 0.25,
                "p_value": 0.25,
                "p_value_upper_bound": 0.25,
                "significant_at_0_05": False,
                "unit": "case",
            },
            "interval": {
                "confidence": 0.95,
                "n": 6,
                "method": "sign-flip-inversion-exact",
                "lower": -0.25,
                "upper": 0.75,
                "bounded": True,
                "unit": "case",
            },
            "noise_check": {
                "verdict": "too-few-cases-moved",
                "cases": 6,
                "cases_moved": 5,
                "cases_needed_for_alpha": 6,
                "alpha": 0.05,
                "smallest_achievable_p": 0.0625,
                "noise_floor": 0.5,
                "headroom": 0.5,
                "unit": "case",
            },
            "negative_delta_cases": [
                {"case_id": "c6", "with_skill": 0.25, "without_skill": 0.5, "delta": -0.25}
            ],
            "availability": "complete",
        },
        "results": results,
    }


def _fig(r: Any, label: str) -> Any:
    (f,) = [f for f in r.source_report.figures if f.label == label]
    return f


def test_runs_are_draws_and_the_interval_is_the_sources(tmp_path: Path) -> None:
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "benchmark.json", _report())))
    assert r.verification_level == "DECLARED" and r.skill.name == "demo-skill"
    assert [c.id for c in r.cases] == list(RATES)
    for case, (with_runs, without_runs) in zip(r.cases, RATES.values(), strict=True):
        assert scores(case.arms.with_skill) == list(with_runs)  # run_number 1, 2 -> index 0, 1
        assert scores(case.arms.baseline) == list(without_runs)
    assert r.run.model == "claude-sonnet-4-5"
    ci = _fig(r, "sign-flip interval of the mean per-case delta")
    assert (ci.lower, ci.upper, ci.level, ci.arm) == (-0.25, 0.75, 0.95, "lift")
    assert _fig(r, "absolute delta").value == 0.25
    assert _fig(r, "normalized gain").value == 0.5
    assert _fig(r, "mean paired delta").value == 0.25
    assert _fig(r, "noise check").printed == "too-few-cases-moved"
    assert _fig(r, "noise check: cases moved").value == 5
    d = r.source_report.decision
    assert (d.significant, d.p_value, d.printed) == (False, 0.25, "not significant at 0.05")
    assert "sign-flip-exact" in d.test
    assert any('"ablation:examples" (1)' in n for n in r.provenance.notes)
    out = sheet_text(sheet(r))
    assert "-0.25 to 0.75 (95%)" in out and "not significant at 0.05" in out


def test_the_note_on_other_variants_quotes_their_names(tmp_path: Path) -> None:
    # Found: a variant "with_skill " (a trailing space) was named in the note with its space unseen
    doc = _report()
    doc["results"][0]["variant"] = "with_skill "
    doc["results"].append(_row("c1", "x\x1b[31m", 1, 0.5))
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "b.json", doc)))
    assert r.cases[0].arms.with_skill.draws[0].lost is not None
    assert (
        "Runs of other variants were not imported: "
        '"ablation:examples" (1), "with_skill " (1), "x\\u001b[31m" (1)'
    ) in r.provenance.notes


def test_lost_runs_keep_the_sources_reason(tmp_path: Path) -> None:
    doc = _report()
    doc["results"][0].update(missing_output=True, objective_pass_rate=None)
    doc["results"][1].update(execution_valid=False, objective_pass_rate=None)
    doc["results"][2]["objective_pass_rate"] = None
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "b.json", doc)))
    (w1, w2), (b1, _) = r.cases[0].arms.with_skill.draws, r.cases[0].arms.baseline.draws
    assert (w1.score, w1.lost.kind) == (None, "no_answer")
    assert (w2.score, w2.lost.kind) == (None, "source_error")
    assert (b1.score, b1.lost.kind) == (None, "unscored")


def test_runs_the_report_lacks_are_lost_draws(tmp_path: Path) -> None:
    doc = _report()
    # results[0] is c1 with_skill run 1, results[23] c6 without_skill run 2 (the last run)
    del doc["results"][23], doc["results"][0]
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "g.json", doc)))
    c1, c6 = r.cases[0].arms.with_skill, r.cases[5].arms.baseline
    assert scores(c1) == [None, 1.0] and scores(c6) == [0.5, None]
    assert (c1.draws[0].lost.kind, c1.draws[0].lost.reason) == (
        "missing",
        "the report holds no with_skill run 1 of case c1, though it numbers runs up to 2",
    )
    assert c6.draws[1].lost.reason == (
        "the report holds no without_skill run 2 of case c6, though it numbers runs up to 2"
    )


def test_partial_report_keeps_its_null_headline_unknown(tmp_path: Path) -> None:
    doc = _report()
    ps = doc["paired_summary"]
    ps.update(availability="partial", absolute_delta=None, observed_absolute_delta=0.25)
    ps["interval"] = {"availability": "unavailable", "lower": None, "upper": None}
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "p.json", doc)))
    assert _fig(r, "absolute delta").value is None
    ci = _fig(r, "sign-flip interval of the mean per-case delta")
    assert (ci.lower, ci.upper) == (None, None)
    assert "partial" in r.source_report.decision.printed


@pytest.mark.parametrize(
    ("change", "pointer", "words"),
    [
        (lambda d: d.update(population="trigger"), "/population", "answer"),
        (
            lambda d: d["results"][3].update(objective_pass_rate=1.5),
            "/results/3/objective_pass_rate",
            "from 0 to 1",
        ),
        (lambda d: d["results"][5].update(run_number="2"), "/results/5/run_number", "integer"),
        (lambda d: d["results"][5].update(run_number=1001), "/results/5/run_number", "1 to 1000"),
        (  # 12 case variants of 1000 runs, 24 held
            lambda d: d["results"][0].update(run_number=1000),
            "/results",
            "runs 1 to 1000 of both variants (the highest run number); 11976 of them are "
            "missing, more than the 24 the report holds",
        ),
        (lambda d: d["results"].append(copy.deepcopy(d["results"][0])), "/results/25", "repeated"),
        (lambda d: d["results"].__setitem__(2, "run"), "/results/2", "expected a run object"),
        (  # every without_skill run renamed: a variant the harness does not pair, so none is left
            lambda d: [
                r.update(variant="other") for r in d["results"] if r["variant"] != "with_skill"
            ],
            "/results",
            "expected runs of both variants; none is without_skill",
        ),
        (
            lambda d: d["paired_summary"]["interval"].update(lower="-0.25"),
            "/paired_summary/interval/lower",
            "number",
        ),
        (
            lambda d: d["paired_summary"]["significance"].update(p_value="0.25"),
            "/paired_summary/significance/p_value",
            "number",
        ),
        (lambda d: d.pop("paired_summary"), "/paired_summary", "object"),
        (
            lambda d: d["paired_summary"].update(absolute_delta="+0.25"),
            "/paired_summary/absolute_delta",
            "number",
        ),
    ],
)
def test_refusals_name_the_pointer_and_write_nothing(
    tmp_path: Path, change: Any, pointer: str, words: str
) -> None:
    doc = _report()
    change(doc)
    path = write_json(tmp_path / "bad.json", doc)
    p = _refused(path, tmp_path / "r")
    assert (p.file, p.pointer) == (str(path), pointer) and words in p.message


def _refused(path: Path, out: Path) -> Any:
    """The one problem ``import skill-eval-harness PATH --out-dir OUT`` refuses with; OUT unmade."""
    result = CliRunner().invoke(
        cli, ["import", "skill-eval-harness", str(path), "--out-dir", str(out)]
    )
    assert isinstance(result.exception, ImportError_)
    (p,) = result.exception.problems
    assert not out.exists()
    return p


def test_cli_writes_one_declared_receipt(tmp_path: Path) -> None:
    path = write_json(tmp_path / "benchmark.json", _report())
    out = tmp_path / "r"
    result = CliRunner().invoke(
        cli, ["import", "skill-eval-harness", str(path), "--out-dir", str(out)]
    )
    assert result.exit_code == 0, (result.output, result.exception)
    (written,) = out.glob("skill-eval-harness-demo-skill-*.json")
    assert read_receipt(written).verification_level == "DECLARED"


def test_interop_page_and_readme_document_the_command() -> None:
    root = Path(__file__).resolve().parents[2]
    page = (root / "site_src" / "interop.md").read_text(encoding="utf-8")
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "driftproof import skill-eval-harness benchmark.json" in page
    assert "driftproof import skill-eval-harness benchmark.json" in readme
    assert "`eval.config.epochs_reducer`" in page  # the Inspect reducers row


@pytest.mark.parametrize(
    ("member", "value", "pointer", "words"),
    [  # the docstring's figures: with .75 and without .5 from the runs, delta .25, gain .5
        ("with_skill_objective_pass_rate", 0.8, "with_skill_objective_pass_rate", "expected 0.75,"),
        ("without_skill_objective_pass_rate", 0.4, "without_skill_objective_pass_rate", "0.5,"),
        ("absolute_delta", 0.35, "absolute_delta", "expected 0.25,"),
        ("normalized_gain", 0.25, "normalized_gain", "expected 0.5,"),
        ("significance.observed_mean_delta", 0.3, "significance/observed_mean_delta", "0.25,"),
        # p .25 is above .05, so the harness writes false
        ("significance.significant_at_0_05", True, "significance/significant_at_0_05", "false"),
        ("significance.p_value_upper_bound", 0.1, "significance/p_value_upper_bound", "0.25"),
        ("noise_check.cases_moved", 7, "noise_check/cases_moved", "at most the noise check's 6"),
        ("availability", "done", "availability", "'complete' or 'partial'"),
    ],
)
def test_a_summary_its_runs_or_own_figures_contradict_is_refused(
    tmp_path: Path, member: str, value: Any, pointer: str, words: str
) -> None:
    """The harness's definitions (lift_statistics.paired_block_from_rates, sign_flip_significance):
    rates are means over cases of each case's mean run rate; delta with - without; gain delta /
    (1 - without); the test's observed mean delta is the delta; significant when the p bound is
    at most .05, the bound never below p."""
    doc = _report()
    *parents, key = member.split(".")
    target = doc["paired_summary"]
    for part in parents:
        target = target[part]
    target[key] = value
    with pytest.raises(ImportError_) as exc:
        import_skill_eval_harness(write_json(tmp_path / "benchmark.json", doc))
    (p,) = exc.value.problems
    assert p.pointer == f"/paired_summary/{pointer}" and words in p.message


def test_no_gain_where_the_skill_lowers_the_rate(tmp_path: Path) -> None:
    """With below without (here .5 and .75, the arms swapped), the harness writes no gain."""
    doc = _report()
    for r in doc["results"]:
        r["variant"] = {"with_skill": "without_skill", "without_skill": "with_skill"}.get(
            r["variant"], r["variant"]
        )
    ps = doc["paired_summary"]
    ps.update(with_skill_objective_pass_rate=0.5, without_skill_objective_pass_rate=0.75)
    ps.update(absolute_delta=-0.25, normalized_gain=None)
    ps["significance"]["observed_mean_delta"] = -0.25
    sealed(import_skill_eval_harness(write_json(tmp_path / "benchmark.json", doc)))
    ps["normalized_gain"] = -1.0
    with pytest.raises(ImportError_, match="expected null"):
        import_skill_eval_harness(write_json(tmp_path / "benchmark.json", doc))


def test_a_run_whose_grading_is_incomplete_is_lost_not_scored(tmp_path: Path) -> None:
    # the harness's report counts a run only when grading_availability is "complete"
    # (lift_statistics._report_row_eligibility: "grading_evidence_incomplete"); results[0] is c1
    # with_skill run 1, rate 1.0 as if complete
    doc = _report()
    doc["results"][0]["grading_availability"] = "partial"
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "b.json", doc)))
    first = r.cases[0].arms.with_skill.draws[0]
    assert (first.score, first.lost.kind) == (None, "unscored")
    assert "grading 'partial', not complete" in first.lost.reason
    assert scores(r.cases[0].arms.with_skill) == [None, 1.0]


@pytest.mark.parametrize(
    ("member", "key", "value", "lose_one", "expected"),
    [
        # significance.n, interval.n and noise_check.cases each count the paired cases, one
        # delta per case: 6 here (effect_estimates.Estimate builds all three from one list)
        ("significance", "n", 5, False, "expected 6, the 6 paired cases"),
        ("interval", "n", 7, False, "expected 6, the 6 paired cases"),
        ("noise_check", "cases", 5, False, "expected 6, the 6 paired cases"),
        # a run lost: some case may not pair, but none can add a case
        ("noise_check", "cases", 7, True, "expected at most 6, the 6 paired cases"),
    ],
)
def test_a_paired_case_count_the_runs_contradict_is_refused(
    tmp_path: Path, member: str, key: str, value: int, lose_one: bool, expected: str
) -> None:
    doc = _report()
    doc["paired_summary"][member][key] = value
    if lose_one:
        doc["results"][0].update(missing_output=True, objective_pass_rate=None)
    path = write_json(tmp_path / "b.json", doc)
    with pytest.raises(ImportError_) as e:
        import_skill_eval_harness(path)
    p = e.value.problems[0]
    assert (p.file, p.pointer) == (str(path), f"/paired_summary/{member}/{key}")
    assert p.message.startswith(expected) and p.message.endswith(
        f"found {value}: the report contradicts itself"
    )


def test_fewer_paired_cases_than_cases_stand_when_a_run_is_lost(tmp_path: Path) -> None:
    doc = _report()
    doc["results"][0].update(missing_output=True, objective_pass_rate=None)
    doc["paired_summary"]["noise_check"]["cases"] = 5
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "b.json", doc)))
    assert _fig(r, "noise check: cases").value == 5


def test_a_suite_manifest_is_refused_as_a_definition_not_a_report(tmp_path: Path) -> None:
    # Trimmed from adewale/skill-eval-harness examples/demo-skill/evals/shared-benchmark.json
    # (@ 02176bea3dd1f4e4817a2d7e5ecfb5a439320c28): the suite the harness runs, which its
    # `skill-benchmark benchmark MANIFEST --runs RUNS --out benchmark.json` turns into the report
    # (docs/commands.md). It was refused as "expected population 'answer' … found None".
    case = {"id": "c-review", "split": "tune", "kind": "review", "prompt": "Review this change."}
    case["assertions"] = [{"name": "severity-label", "type": "contains_any", "values": ["Minor"]}]
    manifest = {"version": 1, "skill_name": "demo-reviewer", "variants": ["with_skill"]}
    manifest |= {"cases": [case], "ablations": [{"id": "no-severity"}]}
    path = write_json(tmp_path / "shared-benchmark.json", manifest)
    p = _refused(path, tmp_path / "r")
    assert (p.file, p.pointer) == (str(path), "/population")
    assert "this is a skill-eval-harness suite manifest" in p.message
    assert "not a report of its results" in p.message
    assert p.message.endswith(
        "Give the benchmark.json that `skill-benchmark benchmark MANIFEST --runs RUNS_DIR --out "
        "benchmark.json` writes from the graded runs"
    )


def test_lost_runs_quote_the_reports_own_failure_words(tmp_path: Path) -> None:
    # eval_grading.grade_case_variant writes blocked_assertions (name, type, evidence) and the
    # run's metadata; ablation_model.execution_valid reads timed_out and returncode there
    # (https://github.com/adewale/skill-eval-harness/blob/main/eval_grading.py)
    doc = _report()
    doc["results"][0].update(
        execution_valid=False, metadata={"timed_out": True, "returncode": 124, "model": "m"}
    )
    doc["results"][1].update(
        grading_availability="partial",
        deferred_judge_tasks=1,
        blocked_assertions=[
            {"name": "runs-tests", "type": "command_ran", "evidence": "missing events.json"}
        ],
    )
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "b.json", doc)))
    w1, w2 = r.cases[0].arms.with_skill.draws
    assert w1.lost.reason == (
        "source error: the run failed to execute (execution_valid: false; metadata "
        "timed_out: true, returncode: 124)"
    )
    assert w2.lost.reason.endswith(
        "; the report says: runs-tests: missing events.json; 1 judge task(s) deferred"
    )
