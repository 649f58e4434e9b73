"""``claude plugin eval`` → receipts, on the two real Claude Code 2.1.269 documents and on small
documents of our own making, one per fault kind.

Expected values are read by hand from ``data/interop/claude-plugin-eval/*.json`` and its
SOURCE.md: two-arm: with run score 1 (criteria passed, skill-fired passed with ``withOnly: true,
scored: false``), without run score 0 (criteria failed, no skill-fired result), run costs
0.045988999999999995 and 0.0390888 USD, judge costs 0, suite cost 0.0850778, ``runsPerCase`` 3
against one run per arm; single-arm: ablation ``none``, one with run scored 1 with the
skill-fired grader ``scored: true``, cost 0.046597. Plugin ``probe-plugin`` 0.0.1.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from interop_helpers import docs, scores, sealed, write_json

from driftproof.cli import cli
from driftproof.errors import ImportError_
from driftproof.importers import get_importer, write_imported
from driftproof.importers.claude_plugin_eval import (
    ClaudePluginEvalOptions,
    import_claude_plugin_eval,
)
from driftproof.receipt import read_receipt

DIR = "data/interop/claude-plugin-eval"
TWO_SHA = "8955eb63e5289f61b1aa9cf3276098e89840e10c26e6dc38fbc240a09cd12484"  # SOURCE.md
ONE_SHA = "389bdeba0d8785467f0eb48edd6dfec6e0358903e90c32a789e67a3e0c95c1a5"


@pytest.fixture
def two_arm(shared: Path) -> Path:
    return shared / DIR / "aggregate-result.two-arm.json"


@pytest.fixture
def single_arm(shared: Path) -> Path:
    return shared / DIR / "aggregate-result.single-arm.json"


def _doc(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _one(path: Path, **options: Any) -> dict[str, Any]:
    (doc,) = docs(import_claude_plugin_eval(path, ClaudePluginEvalOptions(**options)))
    return doc


def _problem(exc: pytest.ExceptionInfo[ImportError_]) -> tuple[str, str, str]:
    p = exc.value.problems[0]
    return p.file, p.pointer, p.message


# -- the real documents -------------------------------------------------------------------


def test_two_arm_document(two_arm: Path) -> None:
    doc = _one(two_arm)
    r = sealed(doc)
    assert r.verification_level == "DECLARED"  # D-15
    (case,) = r.cases
    assert case.id == "first-case"
    assert case.prompt == (
        "Write me a commit message for this change: I renamed getUser to fetchUser "
        "and updated the three call sites."
    )
    assert case.threshold == 1.0
    assert scores(case.arms.with_skill) == [1.0]
    assert scores(case.arms.baseline) == [0.0]
    # the skill-fired grader: on the with run, passed; the without arm has no such result
    assert [d.skill_fired for d in case.arms.with_skill.draws] == [True]
    assert [d.skill_fired for d in case.arms.baseline.draws] == [None]
    assert r.arms.with_skill.skill_fired is not None
    assert (r.arms.with_skill.skill_fired.fired, r.arms.with_skill.skill_fired.observed) == (1, 1)
    assert r.arms.baseline.skill_fired is None and r.arms.baseline.recorded is True
    # the regex grader "criteria" beside the score
    assert [(c.name, c.kind, c.pass_) for c in case.arms.with_skill.draws[0].checks] == [
        ("criteria", "regex", True)
    ]
    assert [(c.name, c.pass_) for c in case.arms.baseline.draws[0].checks] == [("criteria", False)]
    # counted runs, never the declared runsPerCase (3)
    assert r.run.generations_per_arm == 1
    assert any("runsPerCase declares 3" in n for n in r.provenance.notes or [])
    assert r.run.harness is not None and (r.run.harness.name, r.run.harness.version) == (
        "claude-code",
        "2.1.269",
    )
    assert r.run.started_at == "2026-09-12T01:06:04.181Z" and r.run.started_at_offset is None
    assert r.run.model is None  # no modelOverride in the suite
    assert r.band_source == "generation"
    p = r.provenance
    assert (p.tool, p.tool_version, p.document_sha256, p.partial) == (
        "claude-plugin-eval",
        "2.1.269",
        TWO_SHA,
        False,
    )
    details = p.details or {}
    assert details["plugins"] == [{"name": "probe-plugin", "version": "0.0.1"}]
    assert details["ablation"] == "with-without"
    cost = details["declared_cost_usd"]
    assert cost["suite"] == 0.0850778
    assert cost["with_skill"] == {
        "runs": 0.045988999999999995,
        "runs_declaring": 1,
        "judge": 0.0,
        "judge_declaring": 1,
    }
    assert cost["baseline"] == {
        "runs": 0.0390888,
        "runs_declaring": 1,
        "judge": 0.0,
        "judge_declaring": 1,
    }
    assert (
        r.economics.judge_overhead is None
    )  # costs are USD only, kept apart in provenance.details
    assert r.skill.name == "probe-plugin"
    assert not any(
        "inside each run's score" in n for n in p.notes or []
    )  # two-arm: withOnly, not scored


def test_single_arm_document(single_arm: Path) -> None:
    r = sealed(_one(single_arm))
    (case,) = r.cases
    assert scores(case.arms.with_skill) == [1.0]
    assert case.arms.baseline.draws == []
    assert r.arms.baseline.recorded is False  # no lift, no interval, no value per token
    assert r.arms.with_skill.skill_fired is not None and r.arms.with_skill.skill_fired.fired == 1
    notes = r.provenance.notes or []
    assert any(
        "skill-fired" in n and "inside each run's score" in n and "--ablation none" in n
        for n in notes
    )
    assert r.provenance.document_sha256 == ONE_SHA
    assert r.provenance.details["declared_cost_usd"]["with_skill"]["runs"] == 0.046597
    assert "baseline" not in r.provenance.details["declared_cost_usd"]
    assert any(u.startswith("the baseline arm") for u in r.provenance.unrecorded)


def test_results_directory_and_directory_of_results(
    two_arm: Path, single_arm: Path, tmp_path: Path
) -> None:
    a, b = tmp_path / "2026-09-12T01-06-04", tmp_path / "2026-09-12T01-07-31"
    for d, src in ((a, two_arm), (b, single_arm)):
        d.mkdir()
        (d / "aggregate-result.json").write_bytes(src.read_bytes())
    assert _one(a)["provenance"]["document_sha256"] == TWO_SHA
    found = docs(import_claude_plugin_eval(tmp_path))
    assert [d["provenance"]["document_sha256"] for d in found] == [TWO_SHA, ONE_SHA]
    with pytest.raises(ImportError_) as e:
        import_claude_plugin_eval(tmp_path / "2026-09-12T01-06-04" / "nothing-here")
    assert "aggregate-result.json" in _problem(e)[2]


def test_cli_writes_the_receipt(two_arm: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    result = CliRunner().invoke(
        cli,
        [
            "import",
            "claude-plugin-eval",
            str(two_arm),
            "--skill-name",
            "tidy-commit",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, (result.output, result.exception)
    (f,) = out.glob("*.json")
    assert f.name == "claude-plugin-eval-tidy-commit-8955eb63.json"
    assert read_receipt(f).skill.name == "tidy-commit"


# -- fault kinds, on documents of our own making ---------------------------------------------


def _variant(
    two_arm: Path, tmp_path: Path, change: Any, name: str = "aggregate-result.json"
) -> Path:
    doc = copy.deepcopy(_doc(two_arm))
    change(doc)
    return write_json(tmp_path / name, doc)


def _run(doc: dict[str, Any], arm: str = "with", i: int = 0) -> dict[str, Any]:
    run: dict[str, Any] = doc["cases"][0]["arms"][arm][i]
    return run


def test_run_error_is_a_lost_draw_with_its_text(two_arm: Path, tmp_path: Path) -> None:
    path = _variant(two_arm, tmp_path, lambda d: _run(d).update(error="timed out after 300s"))
    r = sealed(_one(path))
    (draw,) = r.cases[0].arms.with_skill.draws
    assert draw.score is None and draw.lost is not None
    assert draw.lost.kind == "source_error" and draw.source_error == "timed out after 300s"
    assert "timed out after 300s" in draw.lost.reason
    assert draw.skill_fired is True  # kept per draw ...
    assert (
        r.arms.with_skill.skill_fired is None
    )  # ... but out of the figures: no measured draw observed it


def test_skipped_paid_graders_and_missing_score_are_lost(two_arm: Path, tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        _run(d).update(skippedPaidGraders=True)
        _run(d, "without").update(score=None)

    r = sealed(_one(_variant(two_arm, tmp_path, change)))
    w, b = r.cases[0].arms.with_skill.draws[0], r.cases[0].arms.baseline.draws[0]
    assert (
        w.lost is not None
        and w.lost.kind == "unscored"
        and "paid graders" in w.lost.reason
        and w.score is None
    )
    assert b.lost is not None and b.lost.kind == "unscored" and b.score is None  # never read as 0


def test_partial_document_is_marked(two_arm: Path, tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d.update(partial=True, partialReason="cost_ceiling")
        del d["cases"][0]["arms"][
            "without"
        ]  # the ceiling stopped the suite before the baseline ran

    r = sealed(_one(_variant(two_arm, tmp_path, change)))
    assert r.provenance.partial is True
    assert any(
        "partial (cost_ceiling)" in n and "should not be trended" in n
        for n in r.provenance.notes or []
    )
    assert r.cases[0].arms.baseline.draws == []


def test_missing_baseline_of_a_complete_two_arm_document_is_refused(
    two_arm: Path, tmp_path: Path
) -> None:
    path = _variant(two_arm, tmp_path, lambda d: d["cases"][0]["arms"].pop("without"))
    with pytest.raises(ImportError_) as e:
        import_claude_plugin_eval(path)
    assert _problem(e)[:2] == (str(path), "/cases/0/arms/without")


def test_baseline_runs_under_ablation_none_are_refused(two_arm: Path, tmp_path: Path) -> None:
    path = _variant(two_arm, tmp_path, lambda d: d["suite"].update(ablation="none"))
    with pytest.raises(ImportError_) as e:
        import_claude_plugin_eval(path)
    assert _problem(e)[:2] == (str(path), "/cases/0/arms/without")


@pytest.mark.parametrize(
    ("change", "pointer", "words"),
    [
        (lambda d: d.update(schemaVersion=2), "/schemaVersion", "expected schemaVersion 1"),
        (
            lambda d: d["suite"].update(ablation="with-placebo"),
            "/suite/ablation",
            "'with-without' or 'none'",
        ),
        (lambda d: _run(d).update(score=1.5), "/cases/0/arms/with/0/score", "between 0 and 1"),
        (
            lambda d: _run(d, "without").update(costUsd=-1),
            "/cases/0/arms/without/0/costUsd",
            "0 or more",
        ),
        (lambda d: d.update(startedAt="12 Sept 2026"), "/startedAt", "RFC 3339"),
        (
            lambda d: d["cases"].append(copy.deepcopy(d["cases"][0])),
            "/cases/1/name",
            "each case name once",
        ),
        (lambda d: d["suite"].pop("plugins"), "/suite/plugins", "name with --skill-name"),
    ],
)
def test_bad_values_are_refused_naming_file_and_pointer(
    two_arm: Path, tmp_path: Path, change: Any, pointer: str, words: str
) -> None:
    path = _variant(two_arm, tmp_path, change)
    with pytest.raises(ImportError_) as e:
        import_claude_plugin_eval(path)
    file, ptr, message = _problem(e)
    assert (file, ptr) == (str(path), pointer)
    assert words in message


@pytest.mark.parametrize(
    ("change", "pointer", "message"),
    [
        (
            lambda d: _run(d).update(score="high"),
            "/cases/0/arms/with/0/score",
            "expected a number or null, found a string",
        ),
        (
            lambda d: d["cases"][0]["arms"].update({"with": {"score": 1}}),
            "/cases/0/arms/with",
            "expected an array, found an object",
        ),
        (
            lambda d: d["suite"].update(ablation=None),
            "/suite/ablation",
            "expected a string, found null",
        ),
        (
            lambda d: _run(d)["graders"][1].update(passed="yes"),
            "/cases/0/arms/with/0/graders/1/passed",
            "expected true or false or null, found a string",
        ),
    ],
)
def test_wrong_types_are_refused_naming_file_and_pointer(
    two_arm: Path, tmp_path: Path, change: Any, pointer: str, message: str
) -> None:
    path = _variant(two_arm, tmp_path, change)
    with pytest.raises(ImportError_) as e:
        import_claude_plugin_eval(path)
    assert _problem(e) == (str(path), pointer, message)


def test_runs_are_counted_not_declared(two_arm: Path, tmp_path: Path) -> None:
    def three_each(d: dict[str, Any]) -> None:
        arms = d["cases"][0]["arms"]
        arms["with"] = [copy.deepcopy(arms["with"][0]) for _ in range(3)]
        arms["without"] = [copy.deepcopy(arms["without"][0]) for _ in range(3)]
        # criteria passed, a second scored grader of weight 1 not: 0.5, so not passed
        arms["with"][1]["score"], arms["with"][1]["passed"] = 0.5, False
        x = {"name": "x", "passed": False, "weight": 1, "scored": True}
        arms["with"][1]["graders"].append(x)
        d.update(costUsd=3 * d["costUsd"], aggregates=None)  # the runs' costs; no aggregates
        d["cases"][0]["aggregates"] = None

    r = sealed(_one(_variant(two_arm, tmp_path, three_each)))
    assert r.run.generations_per_arm == 3
    assert scores(r.cases[0].arms.with_skill) == [1.0, 0.5, 1.0]
    assert not any("runsPerCase" in n for n in r.provenance.notes or [])  # declared 3, counted 3
    assert (r.arms.with_skill.skill_fired.fired, r.arms.with_skill.skill_fired.observed) == (3, 3)  # type: ignore[union-attr]

    def uneven(d: dict[str, Any]) -> None:
        three_each(d)
        d["cases"][0]["arms"]["without"].pop()

    r = sealed(_one(_variant(two_arm, tmp_path, uneven, "uneven.json")))
    assert r.run.generations_per_arm is None
    assert any(u.startswith("generations_per_arm") for u in r.provenance.unrecorded)
    assert len(r.cases[0].arms.baseline.draws) == 2


def test_should_not_fire_grader_is_read_inverted(two_arm: Path, tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["cases"][0]["graders"][1]["config"]["max"] = (
            0  # passes when the Skill tool was NOT called
        )
        _run(d)["graders"][1].update(passed=True, explanation="Skill called 0x (expected 0..0)")

    r = sealed(_one(_variant(two_arm, tmp_path, change)))
    assert r.cases[0].arms.with_skill.draws[0].skill_fired is False
    assert (r.arms.with_skill.skill_fired.fired, r.arms.with_skill.skill_fired.observed) == (0, 1)  # type: ignore[union-attr]


def test_case_advisories_become_notes(two_arm: Path, tmp_path: Path) -> None:
    advice = "grader criteria cannot pass with the granted tools"
    r = sealed(
        _one(_variant(two_arm, tmp_path, lambda d: d["cases"][0].update(advisories=[advice])))
    )
    assert f"Case first-case: the source advises: {advice}" in (r.provenance.notes or [])


def test_offset_timestamp_is_stored_in_utc_with_its_offset(two_arm: Path, tmp_path: Path) -> None:
    path = _variant(
        two_arm, tmp_path, lambda d: d.update(startedAt="2026-09-11T21:06:04.181-04:00")
    )
    r = sealed(_one(path))
    assert (r.run.started_at, r.run.started_at_offset) == ("2026-09-12T01:06:04.181Z", "-04:00")


def test_judge_and_model_when_the_suite_names_them(two_arm: Path, tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["suite"].update(modelOverride="claude-sonnet-5-5", judgeModel="claude-haiku-5")
        d["cases"][0]["graders"].append(
            {"name": "reads-well", "type": "llm", "weight": 1, "config": {}}
        )

    r = sealed(_one(_variant(two_arm, tmp_path, change)))
    assert r.run.model == "claude-sonnet-5-5"
    assert r.judge is not None and r.judge.model == "claude-haiku-5" and r.judge.channel == "source"


def test_a_huge_prompt_is_bounded_not_copied(two_arm: Path, tmp_path: Path) -> None:
    big = "x" * 300_000
    r = sealed(
        _one(_variant(two_arm, tmp_path, lambda d: d["cases"][0].update(promptMarkdown=big)))
    )
    assert r.cases[0].prompt is None
    assert r.cases[0].prompt_sha256 == hashlib.sha256(big.encode()).hexdigest()
    (b,) = r.bounded_text or []
    assert (b.pointer, b.sha256, b.chars) == (
        "/cases/0/prompt",
        hashlib.sha256(big.encode()).hexdigest(),
        300_000,
    )


def test_failed_import_writes_nothing(two_arm: Path, tmp_path: Path) -> None:
    path = _variant(two_arm, tmp_path, lambda d: _run(d).update(score=2))
    out = tmp_path / "r"
    result = CliRunner().invoke(cli, ["import", "claude-plugin-eval", str(path), "--out", str(out)])
    assert isinstance(result.exception, ImportError_)
    assert result.exception.problems[0].pointer == "/cases/0/arms/with/0/score"
    assert not out.exists()


def test_registry_file_names(two_arm: Path, single_arm: Path, tmp_path: Path) -> None:
    items = get_importer("claude-plugin-eval")(two_arm) + get_importer("claude-plugin-eval")(
        single_arm
    )
    paths = write_imported(items, tmp_path)
    assert [p.name for p in paths] == [
        "claude-plugin-eval-probe-plugin-8955eb63.json",
        "claude-plugin-eval-probe-plugin-389bdeba.json",
    ]


def test_interop_page_has_a_mapping_table_for_each_new_format() -> None:
    from driftproof.cli.import_ import SUBCOMMANDS

    page = (Path(__file__).resolve().parents[2] / "site_src" / "interop.md").read_text(
        encoding="utf-8"
    )
    for name, header in (
        (
            "claude-plugin-eval",
            "| Receipt | claude plugin eval (`aggregate-result.json`, schemaVersion 1) |",
        ),
        ("openai-evals", "| Receipt | OpenAI Evals output item |"),
    ):
        assert name in SUBCOMMANDS
        assert f"driftproof import {name}" in page and header in page
    assert "Not imported yet" not in page
