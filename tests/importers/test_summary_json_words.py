"""summary-json import: what a draw with nothing in it, and a value past a schema limit, are
said to be (an adversary's findings)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import write_json

from driftproof.errors import ImportError_
from driftproof.importers._summary_source import schema
from driftproof.importers.summary_json import import_summary_json


def _doc(**skill: Any) -> dict[str, Any]:
    return {
        "format": "driftproof-summary-json",
        "format_version": "1",
        "harness": {"name": "h", "version": "1"},
        "skill": {"name": "s", **skill},
        "model": "m",
        "judge": {"model": "j"},
        "cases": [
            {
                "id": "c1",
                "arms": {
                    "with_skill": [{"score": 0.8}, {}, {"skill_fired": True}],
                    "baseline": [{"score": 0.4}, {"score": 0.5}, {"score": None}],
                },
            }
        ],
    }


def test_a_draw_that_records_nothing_is_lost_saying_what_was_found(tmp_path: Path) -> None:
    # a draw of {} was lost as "no valid judge sample", though it has no judge sample at all
    (item,) = import_summary_json(write_json(tmp_path / "s.json", _doc()))
    arms = item.body.cases[0].arms
    said = "the file records no score for this draw: "
    assert [d.lost.reason if d.lost else d.score for d in arms.with_skill.draws] == [
        0.8,
        said + "the draw is empty",
        said + "it gives only whether the skill fired",
    ]
    assert arms.baseline.draws[2].lost is not None
    assert arms.baseline.draws[2].lost.reason == (
        said + "its score, judge scores, error and lost reason are null or empty"
    )


def test_a_file_with_no_score_keeps_its_draws_unscored_not_lost(tmp_path: Path) -> None:
    doc = _doc()
    doc["judge"] = None
    doc["cases"][0]["arms"] = {"with_skill": [{"skill_fired": True}], "baseline": [{}]}
    (item,) = import_summary_json(write_json(tmp_path / "s.json", doc))
    draws = [d for _, a in item.body.cases[0].arms.named() for d in a.draws]
    assert [(d.score, d.lost) for d in draws] == [(None, None), (None, None)]


def test_a_name_past_the_schemas_limit_states_the_limit_and_the_length(tmp_path: Path) -> None:
    # it read "expected a value that fits the schema's 'maxLength' rule: 'AAAA…", cut mid-message
    limit = schema()["properties"]["skill"]["properties"]["name"]["maxLength"]
    f = write_json(tmp_path / "s.json", _doc(name="A" * 5000))
    with pytest.raises(ImportError_) as e:
        import_summary_json(f)
    (p,) = e.value.problems
    assert (p.pointer, p.message) == (
        "/skill/name",
        f"expected at most {limit} characters, found 5,000",
    )
    assert "AAAA" not in str(e.value)


@pytest.mark.parametrize(
    ("change", "pointer", "message"),
    [
        # a member the format does not have: named at its own pointer, not echoed in a message
        (
            lambda d: d["cases"][0].update({"x" * 500: 1}),
            "/cases/0/" + "x" * 500,
            "expected no member of this name: the format has none",
        ),
        (
            lambda d: d.update(format_version="2"),
            "/format_version",
            'expected "1", found "2"',
        ),
        (lambda d: d["cases"].clear(), "/cases", "expected at least 1 item, found 0"),
    ],
)
def test_other_schema_rules_are_stated_in_plain_words(
    tmp_path: Path, change: Any, pointer: str, message: str
) -> None:
    doc = _doc()
    change(doc)
    with pytest.raises(ImportError_) as e:
        import_summary_json(write_json(tmp_path / "s.json", doc))
    assert [(p.pointer, p.message) for p in e.value.problems] == [(pointer, message)]
    assert "schema's" not in json.dumps([p.message for p in e.value.problems])


@pytest.mark.parametrize(
    ("declared", "pointer", "said"),
    [
        # c1 holds 3 draws per arm, not 4
        ({"generations_per_arm": 4}, "/generations_per_arm", "expected 4 draws per case and arm"),
        # baseline's first draw gives 3 judge scores (mean 0.4), not the 2 declared
        (
            {"judge_samples_per_generation": 2},
            "/cases/0/arms/baseline/0/judge_scores",
            "expected 2 judge scores",
        ),
    ],
)
def test_counts_the_file_declares_that_its_draws_contradict_are_refused(
    tmp_path: Path, declared: dict[str, Any], pointer: str, said: str
) -> None:
    doc = {**_doc(), **declared}
    doc["cases"][0]["arms"]["baseline"][0]["judge_scores"] = [0.3, 0.4, 0.5]
    with pytest.raises(ImportError_) as exc:
        import_summary_json(write_json(tmp_path / "summary.json", doc))
    assert pointer in str(exc.value) and said in str(exc.value)


def test_counts_the_draws_bear_out_are_kept(tmp_path: Path) -> None:
    doc = {**_doc(), "generations_per_arm": 3, "judge_samples_per_generation": 3}
    doc["cases"][0]["arms"]["baseline"][0]["judge_scores"] = [0.3, 0.4, 0.5]
    (imported,) = import_summary_json(write_json(tmp_path / "summary.json", doc))
    assert imported.body.run.generations_per_arm == 3


def test_a_round_tripped_import_says_what_it_is_and_keeps_the_notes(
    shared: Path, tmp_path: Path
) -> None:
    # An Inspect import (with skill the .eval log, baseline the .json log, whose own status is
    # "cancelled") exported and imported again said "imported from inspect_ai" with the
    # exported file's hash, gave the harness as inspect_ai though the original records none,
    # listed draws per arm and judge samples per draw twice each, and lost the import note.
    import hashlib

    from interop_helpers import sealed

    from driftproof.importers.inspect_ai import InspectOptions, import_inspect
    from driftproof.importers.summary_json import export_summary_json

    logs = shared / "data/interop/inspect_ai"
    arms = {
        "with_skill": logs / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval",
        "baseline": logs / "2025-05-12T20-28-13-04-00_popularity.json",
    }
    orig = sealed(import_inspect(arms, InspectOptions(skill_name="popularity")))
    assert orig.run.harness is None and orig.provenance is not None
    out = write_json(tmp_path / "s.json", export_summary_json(orig))
    back = sealed(import_summary_json(out))
    p = back.provenance
    assert p is not None and back.run.harness is None
    assert (p.tool, p.tool_version) == ("summary-json", None)
    assert p.document_sha256 == hashlib.sha256(out.read_bytes()).hexdigest()
    assert p.notes == [
        "this file says it was exported from a receipt imported from inspect_ai (document "
        f"sha256 {orig.provenance.document_sha256}), which nothing in it proves; the document "
        "sha256 above is this file's. The note after this one is that import's, as the file "
        "gives it",
        "the baseline arm's log has status 'cancelled', not 'success'; its samples are "
        "imported as recorded",
    ]
    # each once, in the Inspect import's words (the field names a page words)
    heads = [u.split(" (")[0] for u in p.unrecorded]
    assert [h for h in heads if "generations" in h] == ["generations_per_arm"]
    assert [h for h in heads if "judge_samples" in h] == ["judge_samples_per_generation"]
    assert [h for h in heads if "harness" in h] == ["run.harness"]


def test_a_source_missing_the_exporters_members_is_not_read(tmp_path: Path) -> None:
    # it was refused; format 1 leaves summary free-form, so a source without each member the
    # exporter writes is another writer's, not read, and the receipt says so
    doc = _doc() | {"summary": {"source": {"tool": "x"}}}
    item = import_summary_json(write_json(tmp_path / "s.json", doc))[0]
    notes = item.body.provenance.notes if item.body.provenance else None
    assert notes is not None and "summary.source is not one driftproof export writes" in notes[0]


@pytest.mark.parametrize(("key", "blank"), [("lost", "   "), ("error", "\n\t")])
def test_a_blank_lost_reason_or_error_is_refused(tmp_path: Path, key: str, blank: str) -> None:
    # a lost draw must say why in words: "   " passed minLength 1 and the sheet listed the
    # draw as lost with an empty reason
    doc = _doc()
    doc["cases"][0]["arms"]["baseline"][2] = {key: blank}
    with pytest.raises(ImportError_) as e:
        import_summary_json(write_json(tmp_path / "s.json", doc))
    problems = [f"{p.pointer}: {p.message}" for p in e.value.problems]
    said = f"expected words, not a blank string, found {json.dumps(blank)}"
    assert problems == [f"/cases/0/arms/baseline/2/{key}: {said}"]


def test_a_reason_of_what_python_reads_as_space_is_refused_in_any_case(tmp_path: Path) -> None:
    # U+001C and U+0085 are white space to Python's \S (the schema's "words"), not to ECMA-262's;
    # the first case and the rest are checked alike, whichever engine checks them
    doc = _doc()
    doc["cases"].append(json.loads(json.dumps(doc["cases"][0])) | {"id": "c2"})
    doc["cases"][1]["arms"]["baseline"][2] = {"lost": "\x1c\x85"}
    with pytest.raises(ImportError_) as e:
        import_summary_json(write_json(tmp_path / "s.json", doc))
    problems = [f"{p.pointer}: {p.message}" for p in e.value.problems]
    said = 'expected words, not a blank string, found "\\u001c\x85"'
    assert problems == [f"/cases/1/arms/baseline/2/lost: {said}"]


def _cli(doc: dict[str, Any], tmp_path: Path, capsys: Any) -> tuple[Path, str]:
    from factories import run_main

    path = write_json(tmp_path / "s.json", doc)
    out = tmp_path / "o"
    code, _, err = run_main(["import", "summary-json", str(path), "--out-dir", str(out)], capsys)
    assert code == 2 and "Traceback" not in err and not out.exists()
    return path, err


def test_a_control_arm_in_only_some_cases_is_refused(tmp_path: Path, capsys: Any) -> None:
    doc = _doc()
    doc["cases"].append(json.loads(json.dumps(doc["cases"][0])) | {"id": "c2"})
    doc["cases"][1]["arms"]["control"] = [{"score": 0.3}]  # c2 has a control, c1 none
    path, err = _cli(doc, tmp_path, capsys)
    assert err == f"error: {path}: /cases: expected a control arm in every case or in none\n"


def test_a_case_id_given_twice_is_refused_at_the_second(tmp_path: Path, capsys: Any) -> None:
    doc = _doc()
    doc["cases"].append(json.loads(json.dumps(doc["cases"][0])))  # a second "c1"
    path, err = _cli(doc, tmp_path, capsys)
    assert err == f"error: {path}: /cases/1/id: expected unique case ids; 'c1' repeats\n"


def test_a_score_that_is_not_the_mean_of_its_judge_scores_is_refused(
    tmp_path: Path, capsys: Any
) -> None:
    doc = _doc()
    doc["cases"][0]["arms"]["with_skill"][0] = {"score": 0.8, "judge_scores": [0.5, 0.7]}
    path, err = _cli(doc, tmp_path, capsys)
    # (0.5 + 0.7) / 2 = 0.6, not the 0.8 the draw gives
    assert err == (
        f"error: {path}: /cases/0/arms/with_skill/0/score: expected 0.6, the mean of "
        "judge_scores, found 0.8: the draw contradicts itself\n"
    )


def test_an_arm_whose_grader_ran_and_scored_nothing_is_not_said_ungraded(tmp_path: Path) -> None:
    # A file naming no judge whose every draw holds judge scores, all invalid (null): each draw
    # is lost as "every judge sample was invalid", so a grader ran; the arms table said "not
    # graded", the words for a receipt that records no grader (caveman's output tokens)
    from interop_helpers import sealed

    from driftproof.pages.sheet import sheet

    doc = _doc()
    del doc["judge"]
    doc["cases"][0]["arms"] = {
        arm: [{"judge_scores": [None]}] * 3 for arm in ("with_skill", "baseline")
    }
    (item,) = import_summary_json(write_json(tmp_path / "s.json", doc))
    r = sealed(item)
    assert r.judge is None and all(
        len(d.judge_samples or []) == 1 for d in r.cases[0].arms.with_skill.draws
    )
    assert [a.draws for a in sheet(r).arms] == ["3 drawn over 1 case, 0 scored"] * 2
