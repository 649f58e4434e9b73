"""OpenAI Evals grader results as scores on 0..1, checked against each row's own verdict.

A score's scale is taken from the source only where the source states it: ``true``/``false``
(1/0), and a result whose grader type OpenAI documents on 0..1 (``string_check``: 0 or 1;
``text_similarity``: 0..1). Any other numeric score needs ``--grader-range WORST:BEST``, the
grader's own worst and best scores, mapped linearly onto 0..1, worst to 0: ``1:7`` for a score
model, ``7:0`` for a grader where lower is better (a harm severity).
"""

from __future__ import annotations

import math
from typing import Any

from driftproof._json import json_kind
from driftproof.importers import _common as common
from driftproof.importers._common import OPTIONS, Where

#: Grader types whose results OpenAI's graders guide gives on 0..1 (the API's result ``type``).
SCALE_STATED = frozenset({"string_check", "string-check-grader", "text_similarity"})
#: What a refusal of an unknown or contradicted scale asks for.
_ASK = (
    "give the grader's own scale with --grader-range WORST:BEST, worst score first "
    "(such as 1:7, or 7:0 for a grader where lower is better)"
)


def check_range(rng: tuple[float, float] | None) -> None:
    """Refuse a ``--grader-range`` whose two ends are equal or not finite numbers."""
    if rng is not None and not 0 < abs(rng[1] - rng[0]) < math.inf:  # NaN compares false
        raise OPTIONS.fail(
            f"--grader-range {rng[0]:g}:{rng[1]:g}: expected WORST:BEST, two different finite "
            "scores (the grader's worst is mapped to 0 and its best to 1)"
        )


def scale_words(rng: tuple[float, float] | None) -> str:
    """The scale a score was read on, in words."""
    return "0..1" if rng is None else f"{rng[0]:g} (worst) to {rng[1]:g} (best)"


def score(
    value: Any, w: Where, grader: str, grader_range: tuple[float, float] | None, kind: Any
) -> float | None:
    """A grader result on 0..1; ``None`` when the grader gave none (missing, null, NaN).

    Args:
        value: the source's score.
        w: its place.
        grader: the grader's name.
        grader_range: ``--grader-range`` as (worst, best); ``None`` when not given.
        kind: the result's grader ``type`` as the row gives it (``None`` when not given).

    Raises:
        ImportError_: a value of another kind, an infinite one, one outside the range, a
            number whose scale neither the row nor ``--grader-range`` states.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        if grader_range is not None:  # a pass/fail grade is not a point on a WORST:BEST scale
            raise w.fail(
                f"expected grader {grader!r}'s score as a number on "
                f"{grader_range[0]:g}:{grader_range[1]:g}, found {str(value).lower()}"
            )
        return 1.0 if value else 0.0
    if not isinstance(value, (int, float)):
        raise w.fail(
            f"expected grader {grader!r}'s score as a number or true/false, found "
            f"{json_kind(value)}"
        )
    if isinstance(value, int):
        common.source_number(value, w)  # more digits than a float holds
    v = float(value)
    if math.isnan(v):
        return None
    if math.isinf(v):
        raise w.fail(f"expected grader {grader!r}'s score as a finite number, found {v!r}")
    if grader_range is None and kind not in SCALE_STATED:
        said = f"its type {kind!r} does not" if isinstance(kind, str) else "no type is given to"
        raise w.fail(
            f"expected the scale of grader {grader!r}; the row does not state it ({said} state it, "
            f"and {value!r} alone does not): {_ASK}"
        )
    worst, best = grader_range or (0.0, 1.0)
    if not min(worst, best) <= v <= max(worst, best):
        raise w.fail(
            f"expected a score on the scale of grader {grader!r}, {scale_words(grader_range)}, "
            f"found {value!r}"
            + ("" if grader_range else "; give the grader's own scale with --grader-range")
        )
    return (v - worst) / (best - worst)


def check_verdicts(
    seen: list[tuple[float, Any, bool, Where]], grader: str, rng: tuple[float, float] | None
) -> None:
    """Refuse scores that their rows' own verdicts (``passed``, ``passes``) contradict.

    Args:
        seen: per scored row that gives a verdict: the score on 0..1, the source's value, the
            verdict, and the verdict's place.
        grader: the grader's name.
        rng: ``--grader-range`` as (worst, best), or ``None``.

    Raises:
        ImportError_: at the verdict's place, for a pass at the scale's worst score, a fail at
            its best, or a fail scored at or above a pass of the same grader.
    """
    scale = scale_words(rng)
    for s, value, passed, w in seen:
        if s == (0.0 if passed else 1.0):
            raise w.fail(
                f"expected the verdict of grader {grader!r} to agree with its score; it says "
                f"passed {str(passed).lower()} at {value!r}, the "
                f"{'worst' if passed else 'best'} score on the scale read, {scale}: {_ASK}"
            )
    low = min((x for x in seen if x[2]), default=None, key=lambda x: x[0])
    high = max((x for x in seen if not x[2]), default=None, key=lambda x: x[0])
    if low is not None and high is not None and high[0] >= low[0]:
        raise high[3].fail(
            f"expected the verdict of grader {grader!r} to agree with its score; it says passed "
            f"false at {high[1]!r}, while {low[3].pointer} says passed true at {low[1]!r}, no "
            f"higher on the scale read, {scale}: {_ASK}"
        )
