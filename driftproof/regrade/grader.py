"""The regrade's judge lane: each kept answer graded again as ``run`` grades it."""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any

from driftproof.errors import RefusalError
from driftproof.receipt import Case, Draw, Judge, JudgeSample, Receipt, TextRepair, build_draw
from driftproof.regrade.identity import (
    SampleIdentity,
    check_reply_identity,
    identity_bounds_problem,
)
from driftproof.run import judge as J
from driftproof.run.grading import Usage, failed_sample, judge_sample, unscored
from driftproof.run.providers.base import DrawId, Provider
from driftproof.run.scheduler import Counter, LostDraw, RetryPolicy, attempts, with_retries
from driftproof.run.sealing import case_arm, draw_repairs, judge_overhead
from driftproof.run.suite import Suite
from driftproof.run.suite_fields import SuiteCase
from driftproof.stats.grading_cost import price_tuple
from driftproof.wording import draw_words

#: What a regrade carries from each graded draw as it is.
_DRAW_KEPT = ("tokens", "captured_files", "skill_fired", "source_error")


def refused(plain: bool, how: str = "refused") -> str:
    """How a refusal (or a stop: ``how``) begins; a regrade by another judge is no rubric one."""
    return f"{'regrade' if plain else 'rubric regrade'} {how}"


