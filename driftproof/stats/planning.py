"""Planning a run from a pilot (D-5): draws per arm, and the chance of a verdict at an effect.

Each arm's pilot spread ``s`` over ``n`` draws is taken at its upper confidence bound under
normal draws, ``s·sqrt((n−1)/χ²_{1−level}(n−1))``, so a loose pilot does not land the run on the
underpowered boundary. The count is the smallest n ≥ 3 at which a run at the bounds reads
underpowered under no effect at most 10% of the time and calls a stated effect at least 90% of
the time (:func:`size_case`); spreads are pooled across cases as :func:`pool_arms` allows
(calibration in benchmarks/plan_calibration.py).
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftproof.stats._chi2 import ExistenceRates as ExistenceRates  # public via planning
from driftproof.stats._chi2 import across_cases, bartlett, existence_rates
from driftproof.stats._chi2 import (
    equal_spreads_no_count_chance as equal_spreads_no_count_chance,  # public via planning
)
from driftproof.stats._chi2 import sd_factor as _sd_factor
from driftproof.stats._simulate import p_verdict as p_verdict  # public via planning
from driftproof.stats.aa import GateNoise, gate_noise
from driftproof.stats.false_alarms import draw_grid
from driftproof.stats.grading_cost import Basis, cost_per_judged_draw
from driftproof.wording import DEFAULT_EFFECT as DEFAULT_EFFECT  # public via planning
from driftproof.wording import EFFECT_FLOOR, MAX_PLANNED_DRAWS, MIN_DRAWS_PER_ARM, TOLERANCE

if TYPE_CHECKING:
    from driftproof.receipt import Receipt
    from driftproof.stats.band import Band

#: Confidence level of the bounds a pilot spread is taken at (80%): one case's own spread, or
#: a spread pooled over fewer than :data:`POOLED_DF` degrees of freedom.
SPREAD_LEVEL = 0.80
#: Level of the bounds of a spread pooled over :data:`POOLED_DF`+ degrees of freedom (60%).
POOLED_LEVEL = 0.60
#: The level of the lower bounds that name a case with no count when its spreads are bounded at
#: :data:`POOLED_LEVEL`: 50%, each pooled spread's median-unbiased value.
POOLED_NONE_LEVEL = 0.50
#: Pooled degrees of freedom per arm from which :data:`POOLED_LEVEL` applies (10 cases × 3 draws).
POOLED_DF = 20
#: A count more than this many times the one the pilot's own spreads would give is still the
#: answer, with the advice that a pilot of twice its draws would likely cut it.
COSTLY_RATIO = 4
MAX_PILOT_DRAWS = 200  # a pilot is never asked to grow past this many draws per arm
#: An arm's per-case spreads are pooled unless Bartlett's test rejects at this level.
HOMOGENEITY_LEVEL = 0.05
#: From small pilots (:data:`AGREEMENT_DF`), below this chance of the test across cases
#: (:func:`across_cases`) the pooled spreads are in doubt (15%).
AGREEMENT_LEVEL = 0.15
#: The test across cases is taken when some case has fewer degrees of freedom than this over
#: both arms (under 5 draws per arm); from 5 draws each arm's own test has the power.
AGREEMENT_DF = 8
#: The level of the lower bounds that name a case with no count when its pooled spreads are in
#: doubt (their upper bounds at :data:`SPREAD_LEVEL`).
DOUBT_NONE_LEVEL = 0.70
_Z95 = 1.6448536269514722  # standard normal 95% point


@dataclass(frozen=True)
class ArmPool:
    """One arm's per-case pilot spreads, tested for a common spread.

    Attributes:
        cases: the cases whose spreads were tested (each with two or more measured draws).
        statistic: Bartlett's T (:func:`bartlett`); ``None`` when it could not be computed
            (a zero variance and no known grid step).
        p: its chance under one common spread; ``None`` with the statistic.
        sd: the pooled spread ``sqrt(Σ(n_i − 1)·s_i²/Σ(n_i − 1))``.
        df: the pooled degrees of freedom ``Σ(n_i − 1)``.
    """

    cases: int
    statistic: float | None
    p: float | None
    sd: float
    df: int
    across: float | None = None
    """The chance of the test across cases under agreement (:func:`across_cases`); ``None``
    when it was not taken."""
    apart_below: float = HOMOGENEITY_LEVEL
    """Below this chance of the test across cases no arm is pooled (:func:`pool_arms`)."""
    doubt_below: float = AGREEMENT_LEVEL
    """Below this chance of the test across cases the pooled spreads are in doubt."""

    @property
    def pooled(self) -> bool:
        """The spreads agree: this arm's test does not reject at 5%, nor that across cases."""
        ok = self.p is not None and self.p >= HOMOGENEITY_LEVEL
        return ok and (self.across is None or self.across >= self.apart_below)

    @property
    def agrees(self) -> bool:
        """Pooled, and the test across cases does not put the pooled spreads in doubt."""
        return self.pooled and (self.across is None or self.across >= self.doubt_below)

    @property
    def level(self) -> float:
        """The level this arm's pooled spread is bounded at (:func:`arm_levels`)."""
        return arm_levels(self.df, self.agrees)[0]

    def bound(self, level: float = SPREAD_LEVEL) -> float:
        """Upper ``level`` bound of the common spread: ``sd·sqrt(df/χ²_{1−level}(df))``."""
        return self.sd / _sd_factor(self.df, 1.0 - level)


