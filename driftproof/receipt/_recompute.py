"""What a reader recomputes from a receipt's own evidence before it trusts it (D-18).

Draw scores against their judge samples (D-1), ``generation.sd`` (D-2), and every count against
the draws held. The seal (D-12) only says the bytes are the ones sealed; these checks catch a
receipt that disagrees with itself, not one forged consistently.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator
from itertools import chain

from driftproof.errors import ReceiptError
from driftproof.receipt._bounds import quote, refuse
from driftproof.receipt._build import sha256_text
from driftproof.receipt._model import CaseArm, Draw, ReceiptBody
from driftproof.wording import ARMS, OFFLINE

#: A recorded draw score may differ from the mean of its valid judge samples by this much
#: (summation order; the lift breakdown uses the same bound).
SCORE_TOLERANCE = 1e-6
#: A recorded spread may differ from the one recomputed from the draw scores by this much:
#: half a unit of the third decimal, so a writer that rounds it to three decimals agrees.
SD_TOLERANCE = 5e-4
#: (JSON pointer, what was expected and found)
_Found = Iterator[tuple[str, str]]


def check_consistency(r: ReceiptBody, file: str) -> None:
    """Refuse a receipt that disagrees with itself: its structure, then its evidence (D-18).

    Raises:
        ReceiptError: one problem per place, in document order (at most ``MAX_PROBLEMS``, then
            a count of the rest), each naming the file, the JSON pointer and what was expected.
    """
    refuse(ReceiptError, file, chain(_structure(r), _evidence(r)))


def _structure(r: ReceiptBody) -> _Found:
    seen: dict[str, int] = {}
    for i, case in enumerate(r.cases):
        if case.id in seen:
            yield (
                f"/cases/{i}/id",
                f"expected unique case ids: duplicate case id {quote(case.id)} "
                f"(first at /cases/{seen[case.id]})",
            )
        seen.setdefault(case.id, i)
        for name, arm in case.arms.named():
            spec = getattr(r.arms, name)
            base = f"/cases/{i}/arms/{name}"
            idx = [d.index for d in arm.draws]
            if len(set(idx)) != len(idx):
                yield f"{base}/draws", "expected unique draw indices"
            for j, d in enumerate(arm.draws):
                if d.score is not None and r.judge is None:
                    yield (
                        f"{base}/draws/{j}/score",
                        "expected no score: /judge is null, and a score needs a judge",
                    )
            if r.band_source == "legacy" and len(arm.draws) > 1:
                yield (
                    f"{base}/draws",
                    "expected one draw: band_source legacy means one generation per arm",
                )
            if spec is not None and not spec.recorded and arm.draws:
                yield (
                    f"{base}/draws",
                    f"expected no draws: /arms/{name}/recorded is false "
                    "(the source did not record this arm)",
                )
        if (case.arms.control is None) != (r.arms.control is None):
            yield (
                f"/cases/{i}/arms",
                "expected a control arm in every case exactly when /arms/control names one",
            )
    if not r.arms.with_skill.recorded and not r.arms.baseline.recorded:
        yield (
            "/arms/baseline/recorded",
            "expected at least one of the with-skill and baseline "
            "arms recorded; both are marked recorded: false",
        )
    # the kept transcripts are read beside the receipt: a path (sub/x, /etc/passwd) is no name
    kept = r.run.transcripts.file if r.run.transcripts is not None else None
    if kept is not None and (kept in ("", ".", "..") or not set(kept).isdisjoint("/\\\0")):
        yield (
            "/run/transcripts/file",
            f"expected a file name beside the receipt (no folder, not empty), found {quote(kept)}",
        )


def _evidence(r: ReceiptBody) -> _Found:
    """Every place where ``r`` disagrees with its own evidence (D-18), in document order."""
    if r.verification_level == "TESTED" and r.run.provider in OFFLINE:
        yield (
            "/verification_level",
            f"expected UNVERIFIED: a {r.run.provider} run (/run/provider) answers with no "
            "model and is never TESTED",
        )
    yield from _run_records(r)
    yield from _on_scale(r)
    for i, case in enumerate(r.cases):
        for name, arm in case.arms.named():
            spec = getattr(r.arms, name)
            yield from _arm(arm, f"/cases/{i}/arms/{name}")
            if spec is None or spec.recorded:  # an arm not recorded holds no draws
                yield from _counts(r, arm, f"/cases/{i}/arms/{name}")
    yield from _draw_counts(r)


def _on_scale(r: ReceiptBody) -> _Found:
    """The judge's scale runs from worst up to best, its step no wider, every score on it.

    Lost draws are completed between worst and best (D-9, R-6), and helps and hurts read a
    higher score as better (D-6), so a scale upside down, or scores off it, cannot be read.
    """
    if r.judge is None:
        return
    worst, best = r.judge.scale.worst, r.judge.scale.best
    if not worst < best:
        yield (
            "/judge/scale",
            f"expected the worst score below the best (a higher score is a better one), "
            f"found worst {worst:g} and best {best:g}",
        )
        return
    step = r.judge.scale.step
    if step is not None and not step <= best - worst:  # the simulations round scores to it
        yield (
            "/judge/scale/step",
            f"expected a grid step no wider than the scale, {worst:g} to {best:g}, found {step:g}",
        )
    for at, _, _, d in r.draws_at():
        scored = [("/score", d.score)]
        scored += [(f"/judge_samples/{k}/score", s.score) for k, s in enumerate(d.judge_samples)]
        for where, x in scored:
            if x is not None and not worst - SCORE_TOLERANCE <= x <= best + SCORE_TOLERANCE:
                yield (
                    f"{at}{where}",
                    f"expected a score on the judge's scale, {worst:g} to {best:g} "
                    f"(/judge/scale), found {x:g}",
                )


def _held(r: ReceiptBody, arm: str) -> int:
    """The draws ``r`` holds in ``arm`` (``with_skill``, ``baseline``, ``control``), all cases."""
    return sum(len(a.draws) for c in r.cases if (a := getattr(c.arms, arm)) is not None)


def _run_records(r: ReceiptBody) -> _Found:
    """The A/A flag against the arms' construction, each arm's median input tokens."""
    skill, base = r.arms.with_skill, r.arms.baseline
    if r.run.aa and (
        base.construction != skill.construction
        or base.system_prompt_sha256 != skill.system_prompt_sha256
    ):
        yield (
            "/run/aa",
            "expected null: an A/A calibration builds its baseline arm as its with-skill "
            "arm (the same construction and system prompt sha256 in arms), and this "
            "receipt's baseline arm was built otherwise",
        )
    for name in ARMS:
        spec = getattr(r.arms, name)
        rate = spec.skill_fired if spec is not None else None
        if rate is not None and rate.observed > (held := _held(r, name)):
            yield (
                f"/arms/{name}/skill_fired/observed",
                f"expected at most {held} (the arm's draws), found {rate.observed}",
            )
        if rate is not None and rate.fired > rate.observed:
            yield (
                f"/arms/{name}/skill_fired/fired",
                f"expected at most {rate.observed} (the observed draws), found {rate.fired}",
            )
        if spec is None or spec.input_tokens_median is None:
            continue
        inputs = [
            t.input
            for c in r.cases
            if (a := getattr(c.arms, name)) is not None
            for d in a.draws
            if (t := d.tokens) is not None and t.counted_by == "provider" and t.input is not None
        ]
        median = statistics.median(inputs) if inputs else None
        if median != spec.input_tokens_median:
            said = (
                "null: no draw of the arm reports provider-counted input tokens"
                if median is None
                else f"{median:g}, the median of the provider-counted input tokens of the "
                f"arm's {len(inputs)} draws reporting them"
            )
            yield (
                f"/arms/{name}/input_tokens_median",
                f"expected {said}, found {spec.input_tokens_median}",
            )


def _draw_counts(r: ReceiptBody) -> _Found:
    """The grading cost's and a regrade's counts of draws against the draws ``r`` holds.

    Each draw is counted at most once in ``judged_draws_counted`` or
    ``judged_draws_missing_usage``, never in both; a regrade reads each draw its receipt holds
    once, and grades or copies it.
    """
    held = sum(_held(r, name) for name in ARMS)
    oh, at = r.economics.judge_overhead, "/economics/judge_overhead"
    if oh is not None and oh.judged_draws_counted > held:
        yield (
            f"{at}/judged_draws_counted",
            f"expected at most {held} (the receipt's draws), found {oh.judged_draws_counted}",
        )
    counted = min(oh.judged_draws_counted, held) if oh is not None else 0
    missing = oh.judged_draws_missing_usage if oh is not None else None
    if missing is not None and missing > held - counted:
        yield (
            f"{at}/judged_draws_missing_usage",
            f"expected at most {held - counted} (the receipt's {held} draws less the "
            f"{counted} whose usage is counted), found {missing}",
        )
    rg = r.regrade
    for field in ("answers_read", "answers_graded", "answers_carried") if rg else ():
        if (n := getattr(rg, field)) > held:
            yield f"/regrade/{field}", f"expected at most {held} (the receipt's draws), found {n}"


def _counts(r: ReceiptBody, arm: CaseArm, base: str) -> _Found:
    """A run's recorded draws per arm and judge samples per judged draw against the arm.

    A TESTED run's scored draw holds judge samples even where their count is not recorded.
    """
    if r.provenance is not None or r.uncertainty_unavailable is not None:
        return
    n, k = r.run.generations_per_arm, r.run.judge_samples_per_generation
    contiguous = sorted(d.index for d in arm.draws) == list(range(len(arm.draws)))
    if n is not None and len(arm.draws) != n and contiguous:  # else the indexes name it
        yield (
            f"{base}/draws",
            f"expected {n} draws, the draws per arm in /run/generations_per_arm; found "
            f"{len(arm.draws)}",
        )
    tested = r.verification_level == "TESTED"
    for j, d in enumerate(arm.draws):
        if k is not None and not holds_its_judge_samples(d, k):
            yield (
                f"{base}/draws/{j}/judge_samples",
                f"expected {k} judge sample{'s' if k != 1 else ''}, the judge samples per "
                f"draw in /run/judge_samples_per_generation; found {len(d.judge_samples)}",
            )
        elif tested and k is None and d.score is not None and not d.judge_samples:
            yield (  # a run's score is the mean of its judge samples: none is nothing to check
                f"{base}/draws/{j}/judge_samples",
                "expected the judge samples this draw's score is the mean of (a TESTED run's "
                "draw is scored by its judge, and a reader works the score out again); found none",
            )


def _arm(arm: CaseArm, base: str) -> _Found:
    """An arm's draw indexes, checks, judge samples, token parts, draw scores and spread."""
    indexes = sorted(d.index for d in arm.draws)
    if len(set(indexes)) != len(indexes):
        return  # repeated indexes are refused already; the arm's figures cannot be read
    if indexes != list(range(len(indexes))):
        # distinct and sorted: the first position holding another index is the first missing
        missing = next(i for i, x in enumerate(indexes) if x != i)
        yield (
            f"{base}/draws",
            f"expected draw indexes 0 to {len(indexes) - 1}, each once; index {missing} is missing",
        )
    for j, d in enumerate(arm.draws):
        if d.answer is not None and d.answer_sha256 not in (None, sha256_text(d.answer)):
            yield (
                f"{base}/draws/{j}/answer_sha256",
                "expected the sha256 of the draw's answer (/answer), found another digest",
            )
        for k, c in enumerate(d.checks):
            if c.outcome is not None and (c.outcome == "pass") != c.pass_:
                yield (
                    f"{base}/draws/{j}/checks/{k}/outcome",
                    f"expected {'pass' if c.pass_ else 'fail or error'}, as the check's pass "
                    f"(/pass) is {str(c.pass_).lower()}; found {c.outcome}",
                )
        for k, s in enumerate(d.judge_samples):
            if s.invalid_reason is not None and s.score is not None:
                yield (
                    f"{base}/draws/{j}/judge_samples/{k}/score",
                    "expected null: a judge sample with an invalid reason holds no score",
                )
        t = d.tokens
        if (
            t
            and t.answer_output is not None
            and t.output is not None
            and t.answer_output > t.output
        ):
            yield (
                f"{base}/draws/{j}/tokens/answer_output",
                f"expected at most {t.output}, the draw's output tokens "
                f"(/tokens/output); found {t.answer_output}",
            )
        yield from draw_score_problems(d, f"{base}/draws/{j}/score")
    scores = [d.score for d in arm.draws if d.lost is None and d.score is not None]
    sd = arm.generation.sd if arm.generation is not None else None
    if sd is not None and len(scores) >= 2:
        mean = math.fsum(scores) / len(scores)
        recomputed = math.sqrt(math.fsum((x - mean) ** 2 for x in scores) / (len(scores) - 1))
        if abs(sd - recomputed) > SD_TOLERANCE:
            yield (
                f"{base}/generation/sd",
                f"expected {recomputed:.4f}, the sample standard deviation of the arm's "
                f"{len(scores)} measured draw scores, found {sd}",
            )


