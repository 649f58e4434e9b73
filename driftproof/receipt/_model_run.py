"""Receipt models of the run, skill, suite, judge and arm specs (see :mod:`._model`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from driftproof.receipt._model_base import (
    Count,
    DateTime,
    NonNegative,
    Positive,
    Sha256,
    UtcOffset,
    _Model,
    _v015,
)

#: A language tag as the schema states it: ``en``, ``pt-BR``, ``zh-Hant`` (v0.15).
Language = Annotated[str, StringConstraints(pattern=r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")]
#: A grid step of the grader's scores, above zero.
Step = Annotated[float, Field(gt=0)]
#: A non-inferiority margin: above 0, at most 1 (the quality scales are 0 to 1).
Margin = Annotated[float, Field(gt=0, le=1)]


class Harness(_Model):
    name: str
    """The harness, e.g. claude-code or codex."""
    version: str | None
    """The version the harness binary printed when the run began, never a typed value; a regrade
    keeps the original's."""


class Runner(_Model):
    name: str
    """driftproof for runs, imports and regrades."""
    version: str | None
    """The runner's version."""


class Transcripts(_Model):
    """The file of kept transcripts beside a receipt: its name, sha256 and draws (lines)."""

    file: str
    """The file's name, beside the receipt."""
    sha256: Sha256
    """sha256 of the file's bytes."""
    draws: Count
    """Lines in the file: one per draw."""


class RetryPolicy(_Model):
    """How failed calls were retried (v0.15)."""

    max_attempts: Positive
    """Attempts per call, the first included."""
    max_wait_s: NonNegative
    """The longest wait honoured; a server's retry-after is capped here."""
    backoff: str
    """The back-off rule in words."""


class Batch(_Model):
    """A run sent through a provider batch API (v0.15)."""

    provider: str
    """The provider whose batch API ran it."""
    batch_ids: list[str]
    """Every batch the run created, in order."""
    file_ids: list[str]
    """Every input file the run uploaded (OpenAI)."""


class Run(_Model):
    model: str | None
    """The model that answered; null when the source did not record it."""
    provider: Literal["anthropic", "openai", "stub", "simulated"] | None
    """anthropic, openai, stub (the test double) or simulated (the offline demo lane); a stub or
    simulated run records UNVERIFIED."""
    surface: Literal["api", "cli"] | None
    """api or cli (a subscription command-line tool, disclosed whenever used)."""
    harness: Harness | None
    """The agent harness on the command-line surfaces; null on the API."""
    capture: Literal["text", "files"] | None
    """Which answer the grader saw: text (the reply) or files (the reply and the files the agent
    left)."""
    preset: Literal["quick"] | None
    """quick for a smoke run; such a receipt reads below TESTED whatever its level."""
    started_at: DateTime | None
    """When the run began."""
    finished_at: DateTime | None
    """When the run ended."""
    runner: Runner
    """The program that wrote the receipt."""
    generations_per_arm: Positive | None
    """Planned generations (draws) per arm; null when the data does not establish it, never read as
    one."""
    judge_samples_per_generation: Positive | None
    """Planned judge samples per draw; null when not established, never read as one."""
    endpoint_attempts: Count | None
    """API requests or CLI invocations the runner made, retries and timeouts included; requests
    inside a CLI are not counted."""
    transcripts: Transcripts | None = Field(default=None, exclude_if=lambda v: v is None)
    """With --keep-transcripts: the kept-transcripts file beside the receipt (every answer with the
    judge's replies), sealed here by its sha256; absent otherwise."""
    started_at_offset: UtcOffset | None = _v015()
    """The offset (+HH:MM) the source wrote started_at in; started_at itself is stored in UTC."""
    finished_at_offset: UtcOffset | None = _v015()
    """The offset the source wrote finished_at in."""
    max_output_tokens: Positive | None = _v015()
    """Output-token budget of each answer call."""
    truncation: Literal["lost", "accepted"] | None = _v015()
    """lost (a cut-off answer is a lost draw, the default) or accepted (the suite declares
    truncation acceptable)."""
    retry: RetryPolicy | None = _v015()
    """How failed calls were retried."""
    batch: Batch | None = _v015()
    """Present when the run went through the provider's batch API."""
    language: Language | None = _v015()
    """Language of the prompts and the control; no English fallback."""
    budget_param: Literal["max_tokens", "max_completion_tokens"] | None = _v015()
    """How the output budget was spelled on Chat Completions, the one sent; null for
    other lanes."""
    aa: bool | None = _v015()
    """true for an A/A calibration (``run --aa``): the with-skill arm ran twice under the
    same settings, the second run recorded as the baseline arm; it carries no skill verdict."""
    quality_margin: Margin | None = _v015()
    """The non-inferiority margin declared before the run (``--margin``), in units of the
    quality compared (judge score or check pass rate)."""