def pool_arm(spreads: Sequence[tuple[float, int]], step: float | None = None) -> ArmPool | None:
    """Test one arm's per-case pilot spreads for a common spread and pool them (D-5 planning).

    Args:
        spreads: ``(sample sd, measured draws ≥ 2)`` per case.
        step: the per-draw score grid's step; a zero variance enters the test at
            ``step²/12`` (STATISTICS-NOTES 6.6), and with ``step`` unknown stops the test.

    Returns:
        ``None`` with fewer than two cases, else the :class:`ArmPool`.
    """
    if len(spreads) < 2:
        return None
    dfs = [n - 1 for _, n in spreads]
    df = sum(dfs)
    sd = math.sqrt(sum(d * s * s for d, (s, _) in zip(dfs, spreads, strict=True)) / df)
    least = step * step / 12.0 if step else 0.0
    variances = [max(s * s, least) for s, _ in spreads]
    if min(variances) <= 0.0:
        return ArmPool(len(spreads), None, None, sd, df)
    t, p = bartlett(variances, dfs)
    return ArmPool(len(spreads), t, p, sd, df)


def pool_arms(
    spreads: Sequence[tuple[float, int, float, int]], step: float | None = None
) -> tuple[ArmPool | None, ArmPool | None]:
    """Both arms' pools (:func:`pool_arm`), each carrying the test across cases (D-5).

    ``spreads`` holds ``(with-skill sd, draws ≥ 2, baseline sd, draws ≥ 2)`` per case. When some
    case has under :data:`AGREEMENT_DF` degrees of freedom over both arms, the test across cases
    keeps the arms apart below 5% and puts them in doubt below :data:`AGREEMENT_LEVEL`; else it
    only puts them in doubt, below 5%. Each pool is ``None`` with fewer than two cases.
    """
    small = any(nw + nb - 2 < AGREEMENT_DF for _, nw, _, nb in spreads)
    test = across_cases(spreads, step)
    lo, hi = (HOMOGENEITY_LEVEL, AGREEMENT_LEVEL) if small else (0.0, HOMOGENEITY_LEVEL)
    pools = [
        pool_arm([(w, nw) for w, nw, _, _ in spreads], step),
        pool_arm([(b, nb) for _, _, b, nb in spreads], step),
    ]
    if test is not None:
        for i, q in enumerate(pools):
            if q is not None:
                pools[i] = dataclasses.replace(q, across=test[1], apart_below=lo, doubt_below=hi)
    return pools[0], pools[1]


def _smallest(ok: Callable[[int], bool]) -> int | None:
    """Smallest n in [MIN_DRAWS_PER_ARM, MAX_PLANNED_DRAWS] with monotone ``ok(n)``, else None."""
    if not ok(MAX_PLANNED_DRAWS):
        return None
    span = range(MIN_DRAWS_PER_ARM, MAX_PLANNED_DRAWS)  # MAX_PLANNED_DRAWS when none in it
    return MIN_DRAWS_PER_ARM + bisect.bisect_left(span, True, key=ok)


def _resolves(b_a: float, b_b: float, floor: float, n: int) -> bool:
    """The resolution stays under the floor with each run spread at its 95% point (≥ 90%)."""
    f = _sd_factor(n - 1, 0.95)
    qa, qb = b_a * f, b_b * f
    return qa + qb + 2.0 * math.sqrt((qa * qa + qb * qb) / n) < floor - TOLERANCE


