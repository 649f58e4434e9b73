"""What a run will do, decided from its options before any call: :func:`plan_run`.

``run --help`` imports this module (its defaults), so the engine, receipt, suite and batch modules
are imported inside functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from driftproof._json import read_skill_md
from driftproof.errors import RefusalError
from driftproof.run.base_url import url_problem
from driftproof.run.providers import LANES, make_provider
from driftproof.run.providers.base import MissingCredentials, Provider
from driftproof.run.skill_name import RunOptionError as RunOptionError
from driftproof.run.skill_name import skill_name_of as skill_name_of
from driftproof.wording import OFFLINE, is_blank

if TYPE_CHECKING:
    from driftproof.receipt import Receipt
    from driftproof.run.config import RunConfig, RunResult
    from driftproof.run.suite import Suite

#: Each answering lane's default judge model; the keys are the lanes ``--provider`` takes.
DEFAULT_JUDGE = {
    "anthropic": "claude-haiku-4-5-20251001",
    "openai": "gpt-5-mini",
    "stub": "stub-judge",
    "simulated": "simulated-judge",
}
#: USD per million tokens (input, output, cache read, cache write), frozen into the receipt
#: for the default judges (Anthropic's price list: cache reads 0.1x input, 5-minute cache
#: writes 1.25x).
KNOWN_PRICES = {
    "claude-haiku-4-5-20251001": (1.0, 5.0, 0.1, 1.25),
    "claude-haiku-4-5": (1.0, 5.0, 0.1, 1.25),
}
#: The same judges' batch prices (Message Batches bill 50% of the standard prices, cache
#: parts included), frozen with the batch price tier when the run is batched.
KNOWN_BATCH_PRICES = {m: tuple(p / 2 for p in ps) for m, ps in KNOWN_PRICES.items()}
#: ``run --help``'s words for ``--judge-price``: what is frozen when it is not given.
JUDGE_PRICE_HELP = (
    "Judge price IN,OUT[,CACHE_READ,CACHE_WRITE] in USD per million tokens, frozen in the "
    "receipt; cache parts without a price are priced as input. Default: the known price of "
    f"the judge model when there is one ({' and '.join(sorted(KNOWN_PRICES))}: "
    f"{','.join(f'{p:g}' for p in KNOWN_PRICES[DEFAULT_JUDGE['anthropic']])}, half that when "
    "batched), else none, and the grading cost then reads unknown."
)
#: The stopping rule, as ``driftproof run --help`` states it.
STOPPING_RULE = (
    "Each arm is drawn at least 3 times, then once more at a time while the sample standard "
    "deviation of its per-draw scores moves by 0.01 or more when the latest draw is added, up to "
    "--max-draws draws (default 10); --draws N draws each arm exactly N times instead. Lost "
    "draws are not replaced."
)
#: The simulated lane's effect on the mean quality: the skill arm's and the control's (a
#: seeded demonstration, not a measurement).
SIMULATED_SKILL_EFFECT, SIMULATED_CONTROL_EFFECT = 0.10, 0.03


@dataclass(frozen=True)
class RunOptions:
    """``driftproof run``'s options, parsed; see ``driftproof run --help``.

    Durations in seconds, budgets in output tokens, prices in USD per million tokens (input,
    output[, cache read, cache write]).
    """

    suite_file: Path
    skill_path: Path
    model: str
    provider: str
    surface: str = "api"
    capture: str = "text"
    skill_name: str | None = None
    judge_provider: str | None = None
    judge_model: str | None = None
    judge_price: tuple[float, ...] | None = None
    base_url: str | None = None
    judge_base_url: str | None = None
    openai_api: str | None = None
    budget_param: str = "auto"
    max_output_tokens: int = 8192
    judge_max_output_tokens: int = 4096
    control: str | None = None
    lang: str | None = None
    seed: int = 0
    quick: bool = False
    keep_transcripts: bool = False
    aa: bool = False
    margin: float | None = None
    concurrency: int = 8
    max_draws: int | None = None
    draws: int | None = None
    timeout: float = 300.0
    judge_timeout: float = 120.0
    retry_delays: tuple[float, ...] | None = None
    batch: bool = False
    batch_timeout: float | None = None
    """``None``: not given (the batch default, one day)."""
    batch_poll_interval: float | None = None
    """``None``: not given (the batch default, 60 s)."""
    batch_resend_unrecorded: bool = False


@dataclass(frozen=True)
class Lane:
    """A lane to build: ``make_provider(provider, surface, **options)``."""

    provider: str
    surface: str
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunPlan:
    """What :func:`start_run` will run; ``judge`` is ``None`` when the answering lane judges."""

    suite: Suite
    skill_text: str
    skill_name: str
    answer: Lane
    judge: Lane | None
    config: RunConfig


def _check(o: RunOptions, judge: str) -> None:
    """Refuse options that cannot run together (RunOptionError); ``judge``: the judge lane."""
    urls = (("--base-url", o.base_url, o.provider), ("--judge-base-url", o.judge_base_url, judge))
    for option, url, lane in urls:
        offline = url is not None and lane in OFFLINE  # said first: no address would do
        if why := (offline and f"the {lane} lane calls no address: leave it out") or url_problem(
            url
        ):
            raise RunOptionError(option, why)
    if o.control is not None and is_blank(o.control):
        raise RunOptionError("--control", "expected an instruction, found a blank one")
    if o.aa and o.control is not None:
        raise RunOptionError(
            "--aa", "an A/A calibration runs the with-skill arm twice and takes no control"
        )
    counts = {"--draws": o.draws, "--quick": o.quick or None, "--max-draws": o.max_draws}
    if len(given := [k for k, v in counts.items() if v is not None]) > 1:
        why = f"{given[0]} sets the draws per arm and {given[1]} does too: give one of them"
        raise RunOptionError(given[0], why)
    if o.capture != "text" and (o.surface != "cli" or o.provider in OFFLINE):
        raise RunOptionError(
            "--capture",
            "--capture files needs --surface cli with --provider anthropic or openai (claude -p "
            "or codex exec): the stub and the simulated lane leave no files",
        )
    if o.openai_api is not None and "openai" not in (judge, o.surface == "api" and o.provider):
        raise RunOptionError(
            "--openai-api",
            f"--openai-api sets the API shape of an OpenAI API lane; this run answers through "
            f"{o.provider} ({o.surface}) and is judged by {judge}: leave the option out",
        )
    batch_only = {
        "--batch-timeout": o.batch_timeout is not None,
        "--batch-poll-interval": o.batch_poll_interval is not None,
        "--batch-resend-unrecorded": o.batch_resend_unrecorded,
    }
    for option in (k for k, given in batch_only.items() if given and not o.batch):
        raise RunOptionError(
            option, f"{option} is for a run with --batch: give --batch or leave it out"
        )
    if o.batch_resend_unrecorded and "anthropic" not in (o.provider, judge):
        raise RunOptionError(
            "--batch-resend-unrecorded",
            "only an Anthropic batch can be left unrecorded (an OpenAI run finds its batch by its "
            "input file): leave the option out",
        )
    if o.batch and (o.provider in OFFLINE or o.surface != "api" or judge in OFFLINE):
        raise RunOptionError(
            "--batch",
            "--batch needs API lanes (--provider anthropic|openai --surface api, and an API "
            "judge): the CLIs, the stub and the simulated lane have no batch API",
        )


def _answer_lane(o: RunOptions, skill_text: str, control: str | None) -> Lane:
    if o.provider == "simulated":
        from driftproof.receipt import sha256_text  # deferred: start-up time of run --help
        from driftproof.run.config import arm_systems

        with_skill = arm_systems(skill_text, control)["with_skill"] or ""
        effects = {sha256_text(with_skill): SIMULATED_SKILL_EFFECT}
        if control is not None:
            effects[sha256_text(control)] = SIMULATED_CONTROL_EFFECT
        return Lane("simulated", o.surface, {"seed": o.seed, "effects": effects})
    if o.provider == "stub":
        return Lane("stub", o.surface)
    if o.surface != "api":
        return Lane(o.provider, o.surface, {"capture": o.capture})
    budget_param = o.budget_param if o.provider == "openai" else None
    return _api_lane(o.provider, o.base_url, o.openai_api, budget_param=budget_param)


def _api_lane(provider: str, base_url: str | None, openai_api: str | None, **more: Any) -> Lane:
    """An API lane at ``base_url``; only OpenAI's takes ``openai_api`` (default responses)."""
    if provider == "stub":
        return Lane(provider, "api")
    api = (openai_api or "responses") if provider == "openai" else None
    return Lane(provider, "api", {"base_url": base_url, "api": api, **more})