def draw_score_problems(d: Draw, at: str) -> _Found:
    """A draw's score against the mean of its valid judge samples (D-1), as a reader checks it.

    A run resuming its journal checks each draw so, before the seal would.

    Yields:
        (``at``, what was expected and found) for a score that does not follow from them.
    """
    valid = [s.score for s in d.judge_samples if s.score is not None and s.invalid_reason is None]
    score, mean = d.score, math.fsum(valid) / len(valid) if valid else None
    if score is not None and d.judge_samples and mean is None:
        yield at, "expected null: no judge sample of this draw holds a valid score"
    elif score is not None and mean is not None and abs(score - mean) > SCORE_TOLERANCE:
        yield (
            at,
            f"expected {mean:.6g}, the mean of the draw's {len(valid)} valid judge "
            f"sample{'s' if len(valid) != 1 else ''}, found {score}",
        )
    elif score is None and d.lost is None and mean is not None:
        yield (
            at,
            f"expected {mean:.6g}, the mean of the draw's valid judge samples, or a lost "
            "reason; found null",
        )


def holds_its_judge_samples(d: Draw, k: int) -> bool:
    """Whether ``d`` holds the ``k`` judge samples a judged draw holds (D-1).

    A lost draw may stop before its judge; one with a score or any judge sample was judged
    ``k`` times.
    """
    return not (d.judge_samples or d.score is not None) or len(d.judge_samples) == k