def _calls(b_a: float, b_b: float, effect: float, floor: float, n: int) -> bool:
    """``effect`` is called ≥ 90%: its 95% low end clears the floor and the 97.5% spreads."""
    f = _sd_factor(n - 1, 0.975)
    qa, qb = b_a * f, b_b * f
    low = effect - _Z95 * math.sqrt((b_a * b_a + b_b * b_b) / n)
    return low > qa + qb + TOLERANCE and low >= floor - TOLERANCE


@dataclass(frozen=True)
class CaseSizing:
    """One case's planned draws.

    Attributes:
        bounds: the upper bounds of the with-skill and baseline spreads, each at its level.
        draws: draws per arm; ``None`` when no count does or the pilot cannot tell.
        no_draw_count: even the two spreads' lower bounds reach the floor: no number of draws
            resolves the case.
        pilot_draws: when the pilot cannot tell (the upper bounds reach the floor, the lower
            ones do not): the draws per arm to grow the pilot to (:func:`_pilot_draws`);
            ``None`` otherwise, or when the pilot already has :data:`MAX_PILOT_DRAWS`.
        undecided: the pilot cannot tell whether a count exists.
        levels: the confidence level of each arm's bounds (:func:`arm_levels`).
        larger_pilot: with a count more than :data:`COSTLY_RATIO` times the one the pilot's own
            spreads give, the draws per arm of a pilot that would likely cut it (twice the
            pilot's); ``None`` otherwise. The count stands either way.
        effect_draws: the draws per arm that calling the effect alone needs (``None``: none
            does, or no count).
        chance: in a run sized by :func:`size_run`, the chance of a verdict at the run's count
            (:func:`p_verdict`); ``None`` without a count, or outside a run.
    """

    bounds: tuple[float, float]
    draws: int | None
    no_draw_count: bool
    pilot_draws: int | None
    undecided: bool
    levels: tuple[float, float] = (SPREAD_LEVEL, SPREAD_LEVEL)
    larger_pilot: int | None = None
    effect_draws: int | None = None
    chance: float | None = None


def arm_levels(df: int, agrees: bool | None, level: float | None = None) -> tuple[float, float]:
    """Return ``(upper, no-count)`` levels of an arm's bounds.

    ``agrees`` is ``None`` for a case's own spread, else whether pooled cases agree
    (:attr:`ArmPool.agrees`). A given ``level`` is used for both (:data:`POOLED_NONE_LEVEL`
    for no-count when it is :data:`POOLED_LEVEL`); a spread pooled over :data:`POOLED_DF`+
    degrees of freedom gets :data:`POOLED_LEVEL`/:data:`POOLED_NONE_LEVEL` when the cases agree,
    :data:`SPREAD_LEVEL`/:data:`DOUBT_NONE_LEVEL` in doubt; any other :data:`SPREAD_LEVEL` twice.
    """
    if level is not None:
        return level, POOLED_NONE_LEVEL if level == POOLED_LEVEL else level
    if agrees is None or df < POOLED_DF:
        return SPREAD_LEVEL, SPREAD_LEVEL
    return (POOLED_LEVEL, POOLED_NONE_LEVEL) if agrees else (SPREAD_LEVEL, DOUBT_NONE_LEVEL)


def size_case(
    sd_with: float,
    n_with: int,
    sd_base: float,
    n_base: int,
    effect: float = DEFAULT_EFFECT,
    floor: float = EFFECT_FLOOR,
    level: float | None = None,
    *,
    pools: tuple[ArmPool | None, ArmPool | None] = (None, None),
) -> CaseSizing:
    """Draws per arm for one case from its pilot spreads (each over ``n ≥ 2`` measured draws).

    Each spread is taken at its upper bound (``level``, else :func:`arm_levels`); an arm whose
    entry in ``pools`` is pooled is planned from the pooled spread and degrees of freedom.
    """
    arms: list[tuple[float, int, int, bool | None]] = []
    for sd, n, pool in ((sd_with, n_with, pools[0]), (sd_base, n_base, pools[1])):
        if pool is not None and pool.pooled:
            arms.append((pool.sd, pool.df, pool.cases, pool.agrees))
        else:
            arms.append((sd, n - 1, 1, None))
    (s_w, df_w, _, a_w), (s_b, df_b, _, a_b) = arms
    (lv_w, nl_w), (lv_b, nl_b) = arm_levels(df_w, a_w, level), arm_levels(df_b, a_b, level)
    b_w, b_b = s_w / _sd_factor(df_w, 1.0 - lv_w), s_b / _sd_factor(df_b, 1.0 - lv_b)
    low = s_w / _sd_factor(df_w, nl_w) + s_b / _sd_factor(df_b, nl_b)
    levels = (lv_w, lv_b)
    if low >= floor - TOLERANCE:
        return CaseSizing((b_w, b_b), None, True, None, False, levels)
    n0 = None
    if b_w + b_b < floor - TOLERANCE:
        n0 = _smallest(lambda n: _resolves(b_w, b_b, floor, n))
    pilot = max(n_with, n_base)
    if n0 is None:
        grow = _pilot_draws(arms, pilot, floor, level)
        return CaseSizing((b_w, b_b), None, False, grow, True, levels)
    n1 = _smallest(lambda n: _calls(b_w, b_b, effect, floor, n))
    count = max(n0, n1 or 0)
    held = _smallest(lambda n: _resolves(s_w, s_b, floor, n)) or MAX_PLANNED_DRAWS
    held_effect = _smallest(lambda n: _calls(s_w, s_b, effect, floor, n)) or 0
    costly = count > COSTLY_RATIO * max(held, held_effect) and 2 * pilot <= MAX_PILOT_DRAWS
    larger = 2 * pilot if costly else None
    return CaseSizing(
        (b_w, b_b), count, False, None, False, levels, larger_pilot=larger, effect_draws=n1
    )


