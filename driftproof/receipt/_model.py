"""Pydantic models of the receipt at the current schema version.

Every reader (stats, site, importers, view, diff) takes these models; none
re-parses JSON. The frozen JSON Schema files in ``schemas/`` are the format;
these models are how code holds it (DESIGN.md, "The receipt is the contract").
Fields a source did not record are ``None`` and stay unknown (D-13).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, field_validator

from driftproof.receipt._model_base import Count, NonNegative, Positive, Sha256, _Model, _v015
from driftproof.receipt._model_draw import (
    CapturedFile,
    Case,
    CaseArm,
    CaseArms,
    Check,
    Draw,
    FailedAttempt,
    Generation,
    HarnessEvent,
    JudgeSample,
    Lost,
    OtherModelCall,
    Reasoning,
    Refusal,
    Tokens,
)
from driftproof.receipt._model_figures import (
    PrintedAgent,
    PrintedFigure,
    PrintedRow,
    SourceFigures,
    SourceFile,
)
from driftproof.receipt._model_run import (
    ArmSpec,
    ArmSpecs,
    Batch,
    Harness,
    Judge,
    JudgePrice,
    JudgeScale,
    RetryPolicy,
    Run,
    Runner,
    Skill,
    SkillFired,
    Suite,
    Transcripts,
)
from driftproof.receipt._model_source import SourceReport
from driftproof.wording import ARMS, COMPARED_ARMS

__all__ = [
    "ArmSpec",
    "ArmSpecs",
    "Batch",
    "BoundedText",
    "CURRENT_VERSION",
    "CapturedFile",
    "Case",
    "CaseArm",
    "CaseArms",
    "Check",
    "Draw",
    "Economics",
    "FailedAttempt",
    "Generation",
    "Harness",
    "HarnessEvent",
    "Judge",
    "JudgeOverhead",
    "JudgePrice",
    "JudgeSample",
    "JudgeScale",
    "Lost",
    "OtherModelCall",
    "PrintedAgent",
    "PrintedFigure",
    "PrintedRow",
    "Provenance",
    "Receipt",
    "ReceiptBody",
    "Reasoning",
    "Refusal",
    "Regrade",
    "RetryPolicy",
    "Run",
    "Runner",
    "Seal",
    "Skill",
    "SkillFired",
    "SourceFigures",
    "SourceFile",
    "Suite",
    "TextRepair",
    "Tokens",
    "Transcripts",
]

#: The schema version this code writes (D-11). Readers accept every frozen version.
CURRENT_VERSION = "0.16"

Level = Literal["UNVERIFIED", "DECLARED", "TESTED"]
#: Every frozen schema version, oldest first (D-11); a test holds it to ``known_versions()``.
SchemaVersion = Literal["0.3.1", "0.10", "0.11", "0.13", "0.14", "0.15", "0.16"]


class JudgeOverhead(_Model):
    input_tokens: Count
    """Grader input tokens counted."""
    output_tokens: Count
    """Grader output tokens counted."""
    usd: NonNegative | None
    """Those tokens at judge.price."""
    judged_draws_counted: Count
    """Draws whose grading usage is counted, each once; a draw a regrade copied is not."""
    judged_draws_missing_usage: Count | None
    """Draws the grader returned no usage for; null when not recorded (before 0.14)."""
    cache_read_input_tokens: Count | None = _v015()
    """Of input_tokens: cache reads."""
    cache_creation_input_tokens: Count | None = _v015()
    """Of input_tokens: cache writes."""
    reasoning_output_tokens: Count | None = _v015()
    """Of output_tokens: reasoning."""


class Economics(_Model):
    judge_overhead: JudgeOverhead | None
    """The grader's cost: the usage its answered samples reported, at the frozen price; a floor on
    what grading was billed."""


class Provenance(_Model):
    tool: str
    """The source tool."""
    tool_version: str | None
    """The source tool's version, when it recorded one."""
    document: str
    """The converted document, as given."""
    document_sha256: Sha256
    """Digest of the converted document."""
    unrecorded: list[str]
    """Each thing the source did not record; it stays unknown."""
    partial: bool | None = _v015()
    """True when the source document says it is incomplete."""
    notes: list[str] | None = _v015()
    """What the source did that a reader must know."""
    details: dict[str, Any] | None = _v015()
    """The source's own version fields: plugin name and version, and so on."""


