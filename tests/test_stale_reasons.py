"""``driftproof stale``'s reasons, each worked out by hand from the receipt built here.

The receipt is test_stale's: answered on Claude Code 2.1.272, capture text, judged by
claude-haiku-4-5-20251001 under template ``0``×64, skill ``a``×64, suite ``b``×64, and today is
that same setting (``CURRENT``) but for the one field each test moves. A moved field's reason is
``field: why``; a why several fields share is said once, after their names.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import click
import pytest
from day_one_helpers import SKILL, SUITE, run_args
from factories import JUDGE, run_main
from receipt_docs import seal_document
from test_stale import CURRENT, _receipt

from driftproof.cli import cli
from driftproof.pages.stale import Today, harness_change, stale_report
from driftproof.receipt import parse_receipt
from driftproof.render.stale import stale_text

ROOT = Path(__file__).resolve().parents[1]


def _reasons(r, today: Today) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {a.arm: (a.status, a.reasons) for a in stale_report(r, today).arms}


@pytest.mark.parametrize(
    ("recorded", "today"),
    [("2.1.272 (Claude Code)", "a nightly build"), ("a nightly build", "2.1.272 (Claude Code)")],
)
def test_a_harness_version_one_side_prints_no_number_of_cannot_be_compared(recorded, today):
    # one side has a version number, the other none: no release kind can be read between them,
    # and the two texts differ, so the versions cannot be compared (unknown, never current)
    assert harness_change(recorded, today) == "unknown"
    r = _receipt(harness={"name": "claude-code", "version": recorded})
    said = _reasons(r, replace(CURRENT, harness_version=today))
    assert said["with_skill"] == ("unknown", ("harness version: versions cannot be compared",))


@pytest.mark.parametrize(("today", "kind"), [("3.0.0 (Claude Code)", "major"), ("2.2.0", "minor")])
def test_a_new_major_or_minor_harness_version_names_its_kind(today, kind):
    # 2.1.272 to 3.0.0 moves the first number (a major release), to 2.2.0 the second (minor)
    said = _reasons(_receipt(), replace(CURRENT, harness_version=today))
    why = f"harness version: a new {kind} version of the harness means running again"
    assert said["baseline"] == ("run again", (why,))


def test_a_template_edited_outside_the_product_says_its_version_is_unknown_today():
    # the receipt records template version 3; a template file given today has a hash and no
    # version, so the moved template's reason names version 3 recorded and unknown today
    doc = json.loads(_receipt().model_dump_json(by_alias=True))
    doc["judge"]["template_version"] = "3"
    doc.pop("seal")
    r = parse_receipt(json.dumps(seal_document(doc)).encode())
    said = _reasons(r, replace(CURRENT, judge_template_sha256="9" * 64))
    why = (
        "judge prompt template: the judge's instructions changed: regrade the saved answers "
        "(template version 3 recorded, unknown today)"
    )
    assert said["with_skill"] == ("regrade only", (why,))


def test_an_aggregates_only_receipt_graded_by_a_judge_runs_again_for_a_new_judge():
    # NVIDIA's card for hsb-test: printed aggregates only, no case and no answer. Given a judge,
    # a new judge cannot regrade answers it never kept: run again, and why in regrade's words
    doc = json.loads((ROOT / "receipts" / "nvidia-7149a88-hsb-test.json").read_text())
    doc["judge"] = copy.deepcopy(JUDGE)
    r = parse_receipt(json.dumps(seal_document(doc)).encode())
    said = _reasons(r, Today(judge_model="claude-opus-4"))
    assert said["baseline"] == (
        "run again",
        (
            "model and suite: not recorded in the receipt",
            "judge: a different judge, but the receipt carries aggregates only, no answer to "
            "grade again",
            "judge prompt template: not supplied for today, so not checked",
        ),
    )


@pytest.mark.parametrize("checks", [[], [{"name": "n", "kind": "must_include", "pattern": "A"}]])
def test_the_same_suite_file_still_stands_on_its_one_hash(tmp_path, capsys, checks):
    # today's suite is the very file the run read (one hash): nothing in it moved, so it is read
    # as a whole (per case only when its hash moved), and its checks, which the receipt cannot
    # confirm when the suite moved, do not make the receipt run again
    doc = copy.deepcopy(SUITE)
    doc["cases"][0]["checks"] = checks
    suite, skill, out = tmp_path / "suite.json", tmp_path / "SKILL.md", tmp_path / "r.json"
    suite.write_text(json.dumps(doc))
    skill.write_text(SKILL)
    assert run_main(run_args(suite, skill, out), capsys)[0] == 0
    argv = ["stale", str(out), "--suite", str(suite), "--skill", str(skill), "--model", "m"]
    code, text, _ = run_main([*argv, "--judge-model", "stub-judge"], capsys)
    assert code == 0 and text.startswith("with skill: still stands\nbaseline: still stands\n")
    assert "- suite: unchanged (" in text and "- case a prompt" not in text


def test_a_case_todays_suite_lacks_is_said_so_not_as_not_supplied():
    # the receipt records case c1's rubric hash; today's suite (another hash) gives rubric hashes
    # but none for c1: c1 is not in it, which is not the same as a value left out today
    today = replace(CURRENT, suite_sha256="e" * 64, rubric_sha256={})
    said = _reasons(_receipt(), today)
    why = "case c1 rubric: today's suite has no such case, so not checked"
    assert said["with_skill"] == ("unknown", (why,))
    # no option gives one case's hash (only --suite, given): the line names none
    line = stale_text(stale_report(_receipt(), today)).split("\n")[-1]
    assert line == f"- case c1 rubric: recorded {'1' * 64}, today not supplied -> unknown: " + (
        "today's suite has no such case, so not checked"
    )


def test_each_field_not_supplied_names_the_stale_option_that_gives_it():
    # nothing given today: each recorded field's line names the option of `driftproof stale`
    # that gives today's value (its --help), so the command to run is right for every field
    lines = stale_text(stale_report(_receipt(), Today())).split("\n")
    said = {x[2:].split(": recorded ")[0]: x for x in lines if x.startswith("- ")}
    options = {
        "model": "--model",
        "harness": "--harness",
        "harness version": "--harness-version or --harness-binary",
        "capture mode": "--capture",
        "skill": "--skill",
        "judge": "--judge-model",
        "judge service": "--judge-base-url",
        "judge prompt template": "--judge-template",
        "suite": "--suite",
    }
    assert sorted(said) == sorted(options)
    for name, option in options.items():
        assert f", today not supplied (give {option}) -> " in said[name], name
    stale = cli.get_command(click.Context(cli), "stale")
    stale_options = {o for p in stale.params for o in p.opts}
    assert {o for x in options.values() for o in x.split(" or ")} <= stale_options