@dataclass
class Grader:
    """The regrade's judge lane; ``allowed``: the dated models the original's grader answered as."""

    judge: Provider
    model: str
    samples: int
    max_tokens: int
    retry: RetryPolicy
    plain: bool
    allowed: frozenset[str]
    timeout: float = 120.0
    attempts: Counter = field(default_factory=Counter)
    identities: list[SampleIdentity] = field(default_factory=list)
    read: int = 0
    graded: int = 0
    replies: int = 0
    #: Each graded draw's judge usage, as ``run`` journals it (``judge_usage``).
    usages: list[dict[str, Any]] = field(default_factory=list)
    lost: collections.Counter[str] = field(default_factory=collections.Counter)
    #: The judge replies and reasons made valid Unicode, as ``run`` records them.
    repairs: list[TextRepair] = field(default_factory=list)
    #: Where each graded draw is in the receipt (its original judge samples are replaced).
    graded_at: set[str] = field(default_factory=set)

    @property
    def stub(self) -> bool:
        """The stub judge: its identity is not checked and its receipt is UNVERIFIED."""
        return self.judge.name == "stub"

    def counts(self) -> dict[str, int]:
        """The counts :class:`Regrade` seals and :class:`RegradeResult` returns, by field name."""
        return {
            "answers_read": self.read,
            "answers_graded": self.graded,
            "answers_carried": self.read - self.graded,  # every lost draw, carried as it is
            "logical_judge_calls": self.graded * self.samples,  # a refused sample writes nothing
            "runner_attempts": self.attempts.value,
        }

    def overhead(self, judge: Judge | None) -> dict[str, Any]:
        """``economics.judge_overhead`` as ``run`` sums it, at ``judge``'s recorded price."""
        p = judge.price if judge is not None else None
        return judge_overhead(self.usages, None if p is None else price_tuple(p))

    def cases(self, original: Receipt, revised: Suite, file: str) -> list[dict[str, Any]]:
        """The regrade receipt's cases (:meth:`case`): ``original``'s, under ``revised``'s tasks."""
        tasks = {c.id: c for c in revised.cases}
        aa = original.run.aa
        return [self.case(c, tasks[c.id], ci, file, aa=aa) for ci, c in enumerate(original.cases)]

    def case(
        self, case: Case, task: SuiteCase, ci: int, file: str, *, aa: bool | None
    ) -> dict[str, Any]:
        """Case ``ci`` of the regrade receipt: every arm's draws graded or carried.

        ``file``: the original receipt's path, which a refusal of a judge reply names with the
        pointer of the answer graded; ``aa``: the original is an A/A calibration (its arms are
        named as its two runs).
        """
        arms = {
            name: case_arm(
                [
                    self.draw(d, task, f"{file}: {at}/{di}/answer: {words}", f"{at}/{di}", name)
                    for di, d in enumerate(arm.draws)
                    for words in [draw_words(case.id, name, d.index, aa=aa)]
                ]
            )
            for name, arm in case.arms.named()
            for at in [f"/cases/{ci}/arms/{name}/draws"]
        }
        return {
            "id": case.id,
            "prompt": case.prompt,
            "prompt_sha256": case.prompt_sha256,
            "rubric_sha256": J.rubric_sha256(task),
            "threshold": task.threshold,
            "arms": arms,
        }

    def draw(self, d: Draw, task: SuiteCase, where: str, at: str, arm: str) -> Draw:
        """A kept draw graded again; a lost draw carried as it is.

        ``at``: its JSON pointer; ``arm``: its arm's key. Each judge call is identified as
        ``run`` identifies it (case, arm, draw, sample, attempt), which a seeded lane seeds from.
        """
        self.read += 1
        if d.lost is not None:
            return d
        rec: dict[str, Any] = {}  # text repairs, noted as run notes them
        usage = Usage()  # counted as it is summed: a Ctrl-C says what was spent
        self.usages.append({"judge_usage": usage.doc})
        graded = [
            self._sample(
                task, d.answer or "", where, DrawId(task.id, arm, d.index, sample=k), rec, usage
            )
            for k in range(self.samples)
        ]
        self.repairs += draw_repairs(rec, at)
        self.graded_at.add(at)
        samples = [s for s, _ in graded]
        self.graded += 1
        if (lost := unscored(samples)) is not None:  # counted by its first sample's cause
            self.lost[next(why for _, why in graded if why)] += 1
        # Checks are carried, never run again: they belong to the answer they ran on.
        return build_draw(
            d.index,
            answer=d.answer,
            judge_samples=samples,
            lost_reason=lost,
            lost_kind=None if lost is None else "unscored",
            checks=d.checks,
            **{k: getattr(d, k) for k in _DRAW_KEPT},
        )

    def _sample(
        self,
        task: SuiteCase,
        answer: str,
        where: str,
        draw_id: DrawId,
        rec: dict[str, Any],
        usage: Usage,
    ) -> tuple[JudgeSample, str | None]:
        """Judge sample ``draw_id.sample`` and why it has no score; its usage summed into ``usage``.

        Why: a failed call's last error without its attempts, or the reply's invalid reason. Its
        reply and reason are made valid Unicode as ``run`` makes them, noted in ``rec``.
        """
        system, user = J.judge_prompt(task, answer)
        call = attempts(  # through the structured channel the run graded with
            self.judge,
            draw_id,
            model=self.model,
            system=system,
            prompt=user,
            timeout=self.timeout,
            max_tokens=self.max_tokens,
            schema=J.decision_schema(task),
        )
        on_attempt = self.attempts.add if self.judge.makes_endpoint_attempts else None
        try:
            jr = with_retries(usage.counted(call), policy=self.retry, on_attempt=on_attempt)
        except LostDraw as exc:
            cause = f"judge call failed: {getattr(exc.__cause__, 'reason', exc.reason)}"[:2000]
            return failed_sample(exc), cause
        self.replies += 1
        usage.add(jr)
        # as run reads and keeps it (D-19 endings; a structured decision as its canonical JSON)
        sample, _text = judge_sample(
            task, jr, draw_id.sample or 0, rec, self.max_tokens, self.model
        )
        why = identity_bounds_problem([jr.reported_model], jr.serving_model)
        if why is None:
            reported = tuple(x for x in (jr.reported_model,) if x)
            ident = SampleIdentity(reported, jr.serving_model)
            self.identities.append(ident)
            why = check_reply_identity(self.model, ident, stub=self.stub)
        if why is None and not (self.stub or self.plain) and jr.reported_model not in self.allowed:
            why = (
                f"the grader answered as {jr.reported_model!r}; "
                f"the original answered as {', '.join(sorted(self.allowed))}"
            )
        if why is not None:
            raise RefusalError(f"{refused(self.plain)}: {where}: {why}")
        return sample, None if sample.score is not None else str(sample.invalid_reason)
