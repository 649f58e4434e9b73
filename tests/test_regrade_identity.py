"""Regrade refusals (method, "Receipts are an open format"): one test per reason."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from factories import JUDGE, case, make_receipt
from receipt_docs import seal_document

from driftproof.receipt import parse_receipt
from driftproof.regrade.identity import (
    SampleIdentity,
    aggregate_judge_ids,
    check_reply_identity,
    grader_setting_of,
    regraded_level,
    rubric_regrade_refusals,
)

EXTRA = {
    "tool_version": "driftproof 0.1.0",
    "isolation": {"cwd": "empty"},
    "routing": {"region": None},
    "code": "c" * 64,
}


def _load(doc):
    return parse_receipt(json.dumps(seal_document(doc)).encode())


@pytest.fixture
def original():
    return _load(make_receipt([case("c1", [0.7, 0.72], [0.5, 0.55])]))


def test_same_setting_proceeds(original):
    s = grader_setting_of(original, extra=EXTRA)
    assert rubric_regrade_refusals(original, s, s, "o.json") == []
    assert s.answered_as == (JUDGE["model"],)


@pytest.mark.parametrize(
    "field,value,words",
    [
        ("model", "claude-sonnet-4-5", "grader model differs"),
        ("service", "openai/api", "grader service differs"),
        ("sampling", '{"temperature":0.0}', "grader sampling differs"),
        ("instructions", "9" * 64, "grader instructions (prompt template hash) differs"),
        ("tool_version", "driftproof 0.2.0", "grader tool version differs"),
        ("isolation", '{"cwd":"home"}', "grader isolation differs"),
        ("address", "https://proxy.example", "grader address its calls use differs"),
        ("routing", '{"region":"eu"}', "grader routing settings handed to its calls differs"),
        ("code", "d" * 64, "grader code on the grading path differs"),
        (
            "answered_as",
            ("claude-haiku-4-5-20260101",),
            "grader dated model it answered as differs",
        ),
    ],
)
def test_each_differing_setting_refuses(original, field, value, words):
    s = grader_setting_of(original, extra=EXTRA)
    reasons = rubric_regrade_refusals(original, s, replace(s, **{field: value}), "o.json")
    assert len(reasons) == 1 and reasons[0].startswith("o.json: /")
    assert reasons[0].partition(": /")[2].partition(": ")[2].startswith(words)


def test_setting_recorded_on_one_side_refuses(original):
    s = grader_setting_of(original)  # no tool version recorded in the original
    new = replace(s, tool_version="driftproof 0.1.0")
    assert rubric_regrade_refusals(original, s, new, "o.json") == [
        "o.json: /judge: grader tool version is not recorded for the original, so it cannot be "
        "held to the original"
    ]


def test_no_judge_identity_refuses():
    doc = make_receipt([case("c1", [0.7, 0.72], [0.5, 0.55])])
    for c in doc["cases"]:
        for arm in c["arms"].values():
            for d in arm["draws"]:
                d["score"], d["judge_samples"] = None, []
    doc["judge"] = None
    r = _load(doc)
    s = grader_setting_of(r)
    assert rubric_regrade_refusals(r, s, s, "o.json") == [
        "o.json: /judge: the original records no judge identity"
    ]


def test_anonymous_replies_refuse():
    doc = make_receipt([case("c1", [0.7, 0.72], [0.5, 0.55])])
    doc["cases"][0]["arms"]["baseline"]["draws"][1]["judge_samples"][0]["reported_model"] = None
    r = _load(doc)
    s = grader_setting_of(r)
    # the receipt, and where in it: the first anonymous reply (arms are with_skill, baseline)
    assert rubric_regrade_refusals(r, s, s, "o.json") == [
        "o.json: /cases/0/arms/baseline/draws/1/judge_samples/0/reported_model: the original "
        "holds 1 anonymous judge replies (no reported model id)"
    ]


def test_reply_identity_rules():
    ok = SampleIdentity(("claude-haiku-4-5-20251001",), None)
    assert check_reply_identity("claude-haiku-4-5", ok) is None  # dated id answers for its alias
    assert check_reply_identity("claude-haiku-4-5-20251001", ok) is None
    anon = SampleIdentity((), None)
    assert check_reply_identity("claude-haiku-4-5", anon).startswith("anonymous judge reply")
    assert check_reply_identity("claude-haiku-4-5", anon, stub=True) is None  # the stub exception
    other = SampleIdentity(("claude-sonnet-4-5",), None)
    assert "not the requested judge" in check_reply_identity("claude-haiku-4-5", other)
    mixed = SampleIdentity(("claude-haiku-4-5-20251001", "claude-sonnet-4-5"), None)
    assert "does not name the requested judge" in check_reply_identity("claude-haiku-4-5", mixed)
    named = replace(mixed, serving_id="claude-haiku-4-5-20251001")
    assert check_reply_identity("claude-haiku-4-5", named) is None
    # a date-like suffix that is not a date does not pass for the alias
    assert check_reply_identity(
        "claude-haiku-4-5", SampleIdentity(("claude-haiku-4-5-evil",), None)
    )


def test_aggregate_ids_unique_sorted():
    a = SampleIdentity(("m-b", "m-a"), "m-b")
    b = SampleIdentity(("m-a",), None)
    assert aggregate_judge_ids([a, b]) == ["m-a", "m-b"]


def test_levels():
    assert regraded_level("TESTED", stub=True) == "UNVERIFIED"
    assert regraded_level("UNVERIFIED", stub=False) == "UNVERIFIED"
    assert regraded_level("TESTED", stub=False) == "TESTED"


def test_identity_evidence_bounds_are_checked_before_copying():
    from driftproof.receipt import _bounds as B
    from driftproof.regrade.identity import identity_bounds_problem

    assert identity_bounds_problem(["claude-haiku-4-5-20251001"], None) is None
    long_id = "m" * (B.MODEL_ID_MAX_CHARS + 1)
    msg = identity_bounds_problem([long_id], None)
    assert (
        msg == f"a reported model id is {B.MODEL_ID_MAX_CHARS + 1} characters; "
        f"the limit is {B.MODEL_ID_MAX_CHARS}"
    )
    assert long_id not in msg  # bounded diagnostic: sizes, never the id
    many = ["m"] * (B.IDENTITY_MAX_IDS_PER_SAMPLE + 1)
    assert "model ids; the limit is" in identity_bounds_problem(many, None)
    with pytest.raises(ValueError):
        aggregate_judge_ids(
            [SampleIdentity((f"m{i}",), None) for i in range(B.IDENTITY_MAX_DISTINCT_IDS + 1)]
        )


def test_the_answers_total_is_counted_in_bytes_as_its_limit_is(tmp_path, monkeypatch):
    # the kept answers' total was counted in characters against a limit in bytes. The four
    # answers are "answer 0" and "answer 1" (8 bytes each) per arm, one made "é" x 8: 8
    # characters, 16 bytes. In all 32 characters, 40 bytes: over a limit of 32 bytes.
    from driftproof.receipt import _bounds, sha256_text
    from driftproof.regrade.identity import input_refusals
    from driftproof.run.suite import load_suite

    doc = make_receipt([case("c1", [0.7, 0.72], [0.5, 0.55])])
    d = doc["cases"][0]["arms"]["with_skill"]["draws"][0]
    d["answer"], d["answer_sha256"] = "é" * 8, sha256_text("é" * 8)
    suite = tmp_path / "suite.json"
    task = {"id": "c1", "prompt": "prompt of c1", "rubric": "r"}
    suite.write_text(json.dumps({"format": "driftproof-suite/1", "cases": [task]}))
    monkeypatch.setattr(_bounds, "ANSWERS_ARCHIVE_MAX_BYTES", 32)
    reasons = input_refusals(_load(doc), load_suite(suite), "o.json")
    assert "o.json: /cases: the answers total 40 bytes (UTF-8); the limit is 32" in reasons
    monkeypatch.setattr(_bounds, "ANSWERS_ARCHIVE_MAX_BYTES", 40)
    assert not [r for r in input_refusals(_load(doc), load_suite(suite), "o.json") if "total" in r]
