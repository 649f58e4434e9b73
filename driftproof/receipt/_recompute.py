"""What a reader recomputes from a receipt's own evidence before it trusts it (D-18).

:func:`check_consistency` refuses a receipt for any problem found here, on reading and on
writing. Besides the structure (unique case ids and draw indexes, no score without a judge,
one draw per arm for a ``legacy`` band, no draws in an arm not recorded, a control arm in every
case exactly when the receipt names one), only what the evidence allows is recomputed:

* a draw's score from its valid judge samples (D-1): a draw that records judge samples and
  a score has as its score the mean of the valid ones; a draw with valid samples, not lost,
  has a score; a draw whose every sample is invalid carries none. A draw that records no
  judge sample (an import of per-run scores) has nothing to recompute;
* an arm's recorded spread (``generation.sd``) from its measured draw scores (D-2), when two
  or more were measured;
* an arm's draw indexes: ``0 … n−1``, each once, so a deleted draw shows;
* the level against the provider: a stub or simulated run is never TESTED;
* a judge sample is valid only without an invalid reason (D-1): one that carries both an
  invalid reason and a score is refused (the writer never writes both);
* a draw's ``tokens.answer_output`` is never more than its ``tokens.output``;
* each arm's ``input_tokens_median`` (receipt ``arms``) as the run writes it: the median of the
  provider-counted input tokens of every draw of that arm, null when there are none;
* an A/A calibration (``run.aa``): its baseline arm was built as its with-skill arm (the same
  construction and the same system prompt sha256), as ``driftproof run --aa`` records it;
* for a run (no ``provenance``, draws recorded; an import records its source's planned
  counts, an aggregates-only receipt none of its draws): a recorded
  ``run.generations_per_arm`` is every recorded arm's number of draws, and a recorded
  ``run.judge_samples_per_generation`` is the number of judge samples of every draw that
  was judged (a draw lost before judging has none).

The seal (D-12) only says the bytes are the ones sealed; anyone can seal again. These checks
catch a receipt that disagrees with itself, not one forged consistently.
"""

from __future__ import annotations

import math
import statistics

from driftproof.errors import Problem, ReceiptError
from driftproof.receipt._bounds import MAX_PROBLEMS, quote
from driftproof.receipt._model import CaseArm, ReceiptBody

__all__ = ["SCORE_TOLERANCE", "SD_TOLERANCE", "check_consistency", "recompute_problems"]

#: A recorded draw score may differ from the mean of its valid judge samples by this much
#: (summation order; the lift breakdown uses the same bound).
SCORE_TOLERANCE = 1e-6
#: A recorded spread may differ from the one recomputed from the draw scores by this much:
#: half a unit of the third decimal, so a writer that rounds it to three decimals agrees.
SD_TOLERANCE = 5e-4
_ARMS = ("with_skill", "baseline", "control")
_NEVER_TESTED = ("stub", "simulated")


