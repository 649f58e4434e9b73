"""Inspect AI importer: .json and .eval logs, one per arm, epochs as draws, NaN tolerated (D-15).

Expected values are read by hand from the logs in inspect_ai/; each literal says where.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from interop_helpers import mean, scores, sealed

from driftproof.errors import ImportError_
from driftproof.importers.inspect_ai import InspectOptions, import_inspect

POP_JSON = "2025-05-12T20-28-13-04-00_popularity.json"
POP_EVAL = "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
SEC_JSON = "2025-05-12T20-28-26-04-00_security-guide.json"
OPTS = InspectOptions(skill_name="s")


@pytest.fixture
def logs(shared: Path) -> Path:
    return shared / "data/interop/inspect_ai"


def test_json_and_eval_logs_as_two_arms(logs: Path) -> None:
    r = sealed(
        import_inspect(
            {"with_skill": logs / POP_JSON, "baseline": logs / POP_EVAL},
            InspectOptions(skill_name="pop"),
        )
    )
    assert r.verification_level == "DECLARED"
    # the .json log holds samples 1..3, the .eval log samples 1..10 (dataset sample_ids /
    # samples/<id>_epoch_1.json)
    assert [c.id for c in r.cases] == [str(i) for i in range(1, 11)]
    ws = [s for c in r.cases for s in scores(c.arms.with_skill)]
    base = [s for c in r.cases for s in scores(c.arms.baseline)]
    # .json: match values C, C, I (reductions 1.0, 1.0, 0) -> results accuracy 0.6666666666666666
    assert ws == [1.0, 1.0, 0.0] and mean(ws) == pytest.approx(0.6666666666666666)
    # .eval: 8 of 10 samples C (3 and 7 are I) -> header results accuracy 0.8
    assert len(base) == 10 and mean(base) == pytest.approx(0.8)
    assert {c.id for c in r.cases if scores(c.arms.baseline) == [0.0]} == {"3", "7"}
    assert r.cases[0].arms.with_skill.draws[0].answer == "Yes"  # sample 1 output content
    t = r.cases[0].arms.with_skill.draws[0].tokens
    assert (t.input, t.output) == (64, 2)  # sample 1 output.usage
    assert r.run.model == "openai/gpt-4o-mini"  # eval.model in both logs
    # the .json log states config.epochs 1, the .eval log states none: not established, never 1
    # (D-13)
    assert r.run.generations_per_arm is None
    assert r.judge.model == "unrecorded:inspect_ai/match"  # scorer "match" grades with no model


def test_model_graded_scorer_names_the_grader(logs: Path) -> None:
    r = sealed(import_inspect({"with_skill": logs / SEC_JSON}, InspectOptions(skill_name="sec")))
    # model_graded_fact with no grader role grades with eval.model
    assert r.judge.model == "openai/gpt-4o-mini"
    assert r.provenance.tool_version == "0.3.95.dev16+g6527d0861"  # eval.packages.inspect_ai
    assert [c.id for c in r.cases] == ["1", "2", "3"] and all(
        scores(c.arms.with_skill) == [1.0] for c in r.cases
    )


def _eval_zip(
    path: Path, samples: list[dict], epochs: int | None = 2, header_name: str = "header.json"
) -> Path:
    config = {"epochs": epochs} if epochs is not None else {}
    header = {
        "version": 2,
        "status": "success",
        "eval": {
            "task": "t",
            "model": "m/x",
            "config": config,
            "packages": {"inspect_ai": "0.3.130"},
        },
        "results": {"scores": [{"name": "match"}]},
        "stats": {"started_at": "2026-01-01T00:00:00+00:00"},
    }
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(header_name, json.dumps(header))
        for s in samples:
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s, allow_nan=True))
    return path


def _s(sid: int, epoch: int, value: object, **kw: object) -> dict:
    return {
        "id": sid,
        "epoch": epoch,
        "input": f"q{sid}",
        "scores": {"match": {"value": value}},
        **kw,
    }


def test_epochs_as_draws_nan_errors_and_collected_judge_samples(tmp_path: Path) -> None:
    a = _eval_zip(
        tmp_path / "a.eval",
        [
            _s(1, 1, "C"),
            _s(1, 2, float("nan")),
            _s(2, 1, [1, 0.5, "I"]),
            _s(2, 2, "P", error={"message": "RateLimitError"}),
        ],
    )
    b = _eval_zip(
        tmp_path / "b.eval", [_s(1, 1, "I"), _s(1, 2, 0.25), _s(2, 1, True), _s(2, 2, "N")]
    )
    r = sealed(import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s")))
    assert r.run.generations_per_arm == 2  # eval.config.epochs
    one, two = r.cases
    assert (
        scores(one.arms.with_skill) == [1.0, None]
        and "nan" in one.arms.with_skill.draws[1].lost.reason
    )
    # a collected list is one judge sample per entry; the draw's score is their mean (D-1):
    # (1 + 0.5 + 0) / 3
    d = two.arms.with_skill.draws[0]
    assert [s.score for s in d.judge_samples] == [1.0, 0.5, 0.0] and d.score == pytest.approx(0.5)
    assert (
        two.arms.with_skill.draws[1].source_error == "RateLimitError"
        and two.arms.with_skill.draws[1].score is None
    )
    assert scores(one.arms.baseline) == [0.0, 0.25] and scores(two.arms.baseline) == [1.0, 0.0]
    assert [x.index for x in one.arms.with_skill.draws] == [0, 1]


def test_unscored_sample_is_a_lost_draw(tmp_path: Path) -> None:
    a = _eval_zip(tmp_path / "a.eval", [_s(1, 1, "C"), {"id": 1, "epoch": 2, "input": "q1"}])
    b = _eval_zip(tmp_path / "b.eval", [_s(1, 1, "I"), _s(1, 2, "I")])
    r = sealed(import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s")))
    d = r.cases[0].arms.with_skill.draws[1]
    assert d.score is None and "no score" in d.lost.reason and d.source_error is None


@pytest.mark.parametrize("error", [{"message": None}, {"message": ""}, ""])
def test_a_sample_error_without_a_message_stores_no_words_as_the_sources(
    tmp_path: Path, error: object
) -> None:
    a = _eval_zip(tmp_path / "a.eval", [_s(1, 1, "C"), _s(1, 2, "C", error=error)])
    b = _eval_zip(tmp_path / "b.eval", [_s(1, 1, "I"), _s(1, 2, "I")])
    r = sealed(import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s")))
    d = r.cases[0].arms.with_skill.draws[1]
    assert d.lost is not None and d.lost.kind == "source_error" and d.source_error is None
    assert d.lost.reason == "source error: Inspect recorded an error for this sample"


def test_log_still_being_written_reads_its_journal_start(tmp_path: Path) -> None:
    a = _eval_zip(
        tmp_path / "a.eval", [_s(1, 1, "C"), _s(1, 2, "C")], header_name="_journal/start.json"
    )
    b = _eval_zip(tmp_path / "b.eval", [_s(1, 1, "I"), _s(1, 2, "C")])
    r = sealed(import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s")))
    assert scores(r.cases[0].arms.with_skill) == [1.0, 1.0] and r.run.generations_per_arm == 2


def test_score_out_of_range_refused_naming_member_and_pointer(tmp_path: Path) -> None:
    a = _eval_zip(tmp_path / "a.eval", [_s(1, 1, 3.0)])
    b = _eval_zip(tmp_path / "b.eval", [_s(1, 1, 1.0)])
    with pytest.raises(ImportError_) as e:
        import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s"))
    (p,) = e.value.problems
    assert (p.file, p.member) == (str(a), "samples/1_epoch_1.json")
    assert p.pointer == "/scores/match/value"
    assert "between 0 and 1" in p.message


def test_malformed_json_log_refused(tmp_path: Path, logs: Path) -> None:
    bad = tmp_path / "bad.json"
    doc = json.loads((logs / POP_JSON).read_text(encoding="utf-8"))
    doc["samples"][1]["epoch"] = "one"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ImportError_) as e:
        import_inspect(
            {"with_skill": bad, "baseline": logs / POP_EVAL}, InspectOptions(skill_name="s")
        )
    (p,) = e.value.problems
    assert p.file == str(bad) and p.pointer == "/samples/1/epoch"


def test_logs_of_different_tasks_refused(logs: Path) -> None:
    with pytest.raises(ImportError_) as e:
        import_inspect(
            {"with_skill": logs / POP_JSON, "baseline": logs / SEC_JSON},
            InspectOptions(skill_name="s"),
        )
    assert e.value.problems[0].pointer == "/eval/task"
    # eval.task of each log, quoted as JSON strings; the arms in words, not their receipt keys
    assert e.value.problems[0].message == (
        'expected the same task in every arm\'s log, found "popularity" in the with skill '
        f"arm's log and \"security_guide\" in the baseline arm's log ({logs / SEC_JSON})"
    )  # the other log named too: the clash is between the two


def test_help_says_plainly_what_a_single_arm_import_records() -> None:
    from click.testing import CliRunner

    from driftproof.cli import cli

    out = " ".join(CliRunner().invoke(cli, ["import", "inspect", "--help"]).output.split())
    assert "single-arm import: the other arm is marked not recorded, and no lift" in out


def test_sample_the_log_lists_but_does_not_hold_is_a_lost_draw(tmp_path: Path, logs: Path) -> None:
    doc = json.loads((logs / POP_JSON).read_text(encoding="utf-8"))
    del doc["samples"][2]  # sample 3 (I); eval.dataset.sample_ids still lists [1, 2, 3]
    doc["eval"]["config"]["epochs"] = 2  # so each listed sample ran epochs 1 and 2
    m = tmp_path / "m.json"
    m.write_text(json.dumps(doc), encoding="utf-8")
    r = sealed(import_inspect(m, InspectOptions(skill_name="s")))
    assert [c.id for c in r.cases] == ["1", "2", "3"]
    assert [scores(c.arms.with_skill) for c in r.cases] == [[1.0, None], [1.0, None], [None, None]]
    lost = r.cases[2].arms.with_skill.draws[1].lost
    # the log's status is "cancelled"
    assert lost.kind == "missing" and lost.reason == (
        "the log lists sample 3, epoch 2, but holds no record of it; the run was cancelled"
    )
    src = zipfile.ZipFile(logs / POP_EVAL)
    with zipfile.ZipFile(tmp_path / "x.eval", "w") as z:  # zip -d x.eval samples/3_epoch_1.json
        for name in (n for n in src.namelist() if n != "samples/3_epoch_1.json"):
            z.writestr(name, src.read(name))
    r = sealed(import_inspect(tmp_path / "x.eval", InspectOptions(skill_name="s")))
    # header.json: sample_ids 1..10, no epochs (1), status success; 8 of the 9 held are C
    assert len(r.cases) == 10 and r.cases[-1].id == "3"
    assert [s for c in r.cases for s in scores(c.arms.with_skill)].count(1.0) == 8
    assert r.cases[-1].arms.with_skill.draws[0].lost.reason == (
        "the log lists sample 3, epoch 1, but holds no record of it"
    )
    with zipfile.ZipFile(tmp_path / "j.eval", "w") as z:  # header.json not yet written
        for name in ("_journal/start.json", "samples/1_epoch_1.json"):
            z.writestr(name, src.read(name))
    r = sealed(import_inspect(tmp_path / "j.eval", InspectOptions(skill_name="s")))
    assert [scores(c.arms.with_skill) for c in r.cases] == [[1.0]] + [[None]] * 9
    assert r.cases[1].arms.with_skill.draws[0].lost.reason == (
        "the log lists sample 2, epoch 1, but holds no record of it; the log was still being "
        "written"
    )


def test_listed_sample_id_not_an_id_refused(tmp_path: Path, logs: Path) -> None:
    doc = json.loads((logs / POP_JSON).read_text(encoding="utf-8"))
    doc["eval"]["dataset"]["sample_ids"][1] = None
    (m := tmp_path / "m.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ImportError_) as e:
        import_inspect(m, InspectOptions(skill_name="s"))
    (p,) = e.value.problems
    assert (p.file, p.pointer) == (str(m), "/eval/dataset/sample_ids/1")
    assert p.message == "expected a sample id (an integer or a string)"


def test_truncated_eval_is_refused_as_no_readable_zip(tmp_path: Path, logs: Path) -> None:
    # cut short, the archive has no central directory; it was read as JSON ("expected JSON:
    # Expecting value at line 1 column 1")
    cut = tmp_path / "cut.eval"
    cut.write_bytes((logs / POP_EVAL).read_bytes()[:20000])
    with pytest.raises(ImportError_) as e:
        import_inspect(cut, InspectOptions(skill_name="s"))
    assert str(e.value) == (
        f"{cut}: expected a zip archive; the file is not a readable one (File is not a zip file)"
    )


@pytest.mark.parametrize(
    ("ids", "epochs", "pointer", "found"),
    [
        (3, 10**7, "/eval/config/epochs", "3 samples × 10,000,000 epochs"),  # over 100,000 epochs
        (1_000_001, None, "/eval/dataset/sample_ids", "1,000,001 samples × 1 epoch"),
        (20_000, 51, "/eval/config/epochs", "20,000 samples × 51 epochs"),  # 1,020,000 runs
    ],
)
def test_a_log_listing_more_runs_than_a_receipt_holds_is_refused(
    tmp_path: Path, logs: Path, ids: int, epochs: int | None, pointer: str, found: str
) -> None:
    # a few-KB log claiming 10**7 epochs built every missing draw first: 9 GB before a bound
    doc = json.loads((logs / POP_JSON).read_text(encoding="utf-8"))
    doc["eval"]["dataset"]["sample_ids"] = list(range(1, ids + 1))
    doc["eval"]["config"]["epochs"] = epochs
    (m := tmp_path / "m.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ImportError_) as e:
        import_inspect(m, InspectOptions(skill_name="s"))
    (p,) = e.value.problems
    assert (p.file, p.pointer) == (str(m), pointer)
    assert p.message == (
        f"expected at most 100,000 epochs and 1,000,000 sample × epoch runs in all, found {found}"
    )


@pytest.mark.parametrize("value", ["correct", " C", "yes ", "nan", "Infinity"])
def test_score_string_inspect_does_not_recognise_is_refused(tmp_path: Path, value: str) -> None:
    # Inspect's value_to_float matches "C" exactly and yes/true/no/false after lower() only;
    # any other string (not a finite number) it reads as 0 with a warning, never 1 or unscored
    a = _eval_zip(tmp_path / "a.eval", [_s(1, 1, value)])
    b = _eval_zip(tmp_path / "b.eval", [_s(1, 1, "C")])
    with pytest.raises(ImportError_) as e:
        import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s"))
    (p,) = e.value.problems
    assert (p.member, p.pointer) == ("samples/1_epoch_1.json", "/scores/match/value")
    assert "C/I/P/N" in p.message


@pytest.mark.parametrize(
    ("value", "score"), [("C", 1.0), ("YES", 1.0), ("False", 0.0), ("0.25", 0.25)]
)
def test_score_strings_inspect_recognises_are_read(
    tmp_path: Path, value: str, score: float
) -> None:
    a = _eval_zip(tmp_path / "a.eval", [_s(1, 1, value), _s(1, 2, value)])
    b = _eval_zip(tmp_path / "b.eval", [_s(1, 1, "I"), _s(1, 2, "I")])
    r = sealed(import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s")))
    assert scores(r.cases[0].arms.with_skill) == [score, score]


def test_epoch_a_log_without_sample_ids_declares_but_lacks_is_a_lost_draw(
    tmp_path: Path, logs: Path
) -> None:
    # the popularity log's samples 1..3 each hold epoch 1 only; made to declare epochs 2 with
    # no eval.dataset.sample_ids, each sample's epoch 2 ran by the log's own count but is absent
    doc = json.loads((logs / POP_JSON).read_text(encoding="utf-8"))
    doc["eval"]["config"]["epochs"] = 2
    del doc["eval"]["dataset"]["sample_ids"]
    (a := tmp_path / "a.json").write_text(json.dumps(doc), encoding="utf-8")
    r = sealed(import_inspect(a, InspectOptions(skill_name="s")))
    assert r.run.generations_per_arm == 2
    for case, first in zip(r.cases, [1.0, 1.0, 0.0], strict=True):  # match C, C, I
        assert scores(case.arms.with_skill) == [first, None]
        assert case.arms.with_skill.draws[1].lost.kind == "missing"


def test_a_log_whose_run_did_not_succeed_says_so(tmp_path: Path, logs: Path) -> None:
    # the popularity .json log's own "status" is "cancelled" (it holds all 3 listed samples);
    # the .eval log's is "success"
    r = sealed(import_inspect({"with_skill": logs / POP_JSON, "baseline": logs / POP_EVAL}, OPTS))
    assert r.provenance.notes == [
        "the with skill arm's log has status 'cancelled', not 'success'; its samples are imported "
        "as recorded"
    ]
    doc = json.loads((logs / SEC_JSON).read_text())
    doc |= {"status": "error", "error": {"message": "RuntimeError: boom", "traceback": "..."}}
    (tmp_path / "e.json").write_text(json.dumps(doc))
    r = sealed(import_inspect({"baseline": tmp_path / "e.json"}, OPTS))
    assert r.provenance.notes == [
        "the baseline arm's log has status 'error', not 'success': 'RuntimeError: boom'; its "
        "samples are imported as recorded"
    ]


def test_a_sample_past_an_epoch_the_log_never_ran_is_refused_at_its_epoch(
    tmp_path: Path, logs: Path
) -> None:
    # The shape of Inspect's own test log tests/log/test_eval_log/log_tool_call_error.json
    # (https://github.com/UKGovernmentBEIS/inspect_ai, MIT): config has no epochs (1 run), the one
    # sample says epoch 4. The receipt check refused it, naming the receipt's /cases/0/arms/...
    doc = json.loads((logs / POP_JSON).read_text(encoding="utf-8"))
    doc["eval"]["config"].pop("epochs", None)
    doc["samples"][0]["epoch"] = 4  # sample 1; sample_ids [1, 2, 3], so epoch 1 is listed
    (m := tmp_path / "m.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ImportError_) as e:
        import_inspect(m, InspectOptions(skill_name="s"))
    (p,) = e.value.problems
    assert (p.file, p.pointer) == (str(m), "/samples/0/epoch")
    assert "sample 1 has epoch 4" in p.message and "its epoch 2" in p.message
    assert not list(tmp_path.glob("inspect-*.json"))


def test_a_sample_that_hit_a_limit_is_scored_as_inspect_scored_it_and_says_so(
    tmp_path: Path,
) -> None:
    # EvalSample.limit: EvalSampleLimit {type: token|message|time|working|context|…, limit}
    # (https://github.com/UKGovernmentBEIS/inspect_ai/blob/main/src/inspect_ai/log/_log.py); a
    # sample a limit halted is still scored, Inspect's "I" read as 0 as for any other sample
    a = _eval_zip(
        tmp_path / "a.eval",
        [
            _s(1, 1, "I", limit={"type": "token", "limit": 4000}),
            _s(2, 1, "C", limit={"type": "time", "limit": 1800}),
            _s(3, 1, "C"),
        ],
        epochs=1,
    )
    b = _eval_zip(
        tmp_path / "b.eval", [_s(k, 1, "I", limit={"type": "message", "limit": 30}) for k in (1, 2)]
    )
    r = sealed(import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s")))
    assert [scores(c.arms.with_skill) for c in r.cases] == [[0.0], [1.0], [1.0]]
    assert r.provenance.notes == [
        "in the with skill arm, sample 1 (epoch 1) hit Inspect's token limit (4,000); scored as "
        "Inspect scored it",
        "in the with skill arm, sample 2 (epoch 1) hit Inspect's time limit (1,800 seconds); "
        "scored as Inspect scored it",
        "in the baseline arm, samples 1 (epoch 1), 2 (epoch 1) hit Inspect's message limit (30); "
        "scored as Inspect scored them",
    ]
    bad = _eval_zip(tmp_path / "c.eval", [_s(1, 1, "C", limit="token")], epochs=1)
    with pytest.raises(ImportError_) as exc:
        import_inspect(bad, InspectOptions(skill_name="s"))
    assert "/limit" in str(exc.value)


def test_a_sample_whose_id_holds_a_slash_is_read_as_inspect_reads_it(tmp_path: Path) -> None:
    # Inspect writes samples/{id}_epoch_{epoch}.json and reads back every samples/*.json
    # member; a member of an id "math/2" (samples/math/2_epoch_1.json) was passed over, and the
    # import succeeded with one case of two, without a word
    a = _eval_zip(tmp_path / "a.eval", [_s(1, 1, "C"), _s("math/2", 1, "I")], epochs=1)
    b = _eval_zip(tmp_path / "b.eval", [_s(1, 1, "I"), _s("math/2", 1, "C")], epochs=1)
    r = sealed(import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s")))
    assert [(scores(c.arms.with_skill), scores(c.arms.baseline)) for c in r.cases] == [
        ([1.0], [0.0]),
        ([0.0], [1.0]),
    ]


def test_two_members_of_one_sample_and_epoch_are_refused_naming_both(tmp_path: Path) -> None:
    # every samples/*.json member is a sample: a second record of sample 1, epoch 1 was refused
    # at "a.eval: /samples", a place no member of an .eval archive has
    a = _eval_zip(tmp_path / "a.eval", [_s(1, 1, "C")], epochs=1)
    with zipfile.ZipFile(a, "a") as z:
        z.writestr("samples/copy.json", json.dumps(_s(1, 1, "I")))
    b = _eval_zip(tmp_path / "b.eval", [_s(1, 1, "I")], epochs=1)
    with pytest.raises(ImportError_) as e:
        import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s"))
    (p,) = e.value.problems
    assert (p.file, p.member, p.pointer) == (str(a), "samples/copy.json", "/epoch")
    assert p.message == (
        "expected one sample per id and epoch; sample 1, epoch 1 is also at member "
        "samples/1_epoch_1.json"
    )