class Skill(_Model):
    name: str
    """The skill's name."""
    sha256: Sha256 | None
    """Digest of the SKILL.md bytes."""
    tokens: Positive | None
    """ceil(characters of SKILL.md ÷ 4), a yardstick for value per 1,000 tokens, not a billing
    figure."""


class Suite(_Model):
    name: Annotated[str, StringConstraints(max_length=200)] | None
    """The suite's name."""
    sha256: Sha256 | None
    """Digest of the suite file."""


class JudgeScale(_Model):
    worst: float
    """The worst score the grader can give; a lost draw is bounded by it (R-6)."""
    best: float
    """The best score the grader can give (R-6)."""
    step: Step | None
    """The grid step of the grader's scores, when it has one (about 0.05)."""


class JudgePrice(_Model):
    input_usd_per_mtok: NonNegative
    """Price of the grader's input tokens."""
    output_usd_per_mtok: NonNegative
    """Price of the grader's output tokens."""
    cache_read_usd_per_mtok: NonNegative | None = _v015()
    """Price of cache-read input tokens; null when the price table has none."""
    cache_write_usd_per_mtok: NonNegative | None = _v015()
    """Price of cache-creation input tokens; null when the price table has none."""
    tier: Literal["interactive", "batch"] | None = _v015()
    """interactive or batch: which price list the figures come from."""


class Judge(_Model):
    model: str
    """The grader's model, dated when the provider dates it."""
    provider: str | None
    """The grader's provider."""
    surface: Literal["api", "cli"] | None
    """api or cli."""
    service: str | None
    """The address the grader's calls use."""
    sampling: dict[str, Any] | None
    """The sampling settings handed to the grader (temperature, maximum tokens, …)."""
    template_sha256: Sha256 | None
    """Digest of the grader's prompt template."""
    scale: JudgeScale
    """The grader's score scale."""
    price: JudgePrice | None
    """The grader's price, frozen at run time."""
    channel: (
        Literal[
            "tool_call",
            "json_schema",
            "responses_format",
            "cli_json_schema",
            "final_verdict",
            "source",
        ]
        | None
    ) = _v015()
    """How the grader's decision came back: tool_call, json_schema, responses_format,
    cli_json_schema, final_verdict (free text, the judge's own last verdict only) or source
    (imported)."""
    template_version: str | None = _v015()
    """Version of the judge prompt template whose text hash is template_sha256."""
    max_output_tokens: Positive | None = _v015()
    """Output-token budget of each judge call."""


class SkillFired(_Model):
    """Draws where the skill fired, of draws where firing was observed (v0.15)."""

    fired: Count
    """Draws on which the source saw the skill fire."""
    observed: Count
    """Draws on which firing was observed at all."""


class ArmSpec(_Model):
    label: str | None
    """The source's own name for the arm (e.g. caveman's __terse__)."""
    instruction: str | None
    """The fixed instruction of a control arm."""
    system_prompt_sha256: Sha256 | None
    """Digest of the arm's system prompt."""
    recorded: bool = Field(default=True, exclude_if=lambda v: v is True)
    """False when the source did not record this arm: no lift, no interval and no value per
    token."""
    service: str | None = _v015()
    """The service that answered this arm, credentials stripped."""
    construction: Literal["bare", "skill", "control", "control_then_skill"] | None = _v015()
    """bare, skill, control, or control_then_skill (the control followed by SKILL.md)."""
    skill_fired: SkillFired | None = _v015()
    """How often the skill fired in this arm, beside the score, never inside it."""
    input_tokens_median: NonNegative | None = _v015()
    """Median of the input tokens the provider reported over this arm's draws."""


class ArmSpecs(_Model):
    with_skill: ArmSpec
    """One arm: with_skill, baseline, or an optional control."""
    baseline: ArmSpec
    """One arm: with_skill, baseline, or an optional control."""
    control: ArmSpec | None = Field(default=None, exclude_if=lambda v: v is None)
    """One arm: with_skill, baseline, or an optional control."""