def _judge_lane(o: RunOptions, provider: str) -> Lane | None:
    if provider == o.provider == "simulated":
        return None
    if provider == "simulated":
        return Lane(provider, "api", {"seed": o.seed})
    return _api_lane(provider, o.judge_base_url, o.openai_api)


def frozen_price(
    provider: str, model: str, given: tuple[float, ...] | None, *, batch: bool = False
) -> tuple[float, ...] | None:
    """The judge price frozen in the receipt, USD per million tokens (``--judge-price``'s order).

    ``given`` (``--judge-price``) when given, else ``model``'s known price
    (:data:`KNOWN_BATCH_PRICES` when ``batch``), ``None`` for an offline judge or unknown model.
    """
    if given is not None:
        return given
    prices = KNOWN_BATCH_PRICES if batch else KNOWN_PRICES
    return prices.get(model) if provider not in OFFLINE else None


def plan_run(o: RunOptions) -> RunPlan:
    """Decide everything a run needs from its options, before any call or write.

    The judge lane is the answering lane when that is offline, else ``anthropic``; the judge model
    is its :data:`DEFAULT_JUDGE`; the judge price is :func:`frozen_price`'s.

    Raises:
        SuiteError: the suite is invalid, cannot be graded, or lacks the language asked for.
        RunOptionError: options that cannot run together.
        OSError, UnicodeDecodeError: SKILL.md cannot be read as UTF-8 text.
    """
    from driftproof.run.config import RunConfig  # deferred: start-up time of run --help
    from driftproof.run.suite import in_language, load_suite, require_gradable

    suite = load_suite(o.suite_file)
    require_gradable(suite)
    control = o.control
    if o.lang is not None:
        suite, control = in_language(suite, o.lang, control)
    skill_text = read_skill_md(
        o.skill_path, lambda why: RunOptionError("--skill", f"{o.skill_path}: {why}")
    )
    judge = o.judge_provider or (o.provider if o.provider in OFFLINE else "anthropic")
    _check(o, judge)
    judge_model = o.judge_model or DEFAULT_JUDGE[judge]
    price = frozen_price(judge, judge_model, o.judge_price, batch=o.batch)
    same = "model concurrency timeout judge_timeout retry_delays keep_transcripts aa margin"
    settings: dict[str, Any] = {name: getattr(o, name) for name in same.split()}
    if o.draws is not None:  # a planned count: each arm drawn exactly that often
        settings.update(min_draws=o.draws, max_draws=o.draws)
    elif o.max_draws is not None:
        settings.update(max_draws=o.max_draws)
    settings.update(
        judge_model=judge_model,
        judge_price=price,
        max_tokens=o.max_output_tokens,
        judge_max_tokens=o.judge_max_output_tokens,
        control=control,
        language=o.lang,
    )
    if o.batch:  # the batch machinery is imported only for a batched run
        from driftproof.run.batch_io import BATCH_POLL_INTERVAL, BATCH_TIMEOUT, BatchOptions

        poll, timeout = o.batch_poll_interval, o.batch_timeout
        settings["batch"] = BatchOptions(
            poll_interval=BATCH_POLL_INTERVAL if poll is None else poll,
            timeout=BATCH_TIMEOUT if timeout is None else timeout,
            resend_unrecorded=o.batch_resend_unrecorded,
        )
    config = RunConfig.quick_preset(**settings) if o.quick else RunConfig(**settings)
    return RunPlan(
        suite=suite,
        skill_text=skill_text,
        skill_name=skill_name_of(o.skill_path, skill_text, o.skill_name),
        answer=_answer_lane(o, skill_text, control),
        judge=_judge_lane(o, judge),
        config=config,
    )


