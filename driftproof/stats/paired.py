"""An exact paired test over cases, as context beside the rule: never a verdict.

Each case gives one paired value ``d_i`` (its lift inside a receipt, the change of its
with-skill mean between two, D-6). :func:`sign_test_p` is the two-sided exact sign test (ties
within the D-3 tolerance left out); :func:`sign_flip_interval` inverts sign-flip tests of the
mean (Hartigan 1969, JASA 64): exact over all subsets up to :data:`EXACT_MAX_CASES` cases,
else :data:`MC_FLIPS` seeded random flips (Monte Carlo, level kept). Nothing is computed below
:data:`MIN_CASES` cases, where no result can reach the 95% level.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np

from driftproof.wording import TOLERANCE

#: Two-sided level of the interval: 95 %.
ALPHA = 0.05
#: Fewest cases for which the test is computed: the smallest n with ``⌊2ⁿ·α/2⌋ ≥ 1``.
MIN_CASES = 6
#: Most cases for which every sign flip is enumerated (2¹⁶ = 65,536 subsets).
EXACT_MAX_CASES = 16
#: Random sign flips drawn above EXACT_MAX_CASES, and their fixed seed.
MC_FLIPS = 19_999
MC_SEED = 37
#: Cells of the random flip matrix drawn at a time (a few MB whatever the number of cases).
_CHUNK_CELLS = 1 << 20


@dataclass(frozen=True)
class PairedTest:
    """The exact paired test over cases (context, never a verdict).

    Attributes:
        cases: paired values read (n).
        up, down, ties: cases whose value is above, below, or within tolerance of zero.
        sign_p: two-sided exact sign-test p-value, or None when not computed.
        mean: mean of the paired values (the suite lift, or the mean change), or None.
        low, high: the sign-flip interval on the mean, or None.
        coverage: the interval's coverage: exact ``1 − 2k/2ⁿ`` when enumerated, the nominal
            ``1 − α`` under Monte Carlo.
        method: ``exact`` (all 2ⁿ sign flips) or ``monte carlo`` (``MC_FLIPS`` flips, seed
            ``MC_SEED``).
        reason: why nothing was computed, else None.
    """

    cases: int
    up: int
    down: int
    ties: int
    sign_p: float | None = None
    mean: float | None = None
    low: float | None = None
    high: float | None = None
    coverage: float | None = None
    method: Literal["exact", "monte carlo"] | None = None
    reason: str | None = None


def sign_test_p(up: int, down: int) -> float:
    """Two-sided exact sign-test p-value; 1.0 when ``up + down = 0``.

    ``min(1, 2·Σ_{i ≤ min(up, down)} C(n, i) / 2ⁿ)`` with ``n = up + down``.
    """
    n = up + down
    if n == 0:
        return 1.0
    # Each term from the one before, C(n, i + 1) = C(n, i)·(n − i)/(i + 1), exact in integers:
    # O(n) bits per step, where each math.comb afresh would cost far more at thousands of cases.
    tail, term = 0, 1
    for i in range(min(up, down) + 1):
        tail += term
        term = term * (n - i) // (i + 1)
    return min(1.0, 2 * tail / (1 << n))


def _subset_means(values: list[float]) -> list[float]:
    """The means of the 2ⁿ − 1 non-empty subsets of ``values``."""
    sums, sizes = [0.0], [0]
    for v in values:
        sums += [s + v for s in sums]
        sizes += [k + 1 for k in sizes]
    return [s / k for s, k in zip(sums[1:], sizes[1:], strict=True)]


def _flip_chunks(n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(flips, cases each flips)`` of the seeded flips over ``n`` cases, in row chunks."""
    # flip j flips case i when U[j, i] < 1/2, U = default_rng(MC_SEED).random((MC_FLIPS, n)):
    # the chunks draw the same stream as one draw
    rng = np.random.default_rng(MC_SEED)
    rows = max(1, _CHUNK_CELLS // n)
    for start in range(0, MC_FLIPS, rows):
        flips = rng.random((min(rows, MC_FLIPS - start), n)) < 0.5
        yield flips, np.count_nonzero(flips, axis=1)


@functools.lru_cache(maxsize=4)
def _kept_flips(n: int) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """:func:`_flip_chunks` of ``n``, read-only, kept: they depend on ``n`` alone (1 MB at 50)."""
    chunks = tuple(_flip_chunks(n))
    for arrays in chunks:
        for a in arrays:
            a.flags.writeable = False
    return chunks


def _random_subset_means(values: list[float]) -> tuple[np.ndarray, int]:
    """Subset means of ``MC_FLIPS`` seeded random sign flips, and how many flipped no case."""
    v = np.asarray(values, dtype=np.float64)
    chunks = _kept_flips(len(v)) if len(v) * MC_FLIPS <= _CHUNK_CELLS else _flip_chunks(len(v))
    sums, sizes = [], []
    for flips, size in chunks:
        sums.append(np.where(flips, v, 0.0).sum(axis=1))
        sizes.append(size)
    total, size = np.concatenate(sums), np.concatenate(sizes)
    chosen = size > 0
    return total[chosen] / size[chosen], int(np.count_nonzero(~chosen))


def sign_flip_interval(
    values: list[float],
) -> tuple[float, float, float, Literal["exact", "monte carlo"]]:
    """The sign-flip interval on the mean of ``values`` at level 1 − :data:`ALPHA`.

    Returns:
        ``(low, high, coverage, method)``.

    Raises:
        ValueError: fewer than :data:`MIN_CASES` values (no interval at this level exists).
    """
    n = len(values)
    if n < MIN_CASES:
        raise ValueError(f"the sign-flip interval needs at least {MIN_CASES} cases, found {n}")
    if n <= EXACT_MAX_CASES:
        means = sorted(_subset_means(values))
        k = math.floor(2**n * ALPHA / 2)
        return means[k - 1], means[-k], 1 - 2 * k / 2**n, "exact"
    # A flip that flips no case sums to the observed sum: it ties on both sides, so it counts
    # below every μ on the lower side and above every μ on the upper side. Reject μ when
    # (1 + #{flips with mean ≤ μ}) / (B + 1) ≤ α/2, and likewise above.
    subset, empty = _random_subset_means(values)
    k = math.floor((MC_FLIPS + 1) * ALPHA / 2)
    # The k-th smallest and k-th largest of the subset means with `empty` -inf below them and
    # `empty` +inf above, picked in place (np.partition) rather than sorted.
    low_at, high_at = k - 1 - empty, len(subset) + empty - k
    picks = [i for i in (low_at, high_at) if 0 <= i < len(subset)]
    ordered = np.partition(subset, picks) if picks else subset
    low = float(ordered[low_at]) if low_at >= 0 else -math.inf
    high = float(ordered[high_at]) if high_at < len(subset) else math.inf
    return low, high, 1 - ALPHA, "monte carlo"


def paired_test(values: list[float]) -> PairedTest:
    """The sign test and sign-flip interval over one paired value per case (judge scale units).

    With fewer than :data:`MIN_CASES` values only the counts and a reason are given.
    """
    up = sum(1 for v in values if v > TOLERANCE)
    down = sum(1 for v in values if v < -TOLERANCE)
    ties = len(values) - up - down
    if len(values) < MIN_CASES:
        reason = (
            f"not computed below {MIN_CASES} cases ({len(values)} here): with fewer, no result "
            "can reach the 95% level"
        )
        return PairedTest(len(values), up, down, ties, reason=reason)
    low, high, coverage, method = sign_flip_interval(values)
    mean = math.fsum(values) / len(values)
    return PairedTest(
        len(values), up, down, ties, sign_test_p(up, down), mean, low, high, coverage, method
    )