def check_consistency(r: ReceiptBody, file: str) -> None:
    """Refuse a receipt that disagrees with itself: its structure, then its evidence (D-18).

    Raises:
        ReceiptError: one problem per place (at most ``MAX_PROBLEMS``, then a count of the
            rest), each naming the file, the JSON pointer and what was expected.
    """
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for i, case in enumerate(r.cases):
        if case.id in seen:
            problems.append(
                Problem(
                    file,
                    f"/cases/{i}/id",
                    f"expected unique case ids: duplicate case id {quote(case.id)} "
                    f"(first at /cases/{seen[case.id]})",
                )
            )
        seen.setdefault(case.id, i)
        for arm_name in ("with_skill", "baseline", "control"):
            arm = getattr(case.arms, arm_name)
            if arm is None:
                continue
            base = f"/cases/{i}/arms/{arm_name}"
            idx = [d.index for d in arm.draws]
            if len(set(idx)) != len(idx):
                problems.append(Problem(file, f"{base}/draws", "expected unique draw indices"))
            for j, d in enumerate(arm.draws):
                if d.score is not None and r.judge is None:
                    problems.append(
                        Problem(
                            file,
                            f"{base}/draws/{j}/score",
                            "expected no score: /judge is null, and a score needs a judge",
                        )
                    )
            if r.band_source == "legacy" and len(arm.draws) > 1:
                problems.append(
                    Problem(
                        file,
                        f"{base}/draws",
                        "expected one draw: band_source legacy means one generation per arm",
                    )
                )
            spec = getattr(r.arms, arm_name)
            if spec is not None and not spec.recorded and arm.draws:
                problems.append(
                    Problem(
                        file,
                        f"{base}/draws",
                        f"expected no draws: /arms/{arm_name}/recorded is false "
                        "(the source did not record this arm)",
                    )
                )
        if (case.arms.control is None) != (r.arms.control is None):
            problems.append(
                Problem(
                    file,
                    f"/cases/{i}/arms",
                    "expected a control arm in every case exactly when /arms/control names one",
                )
            )
    if not r.arms.with_skill.recorded and not r.arms.baseline.recorded:
        problems.append(
            Problem(
                file,
                "/arms/baseline/recorded",
                "expected at least one of the with-skill and baseline "
                "arms recorded; both are marked recorded: false",
            )
        )
    problems += recompute_problems(r, file)  # D-18: recomputed, not trusted
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        shown = problems[:MAX_PROBLEMS]
        if len(problems) > MAX_PROBLEMS:
            shown.append(Problem(file, "", f"… and {len(problems) - MAX_PROBLEMS} more problems"))
        raise ReceiptError(f"{problems[0]}{more}", shown)


def recompute_problems(r: ReceiptBody, file: str) -> list[Problem]:
    """Every place where ``r`` disagrees with its own evidence (D-18), in document order.

    Args:
        r: the receipt as the model holds it (already schema-checked and migrated).
        file: the name used in messages.

    Returns:
        One :class:`~driftproof.errors.Problem` per place, each naming its JSON pointer and what
        was expected; empty when the receipt agrees with itself.
    """
    out: list[Problem] = []
    if r.verification_level == "TESTED" and r.run.provider in _NEVER_TESTED:
        out.append(
            Problem(
                file,
                "/verification_level",
                f"expected UNVERIFIED: a {r.run.provider} run (/run/provider) answers with no "
                "model and is never TESTED",
            )
        )
    out += _run_problems(r, file)
    for i, case in enumerate(r.cases):
        for name in _ARMS:
            arm = getattr(case.arms, name)
            if arm is not None:
                out += _arm_problems(arm, f"/cases/{i}/arms/{name}", file)
                spec = getattr(r.arms, name)
                if spec is None or spec.recorded:  # an arm not recorded holds no draws
                    out += _count_problems(r, arm, f"/cases/{i}/arms/{name}", file)
    return out


def _run_problems(r: ReceiptBody, file: str) -> list[Problem]:
    """The receipt-wide records: the A/A flag against the arms' construction, and each arm's
    median reported input tokens against its draws."""
    out: list[Problem] = []
    skill, base = r.arms.with_skill, r.arms.baseline
    if r.run.aa and (
        base.construction != skill.construction
        or base.system_prompt_sha256 != skill.system_prompt_sha256
    ):
        out.append(
            Problem(
                file,
                "/run/aa",
                "expected null: an A/A calibration builds its baseline arm as its with-skill "
                "arm (the same construction and system prompt sha256 in arms), and this "
                "receipt's baseline arm was built otherwise",
            )
        )
    for name in _ARMS:
        spec = getattr(r.arms, name, None)
        if spec is None or spec.input_tokens_median is None:
            continue
        inputs = [
            d.tokens.input
            for c in r.cases
            if getattr(c.arms, name) is not None
            for d in getattr(c.arms, name).draws
            if d.tokens is not None
            and d.tokens.counted_by == "provider"
            and d.tokens.input is not None
        ]
        median = statistics.median(inputs) if inputs else None
        if median != spec.input_tokens_median:
            said = (
                "null: no draw of the arm reports provider-counted input tokens"
                if median is None
                else f"{median:g}, the median of the provider-counted input tokens of the "
                f"arm's {len(inputs)} draws reporting them"
            )
            out.append(
                Problem(
                    file,
                    f"/arms/{name}/input_tokens_median",
                    f"expected {said}, found {spec.input_tokens_median}",
                )
            )
    return out


