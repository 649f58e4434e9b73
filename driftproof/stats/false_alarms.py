"""How many regressed cases noise alone would give: the suite-level A/A expectation.

Per case, the simulated chance the rule (D-3, D-4) calls "regressed" when both sides share a
true mean, at each side's measured spread, draw count and judge grid; summed, the expected
count; the chance of at least the observed count is the Poisson-binomial upper tail. A case
with a side under two measured draws counts 0 (D-5); lost draws are not simulated (D-9 only
makes calls rarer, so the expectation is if anything high). The measured spreads are plugged in
as if exact, which moves it either way: high where spreads of three to five draws sit near the
grid step, about 4% low at a spread of 0.05 on a 0.01 grid, and up to about twice the truth
where draws are uneven, mostly steady with now and then a bad answer (the method page gives the
figures).
Context beside the rule, and the ground for the Action's ``fail-on: beyond-noise``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np

from driftproof.stats._chi2 import chi2_quantile
from driftproof.stats._rule import meets_floor, separated
from driftproof.stats._simulate import Grid, arm_moments
from driftproof.stats.codes import VerdictCode
from driftproof.stats.verdict import CaseVerdict
from driftproof.wording import EFFECT_FLOOR

if TYPE_CHECKING:
    from driftproof.receipt import Receipt

#: Simulated A/A pairs per case, for suites of up to 100 cases; a larger suite gets fewer per
#: case (:data:`AA_BUDGET` over the suite, at least :data:`AA_MIN_TRIALS`), its sum's error
#: shrinking with the number of cases all the same.
AA_TRIALS = 2000
AA_BUDGET = 200_000
AA_MIN_TRIALS = 100
#: An observed count of regressed cases is beyond noise when seeing at least that many under no
#: change has a chance under this level (5%).
BEYOND_NOISE_LEVEL = 0.05
_SEED = 37


def draw_grid(r: Receipt) -> Grid:
    """The per-draw score grid of ``r``; a part not recorded is ``None``.

    Its judge's step divided by the judge samples averaged into a draw (D-1), and its scale.
    """
    if r.judge is None:
        return None, None
    step, k = r.judge.scale.step, r.run.judge_samples_per_generation
    return (step / k if step and k else None), (r.judge.scale.worst, r.judge.scale.best)


def p_regressed(
    sd_a: float,
    n_a: int,
    sd_b: float,
    n_b: int,
    *,
    mean: float = 0.5,
    grid_a: Grid = (None, None),
    grid_b: Grid = (None, None),
    floor: float = EFFECT_FLOOR,
    trials: int = AA_TRIALS,
    seed: int = _SEED,
    either: bool = False,
) -> float:
    """Share of ``trials`` seeded simulated pairs the rule calls "regressed" with no change.

    Both true means are ``mean`` (judge scale); side A is drawn first from
    ``numpy.random.default_rng(seed)``, then side B. 0 when a side has under two draws (D-5).
    ``either``: a pair called "improved" counts too (any call, as an A/A calibration counts).
    """
    if _ruled_out(sd_a, n_a, sd_b, n_b, grid_a, grid_b, floor):
        return 0.0
    rng = np.random.default_rng(seed)
    ma, sa = arm_moments(rng, mean, sd_a, n_a, grid_a, trials)
    mb, sb = arm_moments(rng, mean, sd_b, n_b, grid_b, trials)
    delta = mb - ma
    called = separated(delta, sa + sb) & meets_floor(delta, floor) & ((delta < 0) | either)
    return int(np.count_nonzero(called)) / trials


def _ruled_out(
    sd_a: float, n_a: int, sd_b: float, n_b: int, grid_a: Grid, grid_b: Grid, floor: float
) -> bool:
    """Whether :func:`p_regressed` counts a case 0 without simulating it (a chance under 2e-9).

    A side under two draws cannot be called (D-5). Rounding moves each simulated mean by at
    most half its grid step, so the gap of the means reaches the floor only if its normal part
    reaches the floor less both half steps; 6 standard errors short of that, the chance is
    under 2e-9.
    """
    if n_a < 2 or n_b < 2:
        return True
    slack = floor - ((grid_a[0] or 0.0) + (grid_b[0] or 0.0)) / 2.0
    return slack > 6.0 * math.sqrt(sd_a * sd_a / n_a + sd_b * sd_b / n_b)


def p_at_least(ps: Sequence[float], k: int) -> float:
    """P(at least ``k`` of independent events with chances ``ps``): the Poisson-binomial tail.

    By convolution, exact up to float rounding.
    """
    if k <= 0:
        return 1.0
    dist = np.ones(1)  # dist[j] = P(j events so far); an event of chance 0 leaves it as it is
    for p in ps:
        if p > 0.0:
            nxt = np.zeros(len(dist) + 1)
            nxt[:-1] += dist * (1.0 - p)
            nxt[1:] += dist * p
            dist = nxt
    return min(1.0, math.fsum(dist[k:].tolist()))


@dataclass(frozen=True)
class FalseAlarms:
    """The suite-level A/A reading of a comparison.

    Attributes:
        expected: regressed cases noise alone would give (sum of the per-case chances).
        observed: regressed cases the rule called.
        p_at_least: chance of at least ``observed`` regressed cases under no change.
        cases: cases counted (those compared).
        trials: simulated pairs per case.
        level: :data:`BEYOND_NOISE_LEVEL`.
        per_case: each case's chance of a false "regressed", in row order.
        simulated: per case, in row order, whether its chance was simulated (else it is 0 or
            under 2e-9 by reasoning, with no simulation error); ``None``: every case simulated.
        draws: the measured draws of each arm simulated (both sides' arms of each case with a
            spread), for the words (:func:`at_spreads`).
    """

    expected: float
    observed: int
    p_at_least: float
    cases: int
    trials: int
    level: float
    per_case: tuple[float, ...]
    simulated: tuple[bool, ...] | None = None
    draws: tuple[int, ...] = ()

    @property
    def beyond_noise(self) -> bool:
        """A regressed case, and that many are unlikely under no change (chance under ``level``)."""
        return self.observed > 0 and self.p_at_least < self.level

    def sentence(self) -> str:
        """The reading in plain words (diff, the comparison report, the Action)."""
        cases = f"{self.cases} case" if self.cases == 1 else f"these {self.cases} cases"
        said = self.expected_words()
        about = "" if said.startswith("fewer") else "about "
        head = (
            f"Noise alone: if every case's true mean were the same in both receipts, {about}"
            f"{said} of {cases} would read regressed {at_spreads(COMPARED, self.draws)}; "
        )
        if self.observed == 0:
            return head + "none did."
        noun = "case" if self.observed == 1 else "cases"
        verdict = "beyond" if self.beyond_noise else "within"
        return head + (
            f"{self.observed} {noun} did. The chance of at least {self.observed} from noise "
            f"alone is {self.chance_words()}: {verdict} what noise alone gives at the "
            f"{self.level:.0%} level."
        )

    def chance_words(self) -> str:
        """:attr:`p_at_least` at the precision its simulation supports (:func:`chance_words`)."""
        return chance_words(self.per_case, self.observed, self.trials, self.simulated)

    def expected_words(self) -> str:
        """:attr:`expected` at the precision its simulation supports (:func:`count_words`)."""
        error = expected_error(self.per_case, self.trials, self.simulated)
        return count_words(self.expected, error)


#: Whose spreads a noise-alone figure is simulated at: a comparison's, an A/A receipt's own.
COMPARED, AA_RUN = "the compared receipts'", "the A/A run's"


def at_spreads(whose: str, draws: Iterable[int]) -> str:
    """Where a noise-alone figure is simulated: "at {whose} spreads and N draws per arm".

    ``draws`` holds the measured draws of each arm simulated: their range when they differ
    ("3 to 8 draws per arm"); none given, "at {whose} spreads and draws".
    """
    ns = sorted(set(draws))
    if not ns:
        return f"at {whose} spreads and draws"
    count = f"{ns[0]:,}" if len(ns) == 1 else f"{ns[0]:,} to {ns[-1]:,}"
    return f"at {whose} spreads and {count} draws per arm"


def expected_error(
    per_case: Sequence[float], trials: int, simulated: Sequence[bool] | None = None
) -> float:
    """The simulation standard error of the expected count, the sum of ``per_case``.

    Each simulated case's chance is the share of ``trials`` independent trials, from a seed of
    its own, so the sum's variance is ``Σ p(1 − p) / trials`` over the simulated cases; a case
    not ``simulated`` (mask in case order; ``None``: every case simulated) adds none. A simulated
    case with no event has ``p(1 − p) = 0`` though its chance need not be 0: together such cases
    add the error whose 95% half-width is the exact (Garwood) upper bound of a count of none,
    ``−ln(0.025) / trials`` (about 3.69 events), to their sum.
    """
    sim = [True] * len(per_case) if simulated is None else list(simulated)
    var = math.fsum(p * (1.0 - p) for p, s in zip(per_case, sim, strict=True) if s) / trials
    if any(s and round(p * trials) == 0 for p, s in zip(per_case, sim, strict=True)):
        var += (_NONE_UPPER / (_Z95 * trials)) ** 2
    return math.sqrt(var)


def count_words(x: float, error: float) -> str:
    """An expected count ``x`` with simulation standard error ``error``, as far as it holds.

    To the coarsest place whose half unit is under the 95% half-width (1.96 standard errors),
    so that rounding adds less than the simulation's own error: 2 decimals while the half-width
    is under 0.05, 1 while it is under 0.5 (never more than 2). Where that rounds to nothing,
    ``fewer than B``: ``B`` the first step of that place above ``x`` and the half-width together.
    From a half-width of 0.5: ``N (L to H by simulation)``, the half-width's ends rounded
    outwards, ``L`` at least 0.
    """
    half = _Z95 * error
    if half >= 0.5:
        low, high = max(0, math.floor(x - half)), math.ceil(x + half)
        return f"{x:.0f} ({low} to {high} by simulation)"
    places = 2 if half < 0.05 else 1
    said = f"{x:.{places}f}"
    if float(said) != 0:
        return said
    return f"fewer than {(math.floor((x + half) * 10**places) + 1) / 10**places:.{places}f}"


def chance_bounds(
    per_case: Sequence[float],
    k: int,
    trials: int,
    simulated: Sequence[bool] | None = None,
) -> tuple[float, float]:
    """The 95% simulation bounds of the chance of at least ``k`` events, one chance a case.

    Each simulated case's chance is an estimate from ``trials`` trials with ``x`` events. A
    seeded bootstrap of up to :data:`BOOT_REPLICATES` draws each case's chance, independently, from
    the distributions whose quantiles are the exact (Clopper-Pearson) bounds of its count:
    Beta(x, trials − x + 1) for the low bound (0 when ``x`` is 0) and Beta(x + 1, trials − x)
    for the high one (1 when ``x`` is ``trials``). The low bound is the 2.5% point of the
    chance of at least ``k`` over the low draws (each case with its own error, never one
    factor for all). The high bound is the smaller of two, each at 98.75% so that together
    they fail at most 2.5% of the time: that point over the high draws, and ``(U/trials)^k /
    k!``, with ``U`` the exact (Garwood) upper bound of all the cases' events together, since
    the chance of ``k`` or more is at most ``(Σp)^k / k!`` (the high draws alone add about one
    event a case, and many cases with none would bound it far too high). A case not
    ``simulated`` (mask in case order; ``None``: every case simulated) is 0 or under 2e-9 by
    reasoning and stays as it is; with none simulated the upper bound is ``(2e-9·m)^k / k!``
    over ``m`` cases.

    Returns:
        ``(low, high)``, chances between 0 and 1.
    """
    if k <= 0:
        return 1.0, 1.0
    sim = [True] * len(per_case) if simulated is None else list(simulated)
    counts = [round(p * trials) for p, s in zip(per_case, sim, strict=True) if s]
    if not counts:
        return 0.0, min(1.0, (2e-9 * len(per_case)) ** k / math.factorial(k))
    rng = np.random.default_rng(_BOOT_SEED)
    x = np.asarray(counts, dtype=float)
    reps = max(200, min(BOOT_REPLICATES, BOOT_WORK // (len(counts) * (k + 1))))
    some = x[x > 0]  # a case with no event adds nothing to the low bound
    low_q = rng.beta(some, trials - some + 1.0, size=(reps, len(some)))
    high_q = np.where(
        x < trials, rng.beta(x + 1.0, np.maximum(trials - x, 1.0), size=(reps, len(x))), 1.0
    )
    low = np.quantile(_at_least(low_q, k), _SIM_TAIL)
    high = np.quantile(_at_least(high_q, k), 1.0 - _SIM_TAIL / 2)
    events = chi2_quantile(1.0 - _SIM_TAIL / 2, 2 * int(x.sum()) + 2) / 2.0  # Garwood, all cases
    union = (events / trials) ** k / math.factorial(k)
    return float(low), min(1.0, float(high), union)


def _at_least(q: np.ndarray, k: int) -> np.ndarray:
    """Per row of chances ``q`` (one column a case), the chance of at least ``k`` events."""
    dist = np.zeros((q.shape[0], k + 1))  # 0, 1, …, k − 1 events, and (last) k or more
    dist[:, 0] = 1.0
    for j in range(q.shape[1]):
        moved = dist[:, :-1] * q[:, j : j + 1]
        dist[:, :-1] -= moved
        dist[:, 1:] += moved
    return dist[:, k]


def chance_words(
    per_case: Sequence[float],
    k: int,
    trials: int,
    simulated: Sequence[bool] | None = None,
) -> str:
    """The chance of at least ``k`` events at the precision its simulation supports.

    As it is when its 95% simulation bounds (:func:`chance_bounds`) span at most a fifth of
    it; else ``about X%, L% to H% by simulation`` (no brackets: it is said inside some);
    ``under H%`` when no simulated trial gave an event or the chance rounds to nothing.
    """
    p = p_at_least(per_case, k)
    low, high = chance_bounds(per_case, k, trials, simulated)
    if high - low <= 0.2 * p:
        return _pct(p)
    if _pct_out(p, round) == _pct_out(0.0, round):
        return f"under {_pct_out(high, math.ceil)}"
    return (
        f"about {_pct_out(p, round)}, {_pct_out(low, math.floor)} to "
        f"{_pct_out(high, math.ceil)} by simulation"
    )


#: Each tail of the simulation bounds of a printed chance (a 95% interval).
_SIM_TAIL = 0.025
_Z95 = NormalDist().inv_cdf(1.0 - _SIM_TAIL)
#: The exact (Garwood) upper bound, at :data:`_SIM_TAIL`, of a count of events when none was seen.
_NONE_UPPER = -math.log(_SIM_TAIL)
#: Bootstrap replicates of :func:`chance_bounds` (at most), and their seed; a large suite gets
#: fewer, so that replicates × cases × (k + 1) stays near :data:`BOOT_WORK`, and at least 200.
BOOT_REPLICATES = 4000
BOOT_WORK = 4_000_000
_BOOT_SEED = 20261205


def _pct(p: float) -> str:
    """``p`` as a percentage, never 100% short of certain nor 0%.

    Whole from 10%; to 0.1 under 10% and from 99.5%; "over 99.9%" and "under 0.1%" at the ends.
    """
    if p >= 1.0:
        return "100%"
    if p > 0.999:
        return "over 99.9%"
    if p >= 0.995:
        return f"{p:.1%}"
    if p < 0.001:
        return "under 0.1%"
    return f"{p:.1%}" if p < 0.1 else f"{p:.0%}"


def _pct_out(p: float, rounding: Callable[[float], float]) -> str:
    """``p`` as a percentage, whole from 10%, else to 0.1 (0.01 under 0.1%), by ``rounding``."""
    places = 0 if p >= 0.1 else (1 if p >= 0.001 else 2)
    return f"{rounding(p * 100 * 10**places) / 10**places:.{places}f}%"


def suite_false_alarms(
    rows: Sequence[CaseVerdict], grid_a: Grid, grid_b: Grid, *, trials: int | None = None
) -> FalseAlarms:
    """The A/A reading of a comparison's rows (side A earlier, B later; D-6).

    Each case at its two sides' measured spreads and draw counts, the true mean at the middle
    of the two measured means. Deterministic: case ``i`` is simulated from seed ``37 + i``.
    ``trials`` per case defaults to :data:`AA_TRIALS`, fewer for a suite over 100 cases.
    """
    trials = suite_trials(len(rows)) if trials is None else trials
    sides = [
        None
        if v.a.sd is None or v.b.sd is None or v.a.mean is None or v.b.mean is None
        else ((v.a.mean + v.b.mean) / 2.0, v.a.sd, v.a.n, v.b.sd, v.b.n)
        for v in rows
    ]
    ps, simulated = case_chances(sides, grid_a, grid_b, trials)
    observed = sum(1 for v in rows if v.verdict == VerdictCode.REGRESSED)
    return FalseAlarms(
        math.fsum(ps),
        observed,
        p_at_least(ps, observed),
        len(rows),
        trials,
        BEYOND_NOISE_LEVEL,
        tuple(ps),
        tuple(simulated),
        tuple(n for side in sides if side is not None for n in (side[2], side[4])),
    )


def suite_trials(cases: int) -> int:
    """Simulated pairs per case for a suite of ``cases``: :data:`AA_TRIALS`, fewer past 100."""
    return max(AA_MIN_TRIALS, min(AA_TRIALS, AA_BUDGET // max(1, cases)))


def case_chances(
    sides: Sequence[tuple[float, float, int, float, int] | None],
    grid_a: Grid,
    grid_b: Grid,
    trials: int,
    *,
    either: bool = False,
) -> tuple[list[float], list[bool]]:
    """Each case's chance of a false "regressed" (``either``: of any call), and whether simulated.

    A case is ``(true mean, sd A, draws A, sd B, draws B)``, simulated by :func:`p_regressed`
    from seed ``37 + i`` for case ``i``, or ``None`` (no spread: 0, not simulated); a case not
    simulated is 0 or under 2e-9 by reasoning (:func:`_ruled_out`).
    """
    ps: list[float] = []
    simulated: list[bool] = []
    for i, x in enumerate(sides):
        mean, sd_a, n_a, sd_b, n_b = x or (0.5, 0.0, 0, 0.0, 0)  # no spread: as no draws, 0
        simulated.append(not _ruled_out(sd_a, n_a, sd_b, n_b, grid_a, grid_b, EFFECT_FLOOR))
        ps.append(
            p_regressed(
                sd_a,
                n_a,
                sd_b,
                n_b,
                mean=mean,
                grid_a=grid_a,
                grid_b=grid_b,
                trials=trials,
                seed=_SEED + i,  # a seed per case, so simulation errors do not add up in step
                either=either,
            )
        )
    return ps, simulated
