"""``plan_run``: the defaults ``driftproof run`` chooses, worked out from its help.

The help says: the judge lane defaults to anthropic, or to the answering lane when that is
stub or simulated; the judge model to claude-haiku-4-5-20251001 (anthropic) or gpt-5-mini
(openai); the judge price is frozen from Anthropic's list for the default judge (1, 5 USD per
million input/output tokens, cache reads 0.1x and writes 1.25x the input price), halved for a
batched run; the simulated lane's skill arm adds 0.10 and a control 0.03.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from driftproof.cli.run import resume_command
from driftproof.errors import RefusalError
from driftproof.run.run_plan import (
    Lane,
    RegradeJudge,
    RunOptionError,
    RunOptions,
    plan_regrade_judge,
    plan_run,
)

SKILL = "---\nname: commit-style\ndescription: d\n---\n# Commit style\n"
HAIKU = "claude-haiku-4-5-20251001"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    suite = {
        "format": "driftproof-suite/1",
        "name": "s",
        "cases": [{"id": "c1", "prompt": "Say hi.", "rubric": "Score 1.0 for a greeting."}],
    }
    (tmp_path / "suite.json").write_text(json.dumps(suite))
    (tmp_path / "skill").mkdir()
    (tmp_path / "skill" / "SKILL.md").write_text(SKILL)
    return tmp_path / "suite.json", tmp_path / "skill" / "SKILL.md"


def _plan(files: tuple[Path, Path], **kw: object):  # type: ignore[no-untyped-def]
    kw.setdefault("model", "m")
    return plan_run(RunOptions(suite_file=files[0], skill_path=files[1], **kw))  # type: ignore[arg-type]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_an_anthropic_run_is_judged_by_haiku_at_its_frozen_price(files) -> None:
    p = _plan(files, provider="anthropic")
    assert p.answer == Lane(
        "anthropic", "api", {"base_url": None, "api": None, "budget_param": None}
    )
    assert p.judge == Lane("anthropic", "api", {"base_url": None, "api": None})
    assert (p.config.judge_model, p.config.judge_price) == (HAIKU, (1.0, 5.0, 0.1, 1.25))
    assert p.config.batch is None and p.skill_name == "commit-style"


def test_an_openai_run_keeps_the_anthropic_judge_and_its_api_options(files) -> None:
    p = _plan(
        files, provider="openai", openai_api="chat", base_url="http://h", judge_base_url="http://j"
    )
    assert p.answer.options == {"base_url": "http://h", "api": "chat", "budget_param": "auto"}
    assert p.judge == Lane("anthropic", "api", {"base_url": "http://j", "api": None})
    assert p.config.judge_model == HAIKU


def test_an_openai_lane_calls_responses_unless_told_and_takes_the_option_as_judge(files) -> None:
    assert _plan(files, provider="openai").answer.options["api"] == "responses"
    p = _plan(files, provider="anthropic", judge_provider="openai", openai_api="chat")
    assert p.judge == Lane("openai", "api", {"base_url": None, "api": "chat"})


def test_an_openai_judge_defaults_to_gpt_5_mini_with_no_known_price(files) -> None:
    p = _plan(files, provider="openai", judge_provider="openai", openai_api="chat")
    assert p.judge == Lane("openai", "api", {"base_url": None, "api": "chat"})
    assert (p.config.judge_model, p.config.judge_price) == ("gpt-5-mini", None)


def test_a_batched_run_freezes_the_batch_price_half_the_interactive_one(files) -> None:
    p = _plan(files, provider="anthropic", batch=True, batch_timeout=60.0)
    assert p.config.judge_price == (0.5, 2.5, 0.05, 0.625)
    assert p.config.batch is not None and p.config.batch.timeout == 60.0


def test_a_given_price_wins_over_the_table(files) -> None:
    p = _plan(files, provider="anthropic", batch=True, judge_price=(2.0, 3.0))
    assert p.config.judge_price == (2.0, 3.0)
    # batch settings not given: a day for a batch to end, a poll a minute (run --help)
    assert p.config.batch is not None
    assert (p.config.batch.timeout, p.config.batch.poll_interval) == (86400.0, 60.0)
    p = _plan(files, provider="stub", judge_price=(2.0, 3.0))
    assert p.config.judge_price == (2.0, 3.0)


def test_offline_lanes_judge_themselves_at_no_price(files) -> None:
    p = _plan(files, provider="stub")
    assert (p.answer, p.judge) == (Lane("stub", "api"), Lane("stub", "api"))
    assert (p.config.judge_model, p.config.judge_price) == ("stub-judge", None)
    p = _plan(files, provider="simulated", seed=7)
    assert p.judge is None  # the simulated lane answers and judges
    assert (p.config.judge_model, p.config.judge_price) == ("simulated-judge", None)
    assert p.answer == Lane("simulated", "api", {"seed": 7, "effects": {_sha(SKILL): 0.10}})


def test_the_simulated_control_moves_the_mean_by_0_03_and_the_skill_arm_by_0_10(files) -> None:
    p = _plan(files, provider="simulated", control="Answer concisely.")
    effects = {_sha("Answer concisely.\n\n" + SKILL): 0.10, _sha("Answer concisely."): 0.03}
    assert p.answer.options["effects"] == effects
    assert p.config.control == "Answer concisely."


def test_a_simulated_judge_of_another_lane_is_seeded(files) -> None:
    p = _plan(files, provider="stub", judge_provider="simulated", seed=3)
    assert p.judge == Lane("simulated", "api", {"seed": 3})


def test_a_cli_lane_takes_the_capture_mode(files) -> None:
    p = _plan(files, provider="anthropic", surface="cli", capture="files")
    assert p.answer == Lane("anthropic", "cli", {"capture": "files"})


def test_quick_is_the_smoke_preset(files) -> None:
    c = _plan(files, provider="stub", quick=True).config
    assert (c.max_draws, c.judge_samples, c.concurrency, c.quick) == (2, 2, 4, True)


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"provider": "stub", "aa": True, "control": "x"}, "--aa"),
        ({"provider": "anthropic", "capture": "files"}, "--capture"),
        ({"provider": "stub", "surface": "cli", "capture": "files"}, "--capture"),
        ({"provider": "stub", "batch": True}, "--batch"),
        ({"provider": "anthropic", "surface": "cli", "batch": True}, "--batch"),
        ({"provider": "anthropic", "judge_provider": "stub", "batch": True}, "--batch"),
        ({"provider": "stub", "draws": 5, "max_draws": 6}, "--draws"),
        ({"provider": "stub", "draws": 5, "quick": True}, "--draws"),
        # found: --quick drew twice and --max-draws was ignored; an address for a lane that
        # calls none was ignored; a blank control drew the baseline again as a third arm
        ({"provider": "stub", "quick": True, "max_draws": 50}, "--quick"),
        ({"provider": "simulated", "base_url": "http://localhost:1/v1"}, "--base-url"),
        (
            {"provider": "anthropic", "judge_provider": "stub", "judge_base_url": "http://x"},
            "--judge-base-url",
        ),
        ({"provider": "stub", "control": "  "}, "--control"),
        # found: --skill-name '' (no text at all) still fell back to the front matter's name
        ({"provider": "stub", "skill_name": ""}, "--skill-name"),
        # no lane is OpenAI's API: the option was ignored without a word
        ({"provider": "stub", "openai_api": "chat"}, "--openai-api"),
        ({"provider": "anthropic", "openai_api": "chat"}, "--openai-api"),
        ({"provider": "openai", "surface": "cli", "openai_api": "responses"}, "--openai-api"),
        # batch settings of a run that is not batched: ignored without a word
        ({"provider": "anthropic", "batch_timeout": 60.0}, "--batch-timeout"),
        ({"provider": "anthropic", "batch_poll_interval": 1.0}, "--batch-poll-interval"),
        ({"provider": "anthropic", "batch_resend_unrecorded": True}, "--batch-resend-unrecorded"),
        # only an Anthropic batch is left unrecorded: an OpenAI one is found by its input file
        (
            {
                "provider": "openai",
                "judge_provider": "openai",
                "batch": True,
                "batch_resend_unrecorded": True,
            },
            "--batch-resend-unrecorded",
        ),
    ],
)
def test_options_that_cannot_run_together_are_refused(files, options, option) -> None:
    with pytest.raises(RunOptionError) as exc:
        _plan(files, **options)
    assert exc.value.option == option


def test_draws_sets_each_arms_draws_in_place_of_the_stopping_rule(files) -> None:
    # plan says "Run 26 draws per arm"; run's stopping rule alone draws 3 to 10
    assert (
        _plan(files, provider="stub").config.min_draws,
        _plan(files, provider="stub").config.max_draws,
    ) == (3, 10)
    c = _plan(files, provider="stub", draws=26).config
    assert (c.min_draws, c.max_draws) == (26, 26)
    assert _plan(files, provider="stub", max_draws=4).config.max_draws == 4


def test_the_resume_command_is_the_given_arguments_quoted() -> None:
    assert resume_command(("run", "my suite.json")) == "driftproof run 'my suite.json'"


def _original(judge: SimpleNamespace | None) -> Any:
    return SimpleNamespace(judge=judge)


def test_a_rubric_regrade_grades_with_the_recorded_judge() -> None:
    rec = SimpleNamespace(provider="openai", service="https://api.example/v1", model="gpt-5-mini")
    j = plan_regrade_judge(
        _original(rec), provider=None, model=None, base_url=None, openai_api="chat"
    )
    assert j == RegradeJudge(
        Lane("openai", "api", {"base_url": "https://api.example/v1", "api": "chat"}),
        "gpt-5-mini",
        plain=False,
    )
    j = plan_regrade_judge(
        _original(rec), provider=None, model=None, base_url="http://other", openai_api="chat"
    )
    assert j.lane.options["base_url"] == "http://other"


def test_a_rubric_regrade_calls_the_api_shape_the_original_judge_called() -> None:
    # a judge run with --openai-api chat: a regrade without the option called Responses and
    # refused itself, "grader sampling differs"
    rec = SimpleNamespace(
        provider="openai", service="http://h/v1", model="j", sampling={"api": "chat"}
    )
    j = plan_regrade_judge(
        _original(rec), provider=None, model=None, base_url=None, openai_api=None
    )
    assert j.lane.options["api"] == "chat"
    j = plan_regrade_judge(
        _original(rec), provider=None, model=None, base_url=None, openai_api="responses"
    )
    assert j.lane.options["api"] == "responses"  # given, it is what is called (and refused)


def test_a_rubric_regrade_refuses_a_judge_provider_it_cannot_call() -> None:
    # a receipt recording judge provider "google" (any text up to 100 characters is valid)
    # ended regrade in a traceback: ValueError: unknown provider/surface google/api
    rec = SimpleNamespace(provider="google", service=None, model="gemini-x")
    with pytest.raises(RefusalError) as ei:
        plan_regrade_judge(
            _original(rec), provider=None, model=None, base_url=None, openai_api=None
        )
    assert str(ei.value) == (
        "rubric regrade refused: /judge/provider: expected a judge Driftproof can call "
        "(anthropic, openai, stub or simulated), as a rubric regrade grades with the original's "
        "judge; found 'google'. A plain judge regrade (--judge-provider and --judge-model) "
        "grades with another judge"
    )


def test_a_judge_recorded_without_a_provider_is_the_stub() -> None:
    rec = SimpleNamespace(provider=None, service=None, model="stub-judge")
    j = plan_regrade_judge(
        _original(rec), provider=None, model=None, base_url=None, openai_api=None
    )
    assert j == RegradeJudge(Lane("stub", "api"), "stub-judge", plain=False)


def test_a_plain_regrade_needs_both_judge_options_and_no_recorded_judge() -> None:
    j = plan_regrade_judge(
        _original(None), provider="anthropic", model="claude-x", base_url=None, openai_api=None
    )
    assert j == RegradeJudge(
        Lane("anthropic", "api", {"base_url": None, "api": None}), "claude-x", plain=True
    )
    with pytest.raises(RunOptionError):
        plan_regrade_judge(
            _original(None), provider="anthropic", model=None, base_url=None, openai_api="chat"
        )
    with pytest.raises(RefusalError) as e:
        plan_regrade_judge(
            _original(None),
            provider=None,
            model=None,
            base_url=None,
            openai_api="chat",
            receipt_file="o.json",
        )
    # the receipt, and where in it: its judge object, null (found: the pointer was left out)
    assert (
        str(e.value)
        == "rubric regrade refused: o.json: /judge: the original records no judge identity"
    )


@pytest.mark.parametrize(
    ("recorded", "provider"), [("anthropic", None), (None, None), (None, "anthropic")]
)
def test_openai_api_for_a_judge_that_is_not_openai_is_an_option_error(recorded, provider):
    # an Anthropic judge (the original's, or another) or the stub: the option was ignored
    rec = SimpleNamespace(provider=recorded, service=None, model="m", sampling={})
    model = "claude-x" if provider else None
    for api in ("chat", "responses"):
        with pytest.raises(RunOptionError) as info:
            plan_regrade_judge(
                _original(rec), provider=provider, model=model, base_url=None, openai_api=api
            )
        assert info.value.option == "--openai-api"


def test_run_draws_is_capped_at_what_a_receipt_holds() -> None:
    # a newcomer's pilot asked for 1,148 draws per arm: run made every call and then the receipt's
    # schema refused 1,148 draws in an arm. The schema's cap is the option's.
    import json as json_
    from importlib import resources

    from click.testing import CliRunner

    from driftproof.cli.run import run
    from driftproof.wording import MAX_DRAWS_IN_ARM

    schema = resources.files("driftproof.receipt") / "schemas" / "receipt-0.16.schema.json"
    doc = json_.loads(schema.read_text(encoding="utf-8"))
    assert doc["$defs"]["case_arm"]["properties"]["draws"]["maxItems"] == MAX_DRAWS_IN_ARM
    res = CliRunner().invoke(run, ["s.json", "--draws", "1001"])
    assert res.exit_code == 2 and "1001 is not in the range 3<=x<=1000" in res.output


@pytest.mark.parametrize(
    ("option", "url"),
    [
        ("base_url", "http://[::1"),  # httpx: a traceback, "Invalid port"
        ("base_url", "http://h/\tx"),
        ("judge_base_url", "http://h/\x1b[31m"),
        ("base_url", "http://h:99999/v1"),  # the port was dropped from the receipt's service
        ("base_url", "localhost:8000/v1"),  # no scheme
        ("base_url", "http://999.1.1.1/v1"),  # httpx: a traceback, "Invalid IPv4 address"
        ("judge_base_url", "http://[::1]x/v1"),  # httpx: a traceback, "Invalid port: 'x'"
        ("base_url", "http://[v1.x]/v1"),  # httpx: a traceback, "Invalid IPv6 address"
    ],
)
def test_a_base_url_the_sdks_cannot_use_is_refused_by_option(files, option, url) -> None:
    with pytest.raises(RunOptionError) as exc:
        _plan(files, provider="openai", **{option: url})
    assert exc.value.option == "--" + option.replace("_", "-")
    assert exc.value.message == (
        f"expected an http or https URL such as http://localhost:8000/v1, found {url!r}"
    )
    _plan(files, provider="openai", **{option: "http://127.0.0.1:8000/v1"})  # a good one runs


def test_a_base_url_past_2000_characters_is_refused_by_its_length(files) -> None:
    # httpx refused one past 65,536 with a traceback; a receipt records a service cut at 2,000
    url = "http://h/" + "a" * 70_000
    with pytest.raises(RunOptionError) as exc:
        _plan(files, provider="openai", judge_base_url=url)
    assert exc.value.option == "--judge-base-url"
    assert exc.value.message == (
        f"expected a base URL of at most 2000 characters, found one of 70009 beginning {url[:60]!r}"
    )
    _plan(files, provider="openai", judge_base_url="http://h/" + "a" * 1991)  # 2,000: runs


@pytest.mark.parametrize(
    ("url", "quoted"),
    [
        ("http://user:sk-secret@hôst/v1", "http://…@hôst/v1"),
        ("http://[::1?key=sk-secret#x", "http://[::1?…"),
        ("user:sk-secret@localhost:8000/v1", "…@localhost:8000/v1"),
        # a "#" in the password: read as a fragment, "sk-se" was printed
        ("http://user:sk-se#cret@hôst/v1", "http://…@hôst/v1"),
    ],
)
def test_a_refused_base_url_is_quoted_without_its_credentials(files, url, quoted) -> None:
    # a key can ride in the user, password, query or fragment: a refusal printed it in the log
    with pytest.raises(RunOptionError) as exc:
        _plan(files, provider="openai", base_url=url)
    assert exc.value.message.startswith(
        f"expected an http or https URL such as http://localhost:8000/v1, found {quoted!r}"
    )
    assert "sk-secret" not in exc.value.message


def test_a_refused_long_base_url_is_cut_after_its_key_is_hidden(files) -> None:
    # a key of 60 characters in the user part: cut at 60 before hiding, no "@" was left to hide;
    # hidden first, the 60 characters are "https://…@h/" (12) and 48 of the path
    url = "https://user:sk-" + "k" * 60 + "@h/" + "a" * 2000
    with pytest.raises(RunOptionError) as exc:
        _plan(files, provider="openai", base_url=url)
    assert "sk-" not in exc.value.message
    assert exc.value.message.endswith("beginning 'https://…@h/" + "a" * 48 + "'")


def test_a_host_not_in_ascii_is_refused_with_its_ascii_spelling(files) -> None:
    # the SDKs take hosts in ASCII; "münchen" is "xn--mnchen-3ya" in IDNA (RFC 3492's example)
    with pytest.raises(RunOptionError) as exc:
        _plan(files, provider="openai", base_url="http://münchen.example/v1")
    assert exc.value.message.endswith("(spell its host in ASCII: xn--mnchen-3ya.example)")


def test_regrade_names_the_receipt_whose_judge_it_cannot_call(tmp_path: Path, capsys: Any) -> None:
    # through the CLI, the refusal names the receipt file as well as the pointer in it
    from factories import run_main
    from receipt_docs import seal_document

    fixture = Path(__file__).parents[1] / "receipt/fixtures/0.16/valid-basic.json"
    doc = json.loads(fixture.read_text(encoding="utf-8"))
    doc["judge"]["provider"] = "google"
    receipt = tmp_path / "google.json"
    receipt.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    suite = tmp_path / "s.json"
    suite.write_text('{"name": "s", "cases": []}', encoding="utf-8")
    argv = ["regrade", str(receipt), "--rubric", str(suite), "--out", str(tmp_path / "o.json")]
    code, _, err = run_main(argv, capsys)
    assert code == 2
    assert err.startswith(f"error: rubric regrade refused: {receipt}: /judge/provider: ")
    assert "found 'google'" in err and not (tmp_path / "o.json").exists()
