"""A receipt that disagrees with its own evidence is refused at load, naming the pointer (D-18).

The tampering examples of issue 37: each is edited, sealed again (the seal is a plain
sha256, so a resealed edit passes it) and must be refused where it disagrees.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest
from factories import JUDGE, make_receipt
from receipt_docs import draw_doc, judge_sample_doc, regrade_doc, seal_document

from driftproof.errors import ReceiptError
from driftproof.receipt import parse_receipt


def _draw(i: int, samples: list[float | None]) -> dict[str, Any]:
    return draw_doc(
        i,
        answer=f"answer {i}",
        judge_samples=[
            judge_sample_doc(s, reply=f"{s}", reported_model=JUDGE["model"]) for s in samples
        ],
    )


# Three draws per arm, three judge samples each, between 0.5 and 1.0. By hand (D-1):
# with skill  [.5 .75 1.0] → .75; [.75 .75 1.0] → .8333; [.5 .5 .5] → .5
# baseline    [.5 .5 .75] → .5833; [.5 .5 .5] → .5; [.75 .5 .5] → .5833
_WITH = [[0.5, 0.75, 1.0], [0.75, 0.75, 1.0], [0.5, 0.5, 0.5]]
_BASE = [[0.5, 0.5, 0.75], [0.5, 0.5, 0.5], [0.75, 0.5, 0.5]]


def _doc() -> dict[str, Any]:
    arms = {
        "with_skill": {"draws": [_draw(i, s) for i, s in enumerate(_WITH)], "generation": None},
        "baseline": {"draws": [_draw(i, s) for i, s in enumerate(_BASE)], "generation": None},
    }
    case = {
        "id": "c1",
        "prompt": "prompt of c1",
        "prompt_sha256": None,
        "rubric_sha256": "1" * 64,
        "threshold": None,
        "arms": arms,
    }
    doc = make_receipt([case])
    doc["run"]["judge_samples_per_generation"] = 3  # three samples per draw, as the run records
    return doc


def _bytes(doc: dict[str, Any]) -> bytes:
    """``doc`` sealed again, as a tamperer would: the seal is a plain sha256."""
    return json.dumps(seal_document(doc)).encode()


def _refused(doc: dict[str, Any]) -> ReceiptError:
    with pytest.raises(ReceiptError) as info:
        parse_receipt(_bytes(doc), "t.json")
    return info.value


def test_the_honest_receipt_loads() -> None:
    r = parse_receipt(_bytes(_doc()), "t.json")
    assert [d.score for d in r.cases[0].arms.with_skill.draws] == pytest.approx(
        [0.75, 0.8333333, 0.5]
    )


def test_every_draw_score_set_to_one_is_refused_at_the_first_draw() -> None:
    doc = copy.deepcopy(_doc())
    for arm in doc["cases"][0]["arms"].values():
        for d in arm["draws"]:
            d["score"] = 1.0
    err = _refused(doc)
    pointers = [p.pointer for p in err.problems]
    # every draw disagrees with its samples: six places, the first named first
    assert pointers[0] == "/cases/0/arms/with_skill/draws/0/score"
    assert len(pointers) == 6
    assert "expected 0.75" in err.problems[0].message
    assert "/cases/0/arms/baseline/draws/1/score" in pointers  # samples .5 .5 .5 → .5


def test_a_stub_run_relabelled_tested_is_refused_at_the_level() -> None:
    doc = _doc()
    doc["run"]["provider"] = "stub"
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == ["/verification_level"]
    assert "never TESTED" in err.problems[0].message


def test_a_simulated_run_at_tested_is_refused_and_at_unverified_loads() -> None:
    doc = _doc()
    doc["run"]["provider"] = "simulated"
    assert [p.pointer for p in _refused(doc).problems] == ["/verification_level"]
    doc["verification_level"] = "UNVERIFIED"
    assert parse_receipt(_bytes(doc), "t.json").run.provider == "simulated"


def test_a_deleted_draw_is_refused_at_its_arm() -> None:
    doc = _doc()
    del doc["cases"][0]["arms"]["baseline"]["draws"][1]  # indexes 0, 2 remain
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == ["/cases/0/arms/baseline/draws"]
    assert "index 1 is missing" in err.problems[0].message


def test_a_resealed_draw_index_of_a_trillion_is_refused_at_once() -> None:
    # Found by a probe: the missing index was sought in range(largest index + 1), a set of
    # 10**12 numbers. Indexes 0, 10**12, 2 of three draws: index 1 is the first missing.
    doc = _doc()
    doc["cases"][0]["arms"]["baseline"]["draws"][1]["index"] = 10**12
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == ["/cases/0/arms/baseline/draws"]
    assert "expected draw indexes 0 to 2, each once; index 1 is missing" in err.problems[0].message


def test_a_draw_with_valid_samples_and_no_score_is_refused() -> None:
    doc = _doc()
    doc["cases"][0]["arms"]["with_skill"]["draws"][2]["score"] = None
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == ["/cases/0/arms/with_skill/draws/2/score"]
    assert "expected 0.5" in err.problems[0].message


def test_a_score_beside_only_invalid_samples_is_refused() -> None:
    doc = _doc()
    d = doc["cases"][0]["arms"]["with_skill"]["draws"][0]
    for s in d["judge_samples"]:
        s["score"] = None
        s["invalid_reason"] = "no score in the reply"
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == ["/cases/0/arms/with_skill/draws/0/score"]


def test_a_recorded_spread_is_recomputed_from_the_draws() -> None:
    # with-skill draw scores .75, .8333, .5: mean .69444, deviations .05556, .13889, -.19444;
    # squares .0030864 + .0192901 + .0378086 = .0601852; /2 = .0300926; sd = .173472
    doc = _doc()
    doc["cases"][0]["arms"]["with_skill"]["generation"] = {"sd": 0.1735}
    assert parse_receipt(_bytes(doc), "t.json").cases[0].arms.with_skill.generation is not None
    doc["cases"][0]["arms"]["with_skill"]["generation"] = {"sd": 0.0173}
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == ["/cases/0/arms/with_skill/generation/sd"]
    assert "expected 0.1735" in err.problems[0].message


def test_draws_without_judge_samples_have_nothing_to_recompute() -> None:
    # an import of per-run scores (DECLARED) records no judge sample, nor a count of them: its
    # scores stand as recorded
    doc = _doc()
    doc["verification_level"] = "DECLARED"
    doc["run"]["judge_samples_per_generation"] = None
    for arm in doc["cases"][0]["arms"].values():
        for d in arm["draws"]:
            d["judge_samples"] = []
            d["score"] = 0.9
    r = parse_receipt(_bytes(doc), "t.json")
    assert r.cases[0].arms.baseline.draws[0].score == 0.9


def test_an_aa_flag_on_a_receipt_whose_baseline_ran_bare_is_refused() -> None:
    # run --aa builds both arms as "skill" with the skill's system prompt; a bare baseline with
    # no system prompt is a plain run, and diff --aa would read it as a calibration
    doc = _doc()
    doc["arms"]["with_skill"].update(construction="skill", system_prompt_sha256="a" * 64)
    doc["arms"]["baseline"].update(construction="bare", system_prompt_sha256=None)
    assert parse_receipt(_bytes(doc), "t.json").run.aa is None
    doc["run"]["aa"] = True
    assert [p.pointer for p in _refused(doc).problems] == ["/run/aa"]
    doc["arms"]["baseline"].update(construction="skill", system_prompt_sha256="a" * 64)
    assert parse_receipt(_bytes(doc), "t.json").run.aa is True


def test_a_judge_sample_with_an_invalid_reason_and_a_score_is_refused() -> None:
    # never valid (D-1): the writer records no score beside an invalid reason
    doc = _doc()
    s = doc["cases"][0]["arms"]["with_skill"]["draws"][0]["judge_samples"][0]
    s["invalid_reason"] = "the reply reports another model"
    err = _refused(doc)
    assert err.problems[0].pointer == "/cases/0/arms/with_skill/draws/0/judge_samples/0/score"


def test_the_median_input_tokens_of_an_arm_is_recomputed_from_its_draws() -> None:
    # with-skill inputs 400, 465, 470 → median 465; baseline reports none → null
    doc = _doc()
    for d, n in zip(doc["cases"][0]["arms"]["with_skill"]["draws"], (470, 400, 465), strict=True):
        d["tokens"] = {"input": n, "output": 20, "counted_by": "provider"}
    doc["arms"]["with_skill"]["input_tokens_median"] = 465
    assert parse_receipt(_bytes(doc), "t.json").arms.with_skill.input_tokens_median == 465
    doc["arms"]["with_skill"]["input_tokens_median"] = 5
    doc["arms"]["baseline"]["input_tokens_median"] = 120
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == [
        "/arms/with_skill/input_tokens_median",
        "/arms/baseline/input_tokens_median",
    ]
    assert "expected 465" in err.problems[0].message
    assert "expected null" in err.problems[1].message


def test_answer_tokens_above_the_output_tokens_are_refused() -> None:
    doc = _doc()
    d = doc["cases"][0]["arms"]["with_skill"]["draws"][1]
    d["tokens"] = {"input": 300, "output": 20, "counted_by": "provider", "answer_output": 20}
    parse_receipt(_bytes(doc), "t.json")
    d["tokens"]["answer_output"] = 21
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == [
        "/cases/0/arms/with_skill/draws/1/tokens/answer_output"
    ]
    assert "expected at most 20" in err.problems[0].message


def test_a_runs_draw_and_sample_counts_are_checked_against_the_draws() -> None:
    # three draws per arm, three judge samples per draw (_doc)
    doc = _doc()
    doc["run"]["generations_per_arm"] = 4
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == [
        "/cases/0/arms/with_skill/draws",
        "/cases/0/arms/baseline/draws",
    ]
    assert "expected 4 draws" in err.problems[0].message
    doc = _doc()
    d = doc["cases"][0]["arms"]["baseline"]["draws"][1]
    del d["judge_samples"][2]  # [.5 .5 .5] keeps mean .5: only the count shows the deletion
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == ["/cases/0/arms/baseline/draws/1/judge_samples"]
    assert "expected 3 judge samples" in err.problems[0].message


def test_an_imports_planned_counts_are_not_held_to_its_draws() -> None:
    # an import records its source's planned attempts; it guarantees nothing about the draws
    doc = _doc()
    doc["run"]["generations_per_arm"] = 4
    doc["run"]["judge_samples_per_generation"] = 5
    doc["provenance"] = {
        "tool": "nvidia-skill-evaluator",
        "tool_version": None,
        "document": "results.json",
        "document_sha256": "2" * 64,
        "unrecorded": [],
    }
    parse_receipt(_bytes(doc), "t.json")


@pytest.mark.parametrize("name", ["sub/x.jsonl", "", "/etc/passwd", "..", "a\\b.jsonl"])
def test_a_kept_transcripts_file_named_by_a_path_is_refused(name: str) -> None:
    # the schema takes any string; a regrade opens the name beside the receipt, so only a
    # plain file name is one (a path made it die in Path.with_name)
    doc = _doc()
    doc["run"]["transcripts"] = {"file": "t.json.transcripts.jsonl", "sha256": "3" * 64, "draws": 6}
    assert parse_receipt(_bytes(doc), "t.json").run.transcripts.file == "t.json.transcripts.jsonl"
    doc["run"]["transcripts"]["file"] = name
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == ["/run/transcripts/file"]
    assert err.problems[0].message == (
        f"expected a file name beside the receipt (no folder, not empty), found {json.dumps(name)}"
    )


def test_counts_of_draws_above_the_draws_held_are_refused() -> None:
    # _doc holds six draws, three per arm: 3 of 3 fired, 4 counted + 2 without usage load
    doc = _doc()
    doc["arms"]["with_skill"]["skill_fired"] = {"fired": 3, "observed": 3}
    doc["economics"]["judge_overhead"] = {
        "input_tokens": 10,
        "output_tokens": 2,
        "usd": None,
        "judged_draws_counted": 4,
        "judged_draws_missing_usage": 2,
    }
    parse_receipt(_bytes(doc), "t.json")
    doc["arms"]["with_skill"]["skill_fired"] = {"fired": 5, "observed": 4}
    doc["economics"]["judge_overhead"]["judged_draws_missing_usage"] = 3
    err = _refused(doc)
    assert [(p.pointer, p.message) for p in err.problems] == [
        ("/arms/with_skill/skill_fired/observed", "expected at most 3 (the arm's draws), found 4"),
        ("/arms/with_skill/skill_fired/fired", "expected at most 4 (the observed draws), found 5"),
        (
            "/economics/judge_overhead/judged_draws_missing_usage",
            "expected at most 2 (the receipt's 6 draws less the 4 whose usage is counted), found 3",
        ),
    ]
    doc = _doc()
    doc["economics"]["judge_overhead"] = {
        "input_tokens": 10,
        "output_tokens": 2,
        "usd": None,
        "judged_draws_counted": 999,
        "judged_draws_missing_usage": 5000,
    }
    err = _refused(doc)
    assert [(p.pointer, p.message) for p in err.problems] == [
        (
            "/economics/judge_overhead/judged_draws_counted",
            "expected at most 6 (the receipt's draws), found 999",
        ),
        (
            "/economics/judge_overhead/judged_draws_missing_usage",
            "expected at most 0 (the receipt's 6 draws less the 6 whose usage is counted), "
            "found 5000",
        ),
    ]
    doc = _doc()
    doc["regrade"] = regrade_doc("rubric", 6, 18)
    parse_receipt(_bytes(doc), "t.json")
    doc["regrade"].update(answers_read=7, answers_carried=1)
    err = _refused(doc)
    assert [(p.pointer, p.message) for p in err.problems] == [
        ("/regrade/answers_read", "expected at most 6 (the receipt's draws), found 7")
    ]


def test_an_answer_edited_under_its_old_digest_is_refused_at_the_digest() -> None:
    # The honest receipt's draws keep "answer 0" … with its digest; the answer is edited and
    # the receipt sealed again, the digest left as it was (it passed validate, and the site
    # published it). sha256("answer 1") by hashlib, not the package's helper.
    doc = _doc()
    d = doc["cases"][0]["arms"]["baseline"]["draws"][1]
    assert d["answer_sha256"] == hashlib.sha256(b"answer 1").hexdigest()
    d["answer"] = "answer 1, edited"
    err = _refused(doc)
    assert [p.pointer for p in err.problems] == ["/cases/0/arms/baseline/draws/1/answer_sha256"]
    assert "expected the sha256 of the draw's answer" in err.problems[0].message
    d["answer_sha256"] = hashlib.sha256(b"answer 1, edited").hexdigest()
    assert parse_receipt(_bytes(doc), "t.json").cases[0].arms.baseline.draws[1].answer == (
        "answer 1, edited"
    )


@pytest.mark.parametrize(("passed", "outcome"), [(False, "pass"), (True, "fail")])
def test_a_check_whose_outcome_contradicts_its_pass_is_refused(passed: bool, outcome: str) -> None:
    # Found: the schema only keeps an errored check from passing, so a check recorded as
    # outcome "pass" with pass false (or "fail" with pass true) was read, and a case page
    # printed its outcome while the counts used its pass
    doc = _doc()
    d = doc["cases"][0]["arms"]["with_skill"]["draws"][0]
    d["checks"] = [{"name": "n", "kind": "regex", "pass": passed, "outcome": outcome}]
    err = _refused(doc)
    want = "expected pass" if passed else "expected fail or error"
    assert [(p.pointer, p.message) for p in err.problems] == [
        (
            "/cases/0/arms/with_skill/draws/0/checks/0/outcome",
            f"{want}, as the check's pass (/pass) is {str(passed).lower()}; found {outcome}",
        )
    ]
    d["checks"][0]["outcome"] = "pass" if passed else "fail"
    parse_receipt(_bytes(doc), "t.json")  # agreeing, it is read
