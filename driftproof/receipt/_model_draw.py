"""Receipt models of the cases, arms, draws and judge samples (see :mod:`._model`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, ValidationInfo, field_validator

from driftproof.receipt._model_base import (
    Count,
    HttpStatus,
    NonNegative,
    Sha256,
    Unit,
    _Model,
    _v015,
)
from driftproof.wording import ARMS

#: A case id as the schema states it: a letter or digit, then up to 127 of ``A-Za-z0-9._-``.
CASE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
CaseId = Annotated[str, StringConstraints(pattern=CASE_ID_PATTERN)]
#: A class of loss as the schema states it: 1 to 40 of ``a-z`` and ``_`` (v0.15).
LostKind = Annotated[str, StringConstraints(pattern=r"^[a-z_]{1,40}$")]


class JudgeSample(_Model):
    score: Unit | None
    """The score the reply gave; null when it held no valid score."""
    reply_sha256: Sha256 | None
    """Digest of the reply's score text."""
    reported_model: str | None
    """The model id the reply reported, dates kept."""
    serving_model: str | None
    """The model the reply named as serving it."""
    invalid_reason: str | None
    """Why the reply held no valid score."""
    reason: str | None = _v015()
    """The grader's stated reason; untrusted, escaped wherever shown."""
    ignored_members: list[Annotated[str, StringConstraints(max_length=100)]] | None = _v015(
        max_length=20
    )
    """Members of a structured decision its schema does not name, as JSON pointers:
    recorded and ignored."""


class Lost(_Model):
    reason: str
    """Why the draw was lost."""
    kind: LostKind | None = _v015()
    """Class of loss: truncated, refusal, error, no_answer, unscored, source_error, …"""
    error_class: Literal["transient", "fatal"] | None = _v015()
    """transient (retried until its attempts ran out) or fatal (not retried): the class of the
    last error; either way the draw is lost, and the run goes on."""
    status: HttpStatus | None = _v015()
    """Status of the last error, when there was one."""


class Refusal(_Model):
    """A refusal as the provider gave it (v0.15)."""

    text: str | None
    """The refusal text the provider gave; untrusted."""
    category: str | None
    """The refusal category the provider gave, when it gave one."""


class FailedAttempt(_Model):
    """One failed attempt of a call and the wait that followed (v0.15)."""

    error: str
    """The error, as the provider or harness gave it."""
    error_class: Literal["transient", "fatal"]
    """transient (retried) or fatal (not retried: the draw is lost, and the run goes on)."""
    status: HttpStatus | None
    """Its status, when there was one."""
    wait_s: NonNegative | None
    """The wait before the next attempt."""


class HarnessEvent(_Model):
    """An event the harness printed beside its result (v0.15)."""

    type: str
    """Its type."""
    subtype: str | None
    """Its subtype, when it has one."""


class Tokens(_Model):
    input: Count | None
    """Input tokens."""
    output: Count | None
    """Output tokens."""
    counted_by: Literal["provider", "o200k_base", "source"]
    """provider (its reported usage), o200k_base (counted offline), or source (an import's
    figures)."""
    cache_read_input: Count | None = _v015()
    """Of input: tokens read from the prompt cache."""
    cache_creation_input: Count | None = _v015()
    """Of input: tokens written to the prompt cache."""
    reasoning_output: Count | None = _v015()
    """Of output: reasoning tokens."""
    total: Count | None = _v015()
    """Total tokens as the source reported them, when it did not split input and output."""
    answer_output: Count | None = _v015()
    """Of output: the final answer's tokens, reasoning left out."""


class Reasoning(_Model):
    """Reasoning a reply carried apart from its final answer (v0.16); never graded."""

    chars: Count
    """Its length in characters."""
    sha256: Sha256
    """Its digest."""


class Check(_Model):
    name: str
    """The check's name."""
    kind: Literal["regex", "structural", "must_include", "must_not_include", "assertion"]
    """regex, structural, must_include, must_not_include, or assertion (a source's check of
    another type, its type in ``source_type``)."""
    pass_: bool = Field(alias="pass")
    """Whether the answer passed the check."""
    outcome: Literal["pass", "fail", "error"] | None = _v015()
    """pass, fail or error (the check itself failed to run; it never passes)."""
    source_type: Annotated[str, StringConstraints(max_length=200)] | None = _v015()
    """The source's own type for the check, e.g. python or llm-rubric."""

    @field_validator("outcome")
    @classmethod
    def _error_never_passes(cls, outcome: str | None, info: ValidationInfo) -> str | None:
        """The schema's rule (``$defs/check`` ``allOf``): an errored check never passes."""
        if outcome == "error" and info.data.get("pass_") is True:
            raise ValueError("an errored check never passes: expected pass false, found true")
        return outcome


