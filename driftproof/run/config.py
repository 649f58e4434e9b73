"""Settings, results and arm construction (D-16) of ``driftproof run``; the judge's cost."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from driftproof.receipt import Receipt
from driftproof.run.scheduler import MAX_DRAWS, MIN_DRAWS, SETTLE, RetryPolicy
from driftproof.stats.grading_cost import tokens_usd
from driftproof.wording import count_of

#: Receipt bounds: lost reason characters and files named per draw (answer characters:
#: :data:`~driftproof.receipt._bounds.ANSWER_MAX_CHARS`).
REASON_MAX, FILES_MAX = 4_000, 10_000


@dataclass
class RunConfig:
    """Settings of one run (CLI options); delays and timeouts in seconds."""

    model: str
    """The answering model's id, as the lane's API or harness takes it."""
    judge_model: str
    """The judge's model id."""
    judge_price: tuple[float, ...] | None = None
    """(input, output[, cache read, cache write]) USD per million tokens."""
    min_draws: int = MIN_DRAWS
    """Draws per arm before the stopping rule may stop (``--draws`` sets both bounds)."""
    max_draws: int = MAX_DRAWS
    """Draws per arm at most (``--max-draws``)."""
    judge_samples: int = 5
    """Judge samples per answer (the method's five)."""
    concurrency: int = 8
    """Draws in flight at most (a draw is its answer call and its judge calls)."""
    timeout: float = 300.0
    """Whole-attempt deadline of an answer call; an attempt past it is retried as a timeout."""
    judge_timeout: float = 120.0
    """Whole-attempt deadline of a judge call."""
    retry_delays: tuple[float, ...] | None = None
    """A fixed wait schedule instead of :attr:`retry` (tests; hidden ``--retry-delays``)."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_tokens: int = 8192
    """Output budget of each answer call (``--max-output-tokens``)."""
    judge_max_tokens: int = 4096
    """Output budget of each judge call (``--judge-max-output-tokens``)."""
    keep_transcripts: bool = False
    """``--keep-transcripts``: every answer is kept in the receipt, and the judge's replies in
    ``<receipt>.transcripts.jsonl``, for a later regrade."""
    control: str | None = None
    """``--control``: the control arm's fixed instruction; the skill arm is then it, a blank line
    and SKILL.md (D-16). ``None``: no control arm."""
    language: str | None = None
    """``--language``: the suite's translations asked in place of its prompts; ``None``: as
    written."""
    quick: bool = False
    """``--quick``: the preset of :meth:`quick_preset`; the receipt reads unverified."""
    aa: bool = False
    """``--aa``: the baseline arm is a second run of the with-skill arm (receipt ``run.aa``)."""
    margin: float | None = None
    """``--margin``: the non-inferiority margin declared before the run (``run.quality_margin``)."""
    settle: float = SETTLE
    """The stopping rule's settling step: another draw while an arm's score spread (sample sd,
    0..1 scale) moves by this much or more."""
    truncation: str = "lost"
    """What a cut-off answer is: ``lost`` or ``accepted`` (the suite's ``truncation``)."""

    batch: Any = None
    """``--batch``: a :class:`driftproof.run.batch_io.BatchOptions`; ``None``: interactive."""

    def policy(self) -> RetryPolicy:
        """The retry policy in force."""
        return RetryPolicy.fixed(self.retry_delays) if self.retry_delays is not None else self.retry

    @classmethod
    def quick_preset(cls, **kw: Any) -> RunConfig:
        """``--quick``: 2 draws per arm, 2 judge samples, concurrency 4, first case only."""
        return cls(
            **kw | dict(min_draws=2, max_draws=2, judge_samples=2, concurrency=4, quick=True)
        )


@dataclass
class RunResult:
    """What a run returns: the receipt written, and how the run went."""

    receipt_path: Path
    transcripts_path: Path | None
    stopped: str | None = None
    quick_answers: dict[str, dict[str, str | None]] = field(default_factory=dict)
    receipt: Receipt | None = None
    """The receipt as written to ``receipt_path``: sealed, and checked once before the write."""
    unmeasured: str | None = None
    """When an arm has no measured draw in any case (D-17): the one line saying so, with the
    commonest lost cause; the journal is then kept beside the receipt. ``None`` otherwise."""


def now() -> str:
    """The time now in UTC, to the second, as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def judge_usd(price: tuple[float | None, ...] | None, usage: Mapping[str, int]) -> float | None:
    """Grading cost in USD at the frozen price per million tokens, ``None`` when none is frozen.

    ``usage`` holds tokens: ``input`` (all of it), ``output``, and the ``cache_read`` and
    ``cache_creation`` parts of the input; priced by
    :func:`~driftproof.stats.grading_cost.tokens_usd`.
    """
    if price is None:
        return None
    got = (usage.get(k, 0) for k in ("input", "output", "cache_read", "cache_creation"))
    return tokens_usd(price, *got)


class Spend:
    """What a run has cost so far (USD): the judge's usage at its price, plus reported costs."""

    def __init__(self, price: tuple[float, ...] | None) -> None:
        """Start at nothing, pricing the judge at ``price`` (USD per million tokens)."""
        self.price, self.judge, self.reported = price, Counter[str](), 0.0

    def add(self, rec: dict[str, Any]) -> None:
        """Add one draw's judge usage (:func:`judge_usd` reads its tokens) and reported cost."""
        self.judge.update(rec.get("judge_usage") or {})
        self.reported += rec.get("generation_cost_usd") or 0.0

    def usd(self) -> float:
        """The cost so far in USD (the judge at 0 when no price is frozen)."""
        return (judge_usd(self.price, self.judge) or 0.0) + self.reported


def arm_systems(skill_text: str, control: str | None, aa: bool = False) -> dict[str, str | None]:
    """Each arm's system prompt (D-16): baseline none (``aa``: SKILL.md), with-skill SKILL.md.

    With a control, the with-skill arm is the control, a blank line and SKILL.md.
    """
    if aa:
        return {"with_skill": skill_text, "baseline": skill_text}
    if control is None:
        return {"with_skill": skill_text, "baseline": None}
    return {"with_skill": f"{control}\n\n{skill_text}", "baseline": None, "control": control}


def construction(arm: str, control: str | None, aa: bool = False) -> str:
    """How ``arm``'s system prompt is built (receipt ``arms.<arm>.construction``)."""
    skill = "skill" if control is None or aa else "control_then_skill"
    return skill if aa else {"baseline": "bare", "control": "control"}.get(arm, skill)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C: every finished draw (``kept``) is in the ``journal``; the same command resumes."""

    def __init__(self, kept: int, journal: Path) -> None:
        """Say how many finished draws ``journal`` keeps."""
        super().__init__(f"interrupted: {kept} finished draws are kept in {journal}")
        self.kept, self.journal = kept, journal


class StoppedWritten(KeyboardInterrupt):
    """Ctrl-C once the receipt is written and its journals are gone: the run is complete."""

    def __init__(self, result: RunResult) -> None:
        """Carry the finished run's ``result``."""
        super().__init__(f"stopped: the receipt is written to {result.receipt_path}")
        self.result = result


def kept_on_disk_error(exc: OSError, kept: int, journal: Path) -> OSError:
    """``exc``, a file the run could not write, saying where its finished draws are kept.

    ``kept`` finished draws are in ``journal``; the same command resumes the run once the file
    can be written.
    """
    held = f"{count_of(kept, 'finished draw')} {'is' if kept == 1 else 'are'} kept in {journal}"
    resume = "run the same command again to resume once it can be written"
    return OSError(exc.errno, f"{exc.strerror or exc}; {held}: {resume}", exc.filename)