def start_run(
    plan: RunPlan, out: Path, *, replace_existing: bool, progress: Callable[..., None]
) -> RunResult:
    """Build the plan's lanes and run it, writing the sealed receipt to ``out``.

    ``replace_existing`` is ``--force``; ``progress(done, total, spend_usd, phase)`` follows each
    draw, and its ``batch`` attribute, when present, receives each poll's statuses.

    Raises:
        MissingCredentials: an API lane's key is not set (before anything is written), every
            unset key of both lanes in one message; the judge's says it is the judge's and
            names ``--judge-provider``.
        RunInterrupted: Ctrl-C; the journal keeps every finished draw.
    """
    from driftproof.run.engine import run_suite  # deferred: start-up time of run --help

    missing: list[MissingCredentials] = []

    def built(make: Callable[[], Provider]) -> Provider | None:
        try:
            return make()
        except MissingCredentials as exc:
            missing.append(exc)
            return None

    a, j = plan.answer, plan.judge
    lane = built(lambda: make_provider(a.provider, a.surface, **a.options))
    judge = lane if j is None else built(lambda: make_judge(j))
    if lane is None or judge is None:  # every unset key at once, not one a try
        missing[0].args = ("; ".join(map(str, missing)),)
        raise missing[0]
    cfg = plan.config
    if cfg.batch is not None:
        cfg = replace(cfg, batch=replace(cfg.batch, on_status=getattr(progress, "batch", None)))
    return run_suite(
        plan.suite,
        skill_text=plan.skill_text,
        skill_name=plan.skill_name,
        cfg=cfg,
        provider=lane,
        judge=judge,
        out=out,
        progress=progress,
        replace=replace_existing,
    )