def _count_problems(r: ReceiptBody, arm: CaseArm, base: str, file: str) -> list[Problem]:
    """A run's recorded draws per arm and judge samples per judged draw against the arm."""
    if r.provenance is not None or r.uncertainty_unavailable is not None:
        return []
    out: list[Problem] = []
    n = r.run.generations_per_arm
    contiguous = sorted(d.index for d in arm.draws) == list(range(len(arm.draws)))
    if n is not None and len(arm.draws) != n and contiguous:  # else the indexes name it
        out.append(
            Problem(
                file,
                f"{base}/draws",
                f"expected {n} draws, the draws per arm in /run/generations_per_arm; found "
                f"{len(arm.draws)}",
            )
        )
    k = r.run.judge_samples_per_generation
    for j, d in enumerate(arm.draws):
        if k is not None and d.judge_samples and len(d.judge_samples) != k:
            out.append(
                Problem(
                    file,
                    f"{base}/draws/{j}/judge_samples",
                    f"expected {k} judge sample{'s' if k != 1 else ''}, the judge samples per "
                    f"draw in /run/judge_samples_per_generation; found {len(d.judge_samples)}",
                )
            )
    return out


def _arm_problems(arm: CaseArm, base: str, file: str) -> list[Problem]:
    out: list[Problem] = []
    indexes = sorted(d.index for d in arm.draws)
    if len(set(indexes)) != len(indexes):
        return out  # repeated indexes are refused already; the arm's figures cannot be read
    if indexes != list(range(len(indexes))):
        missing = sorted(set(range(max(indexes) + 1)) - set(indexes))
        out.append(
            Problem(
                file,
                f"{base}/draws",
                f"expected draw indexes 0 to {len(indexes) - 1}, each once; "
                f"index {missing[0]} is missing",
            )
        )
    for j, d in enumerate(arm.draws):
        for k, s in enumerate(d.judge_samples):
            if s.invalid_reason is not None and s.score is not None:
                out.append(
                    Problem(
                        file,
                        f"{base}/draws/{j}/judge_samples/{k}/score",
                        "expected null: a judge sample with an invalid reason holds no score",
                    )
                )
        t = d.tokens
        if t is not None and t.answer_output is not None and t.output is not None:
            if t.answer_output > t.output:
                out.append(
                    Problem(
                        file,
                        f"{base}/draws/{j}/tokens/answer_output",
                        f"expected at most {t.output}, the draw's output tokens "
                        f"(/tokens/output); found {t.answer_output}",
                    )
                )
        valid = [
            s.score for s in d.judge_samples if s.score is not None and s.invalid_reason is None
        ]
        where = f"{base}/draws/{j}/score"
        if d.score is not None and d.judge_samples and not valid:
            out.append(
                Problem(
                    file, where, "expected null: no judge sample of this draw holds a valid score"
                )
            )
        elif d.score is not None and valid:
            mean = math.fsum(valid) / len(valid)
            if abs(d.score - mean) > SCORE_TOLERANCE:
                out.append(
                    Problem(
                        file,
                        where,
                        f"expected {mean:.6g}, the mean of the draw's {len(valid)} valid judge "
                        f"sample{'s' if len(valid) != 1 else ''}, found {d.score}",
                    )
                )
        elif d.score is None and d.lost is None and valid:
            out.append(
                Problem(
                    file,
                    where,
                    f"expected {math.fsum(valid) / len(valid):.6g}, the mean of the draw's valid "
                    "judge samples, or a lost reason; found null",
                )
            )
    scores = [d.score for d in arm.draws if d.lost is None and d.score is not None]
    sd = arm.generation.sd if arm.generation is not None else None
    if sd is not None and len(scores) >= 2:
        mean = math.fsum(scores) / len(scores)
        recomputed = math.sqrt(math.fsum((x - mean) ** 2 for x in scores) / (len(scores) - 1))
        if abs(sd - recomputed) > SD_TOLERANCE:
            out.append(
                Problem(
                    file,
                    f"{base}/generation/sd",
                    f"expected {recomputed:.4f}, the sample standard deviation of the arm's "
                    f"{len(scores)} measured draw scores, found {sd}",
                )
            )
    return out