class Seal(_Model):
    algorithm: Literal["sha256-rfc8785"]
    """sha256-rfc8785."""
    sha256: Sha256
    """SHA-256 of the receipt's RFC 8785 canonical JSON without seal."""


class Regrade(_Model):
    """Present only on a regrade's own receipt (method, "Receipts are an open format").

    The original's seal and runner, the revised tasks, the original grader, and the answers
    read, graded and carried with the calls made, all sealed with it.
    """

    kind: Literal["rubric", "judge"]
    """rubric (revised rubric or criteria) or judge (a plain judge regrade)."""
    original_seal: Sha256
    """The original receipt's seal."""
    original_runner: Runner
    """The runner that wrote the original."""
    runner_version: str
    """The runner version that made the regrade."""
    revised_suite_sha256: Sha256 | None
    """Digest of the revised suite."""
    original_grader: dict[str, Any]
    """The original grader's recorded setting."""
    answers_read: Count
    """Answers read from the original."""
    answers_graded: Count
    """Answers that reached the grader."""
    answers_carried: Count
    """Answers copied from the original because they could not be graded."""
    logical_judge_calls: Count
    """Logical judge calls: one per sample per graded answer."""
    runner_attempts: Count
    """API requests or CLI invocations made, retries and timeouts included."""
    judge_ids: Annotated[list[str], Field(json_schema_extra={"uniqueItems": True})] | None = Field(
        default=None, exclude_if=lambda v: v is None
    )
    """Every reported and serving judge id across the regrade's replies, unique and in lexical
    order."""

    @field_validator("judge_ids")
    @classmethod
    def _judge_ids_unique(cls, ids: list[str] | None) -> list[str] | None:
        """The schema's ``uniqueItems`` on judge_ids."""
        if ids is not None and len(set(ids)) != len(ids):
            twice = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"expected unique judge ids, found {twice} more than once")
        return ids


class TextRepair(_Model):
    """A string made valid Unicode: where, and how many code points became U+FFFD (v0.15)."""

    pointer: str
    """Where the string is in the receipt."""
    replaced: Positive
    """How many code points (lone surrogates, bad bytes) became U+FFFD."""


class BoundedText(_Model):
    """A text not copied for its size: where it would be, its sha256 and characters (v0.15)."""

    pointer: str
    """Where the text would be (null there)."""
    sha256: Sha256
    """Digest of its UTF-8 bytes."""
    chars: Count
    """Its length."""


