"""Planning a run from a pilot receipt: draws per arm, the chance of a verdict, calls, cost.

Each case (D-6) is sized from its spreads' upper confidence bounds, pooled where Bartlett's test
allows and never under the grid's rounding spread (STATISTICS-NOTES 6.5, 6.6); where the
receipt-wide band (D-8) would read "More cases, …", the plan gives that band and each arm's
spread of the case means, which neither draws nor cases narrow. Cost is the grader's only (the
model's: D-13).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftproof.errors import RefusalError
from driftproof.pages.words import draws_of
from driftproof.stats import case_bands, judge_scale, receipt_band_of
from driftproof.stats.false_alarms import AA_RUN, at_spreads
from driftproof.stats.grading_cost import price_tiers
from driftproof.stats.planning import (
    DEFAULT_EFFECT,
    MIN_TRIALS,
    SPREAD_LEVEL,
    TRIAL_DRAWS,
    VERDICT_TRIALS,
    ArmPool,
    size_run,
)
from driftproof.wording import (
    EFFECT_FLOOR,
    MIN_DRAWS_PER_ARM,
    MORE_CASES,
    TOLERANCE,
    count_of,
    dollars,
)

#: The run's minimum draws per arm (stopping rule); a plan never asks for fewer.
RUN_MIN_DRAWS = MIN_DRAWS_PER_ARM
#: What to do when the pilot gives no spread to plan from: the draws ``driftproof run`` makes.
PILOT_ADVICE = (
    f"Run a pilot with driftproof run, which draws each arm at least {RUN_MIN_DRAWS} times, "
    "and plan from its receipt."
)

#: Why plan refuses a receipt with no case holding two measured answers in both arms.
ONE_ANSWER = (
    "No case in this receipt has two measured answers in both arms, and one answer cannot size "
    "a run of draws: plan sizes a run from how far a case's score moves from one answer to the "
    "next (a band over one answer's judge samples measures the judge alone)."
)

#: Said under the headline, in order, of a pilot that is what the :class:`Plan` field names.
PILOT_NOTES = {
    "simulated": "This pilot is simulated (its answers, its grades or both): the simulated "
    "provider drew them at random, so its spreads are not a model's; the plan shows how planning "
    "works, not what a real run needs.",
    "stub": "This pilot ran on the offline stub for its answers, its grades or both: the stub's "
    "are fixed stand-ins, not a model's, so the plan shows how planning works, not what a real "
    "run needs.",
    "smoke": "This pilot is a smoke run (--quick: the first case only, 2 draws per arm, 2 judge "
    "samples): it checks that a run works, and sizes nothing else; plan from a run without "
    "--quick.",
    "aa": "This pilot is an A/A calibration: both of its arms ran with the skill, so the count "
    "sizes a comparison of two runs with the skill, as diff and the Action make; a lift here is "
    "a change between the two runs.",
}
#: Said under the commands: a run with --draws does not add to the pilot's draws.
RUN_AFRESH = (
    "Each run draws every arm from the start (this pilot's draws do not count towards it): give "
    "it a new --out, or --force to replace the receipt there."
)
#: What a plan from a pilot with a baseline says of gating two runs (diff, the Action).
GATE_SIZING = (
    "diff and the Action compare the with-skill arms of two runs, not with skill against "
    "baseline: to size that comparison, plan from an A/A pilot (driftproof run --aa), whose two "
    "arms both carry the skill."
)

if TYPE_CHECKING:
    from driftproof.receipt import Receipt
    from driftproof.stats import Band, ReceiptBand
    from driftproof.stats.aa import GateNoise
    from driftproof.stats.grading_cost import Basis
    from driftproof.stats.planning import CaseSizing, ExistenceRates


def trials_words(n: int) -> str:
    """``n`` simulated runs per case, with why when fewer than :data:`VERDICT_TRIALS`."""
    why = {VERDICT_TRIALS: "", MIN_TRIALS: ", the fewest it simulates,"}.get(
        n, f", as many as fit in {TRIAL_DRAWS:,} simulated draws per arm,"
    )
    return f"{n:,} runs per case{why}"


@dataclass(frozen=True)
class CasePlan:
    """One case's planned draws per arm; pairs are (with skill, baseline).

    Attributes:
        draws_needed: planned draws per arm; ``None`` when no count does or it is unknown.
        no_draw_count: the two spreads' upper bounds alone reach the floor.
        bounds: the upper confidence bounds planned from (pooled where pooled).
        p_verdict: chance of a verdict at the plan's effect and count; ``None`` without a count.
        pilot_draws: when the pilot cannot tell whether a count exists, the draws to grow it to.
        larger_pilot: draws of a pilot likely to cut a count set by the pilot's looseness.
        effect_draws: the draws calling the plan's effect alone needs (``None``: none does).
    """

    case_id: str
    draws_needed: int | None
    no_draw_count: bool
    measured: tuple[int, int]
    spreads: tuple[float, float] | None = None
    bounds: tuple[float, float] | None = None
    p_verdict: float | None = None
    pilot_draws: int | None = None
    undecided: bool = False
    levels: tuple[float, float] | None = None
    larger_pilot: int | None = None
    effect_draws: int | None = None

    @property
    def no_spread(self) -> tuple[bool, bool]:
        """Per arm (with skill, baseline) of a counted case: its pilot draws all scored the same."""
        s = self.spreads if self.draws_needed is not None and self.spreads else (1.0, 1.0)
        return s[0] < TOLERANCE, s[1] < TOLERANCE


@dataclass(frozen=True)
class Plan:
    """What a full run at the needed draws implies; ``None`` is unknown or no count.

    Attributes:
        draws_per_arm: the largest finite count over the cases.
        unknown_cases: cases with fewer than two measured draws in an arm.
        cases_disagree, sentence: the receipt-wide band (D-8) reads "More cases, …": its
            reduced band, with the draw-to-draw part taken out, reaches the floor; ``sentence``
            is ``None`` for an A/A pilot, whose count sizes a comparison (no receipt-wide band).
        suite_band, suite_spreads: that band and each arm's sd across cases of the case means
            (with skill, baseline), on the judge scale; ``None`` unless the cases disagree.
        judge_usd: estimated grading cost in US dollars; ``cost_note`` says how, or why not.
        judge_usd_interactive, judge_usd_batch: the same at each price tier
            (:data:`~driftproof.stats.grading_cost.BATCH_PRICE_RATIO`).
        p_verdict: the lowest chance of a verdict at ``effect`` over the cases with a count.
        pools: each arm's spreads tested for one common spread (``None``: under two cases).
        rounding_spread: ``step/√12`` where some arm, of ``rounded_cases``, was planned at it
            (STATISTICS-NOTES 6.6); ``grader_step``, ``samples_per_draw`` and ``draw_step``
            (the grader's over its samples) are set with it.
        pooled_level: the level some arm's pooled spread was bounded at; ``existence``: the
            error rates there.
        simulated: the pilot was drawn by the simulated provider: no model's spreads.
        stub: the pilot's answers or grades came from the offline stub: fixed, no model's.
        smoke: the pilot is a smoke run (``run --quick``, a preset named): first case, 2 draws.
        aa: the pilot is an A/A calibration: the count sizes a comparison of two skill runs.
        effect_alone: draws calling ``effect`` alone needs, when under ``draws_per_arm``.
        larger_pilot, pilot_draws: the largest of the cases' (:class:`CasePlan`).
        noise: an A/A pilot's regressed cases from noise alone at ``draws_per_arm``.
        pilot_answer_calls, pilot_judge_calls: the calls of the pilot the headline asks for
            first (``pilot_draws``, else ``larger_pilot``); ``None`` without one, or judge
            samples per answer unrecorded.
    """

    draws_per_arm: int | None
    cases: tuple[CasePlan, ...]
    no_count_cases: tuple[str, ...]
    unknown_cases: tuple[str, ...]
    cases_disagree: bool
    sentence: str | None
    suite_band: float | None
    arms: tuple[str, ...]
    answer_calls: int | None
    judge_calls: int | None
    judge_usd: float | None
    cost_note: str
    judge_usd_interactive: float | None = None
    judge_usd_batch: float | None = None
    effect: float = DEFAULT_EFFECT
    level: float = SPREAD_LEVEL
    p_verdict: float | None = None
    verdict_trials: int = VERDICT_TRIALS
    pools: tuple[ArmPool | None, ArmPool | None] = (None, None)
    rounding_spread: float | None = None
    rounded_cases: tuple[str, ...] = ()
    pooled_level: float | None = None
    existence: ExistenceRates | None = None
    suite_spreads: tuple[float, float] | None = None
    simulated: bool = False
    stub: bool = False
    smoke: bool = False
    aa: bool = False
    grader_step: float | None = None
    samples_per_draw: int | None = None
    draw_step: float | None = None
    effect_alone: int | None = None
    larger_pilot: int | None = None
    pilot_draws: int | None = None
    noise: GateNoise | None = None
    pilot_answer_calls: int | None = None
    pilot_judge_calls: int | None = None

    @property
    def undecided_cases(self) -> tuple[str, ...]:
        """Cases the pilot is too small to size either way."""
        return tuple(c.case_id for c in self.cases if c.undecided)

    def noise_words(self) -> str | None:
        """What noise alone gives a gate at an A/A pilot's count, in ``diff``'s words, or None.

        The regressed cases two runs at ``draws_per_arm`` (with no count, at the pilot's own
        draws, for a team choosing whether to gate) with no change would read, the chance of at
        least one (how often the Action's default ``fail-on`` fails with nothing changed) and
        the fewest regressed cases ``fail-on: beyond-noise`` fails on.
        """
        n = self.noise
        if n is None:
            return None
        said = n.expected_words()
        about = "" if said.startswith("fewer") else "about "
        of = f"the {count_of(n.cases, 'case')}"
        beyond = (
            "no count of regressed cases here is beyond what noise alone gives, so fail-on: "
            "beyond-noise never fails on them."
            if n.fewest_beyond is None
            else "fail-on: beyond-noise fails it from "
            f"{count_of(n.fewest_beyond, 'regressed case')} on."
        )
        gate = "the planned count"
        if self.draws_per_arm is None:  # what a team choosing to gate anyway would meet
            gate = (
                "the pilot's own draws, the most it measured in an arm, as no count is planned "
                f"(driftproof run --draws {n.draws} gives each run as many)"
            )
        return (
            f"Noise alone, for a gate of two runs at {gate}: if every case's true mean were the "
            f"same in both, the gate would read, on average, {about}{said} regressed cases per "
            f"comparison (of {of} with a spread in both arms) {at_spreads(AA_RUN, [n.draws])} "
            "(pooled where they are pooled; "
            f"simulated as diff does). The chance of at least one is {n.at_least_one_words()}: "
            "how often a gate that fails on any regressed case, as the Action does by default, "
            f"would fail the job with nothing changed; {beyond}"
        )


def _plannable(r: Receipt, effect: float) -> list[tuple[str, Band, Band]]:
    """The case bands of ``r``, planned at ``effect``; raises as :func:`plan_receipt` says."""
    if not EFFECT_FLOOR <= effect <= 1.0:
        raise RefusalError(
            f"--effect must be a lift from {EFFECT_FLOOR} (the effect floor) to 1 on the judge "
            f"scale, not {effect}"
        )
    if r.is_aggregates_only:
        raise RefusalError(
            "plan refuses an aggregates-only receipt: the source printed figures with no "
            "per-run score, so there is no spread to plan from"
        )
    if not any(d.score is not None for *_, d in draws_of(r)):
        raise RefusalError(
            "This receipt holds no scored draw, so there is nothing to plan from: plan sizes a "
            f"run from the spread of a pilot's scores. {PILOT_ADVICE}"
        )
    bands = case_bands(r)
    if not any(w.mean is not None and b.mean is not None for _, w, b in bands):
        raise RefusalError(
            "plan needs a case with a measured draw in both arms; this receipt has none"
        )
    # answers, not a legacy band's judge samples: one rule for one answer per arm, imported or not
    if not any(w.n > 1 and b.n > 1 for _, w, b in case_bands(r, "generation")):
        raise RefusalError(f"{ONE_ANSWER} {PILOT_ADVICE}")
    return bands


def plan_receipt(r: Receipt, effect: float = DEFAULT_EFFECT) -> Plan:
    """Plan a full run from pilot receipt ``r``, for a true lift of ``effect``.

    Raises:
        RefusalError: ``effect`` is not from the effect floor to 1 on the judge scale; or, the
            first that holds: ``r`` is aggregates only, holds no scored draw, has no case with a
            measured draw in both arms, or none with two measured answers in both (a legacy
            band's judge samples are one answer: method, "Where a band comes from").
    """
    bands = _plannable(r, effect)
    z = size_run(r, bands, effect)
    plans = tuple(_case_plan(*x, s) for x, s in zip(bands, z.cases, strict=True))
    rb = _more_cases(r, bands)
    floored = z.rounding_spread is not None
    return Plan(
        z.draws_per_arm,
        plans,
        tuple(p.case_id for p in plans if p.no_draw_count),
        tuple(
            p.case_id
            for p in plans
            if p.draws_needed is None and not p.no_draw_count and not p.undecided
        ),
        rb is not None,
        MORE_CASES if rb is not None and not r.run.aa else None,  # a gate's is no receipt's
        rb.band if rb is not None else None,
        r.arm_names,
        z.answers,
        z.judge_calls,
        z.judge_usd,
        _cost_note(z.answers, z.usd_per_draw, z.basis),
        *price_tiers(r, z.judge_usd),
        effect,
        SPREAD_LEVEL,
        z.least_chance,
        z.trials,
        z.pools,
        z.rounding_spread,
        z.rounded_cases,
        z.pooled_level,
        z.existence,
        (rb.spread_with, rb.spread_baseline) if rb is not None else None,
        simulated=r.is_simulated,
        stub=r.is_stub,
        smoke=r.is_smoke,
        aa=bool(r.run.aa),
        grader_step=r.judge.scale.step if floored and r.judge is not None else None,
        samples_per_draw=r.run.judge_samples_per_generation if floored else None,
        draw_step=z.draw_step if floored else None,
        effect_alone=z.effect_alone,
        larger_pilot=z.larger_pilot,
        pilot_draws=z.pilot_draws,
        noise=z.noise,
        **_pilot_calls(r, z.pilot_draws if z.pilot_draws is not None else z.larger_pilot),
    )


def _pilot_calls(r: Receipt, draws: int | None) -> dict[str, int | None]:
    """The answer and judge calls of a pilot of ``draws`` per arm (:class:`Plan`'s fields)."""
    answers = draws * len(r.cases) * len(r.arm_names) if draws is not None else None
    k = r.run.judge_samples_per_generation
    judge = answers * k if answers is not None and k is not None else None
    return {"pilot_answer_calls": answers, "pilot_judge_calls": judge}


#: What lowers a case's spread with what run offers, for cases no count resolves.
LOWER_SPREAD = (
    "run grades every answer 5 times (judge samples) and has no option for more, so what brings "
    "a case's spread down is the case itself: a prompt that leaves less room for different "
    "answers, or a rubric (or weighted criteria) the grader applies the same way every time; a "
    "steadier grader (run --judge-model) narrows the grader's part, given to every run compared"
)


def spread_words(p: Plan) -> str | None:
    """How to lower the spread of the cases no count resolves, and what they still call.

    A move still separates and is called past the sum of the two spreads and the effect floor
    (D-4); the figures are each case's at the pilot's own spreads. ``None``: no such case.
    """
    stuck = [c for c in p.cases if c.no_draw_count or (c.undecided and c.pilot_draws is None)]
    if not stuck:
        return None
    past = sorted(
        (max(sum(c.spreads), EFFECT_FLOOR), c.case_id) for c in stuck if c.spreads is not None
    )
    figures = ", ".join(f"{x:.3f} in {cid}" for x, cid in past[:3]) + (
        f", up to {past[-1][0]:.3f} in {past[-1][1]}" if len(past) > 3 else ""
    )
    return (
        f"To reduce a spread: {LOWER_SPREAD}. Left in, such a case still calls a large move: a "
        "gap between the two means wider than the two spreads together, and at least the "
        f"{EFFECT_FLOOR} floor, separates and is called (at this pilot's spreads, past "
        f"{figures}); a smaller one reads underpowered."
    )


def no_spread_assumed(p: Plan) -> str:
    """What the count assumes of an arm whose pilot draws all scored the same (D-1).

    ``"none"``, or, where scores sit on a judge's grid, its rounding spread: ``"only the judge
    grid's rounding spread, 0.0029"`` (:func:`rounding_words` says what it is).
    """
    if p.rounding_spread is None:
        return "none"
    return f"only the judge grid's rounding spread, {p.rounding_spread:.4f}"


def rounding_words(p: Plan) -> str | None:
    """The rounding spread some arm was planned at, and what it is, or ``None`` for none.

    ``"0.0029 (the step of a draw's score, 0.01: the grader's 0.05 over 5 judge samples, ÷ √12)"``
    (D-1, STATISTICS-NOTES 6.6).
    """
    if p.rounding_spread is None:
        return None
    k, step, draw = p.samples_per_draw, p.grader_step, p.draw_step
    if k is None or step is None or draw is None:  # pragma: no cover - set with the spread
        source = "the step of a draw's score ÷ √12"
    elif k == 1:
        source = f"the step of a draw's score, the judge's {step:g} at one judge sample, ÷ √12"
    else:
        source = (
            f"the step of a draw's score, {draw:.4g}: the judge's {step:g} over "
            f"{k} judge samples, ÷ √12"
        )
    return f"{p.rounding_spread:.4f} ({source})"


def _case_plan(cid: str, w: Band, b: Band, z: CaseSizing | None) -> CasePlan:
    """A case's plan from its sizing (``None``: an arm has no spread to size it from)."""
    if z is None or w.sd is None or b.sd is None:
        return CasePlan(cid, None, False, (w.n, b.n))
    kept = {k: v for k, v in vars(z).items() if k not in ("draws", "chance")}  # the rest as is
    spreads = (w.sd, b.sd)
    return CasePlan(cid, z.draws, measured=(w.n, b.n), spreads=spreads, p_verdict=z.chance, **kept)


def _more_cases(r: Receipt, bands: list[tuple[str, Band, Band]]) -> ReceiptBand | None:
    """The receipt-wide band (D-8) when it reads "More cases, …", else ``None``."""
    rb = receipt_band_of([(w, b) for _, w, b in bands], judge_scale(r))
    return rb if rb is not None and rb.sentence == MORE_CASES else None


#: How the grading cost was worked out, or why there is none, by what it rests on.
_HOW = {
    "recorded": "the pilot's recorded grading cost per judged draw",
    "priced": "the pilot's judge tokens per judged draw at the judge price frozen in the receipt",
    "no usage": "the pilot records no judge usage",
    "no price": "the receipt freezes no judge price; driftproof run --judge-price IN,OUT freezes "
    "one in the next receipt",
}


def _cost_note(answers: int | None, per_draw: float | None, basis: Basis) -> str:
    """How the grading cost was worked out from the pilot's cost per judged draw, or why not."""
    if answers is None:
        return "the plan sets no draw count for the run yet, so there is nothing to cost"
    if per_draw is None:
        return _HOW[basis]
    return (
        f"{_HOW[basis]} ({dollars(per_draw, 6)}) × {answers:,} answers; a floor, since usage "
        "that was not reported is not in it; the answering model's cost is unknown "
        "(no price recorded)"
    )
