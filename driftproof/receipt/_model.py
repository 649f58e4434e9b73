"""Pydantic models of the receipt at the current schema version.

Every reader (stats, site, importers, view, diff) takes these models; none
re-parses JSON. The frozen JSON Schema files in ``schemas/`` are the format;
these models are how code holds it (DESIGN.md, "The receipt is the contract").
Fields a source did not record are ``None`` and stay unknown (D-13).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ArmSpec",
    "ArmSpecs",
    "CapturedFile",
    "Case",
    "CaseArm",
    "CaseArms",
    "Check",
    "CURRENT_VERSION",
    "Draw",
    "Economics",
    "Generation",
    "Harness",
    "Judge",
    "JudgeOverhead",
    "JudgePrice",
    "JudgeSample",
    "JudgeScale",
    "Lost",
    "FailedAttempt",
    "HarnessEvent",
    "Refusal",
    "RetryPolicy",
    "Batch",
    "SkillFired",
    "TextRepair",
    "BoundedText",
    "OtherModelCall",
    "Provenance",
    "Receipt",
    "Regrade",
    "Run",
    "Runner",
    "Seal",
    "Skill",
    "Suite",
    "Tokens",
    "Transcripts",
]

#: The schema version this code writes (D-11). Readers accept every frozen version.
CURRENT_VERSION = "0.15"

Level = Literal["UNVERIFIED", "DECLARED", "TESTED"]
ArmName = Literal["with_skill", "baseline", "control"]


def _v015() -> Any:
    """A member 0.15 added: optional in the schema, so absent when unknown (D-13), and left
    out of the dump when ``None`` so a receipt that omits it round-trips to the same seal."""
    return Field(default=None, exclude_if=lambda v: v is None)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Harness(_Model):
    name: str
    """Harness name, e.g. ``claude-code`` or ``codex`` (v0.10)."""
    version: str | None
    """The version the harness binary printed when the run began; never a typed value."""


class Runner(_Model):
    name: str
    """The program that wrote the receipt (``driftproof`` for runs and imports)."""
    version: str | None


class Transcripts(_Model):
    """The file of kept transcripts beside a receipt: its name, sha256 and draws (lines)."""

    file: str
    sha256: str
    draws: int


class RetryPolicy(_Model):
    """How failed calls were retried (v0.15)."""

    max_attempts: int
    """Attempts per call, the first included."""
    max_wait_s: float
    """The longest wait honoured, seconds (a server's retry-after is capped here)."""
    backoff: str
    """The back-off rule in words, e.g. ``exponential with full jitter``."""


class Batch(_Model):
    """A run sent through a provider batch API (v0.15)."""

    provider: str
    batch_ids: list[str]
    file_ids: list[str]


class Run(_Model):
    model: str | None
    """The model that answered; ``None`` when the source did not record it."""
    provider: Literal["anthropic", "openai", "stub", "simulated"] | None
    surface: Literal["api", "cli"] | None
    harness: Harness | None
    capture: Literal["text", "files"] | None
    """Which answer the grader saw (v0.10): the reply (``text``) or the reply plus files left."""
    preset: Literal["quick"] | None
    """``quick`` for a smoke run (v0.11); such a receipt never reads TESTED."""
    started_at: str | None
    finished_at: str | None
    runner: Runner
    generations_per_arm: int | None
    """Planned draws per arm; ``None`` when the source does not establish it (never read as 1)."""
    judge_samples_per_generation: int | None
    """Judge samples per draw; ``None`` when not established (never read as 1)."""
    endpoint_attempts: int | None
    """API requests or CLI invocations the runner made, retries and timeouts included."""
    transcripts: Transcripts | None = Field(default=None, exclude_if=lambda v: v is None)
    """With ``--keep-transcripts``: the kept-transcripts file, sealed here by its sha256."""
    started_at_offset: str | None = _v015()
    """UTC offset (``+HH:MM``) the source wrote ``started_at`` in; ``started_at`` is UTC (v0.15)."""
    finished_at_offset: str | None = _v015()
    """UTC offset the source wrote ``finished_at`` in (v0.15)."""
    max_output_tokens: int | None = _v015()
    """Output-token budget of each answer call (v0.15)."""
    truncation: Literal["lost", "accepted"] | None = _v015()
    """What a cut-off answer is: a lost draw (default) or accepted by the suite (v0.15)."""
    retry: RetryPolicy | None = _v015()
    """Attempt budget and longest honoured wait per call (v0.15)."""
    batch: Batch | None = _v015()
    """Set when the run went through a provider batch API: its batch and file ids (v0.15)."""
    language: str | None = _v015()
    """Language of the prompts and the control (seed 004), v0.15."""


class Skill(_Model):
    name: str
    sha256: str | None
    """SHA-256 of the SKILL.md bytes."""
    tokens: int | None
    """ceil(characters / 4) of SKILL.md (D-14, v0.3.1): a yardstick, not a billing figure."""


class Suite(_Model):
    name: str | None
    sha256: str | None


class JudgeScale(_Model):
    worst: float
    best: float
    step: float | None


class JudgePrice(_Model):
    input_usd_per_mtok: float
    output_usd_per_mtok: float
    cache_read_usd_per_mtok: float | None = _v015()
    """Price of cache-read input tokens; ``None`` when the table has none (v0.15)."""
    cache_write_usd_per_mtok: float | None = _v015()
    """Price of cache-creation input tokens (v0.15)."""
    tier: Literal["interactive", "batch"] | None = _v015()
    """Which price list (v0.15)."""


class Judge(_Model):
    model: str
    provider: str | None
    surface: Literal["api", "cli"] | None
    service: str | None
    sampling: dict[str, Any] | None
    template_sha256: str | None
    """sha256 of the judge prompt template text."""
    scale: JudgeScale
    price: JudgePrice | None
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
    """How the grader's decision came back (v0.15)."""
    template_version: str | None = _v015()
    """Version of the judge prompt template (v0.15)."""
    max_output_tokens: int | None = _v015()
    """Output-token budget of each judge call (v0.15)."""


class SkillFired(_Model):
    """Draws where the skill fired, of draws where firing was observed (v0.15)."""

    fired: int
    observed: int


class ArmSpec(_Model):
    label: str | None
    """The source's name for the arm (e.g. caveman's ``__terse__``)."""
    instruction: str | None
    """The fixed instruction of a control arm."""
    system_prompt_sha256: str | None
    recorded: bool = Field(default=True, exclude_if=lambda v: v is True)
    """False when the source did not record this arm (single-arm import, v0.15)."""
    service: str | None = _v015()
    """The service that answered this arm: base URL, credentials stripped (v0.15)."""
    construction: Literal["bare", "skill", "control", "control_then_skill"] | None = _v015()
    """How the arm's system prompt was built (v0.15)."""
    skill_fired: SkillFired | None = _v015()
    """How often the skill fired in this arm, as the source observed it (v0.15)."""


class ArmSpecs(_Model):
    with_skill: ArmSpec
    baseline: ArmSpec
    control: ArmSpec | None = Field(default=None, exclude_if=lambda v: v is None)


class JudgeSample(_Model):
    score: float | None
    reply_sha256: str | None
    reported_model: str | None
    serving_model: str | None
    invalid_reason: str | None
    reason: str | None = _v015()
    """The grader's stated reason, untrusted text (v0.15)."""


class Lost(_Model):
    reason: str
    kind: str | None = _v015()
    """Class of loss (v0.15): truncated, refusal, error, no_answer, unscored, source_error…"""
    error_class: Literal["transient", "fatal"] | None = _v015()
    """Class of the last error when the loss was an error (v0.15)."""
    status: int | None = _v015()
    """HTTP status of the last error (v0.15)."""


class Refusal(_Model):
    """A refusal as the provider gave it (v0.15)."""

    text: str | None
    category: str | None


class FailedAttempt(_Model):
    """One failed attempt of a call and the wait that followed (v0.15)."""

    error: str
    error_class: Literal["transient", "fatal"]
    status: int | None
    wait_s: float | None


class HarnessEvent(_Model):
    """An event the harness printed beside its result (v0.15)."""

    type: str
    subtype: str | None


class Tokens(_Model):
    input: int | None
    output: int | None
    counted_by: Literal["provider", "o200k_base", "source"]
    cache_read_input: int | None = _v015()
    """Of ``input``: tokens read from the prompt cache (v0.15)."""
    cache_creation_input: int | None = _v015()
    """Of ``input``: tokens written to the prompt cache (v0.15)."""
    reasoning_output: int | None = _v015()
    """Of ``output``: reasoning tokens (v0.15)."""
    total: int | None = _v015()
    """Total tokens as the source reported them when it did not split input and output
    (skill-creator's ``timing.json`` ``total_tokens``), v0.15."""


class Check(_Model):
    name: str
    kind: Literal["regex", "structural", "must_include", "must_not_include"]
    pass_: bool = Field(alias="pass")


class CapturedFile(_Model):
    path: str
    bytes: int | None
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
    reason: str | None


class OtherModelCall(_Model):
    """A call the harness made on another model while answering (method, "Other models,
    and one grader for all"): the model and its tokens, ``None`` when not reported."""

    model: str
    input_tokens: int | None
    output_tokens: int | None


class Draw(_Model):
    index: int
    answer: str | None
    """The answer text: untrusted, escaped wherever shown."""
    answer_sha256: str | None
    score: float | None
    """Mean of the valid judge samples (D-1); ``None`` when unscored or lost."""
    judge_samples: list[JudgeSample]
    lost: Lost | None
    """Set when the runner could not measure this draw; left out of means and spreads (D-9)."""
    tokens: Tokens | None
    checks: list[Check]
    captured_files: list[CapturedFile] | None
    skill_fired: bool | None
    source_error: str | None
    other_model_calls: list[OtherModelCall] | None = Field(
        default=None, exclude_if=lambda v: v is None
    )
    """Calls the harness made on other models for this answer, with their tokens; absent when none."""
    stop_reason: str | None = _v015()
    """The provider's stop reason as given (v0.15)."""
    refusal: Refusal | None = _v015()
    """Set when the model refused (v0.15)."""
    over_budget: bool | None = _v015()
    """True when the reply's output tokens exceeded the budget (v0.15)."""
    attempts: list[FailedAttempt] | None = _v015()
    """Failed attempts before this draw's outcome (v0.15)."""
    harness_events: list[HarnessEvent] | None = _v015()
    """Events the harness printed beside its result (v0.15)."""

    @property
    def is_lost(self) -> bool:
        """True when the draw is unmeasured (lost)."""
        return self.lost is not None


class Generation(_Model):
    sd: float | None


class CaseArm(_Model):
    draws: list[Draw]
    generation: Generation | None


class CaseArms(_Model):
    with_skill: CaseArm
    baseline: CaseArm
    control: CaseArm | None = Field(default=None, exclude_if=lambda v: v is None)


class Case(_Model):
    id: str
    prompt: str | None
    prompt_sha256: str | None
    rubric_sha256: str | None
    threshold: float | None
    arms: CaseArms


class JudgeOverhead(_Model):
    input_tokens: int
    output_tokens: int
    usd: float | None
    judged_draws_counted: int
    """Draws whose grading usage the figures count, each once. A receipt before 0.14 counted
    one draw per case: read from it, this is the number of cases holding a draw."""
    judged_draws_missing_usage: int | None
    """Draws the grader returned no usage for; ``None`` when the receipt (before 0.14) did
    not record it."""
    cache_read_input_tokens: int | None = _v015()
    """Of ``input_tokens``: cache reads (v0.15)."""
    cache_creation_input_tokens: int | None = _v015()
    """Of ``input_tokens``: cache writes (v0.15)."""
    reasoning_output_tokens: int | None = _v015()
    """Of ``output_tokens``: reasoning (v0.15)."""


class Economics(_Model):
    judge_overhead: JudgeOverhead | None


class Provenance(_Model):
    tool: str
    tool_version: str | None
    document: str
    document_sha256: str
    unrecorded: list[str]
    """Each thing the source did not record; it stays unknown (D-13)."""
    partial: bool | None = _v015()
    """True when the source says it is incomplete (v0.15)."""
    notes: list[str] | None = _v015()
    """What the source did that a reader must know (v0.15)."""
    details: dict[str, Any] | None = _v015()
    """The source's own version fields: plugin name and version, and so on (v0.15)."""


class Seal(_Model):
    algorithm: Literal["sha256-rfc8785"]
    sha256: str


class Regrade(_Model):
    """Present only on a regrade's own receipt (method, "Receipts are an open format"):
    the original's seal and runner, the revised tasks, the original grader, and the
    answers read, graded and carried with the calls made, all sealed with it."""

    kind: Literal["rubric", "judge"]
    original_seal: str
    original_runner: Runner
    runner_version: str
    revised_suite_sha256: str | None
    original_grader: dict[str, Any]
    answers_read: int
    answers_graded: int
    answers_carried: int
    logical_judge_calls: int
    """Judge samples requested: one per sample per graded answer."""
    runner_attempts: int
    """API requests or CLI invocations made, retries and timeouts included."""
    judge_ids: list[str] | None = Field(default=None, exclude_if=lambda v: v is None)
    """Every reported and serving judge id across the replies: unique, sorted."""


class TextRepair(_Model):
    """A string made valid Unicode: where, and how many code points became U+FFFD (v0.15)."""

    pointer: str
    replaced: int


class BoundedText(_Model):
    """A text not copied for its size: where it would be, its sha256 and characters (v0.15)."""

    pointer: str
    sha256: str
    chars: int


class Receipt(_Model):
    """A receipt at the current schema version (see ``CURRENT_VERSION``)."""

    schema_: str | None = Field(default=None, alias="$schema")
    schema_version: str
    """The version the file declared (D-11). A receipt read from an older version keeps its own
    version here while holding the current shape: fields that version did not record are ``None``."""
    verification_level: Level
    run: Run
    skill: Skill
    suite: Suite
    judge: Judge | None
    arms: ArmSpecs
    band_source: Literal["legacy", "generation"] | None
    cases: list[Case]
    economics: Economics
    provenance: Provenance | None
    source_figures: dict[str, Any] | None
    uncertainty_unavailable: Literal["aggregates_only"] | None
    regrade: Regrade | None = Field(default=None, exclude_if=lambda v: v is None)
    """Only on a regrade's own receipt; absent otherwise."""
    text_repairs: list[TextRepair] | None = _v015()
    """Strings made valid Unicode before sealing, by JSON pointer (v0.15)."""
    bounded_text: list[BoundedText] | None = _v015()
    """Text too big to copy, by JSON pointer, with sha256 and length (v0.15)."""
    seal: Seal

    @property
    def is_smoke(self) -> bool:
        """A receipt that names a preset is a smoke run, whatever level it carries."""
        return self.run.preset is not None

    @property
    def is_migrated(self) -> bool:
        """True when the file declared an older schema version and was read into the current
        shape; fields that version did not establish are ``None`` (D-11, D-13)."""
        return self.schema_version != CURRENT_VERSION

    @property
    def is_aggregates_only(self) -> bool:
        """True for an import of printed aggregates (v0.13): no band, lift or verdict."""
        return self.uncertainty_unavailable == "aggregates_only"

    def to_json_dict(self) -> dict[str, Any]:
        """The receipt as plain JSON data, aliases applied, ``$schema`` kept only when set."""
        data = self.model_dump(mode="json", by_alias=True)
        for optional in ("$schema", "regrade"):
            if data.get(optional) is None:
                data.pop(optional, None)
        return data
