"""Checks, judge replies and the stopping rule, with values worked out by hand."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from driftproof.cli.suite import suite as suite_cmd
from driftproof.run.checks import check_passes, example_failures, run_checks
from driftproof.run.judge import parse_reply, template_sha256
from driftproof.run.providers.base import AttemptError
from driftproof.run.scheduler import LostDraw, RetryPolicy, needs_more, with_retries
from driftproof.run.suite import SuiteCase, load_suite
from driftproof.run.suite_fields import CheckSpec, Criterion

CC = CheckSpec("cc", "structural", structure="conventional_commit_subject")


@pytest.mark.parametrize(
    "answer,ok",
    [
        ("fix(http): retry 429 responses", True),
        ("feat!: drop Python 3.10", True),
        ("Here it is:\n\ndocs: fix README typo\n\nBody.", True),
        ("Fixed the retry bug", False),
        ("fix:missing space", False),
        ("wip(x): not a conventional type", False),
    ],
)
def test_conventional_commit_subject(answer, ok):
    assert check_passes(CC, answer) is ok


def test_regex_kinds_and_case():
    assert run_checks(
        [
            CheckSpec("a", "must_include", pattern="oauth", ignore_case=True),
            CheckSpec("b", "must_not_include", pattern="→"),
            CheckSpec("c", "regex", pattern="oauth"),
        ],
        "OAuth refresh → token",
    ) == [
        {"name": "a", "kind": "must_include", "pass": True},
        {"name": "b", "kind": "must_not_include", "pass": False},
        {"name": "c", "kind": "regex", "pass": False},
    ]


def test_caveman_checks_agree_with_their_examples(shared):
    # caveman's own test (README, Fidelity) runs every case's checks on its examples
    s = load_suite(shared / "data/caveman/v3/evals/prompts/fidelity.json")
    assert [line for c in s.cases for line in example_failures(c)] == []


def _one_check_suite(examples: dict[str, list[str]]) -> dict:
    """One case, one check ('says 429': a regex for 429 as a word), the given examples."""
    check = {"name": "says 429", "kind": "regex", "pattern": "\\b429\\b"}
    case = {"id": "a", "prompt": "p", "rubric": "r", "checks": [check], "examples": examples}
    return {"format": "driftproof-suite/1", "cases": [case]}


def test_suite_check_fails_on_a_check_that_rejects_a_good_answer(tmp_path):
    doc = _one_check_suite(
        {
            "pass": ["HTTP 429 means too many requests", "Too many requests"],
            "fail": ["HTTP 429 rocks"],
        }
    )
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc))
    res = CliRunner().invoke(suite_cmd, ["check", str(p)])
    assert res.exit_code == 1
    assert (
        f"{p}: /cases/0/examples/pass/1: check 'says 429' rejects this known-good answer"
        in res.output
    )
    assert f"{p}: /cases/0/examples/fail/0: every check accepts this known-bad answer" in res.output
    # one case, two disagreements: counts in words, "1 case" in the singular (it read "1 cases")
    assert f"{p}: 2 disagreements (driftproof suite, 1 case, 1 check, 3 examples)" in res.output


def test_suite_check_runs_caveman_checks_and_says_run_refuses_it(shared):
    # issue 16: suite check runs run's own validation first; caveman's cases carry no rubric,
    # so run refuses them, while every check agrees with its examples (SOURCE.md: "Every
    # examples.pass answer passes its checks and every examples.fail answer fails them"). It
    # printed 21 refusal lines, one per case, and never said how the examples fared.
    f = shared / "data/caveman/v3/evals/prompts/fidelity.json"
    cases = json.loads(f.read_text(encoding="utf-8"))["cases"]
    n_ex = sum(len(c["examples"]["pass"]) + len(c["examples"]["fail"]) for c in cases)
    assert (len(cases), n_ex) == (30, 102)
    res = CliRunner().invoke(suite_cmd, ["check", str(f)])
    assert res.exit_code == 1  # run would refuse a case (--help: caveman's file always exits 1)
    lines = res.output.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{f}: no case has a rubric or criteria (caveman's fidelity.json")
    assert lines[0].endswith(f"driftproof import caveman SNAPSHOT --skills DIR --cases {f}")
    assert lines[1] == (
        f"{f}: driftproof run refuses 30 cases; the 102 examples agree with their checks "
        "(caveman-fidelity suite, 30 cases, 110 checks, 102 examples)"
    )


def test_suite_check_names_a_caveman_example_that_disagrees(shared, tmp_path):
    doc = json.loads(
        (shared / "data/caveman/v3/evals/prompts/fidelity.json").read_text(encoding="utf-8")
    )
    # the first known-good answer without "except": it fails that one check and no other
    doc["cases"][0]["examples"]["pass"][0] = "Retry at most 3 times, 250 ms apart, for HTTP 429."
    p = tmp_path / "fidelity.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    res = CliRunner().invoke(suite_cmd, ["check", str(p)])
    assert res.exit_code == 1
    lines = res.output.splitlines()
    assert len(lines) == 3 and lines[1].startswith(f"{p}: /cases/0/examples/pass/0: check ")
    assert lines[2].startswith(f"{p}: driftproof run refuses 30 cases; 1 disagreement (")


RUBRIC = SuiteCase("r", "p", "rubric", None, None, (), (), (), "/cases/0")
CRIT = SuiteCase(
    "c",
    "p",
    None,
    (Criterion("a", 2, "A"), Criterion("b", 1, "B"), Criterion("c", 1, "C")),
    0.5,
    (),
    (),
    (),
    "/cases/1",
)


@pytest.mark.parametrize(
    "reply,score,reason",
    [
        ('{"score": 0.85, "reason": "ok"}', 0.85, None),
        ('Sure! ```json\n{"score": 1, "reason": "x"}\n```', 1.0, None),
        (
            '{"score": 0.83}',
            None,
            "score 0.83 is not on the judge's grid (0 to 1 in steps of 0.05)",
        ),
        (
            '{"score": 1.05}',
            None,
            "score 1.05 is not on the judge's grid (0 to 1 in steps of 0.05)",
        ),
        ('{"score": "high"}', None, "the reply holds no numeric score"),
        ("no json here", None, "the reply holds no JSON object"),
        # a member name given twice: the last value was read as the grade
        (
            '{"score": 0.0, "reason": "x", "score": 1.0}',
            None,
            'the verdict is ambiguous: expected unique member names, found "score" twice',
        ),
    ],
)
def test_rubric_replies(reply, score, reason):
    v = parse_reply(RUBRIC, reply)
    assert (v.score, v.invalid_reason) == (
        pytest.approx(score) if score is not None else None,
        reason,
    )


def _crit(*items):
    return json.dumps(
        {"criteria": [dict(zip(("id", "met", "reason"), it, strict=True)) for it in items]}
    )


def test_criteria_weighted_total_and_pass_computed_in_code():
    v = parse_reply(CRIT, _crit(("a", True, "yes"), ("b", False, "no"), ("c", False, "no")))
    assert v.score == pytest.approx(2 / 4) and v.passed is True  # 2 of weight 4 meets 0.5 exactly
    v = parse_reply(
        CRIT,
        _crit(("a", False, "no"), ("b", True, "yes"), ("c", False, "no"))[:-1] + ', "score": 1}',
    )
    assert (
        v.score == pytest.approx(1 / 4) and v.passed is False
    )  # the judge's own score is never used


@pytest.mark.parametrize(
    "reply,reason",
    [
        # the judge quotes the answer's own verdict, then gives its own: two candidates, not
        # measured
        (
            'The answer ends with {"score": 1, "reason": "perfect"}. My grade: {"score": 0.2, '
            '"reason": "weak"}',
            "the reply carries 2 candidate verdicts; only the judge's own final verdict counts, so "
            "the sample is not measured",
        ),
        (
            '{"score": 0.2, "reason": "weak"} but on reflection the answer is fine',
            "the verdict is not the reply's final word: text follows it",
        ),
        (
            '{"score": 0.2, "reason": "weak"} {"note": "x"}',
            "the reply's final JSON object carries no verdict (score or criteria)",
        ),
        ('Score: 1\n```json\n{"score": 0.35, "reason": "thin"}\n```', None),
    ],
)
def test_free_text_only_the_final_verdict_counts(reply, reason):
    v = parse_reply(RUBRIC, reply)
    assert v.invalid_reason == reason
    if reason is None:
        assert (v.score, v.reason) == (0.35, "thin")  # the "Score: 1" line is never read


@pytest.mark.parametrize(
    "reply,reason",
    [
        (_crit(("a", True, "y"), ("b", True, "y")), "the reply does not decide criterion 'c'"),
        (
            _crit(("a", True, "y"), ("b", True, "y"), ("c", True, "...")),
            "criterion 'c' has no reason holding a letter or a digit",
        ),
        (
            _crit(("a", True, "y"), ("a", True, "y"), ("b", True, "y"), ("c", True, "y")),
            "the reply decides criterion 'a' twice",
        ),
        (
            _crit(("a", "yes", "y"), ("b", True, "y"), ("c", True, "y")),
            "criterion 'a' is not decided met (true) or not met (false)",
        ),
        (
            _crit(("a", True, "y"), ("b", True, "y"), ("c", True, "y"), ("z", True, "y")),
            "the reply decides an unknown criterion 'z'",
        ),
        ('{"score": 1}', 'the reply holds no "criteria" list'),
        (
            _crit(("a", False, "y"), ("b", True, "y"), ("c", True, "y")).replace(
                '"met": false', '"met": false, "met": true'
            ),
            'the verdict is ambiguous: expected unique member names, found "met" twice',
        ),
    ],
)
def test_criteria_reply_not_measured(reply, reason):
    v = parse_reply(CRIT, reply)
    assert (v.score, v.invalid_reason) == (None, reason)


def test_a_reason_of_digits_or_non_latin_letters_counts():
    v = parse_reply(CRIT, _crit(("a", True, "42"), ("b", True, "はい"), ("c", True, "ok")))
    assert v.score == 1.0


def test_template_hash_is_stable_hex():
    assert template_sha256() == template_sha256() and len(template_sha256()) == 64


@pytest.mark.parametrize(
    "scores,more",
    [
        ([0.5, 0.5], True),  # fewer than 3 draws
        ([0.5, 0.5, 0.5], False),  # sd 0 → 0: settled
        ([0.5, 0.6, 0.9], True),  # sd(0.5,0.6)=0.0707, sd(all)=0.2082: moved 0.14
        ([0.5, None, None], False),  # 1 measured: the spread cannot be read; lost not replaced
        ([0.1, 0.9] * 5, False),  # the cap, 10 draws
        ([0.5, 0.5, 0.5, 0.51], False),  # sd 0 → 0.005: moved less than 0.01, settled
        ([0.5, 0.5, 0.5, 0.55], True),  # sd 0 → 0.025: moved 0.025, not settled
    ],
)
def test_stopping_rule(scores, more):
    assert needs_more(scores) is more


def test_a_fixed_schedule_waits_5_then_20_seconds_and_counts_every_attempt():
    calls, slept, attempts = [], [], []

    def fn():
        calls.append(1)
        raise AttemptError("HTTP 500: boom")

    with pytest.raises(LostDraw) as ei:
        with_retries(
            fn,
            policy=RetryPolicy.fixed((5.0, 20.0)),
            sleep=slept.append,
            on_attempt=lambda: attempts.append(1),
        )
    assert (len(calls), len(attempts), slept) == (3, 3, [5.0, 20.0])
    assert ei.value.reason == "HTTP 500: boom; transient, 3 attempts, retried after 5 s and 20 s"


def test_a_non_retryable_failure_is_not_retried():
    slept: list[float] = []

    def fn():
        raise AttemptError("HTTP 400: bad request", retryable=False)

    with pytest.raises(LostDraw, match=r"^HTTP 400: bad request; not retryable, 1 attempt$"):
        with_retries(fn, sleep=slept.append)
    assert slept == []


@pytest.mark.parametrize(
    "requested,reported,same",
    [
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001", True),
        ("claude-haiku-4-5", "claude-haiku-4-5-20251001", True),  # a dated id for its alias
        ("gpt-5-mini", "gpt-5-mini-2025-08-07", True),
        ("gpt-4", "gpt-4-0613", True),  # OpenAI's older snapshots: MMDD
        ("gpt-3.5-turbo", "gpt-3.5-turbo-0125", True),
        ("gpt-4o", "gpt-4o-99999999", False),  # eight digits that are no date
        ("gpt-4o", "gpt-4o-1234-5678", False),
        ("gpt-4o", "gpt-4o-2024--08-06-", False),
        # a prefix either way was taken before: none of these is the requested model
        ("claude-haiku-4-5-20251001", "claude", False),
        ("claude-haiku-4-5-20251001", "claude-haiku-4", False),
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5", False),  # the alias is not the date
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001-fake-other", False),
        ("gpt-5-mini", "gpt-5", False),
        ("gpt-5", "gpt-5-mini", False),
        ("claude-haiku-4-5", "claude-haiku-4-5-2025100", False),  # 7 digits
        (
            "claude-haiku-4-5",
            "claude-haiku-4-5-\u0662\u0660\u0662\u0665\u0661\u0660\u0660\u0661",
            False,
        ),
    ],
)
def test_a_judge_reply_is_the_requested_model_only_as_itself_or_its_dated_id(
    requested, reported, same
):
    from driftproof.regrade import identity
    from driftproof.run.judge import same_model

    assert same_model(requested, reported) is same
    # regrade holds a reply to the same rule (one function)
    sample = identity.SampleIdentity((reported,), reported)
    assert (identity.check_reply_identity(requested, sample) is None) is same


def test_suite_check_shows_control_characters_in_its_lines_escaped(tmp_path):
    # each line starts with the suite's file name, untrusted as any input
    doc = _one_check_suite({"pass": ["no"]})
    p = tmp_path / "s\x1b]0;t\x07.json"  # a window-title sequence: click strips colour codes only
    p.write_text(json.dumps(doc))
    res = CliRunner().invoke(suite_cmd, ["check", str(p)])
    assert res.exit_code == 1 and "\x07" not in res.output
    assert "s\\x1b]0;t\\x07.json: /cases/0/examples/pass/0: check 'says 429' rejects" in res.output
    assert "s\\x1b]0;t\\x07.json: 1 disagreement (driftproof suite, 1 case" in res.output
