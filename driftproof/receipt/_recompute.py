"""What a reader recomputes from a receipt's own evidence before it trusts it (D-18).

Private to :mod:`driftproof.receipt._load`, which refuses a receipt for any problem found
here. Only what the evidence allows is recomputed:

* a draw's score from its valid judge samples (D-1): a draw that records judge samples and
  a score has as its score the mean of the valid ones; a draw with valid samples, not lost,
  has a score; a draw whose every sample is invalid carries none. A draw that records no
  judge sample (an import of per-run scores) has nothing to recompute;
* an arm's recorded spread (``generation.sd``) from its measured draw scores (D-2), when two
  or more were measured;
* an arm's draw indexes: ``0 … n−1``, each once, so a deleted draw shows;
* the level against the provider: a stub or simulated run is never TESTED.

The seal (D-12) only says the bytes are the ones sealed; anyone can seal again. These checks
catch a receipt that disagrees with itself, not one forged consistently.
"""

from __future__ import annotations

import math

from driftproof.errors import Problem
from driftproof.receipt._model import CaseArm, Receipt

__all__ = ["SCORE_TOLERANCE", "SD_TOLERANCE", "recompute_problems"]

#: A recorded draw score may differ from the mean of its valid judge samples by this much
#: (summation order; the lift breakdown uses the same bound).
SCORE_TOLERANCE = 1e-6
#: A recorded spread may differ from the one recomputed from the draw scores by this much:
#: half a unit of the third decimal, so a writer that rounds it to three decimals agrees.
SD_TOLERANCE = 5e-4
_ARMS = ("with_skill", "baseline", "control")
_NEVER_TESTED = ("stub", "simulated")


def recompute_problems(r: Receipt, file: str) -> list[Problem]:
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
    for i, case in enumerate(r.cases):
        for name in _ARMS:
            arm = getattr(case.arms, name)
            if arm is not None:
                out += _arm_problems(arm, f"/cases/{i}/arms/{name}", file)
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
        valid = [s.score for s in d.judge_samples if s.score is not None]
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
