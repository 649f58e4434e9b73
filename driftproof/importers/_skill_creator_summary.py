"""A skill-creator ``run_summary`` checked before its figures are kept as printed.

skill-creator's ``aggregate_benchmark.py`` writes, per configuration, each measure's
``{mean, stddev, min, max}`` over the runs (rounded to 4 decimals), and a ``delta``: the first
configuration's mean minus the second's, as a signed string (``"+0.50"``) or, in the
agentskills.io page's variant, a number.
"""

from __future__ import annotations

import math
import re
from typing import Any

from driftproof.importers._common import Where, source_number

#: The measures skill-creator writes → (lowest, highest, min and max whole counts): a pass rate
#: is a share, time is seconds, tokens are counted (characters where no token count was kept).
_MEASURES: dict[str, tuple[float, float | None, bool]] = {
    "pass_rate": (0, 1, False),
    "time_seconds": (0, None, False),
    "tokens": (0, None, True),
}
#: The configurations a delta is checked against: the first minus the second.
_ARMS = ("with_skill", "without_skill")
_SIGNED = re.compile(r"\s*([+\-−±]?)\s*(\d+)(?:\.(\d+))?\s*")


def check_run_summary(summary: dict[str, Any], w: Where) -> None:
    """Refuse a ``run_summary`` (at ``w``) holding a figure that is no figure of its measure.

    Each configuration is an object of measures, each measure an object of numbers (or null:
    not recorded); a known measure's mean, min and max lie in its range, min and max of tokens
    are whole, every stddev is 0 or more and min <= mean <= max, and no stddev is above what runs
    from min to max can spread (its sample stddev: (max - min) / sqrt(2)). Each delta is a
    number or a signed number string; the pass rate's lies in -1..1, and with exactly
    ``with_skill`` and ``without_skill`` beside it each delta is their means' difference to its
    printed digits: with minus without, or, where ``without_skill`` is listed first, first minus
    second.

    Raises:
        ImportError_: naming the member's pointer and what was expected.
    """
    means: dict[str, dict[str, float | None]] = {}
    for arm in summary:
        if arm != "delta":
            measures = w.get(summary, arm, dict)
            means[arm] = {m: _stats(measures, m, w / arm) for m in measures}
    delta = w.get(summary, "delta", dict, required=False, nullable=True) or {}
    for measure, v in delta.items():
        dw = w / "delta" / measure
        if (printed := _delta(v, dw)) is None:
            continue
        value, digits = printed
        if measure == "pass_rate" and not -1 <= value <= 1:
            raise dw.fail(f"expected a pass rate difference from -1 to 1, found {v!r}")
        a, b = (means[k].get(measure) if k in means else None for k in _ARMS)
        if set(means) != set(_ARMS) or a is None or b is None:
            continue
        # aggregate_benchmark.py: first listed minus second; its variants: with minus without
        diffs = (a - b, b - a) if list(means) == [*_ARMS][::-1] else (a - b,)
        off = min(abs(abs(value) - abs(d)) if "±" in str(v) else abs(value - d) for d in diffs)
        if off > 0.5 * 10**-digits + 1e-9:  # half its last printed digit
            raise dw.fail(
                f"expected {a - b:+.{digits}f}, the with_skill mean {a:g} minus the "
                f"without_skill mean {b:g}, found {v!r}: the summary contradicts itself"
            )


def _delta(v: Any, dw: Where) -> tuple[float, int] | None:
    """(value, decimals printed) of a delta at ``dw``; ``None`` for null (not recorded)."""
    if isinstance(v, str) and (found := _SIGNED.fullmatch(v)):
        sign, whole, part = found.groups()
        return float(f"{'-' if sign in ('-', '−') else ''}{whole}.{part or 0}"), len(part or "")
    if isinstance(v, str):
        raise dw.fail('expected a delta as a number or a signed number string such as "+0.50"')
    value = source_number(v, dw)
    return None if value is None else (value, len(repr(v).partition(".")[2]))


def _stats(measures: dict[str, Any], measure: str, aw: Where) -> float | None:
    """The mean of one measure's figures, each checked; ``None`` when not recorded."""
    mw = aw / measure
    stats = mw.get(measures, measure, dict)
    low, high, whole = _MEASURES.get(measure, (None, None, False))
    got: dict[str, float | None] = {}
    for key in stats:
        if key == "stddev":
            got[key] = mw.number(stats, key, low=0)
        else:
            got[key] = mw.number(stats, key, low=low, high=high, count=whole and key != "mean")
    lo, mean, hi = got.get("min"), got.get("mean"), got.get("max")
    for at, below, above in (("mean", lo, mean), ("max", mean, hi), ("max", lo, hi)):
        if below is not None and above is not None and below > above:
            raise (mw / at).fail(
                f"expected min <= mean <= max, found min {lo!r}, mean {mean!r}, max {hi!r}: the "
                "summary contradicts itself"
            )
    sd = got.get("stddev")
    if sd is not None and lo is not None and hi is not None:
        # n runs from min to max have a sample stddev of at most (max - min) / sqrt(2) (n = 2);
        # the stddev may be off by half its last printed digit, min and max by their 4 places
        bound = (hi - lo) / math.sqrt(2)
        if sd > bound + 0.5 * 10 ** -len(repr(stats["stddev"]).partition(".")[2]) + 1e-4:
            raise (mw / "stddev").fail(
                f"expected at most {bound:.4g}, the largest sample standard deviation of runs "
                f"from min {lo:g} to max {hi:g} (their range over the square root of 2), found "
                f"{sd:g}: the summary contradicts itself"
            )
    return mean