class ReceiptBody(_Model):
    """Every member of a receipt but its seal: what a writer builds and the seal covers (D-12).

    :func:`~driftproof.receipt.write_receipt` seals it, checks it and writes it, and returns
    the :class:`Receipt`.
    """

    schema_: str | None = Field(default=None, alias="$schema", exclude_if=lambda v: v is None)
    """Optional pointer to the schema this receipt validates against, for editors."""
    schema_version: SchemaVersion
    """The frozen schema this receipt validates against; it picks the file."""
    verification_level: Level
    """UNVERIFIED, DECLARED or TESTED; FORMAL is reserved and refused. Only TESTED earns a
    verdict."""
    run: Run
    """What produced the answers."""
    skill: Skill
    """The skill measured, by content."""
    suite: Suite
    """The test cases, by content."""
    judge: Judge | None
    """The fixed grader and its recorded setting; null when nothing was graded (an import of
    figures)."""
    arms: ArmSpecs
    """How each arm was set up."""
    band_source: Literal["legacy", "generation"] | None
    """legacy (one generation per arm, judged several times: the band measures the judge) or
    generation (several draws: the band is across draws); null when not established."""
    cases: list[Case]
    """The eval cases."""
    economics: Economics
    """Costs, apart from every figure about the skill."""
    provenance: Provenance | None
    """What an imported receipt was converted from; null for a run."""
    source_figures: SourceFigures | None
    """Figures an aggregates-only source printed, as printed, with the repository, commit and each
    file's git blob sha1. The schema allows any object; a reader takes the members below, as
    the importers write them, and refuses any other."""
    uncertainty_unavailable: Literal["aggregates_only"] | None
    """aggregates_only: no per-run score, so no band, no lift and no verdict."""
    regrade: Regrade | None = Field(default=None, exclude_if=lambda v: v is None)
    """Only on a regrade's own receipt: what it read, graded, carried and called, sealed with it."""
    text_repairs: list[TextRepair] | None = _v015()
    """Strings made valid Unicode before sealing."""
    bounded_text: list[BoundedText] | None = _v015()
    """Text too big to copy: hash and length kept, the text not."""
    source_report: SourceReport | None = _v015()
    """An imported receipt's source's own figures, decision, stages and evaluated revision, as
    it recorded them; the source's, never this receipt's verdict."""

    @field_validator("run")
    @classmethod
    def _preset_is_not_tested(cls, run: Run, info: ValidationInfo) -> Run:
        """The schema's preset rule (one of its ``allOf``, v0.11)."""
        if run.preset is not None and info.data.get("verification_level") == "TESTED":
            raise ValueError(
                "a receipt that names a preset cannot read TESTED (v0.11): run.preset is "
                f"{run.preset!r}, expected verification_level UNVERIFIED or DECLARED"
            )
        return run

    @field_validator("uncertainty_unavailable")
    @classmethod
    def _aggregates_carry_figures(cls, mark: str | None, info: ValidationInfo) -> str | None:
        """The schema's aggregates-only rule (one of its ``allOf``, v0.13)."""
        if mark == "aggregates_only" and info.data.get("source_figures", {}) is None:
            raise ValueError(
                "a receipt marked uncertainty_unavailable aggregates_only carries the figures "
                "the source printed in source_figures (v0.13): expected source_figures an "
                "object, found null"
            )
        return mark

    @property
    def is_smoke(self) -> bool:
        """A receipt that names a preset is a smoke run, whatever level it carries."""
        return self.run.preset is not None

    @property
    def is_migrated(self) -> bool:
        """True when the file declared an older version; what it lacked is ``None`` (D-11, D-13)."""
        return self.schema_version != CURRENT_VERSION

    @property
    def is_simulated(self) -> bool:
        """True when the demo's simulated provider made the answers or the judge samples."""
        return self.run.provider == "simulated" or (
            self.judge is not None and self.judge.provider == "simulated"
        )

    @property
    def is_stub(self) -> bool:
        """True when the offline stub made the answers or the judge samples: fixed, no model's."""
        return "stub" in (self.run.provider, self.judge.provider if self.judge else None)

    @property
    def arm_names(self) -> tuple[str, ...]:
        """Its arms, in receipt order: with_skill, baseline, and control when /arms names one."""
        return ARMS if self.arms.control is not None else COMPARED_ARMS

    @property
    def is_aggregates_only(self) -> bool:
        """True for an import of printed aggregates (v0.13): no band, lift or verdict."""
        return self.uncertainty_unavailable == "aggregates_only"

    def to_json_dict(self, *, cases: bool = True) -> dict[str, Any]:
        """The receipt as plain JSON data, aliases applied, ``$schema`` kept only when set.

        Args:
            cases: false to leave the ``cases`` member out (a writer streams them).
        """
        return self.model_dump(mode="json", by_alias=True, exclude=None if cases else {"cases"})

    def draws_at(self) -> Iterator[tuple[str, Case, str, Draw]]:
        """Every draw with its JSON pointer, its case and its arm's name, in document order."""
        for i, case in enumerate(self.cases):
            for name, arm in case.arms.named():
                for j, d in enumerate(arm.draws):
                    yield f"/cases/{i}/arms/{name}/draws/{j}", case, name, d


class Receipt(ReceiptBody):
    """A receipt at the current schema version (see ``CURRENT_VERSION``), sealed (D-12)."""

    seal: Seal
    """The receipt's seal (see Sealing)."""
