"""Inspect AI epoch reducers, metrics with an interval and list-valued scores as the source's own
figures (issue 36). Draws stay the unit (D-1); the log's reduced values are read where Inspect
writes them (``reductions``, ``results.scores``), never recomputed (D-15).

No public log shows these shapes, so the fixtures follow Inspect's own writer
(``_eval/task/results.py``: one reduction and one ``results.scores`` entry per scorer and
reducer, named by ``reducer_log_name``; a ``ci()`` metric as values ``lower``/``upper`` of group
``ci``; a dict scorer's score entries named by key) and each reduced value is worked by hand from
Inspect's reducers (``scorer/_reducer/reducer.py``); each literal says how.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import scores, sealed

from driftproof.errors import ImportError_
from driftproof.importers.inspect_ai import InspectOptions, import_inspect
from driftproof.pages.sheet import sheet
from driftproof.render.sheet import sheet_text

NAN = float("nan")
POP_JSON = "data/interop/inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"


def _log(
    path: Path,
    scorer: str,
    values: dict[int, list[Any]],
    reducers: list[str],
    reductions: list[dict[str, Any]],
    results: list[dict[str, Any]],
) -> Path:
    """A finished ``.eval`` archive: header, one member per sample and epoch, reductions."""
    header = {
        "version": 2,
        "status": "success",
        "eval": {
            "task": "t",
            "model": "m/x",
            "config": {"epochs": 3, "epochs_reducer": reducers},
            "packages": {"inspect_ai": "0.3.260"},
        },
        "results": {"scores": results},
    }
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("header.json", json.dumps(header))
        for sid, epochs in values.items():
            for e, v in enumerate(epochs, start=1):
                sample = {"id": sid, "epoch": e, "scores": {scorer: {"value": v}}}
                z.writestr(f"samples/{sid}_epoch_{e}.json", json.dumps(sample, allow_nan=True))
        z.writestr("reductions.json", json.dumps(reductions, allow_nan=True))
    return path


def _figures(r: Any, **where: Any) -> list[Any]:
    return [f for f in r.source_report.figures if all(getattr(f, k) == v for k, v in where.items())]


def _pass_at_2_and_max(tmp_path: Path) -> Path:
    # epochs_reducer ["pass_at_2", "max"], scorer match, 3 epochs:
    # sample 1 [NaN, NaN, 0]: scored values [0]; pass_at(2): total 1 < k 2 -> NaN; max -> 0
    # sample 2 [1, 0, 1]: pass_at(2): total 3, correct 2, total - correct 1 < 2 -> 1.0; max -> 1
    # max accuracy over [0, 1] = 0.5; ci (t, n 2): 0.5 ± t(0.975, df 1) 12.706204736 x se 0.5
    return _log(
        tmp_path / "a.eval",
        "match",
        {1: [NAN, NAN, 0], 2: [1, 0, 1]},
        ["pass_at_2", "max"],
        [
            {
                "scorer": "match",
                "reducer": "pass_at_2",
                "samples": [{"value": NAN, "sample_id": 1}, {"value": 1.0, "sample_id": 2}],
            },
            {
                "scorer": "match",
                "reducer": "max",
                "samples": [{"value": 0, "sample_id": 1}, {"value": 1, "sample_id": 2}],
            },
        ],
        [
            {
                "name": "match",
                "scorer": "match",
                "reducer": "pass_at_2",
                "scored_samples": 1,
                "unscored_samples": 1,
                "metrics": {"accuracy": {"name": "accuracy", "value": 1.0}},
            },
            {
                "name": "match",
                "scorer": "match",
                "reducer": "max",
                "scored_samples": 2,
                "unscored_samples": 0,
                "metrics": {
                    "accuracy": {"name": "accuracy", "value": 0.5},
                    "lower": {
                        "name": "lower",
                        "group": "ci",
                        "value": -5.853102368,
                        "params": {"level": 0.95},
                    },
                    "upper": {
                        "name": "upper",
                        "group": "ci",
                        "value": 6.853102368,
                        "params": {"level": 0.95},
                    },
                },
            },
        ],
    )


def test_reducers_recorded_beside_the_draws(tmp_path: Path) -> None:
    r = sealed(
        import_inspect({"with_skill": _pass_at_2_and_max(tmp_path)}, InspectOptions(skill_name="s"))
    )
    one, two = r.cases
    # draw by draw (D-1): sample 1 reads 0.000 from 1 scored epoch, 2 lost
    assert scores(one.arms.with_skill) == [None, None, 0.0]
    assert r.source_report.reducers == ["pass_at_2", "max"]  # eval.config.epochs_reducer
    (p1,) = _figures(r, case="1", reducer="pass_at_2")
    assert p1.value is None and p1.printed == "NaN"  # fewer scored epochs than k: unscored
    assert [f.value for f in _figures(r, case="1", reducer="max")] == [0.0]
    assert [f.value for f in _figures(r, case="2", reducer="pass_at_2")] == [1.0]
    assert [f.value for f in _figures(r, case="2", reducer="max")] == [1.0]
    (ci,) = _figures(r, label="match ci")
    assert (ci.value, ci.lower, ci.upper, ci.level, ci.reducer) == (
        None,
        -5.853102368,
        6.853102368,
        0.95,
        "max",
    )
    (unscored,) = _figures(r, label="match unscored samples", reducer="pass_at_2")
    assert unscored.value == 1 and unscored.unit == "count"
    assert all(f.arm == "with_skill" for f in r.source_report.figures)
    assert r.verification_level == "DECLARED"


def test_dict_scorer_keeps_the_logs_max_beside_the_draw_mean(tmp_path: Path) -> None:
    # rubric {clarity, accuracy}; clarity per epoch 1.0, 0.5, 0.75 -> draws' mean 0.75; the
    # log's max: clarity 1.0, accuracy "C" (max keeps the value, C read as 1)
    log = _log(
        tmp_path / "d.eval",
        "rubric",
        {
            7: [
                {"clarity": 1.0, "accuracy": "C"},
                {"clarity": 0.5, "accuracy": "I"},
                {"clarity": 0.75, "accuracy": "I"},
            ]
        },
        ["max"],
        [
            {
                "scorer": "rubric",
                "reducer": "max",
                "samples": [{"value": {"clarity": 1.0, "accuracy": "C"}, "sample_id": 7}],
            }
        ],
        [
            {
                "name": "clarity",
                "scorer": "rubric",
                "reducer": "max",
                "metrics": {"mean": {"name": "mean", "value": 1.0}},
            }
        ],
    )
    r = sealed(
        import_inspect({"with_skill": log}, InspectOptions(scorer="rubric:clarity", skill_name="s"))
    )
    draws = scores(r.cases[0].arms.with_skill)
    assert sum(draws) / len(draws) == pytest.approx(0.75)
    (clarity,) = _figures(r, label="rubric clarity, reduced")
    assert (clarity.value, clarity.reducer, clarity.case) == (1.0, "max", "7")
    (acc,) = _figures(r, label="rubric accuracy, reduced")
    assert (acc.value, acc.printed) == (1.0, "C")
    assert [f.value for f in _figures(r, label="clarity mean")] == [1.0]
    out = sheet_text(sheet(r))
    assert "reduced by max" in out and "max" in out.split("epoch reducers")[1].splitlines()[0]


def test_list_valued_score_reduced_per_position(tmp_path: Path) -> None:
    # collect-style list per epoch [1, 0.5], [0, 0.5], [1, 1]: mean per position (2/3, 2/3)
    log = _log(
        tmp_path / "l.eval",
        "judges",
        {1: [[1, 0.5], [0, 0.5], [1, 1]]},
        ["mean"],
        [
            {
                "scorer": "judges",
                "reducer": "mean",
                "samples": [{"value": [0.6666666666666666, 0.6666666666666666], "sample_id": 1}],
            }
        ],
        [  # a list-valued metric: one entry per position, named 1, 2 in group "mean"
            {
                "name": "judges",
                "scorer": "judges",
                "reducer": "mean",
                "metrics": {
                    "mean-1": {"name": "1", "group": "mean", "value": 0.6666666666666666},
                    "mean-2": {"name": "2", "group": "mean", "value": 0.6666666666666666},
                },
            }
        ],
    )
    r = sealed(import_inspect({"with_skill": log}, InspectOptions(skill_name="s")))
    assert [d.score for d in r.cases[0].arms.with_skill.draws] == [0.75, 0.25, 1.0]
    assert [(f.label, f.value) for f in r.source_report.figures] == [
        ("judges mean 1", 0.6666666666666666),
        ("judges mean 2", 0.6666666666666666),
        ("judges [1], reduced", 0.6666666666666666),
        ("judges [2], reduced", 0.6666666666666666),
    ]


def test_reduced_value_not_a_score_refused_naming_member_and_pointer(tmp_path: Path) -> None:
    log = _log(
        tmp_path / "b.eval",
        "rubric",
        {1: [{"clarity": 1.0}]},
        ["max"],
        [{"scorer": "rubric", "reducer": "max", "samples": [{"value": {"clarity": [1, 2]}}]}],
        [],
    )
    with pytest.raises(ImportError_) as e:
        import_inspect({"with_skill": log}, InspectOptions(scorer="rubric:clarity", skill_name="s"))
    (p,) = e.value.problems
    assert (p.file, p.member) == (str(log), "reductions.json")
    assert p.pointer == "/0/samples/0/value/clarity"
    assert "expected a reduced score" in p.message


def test_reductions_of_the_wrong_shape_refused(tmp_path: Path) -> None:
    log = _log(
        tmp_path / "w.eval",
        "match",
        {1: [1]},
        ["mean"],
        [{"scorer": "match", "reducer": "mean", "samples": {"value": 1}}],
        [],
    )
    with pytest.raises(ImportError_) as e:
        import_inspect({"with_skill": log}, InspectOptions(skill_name="s"))
    (p,) = e.value.problems
    assert (p.member, p.pointer) == ("reductions.json", "/0/samples") and "array" in p.message


def test_real_log_keeps_its_metrics_and_reductions(shared: Path) -> None:
    r = sealed(import_inspect({"with_skill": shared / POP_JSON}, InspectOptions(skill_name="pop")))
    sr = r.source_report
    assert sr.reducers == ["mean"]  # eval.config.epochs_reducer
    # results.scores[0].metrics: accuracy 0.6666666666666666, stderr 0.33333333333333337
    assert [(f.label, f.value) for f in _figures(r, case=None)] == [
        ("match accuracy", 0.6666666666666666),
        ("match stderr", 0.33333333333333337),
    ]
    # reductions[0].samples: 1.0, 1.0, 0 for samples 1, 2, 3; the log names no reducer
    reduced = [(f.case, f.value, f.reducer) for f in sr.figures if f.case is not None]
    assert reduced == [("1", 1.0, None), ("2", 1.0, None), ("3", 0.0, None)]


def test_a_results_entry_named_by_a_key_is_refused_with_the_scorer_and_key(tmp_path: Path) -> None:
    # the shape of Raheemrana/scicode-bench logs/2026-02-06T01-49-23-07-00_scicode_*.eval (commit
    # 963f641; the repository states no licence, so only its names are kept): results.scores has
    # "scicode_scorer" and "Problem Correctness" (scorer "scicode_scorer"), and each sample holds
    # scicode_scorer's object value only. --scorer "Problem Correctness" wrote every draw lost;
    # it is refused, naming the scorer and key that hold the score. Source:
    # https://github.com/Raheemrana/scicode-bench/tree/963f6414faed0d825043561a5d835ef938b8e081/logs
    entry = {"scorer": "scicode_scorer", "metrics": {"mean": {"name": "mean", "value": 0.5}}}
    results = [{**entry, "name": "scicode_scorer"}, {**entry, "name": "Problem Correctness"}]
    values = {1: [{"Problem Correctness": v, "Total Steps": 3} for v in (1, 0, 1)]}
    log = _log(tmp_path / "a.eval", "scicode_scorer", values, ["mean"], [], results)
    with pytest.raises(ImportError_) as exc:
        import_inspect(
            {"with_skill": log}, InspectOptions(skill_name="s", scorer="Problem Correctness")
        )
    assert "--scorer scicode_scorer:Problem Correctness" in str(exc.value)
    keyed = InspectOptions(skill_name="s", scorer="scicode_scorer:Problem Correctness")
    r = sealed(import_inspect({"with_skill": log}, keyed))
    assert scores(r.cases[0].arms.with_skill) == [1.0, 0.0, 1.0]


def _refused_at_scores(path: Path, doc: dict[str, Any]) -> Any:
    """The one problem the import of log ``doc``, written at ``path``, is refused with, at its
    /results/scores."""
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ImportError_) as exc:
        import_inspect({"with_skill": path}, InspectOptions(skill_name="s"))
    (p,) = exc.value.problems
    assert (p.file, p.pointer) == (str(path), "/results/scores")
    return p


def test_a_log_run_without_scoring_says_how_to_score_it(tmp_path: Path) -> None:
    # The shape of Inspect's own tests/scorer/logs/..._popularity_....eval, run with --no-score:
    # eval.scorers names "match", results.scores is [] and every sample's scores is {}. It was
    # refused as "expected exactly one scorer ...; the log has none", which did not say why.
    doc = {
        "version": 2,
        "status": "success",
        "eval": {
            "task": "t",
            "model": "m/x",
            "config": {},
            "packages": {"inspect_ai": "0.3.63"},
            "scorers": [{"name": "match"}],
        },
        "stats": {"started_at": "2025-02-11T15:17:00-05:00"},
        "results": {"total_samples": 2, "completed_samples": 2, "scores": []},
        "samples": [{"id": i, "epoch": 1, "input": f"q{i}", "scores": {}} for i in (1, 2)],
    }
    p = _refused_at_scores(tmp_path / "no-score.json", doc)
    assert "the log holds none" in p.message and "inspect score LOG" in p.message


@pytest.mark.parametrize("more", ["", "x" * 200])
def test_a_run_that_ended_in_an_error_before_scoring_says_so(tmp_path: Path, more: str) -> None:
    # The shape inspect_ai 0.3.285 writes when a run fails before any sample is scored (made
    # here with its mockllm model, its tokenizer unreachable): status "error", error.message,
    # no results member, every sample's scores {} with its own error. It was refused with the
    # --no-score hint (`inspect score LOG`), which does not finish a failed run.
    message = "ConnectionError(MaxRetryError('HTTPSConnectionPool(...)'))" + more
    doc = {
        "version": 2,
        "status": "error",
        "eval": {
            "task": "t",
            "model": "mockllm/model",
            "config": {"epochs": 3, "epochs_reducer": ["mean", "max", "at_least_2"]},
            "packages": {"inspect_ai": "0.3.285"},
            "scorers": [{"name": "match"}, {"name": "includes"}],
        },
        "stats": {"started_at": "2026-12-05T18:07:17+00:00"},
        "error": {"message": message, "traceback": "Traceback ..."},
        "samples": [
            {
                "id": f"s{i}",
                "epoch": 1,
                "input": f"q{i}",
                "scores": {},
                "error": {"message": message},
            }
            for i in (1, 2)
        ],
    }
    p = _refused_at_scores(tmp_path / "error.json", doc)
    assert "status 'error'" in p.message and "MaxRetryError" in p.message
    assert "inspect eval-retry LOG" in p.message and "--no-score" not in p.message
    # quoted whole to 300 characters, as the note of a log that did not succeed quotes it (it
    # was cut at 200 here)
    assert f"({message!r})" in p.message


def test_a_log_in_the_older_score_fields_says_to_have_inspect_rewrite_it(
    shared: Path, tmp_path: Path
) -> None:
    # Inspect's reader still takes logs that name a sample's one score `score` and the run's
    # `scorer` and `metrics` (EvalSample.migrate_deprecated, EvalResults.convert_scorer_to_scorers
    # in src/inspect_ai/log/_log.py, https://github.com/UKGovernmentBEIS/inspect_ai). The real
    # security-guide log, put back in those names. found: refused as a log "run with --no-score"
    # to be scored by `inspect score LOG`, though every sample holds its score
    log = "data/interop/inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json"
    doc = json.loads((shared / log).read_text(encoding="utf-8"))
    (scored,) = doc["results"].pop("scores")
    doc["results"]["scorer"] = {"name": scored["name"], "params": scored["params"]}
    doc["results"]["metrics"] = scored["metrics"]
    for sample in doc["samples"]:
        sample["score"] = sample.pop("scores")["model_graded_fact"]
    p = _refused_at_scores(tmp_path / "old.json", doc)
    assert "inspect score LOG" not in p.message and "inspect log convert" in p.message
    assert "`score`" in p.message and "`scorer`" in p.message


def test_list_valued_scores_without_a_finite_one_are_lost_draws(tmp_path: Path) -> None:
    # Inspect writes a list value's NaN as NaN; each list is one draw's judge samples, the draw's
    # score their mean over the finite ones: [0.5, NaN] -> 0.5, [0.25, 1] -> 0.625, and
    # [NaN, null] has none, so the draw is lost (unscored), never a 0; its samples stay invalid
    log = _log(tmp_path / "l.eval", "judges", {1: [[0.5, NAN], [NAN, None], [0.25, 1]]}, [], [], [])
    (r,) = import_inspect({"with_skill": log}, InspectOptions(skill_name="s", scorer="judges"))
    draws = r.body.cases[0].arms.with_skill.draws
    assert [d.score for d in draws] == [0.5, None, 0.625]
    assert (draws[1].lost.kind, draws[1].lost.reason) == (
        "unscored",
        "unscored: the source recorded no finite score",
    )
    assert [s.invalid_reason for s in draws[1].judge_samples] == [
        "the source recorded nan",
        "the source recorded null",
    ]


def test_a_scorer_key_on_a_value_that_is_no_object_is_refused(tmp_path: Path) -> None:
    log = _log(tmp_path / "l.eval", "judges", {1: [0.5, 0.5, 1]}, [], [], [])
    with pytest.raises(ImportError_) as e:
        import_inspect({"with_skill": log}, InspectOptions(skill_name="s", scorer="judges:k"))
    p = e.value.problems[0]
    assert (p.file, p.member, p.pointer) == (
        str(log),
        "samples/1_epoch_1.json",
        "/scores/judges/value",
    )
    assert p.message.startswith("expected an object value with key 'k' (--scorer judges:k)")
