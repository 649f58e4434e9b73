"""What an A/A calibration receipt (``run.aa``) says about noise: never a skill verdict.

Both arms ran with the skill under the same settings, so every change the rule calls (D-3,
D-4, D-6; lost draws D-9) is a false call (:func:`aa_reading`). For ``plan`` on an A/A pilot,
:func:`gate_noise`: the regressed cases noise alone gives two runs at the planned draws.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.receipt import Receipt
from driftproof.stats._simulate import Grid
from driftproof.stats.band import arm_band, judge_scale
from driftproof.stats.codes import VerdictCode
from driftproof.stats.false_alarms import (
    AA_MIN_TRIALS,
    AA_RUN,
    BEYOND_NOISE_LEVEL,
    at_spreads,
    case_chances,
    chance_words,
    count_words,
    draw_grid,
    expected_error,
    p_at_least,
    suite_trials,
)
from driftproof.stats.underpowered import resolution
from driftproof.stats.verdict import case_verdict
from driftproof.wording import EFFECT_FLOOR


@dataclass(frozen=True)
class AACase:
    """One case of an A/A receipt.

    Attributes:
        called: the rule called a change between the two arms (a false call).
        draws: the fewer measured draws of the two arms (n).
        false_call_rate: the chance of a false call at the arms' spreads and draws
            (:func:`aa_reading`); None without a spread in both arms (fewer than two measured
            draws in an arm).
        simulated: whether :attr:`false_call_rate` is a simulation's estimate (else it is 0 or
            under 2e-9 by reasoning, with no simulation error).
        smallest_effect: the smallest effect the spreads resolve, ``max(0.05, s_1 + s_2 +
            2·SE)`` (D-5); None without a spread in both arms.
        most_draws: the more measured draws of the two arms; None when not given (read as
            :attr:`draws`).
    """

    case_id: str
    called: bool
    draws: int
    false_call_rate: float | None
    simulated: bool
    smallest_effect: float | None
    most_draws: int | None = None


@dataclass(frozen=True)
class AAReading:
    """What an A/A receipt says about noise, over its cases.

    Attributes:
        cases: one :class:`AACase` per case, in receipt order.
        observed: cases the rule called a change in (false calls).
        expected: ``Σ p_i`` over the cases with a spread: false calls noise alone gives per
            comparison at this suite's size and spreads.
        at_least_one: ``1 − Π(1 − p_i)`` (cases independent).
        smallest_median, smallest_max: the median and the largest smallest effect over cases.
        unread: cases with no spread (fewer than two measured draws in an arm).
        trials: simulated pairs per case.
    """

    cases: tuple[AACase, ...]
    observed: int
    expected: float
    at_least_one: float
    smallest_median: float | None
    smallest_max: float | None
    unread: int
    trials: int

    def _rates(self) -> tuple[list[float], list[bool]]:
        """The read cases' false-call rates and whether each is a simulation's estimate."""
        read = [c for c in self.cases if c.false_call_rate is not None]
        return [c.false_call_rate or 0.0 for c in read], [c.simulated for c in read]

    def where(self) -> str:
        """The spreads and draws its noise-alone figure is at (:func:`at_spreads`)."""
        read = [c for c in self.cases if c.false_call_rate is not None]
        return at_spreads(AA_RUN, [n for c in read for n in (c.draws, c.most_draws or c.draws)])

    def at_least_one_words(self) -> str:
        """:attr:`at_least_one` at the precision its :attr:`trials` a case support."""
        rates, simulated = self._rates()
        return chance_words(rates, 1, self.trials, simulated)

    def expected_words(self) -> str:
        """:attr:`expected` at the precision its :attr:`trials` a case support."""
        rates, simulated = self._rates()
        return count_words(self.expected, expected_error(rates, self.trials, simulated))


def aa_reading(r: Receipt) -> AAReading:
    """The A/A figures of ``r`` (its with-skill arm against its second run in the baseline arm).

    Each case's false-call rate is simulated as a diff's noise-alone figure is
    (:func:`~driftproof.stats.false_alarms.case_chances`): both arms at the middle of their
    measured means, each at its own measured spread and draws, on ``r``'s draw grid and judge
    scale, with a call either way counted; the trials per case of a suite of its size.

    Raises:
        ValueError: ``r`` is not an A/A calibration (``run.aa`` is not true).
    """
    if not r.run.aa:
        raise ValueError("not an A/A calibration: the receipt does not record run.aa")
    scale, grid, trials = judge_scale(r), draw_grid(r), suite_trials(len(r.cases))
    bands = [
        (c.id, arm_band(c.arms.baseline, "generation"), arm_band(c.arms.with_skill, "generation"))
        for c in r.cases
    ]
    sides = [
        None
        if a.sd is None or b.sd is None or a.mean is None or b.mean is None
        else ((a.mean + b.mean) / 2.0, a.sd, a.n, b.sd, b.n)
        for _, a, b in bands
    ]
    ps, simulated = case_chances(sides, grid, grid, trials, either=True)
    out = []
    for (cid, a, b), side, p, sim in zip(bands, sides, ps, simulated, strict=True):
        v = case_verdict(a, b, case_id=cid, scale=scale)
        called = v.verdict in (VerdictCode.IMPROVED, VerdictCode.REGRESSED)
        effect = None
        if side is not None:
            effect = max(EFFECT_FLOOR, resolution(side[1], side[2], side[3], side[4]))
        rate = None if side is None else p
        out.append(AACase(cid, called, min(a.n, b.n), rate, sim, effect, max(a.n, b.n)))
    rates = [x.false_call_rate for x in out if x.false_call_rate is not None]
    effects = [x.smallest_effect for x in out if x.smallest_effect is not None]
    return AAReading(
        tuple(out),
        sum(x.called for x in out),
        math.fsum(rates),
        1 - math.prod(1 - p for p in rates),
        statistics.median(effects) if effects else None,
        max(effects) if effects else None,
        len(out) - len(rates),
        trials,
    )


def aa_problem(path: str, aa: Receipt, named: Sequence[tuple[str, Receipt]]) -> str | None:
    """Why ``aa`` (read from ``path``) cannot calibrate the ``named`` receipts, as one line.

    ``named`` holds each compared receipt with the path it was read from. ``aa`` needs
    ``run.aa`` true and the skill name and suite sha256 of every compared receipt; a suite
    sha256 that any of them does not record fails closed, naming that receipt. ``None`` when
    ``aa`` can calibrate them.
    """
    compared = [r for _, r in named]
    if not aa.run.aa:
        found = "it records no A/A mark" if aa.run.aa is None else "it is marked as no A/A run"
        return (
            f"{path}: /run/aa: expected an A/A calibration receipt (made by driftproof run --aa); "
            f"{found}"
        )
    why = "an A/A calibration is cited only for its own skill and suite"
    for pointer, what, mine, theirs in (
        ("/skill/name", "skill", aa.skill.name, [r.skill.name for r in compared]),
        ("/suite/sha256", "suite sha256", aa.suite.sha256, [r.suite.sha256 for r in compared]),
    ):
        if None in (mine, *theirs):  # only a suite sha256 can be unrecorded
            where = path if mine is None else next(n for n, r in named if r.suite.sha256 is None)
            return (
                f"{where}: {pointer}: records no {what}, so the A/A calibration {path} cannot be "
                f"shown to be of the compared receipts' suite: {why}"
            )
        if set(theirs) != {mine}:
            words = " and ".join(str(x) for x in dict.fromkeys(theirs))
            return (
                f"{path}: {pointer}: expected the compared receipts' {what} ({words}), found "
                f"{mine}: {why}"
            )
    return _noise_source_problem(path, aa, compared)


def _noise_source_problem(path: str, aa: Receipt, compared: Sequence[Receipt]) -> str | None:
    """Why ``aa``'s model or judge model is none of ``compared``'s, as one line; else None.

    A model or judge that a compared receipt does not record is not compared with it.
    """
    why = "an A/A calibration measures the noise of its own model and judge only"
    for pointer, what, mine, theirs in (
        ("/run/model", "model", aa.run.model, {r.run.model for r in compared}),
        (
            "/judge/model",
            "judge",
            None if aa.judge is None else aa.judge.model,
            {None if r.judge is None else r.judge.model for r in compared},
        ),
    ):
        theirs.discard(None)
        if theirs and mine not in theirs:
            words = " or ".join(sorted(str(x) for x in theirs))
            found = "none" if mine is None else str(mine)
            return (
                f"{path}: {pointer}: expected the compared receipts' {what} ({words}), found "
                f"{found}: {why}"
            )
    return None


@dataclass(frozen=True)
class GateNoise:
    """What noise alone gives a planned comparison of two runs at ``draws`` draws per arm.

    Attributes:
        draws: draws per arm of each run.
        cases: cases counted (each with a spread in both of the pilot's arms).
        expected: regressed cases noise alone would give (sum of the per-case chances).
        at_least_one: the chance of at least one (:func:`p_at_least`).
        fewest_beyond: the fewest regressed cases whose chance from noise alone is under
            :data:`BEYOND_NOISE_LEVEL` (what ``fail-on: beyond-noise`` fails on); ``None`` when
            even every case regressed is not.
        trials, per_case, simulated: as in :class:`FalseAlarms`.
    """

    draws: int
    cases: int
    expected: float
    at_least_one: float
    fewest_beyond: int | None
    trials: int
    per_case: tuple[float, ...]
    simulated: tuple[bool, ...]

    def expected_words(self) -> str:
        """:attr:`expected` at the precision its simulation supports (:func:`count_words`)."""
        return count_words(
            self.expected, expected_error(self.per_case, self.trials, self.simulated)
        )

    def at_least_one_words(self) -> str:
        """:attr:`at_least_one` at the precision its simulation supports (:func:`chance_words`)."""
        return chance_words(self.per_case, 1, self.trials, self.simulated)


def gate_noise(
    sides: Sequence[tuple[float, float, float] | None],
    draws: int,
    grid: Grid,
    *,
    most_trials: int | None = None,
) -> GateNoise:
    """The A/A reading of two runs of ``draws`` draws per arm, as ``diff`` would simulate it.

    ``sides`` holds ``(true mean, sd of the earlier run, sd of the later run)`` per case, or
    ``None`` for a case with no spread (left out of ``cases``); both runs on ``grid``, with the
    trials of a suite of that many cases (:func:`suite_trials`), at most ``most_trials`` (at
    least :data:`AA_MIN_TRIALS`).
    """
    trials = suite_trials(len(sides))
    if most_trials is not None:
        trials = max(AA_MIN_TRIALS, min(trials, most_trials))
    full = [None if x is None else (x[0], x[1], draws, x[2], draws) for x in sides]
    ps, simulated = case_chances(full, grid, grid, trials)
    beyond = (k for k in range(1, len(ps) + 1) if p_at_least(ps, k) < BEYOND_NOISE_LEVEL)
    return GateNoise(
        draws,
        sum(x is not None for x in sides),
        math.fsum(ps),
        p_at_least(ps, 1),
        next(beyond, None),
        trials,
        tuple(ps),
        tuple(simulated),
    )