def _pilot_draws(
    arms: Sequence[tuple[float, int, int, bool | None]], n: int, floor: float, level: float | None
) -> int | None:
    """Smallest pilot m ≥ 2n per arm whose bounds decide; 2n if none to the maximum, else None."""
    if 2 * n > MAX_PILOT_DRAWS:
        return None
    for m in range(2 * n, MAX_PILOT_DRAWS + 1):
        grown = [(s, k * (m - 1), *arm_levels(k * (m - 1), q, level)) for s, _, k, q in arms]
        if sum(s / _sd_factor(df, 1.0 - lv) for s, df, lv, _ in grown) < floor - TOLERANCE:
            return m
        if sum(s / _sd_factor(df, nl) for s, df, _, nl in grown) >= floor - TOLERANCE:
            return m
    return 2 * n


#: Simulated runs per case for the chance of a verdict; past 200 draws per arm, as many as fit
#: in :data:`TRIAL_DRAWS` simulated draws per arm, and at least :data:`MIN_TRIALS`.
VERDICT_TRIALS, TRIAL_DRAWS, MIN_TRIALS = 1000, 200_000, 100


@dataclass(frozen=True)
class RunSizing:
    """A full run sized from a pilot (D-5); ``None`` is unknown, or no count.

    ``cases`` holds each case's sizing and chance (``None``: an arm has no spread), in the bands'
    order, with ``trials`` simulated runs each and ``least_chance`` their lowest. The rounding
    spread (``draw_step`` ÷ √12, STATISTICS-NOTES 6.6) is set when ``rounded_cases`` have an arm
    planned at it; ``existence`` gives the count test's error rates at ``pooled_level``.
    ``answers`` are draws × cases × arms, ``judge_calls`` those × judge samples, ``judge_usd``
    those × ``usd_per_draw`` (:func:`~driftproof.stats.grading_cost.cost_per_judged_draw`).
    """

    cases: tuple[CaseSizing | None, ...]
    draws_per_arm: int | None
    trials: int
    least_chance: float | None
    pools: tuple[ArmPool | None, ArmPool | None]
    rounding_spread: float | None
    rounded_cases: tuple[str, ...]
    draw_step: float | None
    pooled_level: float | None
    existence: ExistenceRates | None
    answers: int | None
    judge_calls: int | None
    usd_per_draw: float | None
    basis: Basis
    judge_usd: float | None
    effect_alone: int | None = None
    """Draws per arm calling the effect alone needs, when under ``draws_per_arm``; ``None`` when
    the effect sets the count (or some counted case cannot call it)."""
    larger_pilot: int | None = None
    """The largest :attr:`CaseSizing.larger_pilot` asked, or ``None``."""
    pilot_draws: int | None = None
    """The draws per arm to grow the pilot to for its undecided cases (the largest asked)."""
    noise: GateNoise | None = None
    """An A/A pilot's: what noise alone gives two runs at ``draws_per_arm`` (:func:`gate_noise`);
    with no count, at the most draws the pilot measured in an arm (at least the least count)."""


def _effect_alone(cases: Sequence[CaseSizing | None], per_arm: int | None) -> int | None:
    """:attr:`RunSizing.effect_alone` of the sized ``cases`` at ``per_arm`` draws."""
    counted = [z for z in cases if z is not None and z.draws is not None]
    alone = [max(z.effect_draws, MIN_DRAWS_PER_ARM) for z in counted if z.effect_draws is not None]
    if not counted or len(alone) < len(counted) or max(alone) >= (per_arm or 0):
        return None
    return max(alone)