@dataclass(frozen=True)
class RegradeJudge:
    """The judge a regrade grades with; ``plain``: another judge, not a rubric regrade.

    ``price``: a plain judge regrade's frozen price as :func:`frozen_price` chooses it (a rubric
    regrade records the original's judge, price included: ``None``).
    """

    lane: Lane
    model: str
    plain: bool
    price: tuple[float, ...] | None = None


def make_judge(lane: Lane) -> Provider:
    """The judge's provider on ``lane``.

    Raises:
        MissingCredentials: its key is not set; the message says the key is the judge's and that
            ``--judge-provider`` chooses another judge lane.
    """
    try:
        return make_provider(lane.provider, lane.surface, **lane.options)
    except MissingCredentials as exc:
        judge = f"judge's {lane.provider} {lane.surface}"
        raise MissingCredentials(exc.variable, judge, "judge lane with --judge-provider") from None


def plan_regrade_judge(
    original: Receipt,
    *,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    openai_api: str | None,
    judge_price: tuple[float, ...] | None = None,
    receipt_file: str | None = None,
) -> RegradeJudge:
    """Choose the judge of a regrade of ``original`` (read from ``receipt_file``, if named).

    A plain judge regrade (``provider`` or ``model`` given) needs both, and is priced at
    ``judge_price`` (``--judge-price``), else as :func:`frozen_price` prices ``run``'s judge.
    Otherwise the original's judge: its provider (the stub when none), its service unless
    ``base_url`` is given, its model, and the OpenAI API shape its sampling records unless
    ``openai_api`` is given (else responses).

    Raises:
        RunOptionError: only one of ``provider`` and ``model`` is given; ``openai_api`` given
            for a judge that is not OpenAI's; ``judge_price`` given for a rubric regrade.
        RefusalError: a rubric regrade of an original that records no judge identity, or a
            judge provider Driftproof has no lane for (naming ``receipt_file`` when given).
    """
    plain, given_api, price = provider is not None or model is not None, openai_api, None
    at = f"{receipt_file}: " if receipt_file else ""
    if plain:
        if not provider or not model:
            raise RunOptionError(
                "--judge-provider",
                "a plain judge regrade needs both --judge-provider and --judge-model",
            )
        price = frozen_price(provider, model, judge_price)
    elif original.judge is None:
        raise RefusalError(
            f"rubric regrade refused: {at}/judge: the original records no judge identity"
        )
    else:
        if judge_price is not None:
            raise RunOptionError(
                "--judge-price",
                "--judge-price prices another judge (with --judge-provider and --judge-model); "
                "a rubric regrade records the original's judge at the original's price",
            )
        provider = original.judge.provider or "stub"
        if (provider, None if provider in OFFLINE else "api") not in LANES:
            known = [p for p, surface in LANES if surface in ("api", None)]
            raise RefusalError(
                f"rubric regrade refused: {at}/judge/provider: expected a judge Driftproof can "
                f"call ({', '.join(known[:-1])} or {known[-1]}), as a rubric regrade grades with "
                f"the original's judge; found {provider!r}. A plain judge regrade "
                "(--judge-provider and --judge-model) grades with another judge"
            )
        base_url = base_url or original.judge.service
        model = original.judge.model
        sampling = getattr(original.judge, "sampling", None) or {}
        openai_api = openai_api or sampling.get("api")
    if given_api is not None and provider != "openai":
        raise RunOptionError(
            "--openai-api",
            f"--openai-api applies to an openai judge only; this regrade's judge is {provider}: "
            "leave the option out",
        )
    api = openai_api if openai_api in ("responses", "chat") else "responses"
    return RegradeJudge(_api_lane(provider, base_url, api), model, plain, price)
