"""Migrations restate, never invent (D-11, D-13; method, "What grading cost")."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from driftproof.pages.sheet import sheet
from driftproof.receipt import CURRENT_VERSION, known_versions, read_receipt
from driftproof.receipt._versions import MIGRATIONS, migrate, schema_for, v0_13_to_v0_14

FIXTURES = Path(__file__).parent / "fixtures"


def _doc(version: str, stem: str = "valid-basic") -> dict:
    return json.loads((FIXTURES / version / f"{stem}.json").read_text())


def test_the_chain_reaches_the_current_version_from_every_older_one_one_step_each() -> None:
    older = [v for v in known_versions() if v != CURRENT_VERSION]
    assert sorted(MIGRATIONS) == sorted(older)
    for v in older:
        nxt, _ = MIGRATIONS[v]
        assert known_versions().index(nxt) == known_versions().index(v) + 1


@pytest.mark.parametrize("version", [v for v in ("0.3.1", "0.10", "0.11", "0.13")])
def test_each_step_is_pure_and_yields_a_document_of_the_next_frozen_schema(version: str) -> None:
    for path in sorted((FIXTURES / version).glob("valid-*.json")):
        doc = json.loads(path.read_text())
        before = copy.deepcopy(doc)
        nxt, step = MIGRATIONS[version]
        out = step(doc)
        assert doc == before, "a migration must not mutate its input"
        assert out["schema_version"] == nxt
        errors = list(Draft202012Validator(schema_for(nxt)).iter_errors(out))
        assert errors == [], (path.name, [e.message for e in errors[:3]])


def test_a_0_3_1_receipt_reads_with_unknown_counts_not_one_sample() -> None:
    r = read_receipt(FIXTURES / "0.3.1" / "valid-basic.json")
    assert r.schema_version == "0.3.1" and r.is_migrated
    # The file says samples: 5, which did not say what it counted: both counts unknown.
    assert r.run.generations_per_arm is None
    assert r.run.judge_samples_per_generation is None
    assert r.run.endpoint_attempts is None
    assert (r.run.capture, r.run.harness, r.run.preset) == (None, None, None)
    assert r.source_figures is None and r.uncertainty_unavailable is None and r.provenance is None
    draw = r.cases[0].arms.with_skill.draws[0]
    assert (draw.captured_files, draw.skill_fired, draw.source_error) == (None, None, None)
    assert r.cases[0].arms.with_skill.generation is None  # no recorded spread (D-8)
    # Recorded values pass through untouched.
    assert draw.checks[0].pass_ is True and draw.checks[0].kind == "regex"
    assert r.skill.tokens == 400
    assert [s.score for s in draw.judge_samples] == [0.8, 0.85, 0.8, 0.9, 0.85]


def test_old_judge_overhead_counted_one_draw_per_case() -> None:
    # Two cases, each holding draws: the old counting covered 2 draws; missing usage unknown.
    r = read_receipt(FIXTURES / "0.13" / "valid-basic.json")
    oh = r.economics.judge_overhead
    assert oh is not None
    assert (oh.input_tokens, oh.output_tokens, oh.usd) == (4000, 400, 0.006)
    assert oh.judged_draws_counted == 2
    assert oh.judged_draws_missing_usage is None


def test_a_case_without_draws_is_not_counted_in_the_old_overhead() -> None:
    doc = _doc("0.13")
    doc["cases"].append(copy.deepcopy(doc["cases"][0]))
    doc["cases"][2]["id"] = "commit-3"
    for arm in doc["cases"][2]["arms"].values():
        arm["draws"] = []
    assert v0_13_to_v0_14(doc)["economics"]["judge_overhead"]["judged_draws_counted"] == 2


def test_aggregates_only_receipt_keeps_no_overhead() -> None:
    r = read_receipt(FIXTURES / "0.13" / "valid-aggregates-only.json")
    assert r.is_aggregates_only and r.economics.judge_overhead is None and r.band_source is None


@pytest.mark.parametrize(
    ("draw_counts", "expected"),
    [
        ((1, 1, 1, 1), "legacy"),  # one generation per arm: its band is the judge samples'
        ((3, 3, 2, 4), "generation"),  # several draws in every arm: a band across draws
        ((1, 3, 3, 3), None),  # mixed: not established
    ],
)
def test_band_source_is_read_from_the_draws_only_when_unambiguous(
    draw_counts: tuple[int, ...], expected: str | None
) -> None:
    doc = _doc("0.13")
    arms = [a for c in doc["cases"] for a in c["arms"].values()]
    template = arms[0]["draws"][0]
    for arm, n in zip(arms, draw_counts, strict=True):
        arm["draws"] = [{**template, "index": i} for i in range(n)]
    assert migrate(doc)["band_source"] == expected


def test_a_receipt_with_no_case_establishes_no_band_source_and_counts_no_draw() -> None:
    # No draw in any arm: neither one generation per arm nor several is established (D-13),
    # and the old counting (one draw per case holding a draw) counted none.
    doc = _doc("0.13")
    doc["cases"] = []
    out = migrate(doc)
    assert out["band_source"] is None
    assert out["economics"]["judge_overhead"]["judged_draws_counted"] == 0


def test_migrated_receipt_keeps_its_declared_version_and_current_shape() -> None:
    for version in known_versions():
        r = read_receipt(FIXTURES / version / "valid-basic.json")
        assert r.schema_version == version
        assert set(r.to_json_dict()) >= {"band_source", "provenance", "source_figures"}


def test_smoke_run_from_0_11_is_named_smoke() -> None:
    r = read_receipt(FIXTURES / "0.11" / "valid-smoke.json")
    assert r.is_smoke and r.verification_level == "UNVERIFIED"
    assert not read_receipt(FIXTURES / "0.10" / "valid-basic.json").is_smoke


@pytest.mark.parametrize(
    ("version", "stem", "said"),
    [
        ("0.3.1", "valid-basic", "not recorded"),  # presets came with 0.11: unknown, not none
        ("0.10", "valid-basic", "not recorded"),
        ("0.11", "valid-basic", "none (a full run, not --quick)"),  # from 0.11: a run with none
        ("0.11", "valid-smoke", "quick"),
    ],
)
def test_the_sheet_says_a_preset_before_0_11_was_not_recorded(
    version: str, stem: str, said: str
) -> None:
    r = read_receipt(FIXTURES / version / f"{stem}.json")
    assert {f.label: f.value for f in sheet(r).provenance}["preset"] == said