def _at(pool: ArmPool | None, sd: float) -> float:
    """The spread an arm is planned at: its pool's where pooled, else its own ``sd``."""
    return pool.sd if pool is not None and pool.pooled else sd


def size_run(r: Receipt, bands: Sequence[tuple[str, Band, Band]], effect: float) -> RunSizing:
    """Size a full run from pilot ``r``'s case ``bands`` for a true lift of ``effect`` (D-5).

    An arm's spread is planned at no less than the draw grid's rounding spread (step ÷ √12,
    STATISTICS-NOTES 6.6), pooled as :func:`pool_arms` allows; each case is sized by
    :func:`size_case` and, with a count, its chance of a verdict simulated at the run's count at
    the spreads it was planned from (:func:`p_verdict`, seeded by its position).
    """
    grid = draw_grid(r)
    least = grid[0] / math.sqrt(12.0) if grid[0] else 0.0
    held = {
        cid: (max(w.sd, least), max(b.sd, least))
        for cid, w, b in bands
        if w.sd is not None and b.sd is not None
    }
    floored = tuple(cid for cid, w, b in bands if cid in held and (w.sd, b.sd) != held[cid])
    spread = [(*held[cid], w.n, b.n) for cid, w, b in bands if cid in held]
    pools = pool_arms([(sw, nw, sb, nb) for sw, sb, nw, nb in spread], grid[0])
    sized = [
        size_case(held[cid][0], w.n, held[cid][1], b.n, effect, pools=pools)
        if cid in held
        else None
        for cid, w, b in bands
    ]
    counts = [z.draws for z in sized if z is not None and z.draws is not None]
    per_arm = max(max(counts), MIN_DRAWS_PER_ARM) if counts else None
    trials = VERDICT_TRIALS
    if per_arm is not None:
        trials = max(MIN_TRIALS, min(VERDICT_TRIALS, TRIAL_DRAWS // per_arm))
    cases: list[CaseSizing | None] = []
    planned = {cid: (_at(pools[0], w), _at(pools[1], b)) for cid, (w, b) in held.items()}
    noise = None  # with no count, at the most draws the pilot measured in an arm: a gate at it
    most = max((max(w.n, b.n) for cid, w, b in bands if cid in planned), default=None)
    gate = per_arm if per_arm is not None or most is None else max(most, MIN_DRAWS_PER_ARM)
    if r.run.aa and gate is not None:
        sides = [
            ((w.mean + b.mean) / 2.0, *planned[cid])
            if cid in planned and w.mean is not None and b.mean is not None
            else None
            for cid, w, b in bands
        ]
        noise = gate_noise(sides, gate, grid, most_trials=TRIAL_DRAWS // gate)
    for i, ((cid, _, b), z) in enumerate(zip(bands, sized, strict=True)):
        if z is None or z.draws is None or per_arm is None or b.mean is None:
            cases.append(z)
            continue
        sw, sb = planned[cid]
        chance = p_verdict(b.mean, sw, sb, per_arm, effect, grid, trials=trials, seed=37 + i)
        cases.append(dataclasses.replace(z, draws=max(z.draws, MIN_DRAWS_PER_ARM), chance=chance))
    answers = per_arm * len(r.cases) * len(r.arm_names) if per_arm is not None else None
    samples = r.run.judge_samples_per_generation
    per_draw, basis = cost_per_judged_draw(r)
    chances = [z.chance for z in cases if z is not None and z.chance is not None]
    dfs = [q.df for q in pools if q is not None and q.agrees and q.df >= POOLED_DF]
    return RunSizing(
        tuple(cases),
        per_arm,
        trials,
        min(chances, default=None),
        pools,
        least if floored else None,
        floored,
        grid[0],
        POOLED_LEVEL if dfs else None,
        existence_rates(min(dfs), POOLED_LEVEL, POOLED_NONE_LEVEL) if dfs else None,
        answers,
        answers * samples if answers is not None and samples is not None else None,
        per_draw,
        basis,
        per_draw * answers if per_draw is not None and answers is not None else None,
        _effect_alone(cases, per_arm),
        max((x for z in cases if z and (x := z.larger_pilot) is not None), default=None),
        max(
            (x for z in cases if z and z.undecided and (x := z.pilot_draws) is not None),
            default=None,
        ),
        noise,
    )
