"""What keeps a receipt from supplying a lift breakdown (method, "Lift by case").

Each check returns its reasons, each naming a JSON pointer. Private to
:mod:`driftproof.stats.breakdown`, which checks the size limit first, unsupported sizes last.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterator

from driftproof.receipt import Receipt
from driftproof.receipt._model import Case, Draw
from driftproof.stats.moments import mean_of
from driftproof.wording import COMPARED_ARMS, TOLERANCE

MAX_REASONS = 5
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def listed(reasons: list[str]) -> list[str]:
    """The first MAX_REASONS of ``reasons``, the last saying how many more were left out."""
    more = len(reasons) - MAX_REASONS
    return (
        reasons
        if more <= 0
        else [*reasons[: MAX_REASONS - 1], f"{reasons[MAX_REASONS - 1]}; and {more} more"]
    )


def _no_scores(r: Receipt) -> list[str]:
    if r.is_aggregates_only:
        return ["aggregates only: the source printed figures and no draw score"]
    if r.judge is None:
        return ["no judge is recorded, so no draw carries a score"]
    return []


def _draws(r: Receipt) -> Iterator[tuple[str, Case, str, Draw]]:
    return (drawn for drawn in r.draws_at() if drawn[2] in COMPARED_ARMS)


def _invalid_hashes(r: Receipt) -> list[str]:
    out = []
    named = [
        ("/seal/sha256", r.seal.sha256),
        ("/skill/sha256", r.skill.sha256),
        ("/suite/sha256", r.suite.sha256),
    ]
    named += [(f"/cases/{i}/rubric_sha256", c.rubric_sha256) for i, c in enumerate(r.cases)]
    for ptr, value in named:
        if value is not None and not _HEX64.match(value):
            out.append(f"invalid hash at {ptr}: expected 64 lowercase hex digits")
    for ptr, _, _, d in _draws(r):
        if d.answer_sha256 is not None and not _HEX64.match(d.answer_sha256):
            out.append(f"invalid hash at {ptr}/answer_sha256: expected 64 lowercase hex digits")
        elif (
            d.answer is not None
            and d.answer_sha256 is not None
            and hashlib.sha256(d.answer.encode("utf-8")).hexdigest() != d.answer_sha256
        ):
            out.append(
                f"invalid hash at {ptr}/answer_sha256: it is not the sha256 of the recorded answer"
            )
    return out


def _malformed_evidence(r: Receipt) -> list[str]:
    assert r.judge is not None
    worst, best = sorted((r.judge.scale.worst, r.judge.scale.best))
    out = []
    for ptr, _, _, d in _draws(r):
        if d.lost is not None and d.score is not None:
            out.append(f"malformed evidence at {ptr}: a lost draw carries a score")
        elif d.score is not None and not (
            math.isfinite(d.score) and worst - TOLERANCE <= d.score <= best + TOLERANCE
        ):
            out.append(
                f"malformed evidence at {ptr}/score: expected a finite score from {worst} to {best}"
            )
        elif d.score is not None:
            # D-1: the draw score is the mean of its valid judge samples
            mean = mean_of([s.score for s in d.judge_samples if s.score is not None])
            if mean is not None and abs(mean - d.score) > 1e-6:
                out.append(
                    f"malformed evidence at {ptr}/score: "
                    "not the mean of the draw's valid judge samples"
                )
    return out


def _contradictory_counts(r: Receipt) -> list[str]:
    out = []
    planned = r.run.generations_per_arm
    for i, c in enumerate(r.cases):
        for n in COMPARED_ARMS:
            draws = getattr(c.arms, n).draws
            ptr = f"/cases/{i}/arms/{n}/draws"
            if len({d.index for d in draws}) != len(draws):
                out.append(f"contradictory draw counts at {ptr}: draw indices repeat")
            elif planned is not None and 0 < len(draws) < planned:
                out.append(
                    f"contradictory draw counts at {ptr}: {len(draws)} draws recorded, "
                    f"{planned} generated per arm (run.generations_per_arm)"
                )
            elif r.band_source == "legacy" and len(draws) > 1:
                out.append(
                    f"contradictory draw counts at {ptr}: "
                    "band source legacy records one draw per arm"
                )
    return out


#: The checks in order.
CHECKS: tuple[Callable[[Receipt], list[str]], ...] = (
    _no_scores,
    _invalid_hashes,
    _malformed_evidence,
    _contradictory_counts,
)