class CapturedFile(_Model):
    path: str
    """The file's path in the run's working directory."""
    bytes: Count | None
    """The file's size."""
    status: Literal[
        "read",
        "past_file_cap",
        "truncated",
        "unreadable",
        "binary",
        "not_utf8",
        "changed",
        "past_total_cap",
        "unreadable_directory",
    ]
    """read, or why not: past_file_cap (50 files), truncated (65536 bytes), unreadable, binary,
    not_utf8, changed, past_total_cap (262144 bytes), unreadable_directory."""
    reason: str | None
    """The reason in words."""


class OtherModelCall(_Model):
    """A call the harness made on another model while answering.

    The model and its tokens, ``None`` when not reported (method, "Other models, and one grader
    for all").
    """

    model: str
    """The other model, as the harness named it."""
    input_tokens: Count | None
    """Input tokens the harness reported for that call; null when not reported."""
    output_tokens: Count | None
    """Output tokens the harness reported for that call; null when not reported."""


class Draw(_Model):
    index: Count
    """The draw's number within its arm, unique."""
    answer: str | None
    """The graded answer (kept with --keep-transcripts); untrusted, escaped wherever shown."""
    answer_sha256: Sha256 | None
    """Digest of the answer text."""
    score: Unit | None
    """Mean of the draw's valid judge samples; null when lost or unscored."""
    judge_samples: list[JudgeSample]
    """The grader's samples of this draw, in reply order."""
    lost: Lost | None
    """Set when the runner could not measure the draw; it is left out of means and spreads (R-6)."""
    tokens: Tokens | None
    """Token counts of the draw's generation call."""
    checks: list[Check]
    """Deterministic post-checks on the answer; beside the verdict, never part of it."""
    captured_files: list[CapturedFile] | None
    """In capture mode files, each file or unreadable directory the agent left; null otherwise."""
    skill_fired: bool | None
    """Whether the source saw the skill fire on this run; beside the score, never inside it."""
    source_error: str | None
    """An error the source recorded for this run; such runs are kept out of the figures and
    listed."""
    other_model_calls: list[OtherModelCall] | None = Field(
        default=None, exclude_if=lambda v: v is None
    )
    """Calls the harness made on other models while answering, with their tokens; absent when none
    were reported. A run stops when another model gave the answer."""
    stop_reason: str | None = _v015()
    """The provider's stop reason as it said it (end_turn, max_tokens, refusal, stop, length,
    incomplete:max_output_tokens, …)."""
    refusal: Refusal | None = _v015()
    """Set when the model refused."""
    over_budget: bool | None = _v015()
    """True when the reply had more output tokens than the budget asked for."""
    attempts: list[FailedAttempt] | None = _v015()
    """Each failed attempt of this draw before its outcome."""
    harness_events: list[HarnessEvent] | None = _v015()
    """Events the harness printed beside its result (claude -p --verbose)."""
    cost_usd: NonNegative | None = _v015()
    """Cost of the draw's generation call in US dollars, as the source reported it."""
    reasoning: Reasoning | None = _v015()
    """Reasoning the reply carried apart from its answer: length and digest only."""

    @property
    def number(self) -> int:
        """The draw's number as people read it: ``index`` + 1 (the receipt counts from 0)."""
        return self.index + 1

    @field_validator("lost")
    @classmethod
    def _lost_has_no_score(cls, lost: Lost | None, info: ValidationInfo) -> Lost | None:
        """The schema's rule (``$defs/draw`` ``allOf``): a lost draw carries no score (D-9)."""
        score = info.data.get("score")
        if lost is not None and score is not None:
            raise ValueError(f"a lost draw carries no score: expected score null, found {score}")
        return lost


class Generation(_Model):
    sd: NonNegative | None
    """Sample standard deviation of the per-draw scores; null or absent means no recorded spread
    (R-5)."""


class CaseArm(_Model):
    draws: list[Draw]
    """The arm's draws (generations)."""
    generation: Generation | None
    """The recorded spread across draws; a claim the reader recomputes."""


class CaseArms(_Model):
    with_skill: CaseArm
    """One arm of one case."""
    baseline: CaseArm
    """One arm of one case."""
    control: CaseArm | None = Field(default=None, exclude_if=lambda v: v is None)
    """One arm of one case."""

    def named(self) -> list[tuple[str, CaseArm]]:
        """The arms present, by name, in receipt order."""
        return [(name, arm) for name in ARMS if (arm := getattr(self, name)) is not None]


class Case(_Model):
    id: CaseId
    """The case's id, unique in the receipt."""
    prompt: str | None
    """The case's prompt as put to the model; untrusted text."""
    prompt_sha256: Sha256 | None
    """Digest of the prompt text."""
    rubric_sha256: Sha256 | None
    """Digest of the rubric, or of the criteria with their template; an edit to any moves it."""
    threshold: Unit | None
    """The pass threshold the case's mean is held against."""
    category: Annotated[str, StringConstraints(max_length=200)] | None = _v015()
    """The source's category of the case (caveman's fidelity.json)."""
    arms: CaseArms
    """The case's arms: with_skill, baseline, and a control when /arms has one."""
