"""``driftproof plan``'s plan in plain words: what to run, its calls, cost and cases, then why."""

from __future__ import annotations

import math
from dataclasses import asdict

from driftproof.pages.plan import (
    GATE_SIZING,
    PILOT_NOTES,
    RUN_AFRESH,
    CasePlan,
    Plan,
    no_spread_assumed,
    rounding_words,
    spread_words,
    trials_words,
)
from driftproof.pages.tables import json_text
from driftproof.pages.words import count_of, first_of
from driftproof.render.escape import fit_text, terminal_safe
from driftproof.render.plan_suite import plan_arms, suite_line
from driftproof.stats.planning import (
    AGREEMENT_DF,
    AGREEMENT_LEVEL,
    DOUBT_NONE_LEVEL,
    HOMOGENEITY_LEVEL,
    POOLED_DF,
    SPREAD_LEVEL,
    ArmPool,
)
from driftproof.wording import (
    EFFECT_FLOOR,
    MAX_DRAWS_IN_ARM,
    NO_DRAW_COUNT_REACHES,
    TOLERANCE,
    dollars,
)


def _pct(p: float) -> str:
    return f"{p:.0%}" if 0.01 <= p <= 0.99 else ("over 99%" if p > 0.99 else "under 1%")


#: A headline names at most this many cases, then "and N more".
NAMED_AT_MOST = 5


def _names(ids: tuple[str, ...]) -> str:
    """``a``, ``a and b``, ``a, b and c``; past :data:`NAMED_AT_MOST`, then ``and N more``."""
    if len(ids) > NAMED_AT_MOST:
        return first_of(ids, NAMED_AT_MOST)
    return ids[0] if len(ids) == 1 else ", ".join(ids[:-1]) + " and " + ids[-1]


def headline(p: Plan) -> str:
    """The one line that says what to do: grow the pilot or run N draws; unresolvable cases."""
    grow = tuple(c.case_id for c in p.cases if c.undecided and c.pilot_draws is not None)
    stuck = tuple(c.case_id for c in p.cases if c.undecided and c.pilot_draws is None)
    parts = []
    if grow:
        parts.append(
            f"Grow the pilot to {p.pilot_draws:,} draws per arm and plan again: it is too small "
            f"to plan {_names(grow)}."
        )
        if p.draws_per_arm is not None:  # the count the calls, cost and chance below are for
            parts.append(
                f"The cases it can plan need {p.draws_per_arm:,} draws per arm, the count the "
                "calls and cost below are for."
            )
    elif p.draws_per_arm is not None:
        which = " for the cases that can resolve" if p.no_count_cases or stuck else ""
        if p.larger_pilot is None:
            parts.append(f"Run {p.draws_per_arm:,} draws per arm{which}{_set_by(p, first=True)}.")
        else:  # the cheap step first, then why, then the count without it
            parts.append(
                f"Next, run a pilot of {p.larger_pilot:,} draws per arm and plan again: this "
                "pilot is too small to show how much the scores vary from draw to draw, so to "
                f"be safe the plan asks for {p.draws_per_arm:,} draws per arm"
                f"{_set_by(p, first=True)}, and a pilot of {p.larger_pilot:,} would likely cut "
                "that count. Or skip the pilot and run "
                f"{p.draws_per_arm:,} draws per arm now{',' if which else ''}{which}."
            )
    if flat := _no_spread(p):
        parts.append(
            f"The pilot measured no spread in {_names(flat)}: every draw there scored the same, "
            f"so the count assumes {no_spread_assumed(p)}, and a larger pilot is safer."
        )
    if p.no_count_cases:
        it, its = ("it", "its") if len(p.no_count_cases) == 1 else ("them", "their")
        parts.append(
            f"The two arms' spreads of {_names(p.no_count_cases)} add up to the floor or more, "
            f"even at their lower bounds: no number of draws resolves {it}; reduce {its} spread "
            f"or drop {it}."
        )
    if stuck:
        it, its = ("it", "its") if len(stuck) == 1 else ("them", "their")
        parts.append(
            f"The pilot already has many draws and still cannot plan {_names(stuck)}; reduce "
            f"{its} spread or drop {it}."
        )
    if p.unknown_cases:
        parts.append("Some cases have no spread to plan from (fewer than two draws in an arm).")
    return " ".join(parts)


def _no_spread(p: Plan) -> tuple[str, ...]:
    """Each counted case with an arm whose pilot draws all scored the same, with those arms."""
    flat = [
        (c.case_id, [a for a, f in zip(plan_arms(p), c.no_spread, strict=True) if f])
        for c in p.cases
    ]
    return tuple(f"{cid} ({' and '.join(arms)})" for cid, arms in flat if arms)


def _p_text(p: float) -> str:
    return f"p = {p:.3f}" if p >= 0.001 else "p under 0.001"


#: What Bartlett's test of equal variances checks, in a reader's words (the method page names it).
SPREAD_TEST = "a test of whether the cases' spreads differ by more than chance"


def _pool_lines(p: Plan) -> list[str]:
    """Per arm with two or more cases: whether their spreads were pooled, and why."""
    lines = []
    for arm, q in zip((x.capitalize() for x in plan_arms(p)), p.pools, strict=True):
        if q is None:
            continue
        if q.p is None:
            lines.append(
                f"{arm}: the spreads of the {q.cases:,} cases are not pooled: a case's draws are "
                "all equal and the judge's step is not recorded, so whether the spreads agree "
                "cannot be tested; each case is planned from its own spread."
            )
            continue
        test = f"{SPREAD_TEST} gives {_p_text(q.p)}"
        if q.pooled:
            lines.append(
                f"{arm}: the spreads of the {q.cases:,} cases agree, so they are pooled: "
                f"{q.sd:.4f} over {q.df:,} degrees of freedom, upper {q.level:.0%} bound "
                f"{q.bound(q.level):.4f}. Every case is planned from it, as {test} (had it been "
                f"under {HOMOGENEITY_LEVEL:.0%}, they would be kept apart)."
            )
        elif q.p >= HOMOGENEITY_LEVEL:
            lines.append(
                f"{arm}: the spreads of the {q.cases:,} cases agree within this arm ({test}), but "
                "not across cases over both arms (below), so each case is planned from its own "
                "spread."
            )
        else:
            lines.append(
                f"{arm}: the spreads of the {q.cases:,} cases disagree ({test}, under "
                f"{HOMOGENEITY_LEVEL:.0%}), so each case is planned from its own spread."
            )
    return lines + _across_line(p)


def _across_line(p: Plan) -> list[str]:
    """The test across cases over both arms, when it was taken."""
    q = next((q for q in p.pools if q is not None and q.across is not None), None)
    if q is None or q.across is None:
        return []
    if q.across < q.apart_below:
        what = f"under {q.apart_below:.0%}: the cases' spreads disagree and are not pooled"
    elif q.across < q.doubt_below:
        what = (
            f"under {q.doubt_below:.0%}: the pooled spreads are in doubt, so a pooled spread "
            f"over {POOLED_DF} or more degrees of freedom is taken at its upper "
            f"{SPREAD_LEVEL:.0%} bound, and names no count only when its lower "
            f"{DOUBT_NONE_LEVEL:.0%} bounds reach the floor"
        )
    else:
        what = f"{q.doubt_below:.0%} or over: the cases' spreads agree"
    return [
        "Across cases, each case's spread over both arms (each arm scaled to its pooled "
        f"spread): {SPREAD_TEST} gives {_p_text(q.across)}, {what}. " + _cut_offs(q)
    ]


def _cut_offs(q: ArmPool) -> str:
    """Why the test across cases has the cut-offs it has: the pilot's draws per case (D-5)."""
    draws = AGREEMENT_DF + 2  # degrees of freedom over both arms, plus one per arm
    if q.apart_below > 0:  # a small pilot: each arm's own test has little power
        return (
            f"The cut-offs are {q.apart_below:.0%} and {q.doubt_below:.0%} because a case has "
            f"fewer than {draws} draws over its two arms, too few for each arm's own test to "
            f"catch spreads that differ; with {draws} or more in every case the cut-off is "
            f"{HOMOGENEITY_LEVEL:.0%}."
        )
    return (
        f"The cut-off is {q.doubt_below:.0%} because every case has {draws} or more draws over "
        f"its two arms, enough for each arm's own test; a pilot with fewer is held to "
        f"{AGREEMENT_LEVEL:.0%}."
    )


def _level_line(p: Plan) -> str:
    """The bounds' confidence levels, what they promise, and with pooling how often they err."""
    many = sum(1 for c in p.cases if c.draws_needed is not None) > 1
    run = "; a run reads underpowered when any one case does, so more often" if many else ""
    promise = (
        "case of a run at this count with no effect reads underpowered at most 10% of the time "
        f"when the true spreads are no wider than the bounds{run}. A case has no count only "
        "when even the lower"
    )
    if p.pooled_level is None or p.existence is None:
        return (
            f"Spreads are taken at their upper {p.level:.0%} confidence bounds: a {promise} "
            f"{p.level:.0%} bounds of its spreads reach the floor."
        )
    e = p.existence
    return (
        f"A spread pooled over {POOLED_DF} or more degrees of freedom is taken at its upper "
        f"{p.pooled_level:.0%} confidence bound, any other at its upper {p.level:.0%} bound. A "
        f"{promise} bounds of its spreads reach the floor: the lower 50% bound (the "
        f"median-unbiased value) of a spread taken at its upper {p.pooled_level:.0%} bound, the "
        f"lower {p.level:.0%} bound of any other. At the pooled {e.df:,} degrees of freedom per "
        f"arm, two equal spreads summing to {e.below:.3f} get a count {_pct(e.count_below)} of "
        f"the time; {_pct(e.none_below)} of the time they are wrongly named as having none. Two "
        f"summing to {e.above:.4f} are named as having none {_pct(e.none_above)} of the time; "
        f"{_pct(e.count_above)} of the time they wrongly get a count. In between, the pilot "
        "cannot tell."
    )


def _case_line(p: Plan, c: CasePlan) -> str:
    """One case's line: its count (or why none), pilot draws, spreads, bounds, chance."""
    why = "none" if c.no_draw_count else "pilot too small" if c.undecided else "unknown"
    n = f"{c.draws_needed:,}" if c.draws_needed is not None else why
    extra = ""
    if c.spreads is not None and c.bounds is not None:
        # a pooled arm is planned from the pooled spread's bound, which may sit below its own
        kinds = [
            f"{'pooled ' if q is not None and q.pooled else ''}upper {lv:.0%}"
            for q, lv in zip(p.pools, c.levels or (SPREAD_LEVEL, SPREAD_LEVEL), strict=True)
        ]
        a, b = (f"{x:.3f}" for x in c.bounds)
        bounds = (
            f"{kinds[0]} bounds {a} and {b}"
            if kinds[0] == kinds[1]
            else f"bounds {a} ({kinds[0]}) and {b} ({kinds[1]})"
        )
        extra = f"; spreads {c.spreads[0]:.3f} and {c.spreads[1]:.3f}, {bounds}"
    if c.p_verdict is not None:
        extra += f"; verdict at {p.effect:.3f}, at the pilot's spreads: {_pct(c.p_verdict)}"
    return (
        f"  {c.case_id}: {n} (pilot measured {c.measured[0]:,} {plan_arms(p)[0]}, "
        f"{c.measured[1]:,} {plan_arms(p)[1]}{extra})"
    )


def _set_by(p: Plan, *, first: bool = False) -> str:
    """Which aim sets the count when not the lift (else ""); ``first``: the first line's words."""
    if p.effect_alone is None:
        return ""
    alone = f"a true lift of {p.effect:.3f} alone would be called at {p.effect_alone:,}"
    if first:
        return f" (so that a run with no effect seldom reads underpowered; {alone})"
    return (
        " Here keeping a run with no effect from reading underpowered sets it: "
        f"{alone} draws per arm, so a larger lift does not lower the count."
    )


#: The heading over the plan's reasoning, which follows what to run, its calls, cost and cases.
WHY_HEADING = "Why this count:"


def _tiers(p: Plan) -> str | None:
    """The grading cost per price tier, or ``None`` without both prices."""
    if p.judge_usd_interactive is None or p.judge_usd_batch is None:
        return None
    return f"interactive {dollars(p.judge_usd_interactive)}, batch {dollars(p.judge_usd_batch)}"


def _commands(p: Plan) -> list[str]:
    """The commands that carry the headline out: the pilot first when it helps, then the run."""
    n = p.pilot_draws if p.pilot_draws is not None else p.draws_per_arm  # the headline's ask
    if n is not None and n > MAX_DRAWS_IN_ARM:
        return [
            f"A receipt holds at most {MAX_DRAWS_IN_ARM:,} draws per arm, so no one run can draw "
            f"each arm {n:,} times: narrow the spreads (a steadier judge or case) first."
        ]
    if n is None:
        return []
    aa = "--aa " if p.aa else ""  # a larger pilot is run as this one was; the gate's run is not
    if p.pilot_draws is not None:
        return [f"To draw each arm {n:,} times, give driftproof run {aa}--draws {n}.", RUN_AFRESH]
    both = ", for both runs the gate compares (the earlier receipt's and the new one's)"
    run = f"To draw each arm {n:,} times, give driftproof run --draws {n}{both if p.aa else ''}."
    if (pilot := p.larger_pilot) is None:
        return [run, RUN_AFRESH]
    return [  # the pilot first, as the headline says it first
        f"To run the pilot of {pilot:,} draws per arm first, give driftproof run {aa}--draws "
        f"{pilot}, then plan from its receipt.",
        run,
        RUN_AFRESH,
    ]


def _calls_and_cost(p: Plan) -> list[str]:
    """The calls the run makes and what grading them costs."""
    pilot = p.pilot_draws if p.pilot_draws is not None else p.larger_pilot  # the headline's
    runs = [(f"the pilot of {pilot:,}", p.pilot_answer_calls, p.pilot_judge_calls)] if pilot else []
    run = f"a run of {p.draws_per_arm:,}" if p.draws_per_arm is not None else ""
    lines = []
    for what, answers, judge in runs + [(run, p.answer_calls, p.judge_calls)]:
        if answers is not None:
            said = f"{judge:,}" if judge is not None else "unknown (judge samples not recorded)"
            lines.append(
                f"Calls for {what} draws per arm: {count_of(answers, 'answer')} over "
                f"{count_of(len(p.cases), 'case')} × {count_of(len(p.arms), 'arm')}; "
                f"judge calls {said}."
            )
    if p.aa and p.answer_calls is not None:
        lines[-1] += " A gate compares two such runs: the earlier receipt's and the new one's."
    cost = dollars(p.judge_usd) if p.judge_usd is not None else "unknown"
    of = f" of {run} draws per arm" if run else ""
    lines.append(f"Estimated grading cost{of}: {cost} ({p.cost_note}).")
    tiers = _tiers(p)
    batch = "run --batch: half the price, finished within 24 h, not minutes"
    return lines + ([f"Grading cost by price tier: {tiers} ({batch})."] if tiers else [])


def _cases(p: Plan) -> list[str]:
    """The cases no count reaches or no spread plans, then one line per case."""
    lines = []
    if p.no_count_cases:
        lines.append(f"{NO_DRAW_COUNT_REACHES}: " + ", ".join(p.no_count_cases))
    if p.unknown_cases:
        lines.append(
            "an arm has fewer than two measured draws, no spread to hold: "
            + ", ".join(p.unknown_cases)
        )
    return lines + [_case_line(p, c) for c in p.cases]


def _why(p: Plan) -> list[str]:
    """The reasoning behind the count: the suite, the chance, the aims, bounds and pooling."""
    lines = [x for x in (suite_line(p),) if x is not None]
    if p.draws_per_arm is not None and p.p_verdict is not None:
        cost = f"; grading cost {tiers}" if (tiers := _tiers(p)) else ""
        lines.append(
            f"At {p.draws_per_arm:,} draws per arm a true lift of {p.effect:.3f} gives a verdict "
            f"with a chance of {_pct(p.p_verdict)} in the case least likely to give one "
            f"(simulated, {trials_words(p.verdict_trials)} at the pilot's own spreads, pooled "
            f"where they are pooled){cost}."
        )
        lines.append(  # what this count answers, apart from the count diff and the Action give
            "This count is for a next run, sized from the spreads' upper bounds so that a run "
            f"with no effect seldom reads underpowered and a true lift of {p.effect:.3f} is "
            "called; the draws needed that diff and the Action give are for the bands already "
            "measured, so the two counts differ." + _set_by(p)
        )
        # only at the floor itself: a lift above it is called more often as draws are added,
        # as the chance printed above says (a lift of 0.055 at 27 draws: 96%)
        if p.effect <= EFFECT_FLOOR + TOLERANCE:
            lines.append(
                f"A lift at the {EFFECT_FLOOR} floor is called only about half the time at "
                "any number of draws: the floor is tested on the measured gap, which falls below "
                "a true lift at the floor about half the time."
            )
        lines.append(_level_line(p))
    if (rounding := rounding_words(p)) is not None:
        lines.append(
            f"Scores sit on the judge's grid, so a spread under its rounding spread {rounding} "
            f"is planned at that instead, for {_names(p.rounded_cases)}."
        )
    counted = p.draws_per_arm is not None and p.p_verdict is not None
    gate = [GATE_SIZING] if counted and not p.aa else []
    return lines + _pool_lines(p) + gate


def plan_text(p: Plan, width: int | None = None) -> str:
    """The plan in plain words, every line made :func:`~driftproof.render.escape.terminal_safe`.

    In order: the headline; the commands that carry it out; how to lower a spread no count
    resolves (:func:`~driftproof.pages.plan.spread_words`); calls and grading cost; what the
    pilot is (:data:`PILOT_NOTES`); the cases; then, under :data:`WHY_HEADING`, the reasoning.
    ``width``: the terminal's width in characters, each longer line wrapped to it, or ``None``
    (not a terminal).
    """
    lines = [headline(p), *_commands(p), *filter(None, [spread_words(p)]), *_calls_and_cost(p)]
    lines += [note for field, note in PILOT_NOTES.items() if getattr(p, field)]
    lines += [x for x in (p.noise_words(),) if x is not None]
    lines += _cases(p)
    if why := _why(p):
        lines += [WHY_HEADING, *why]
    return fit_text("\n".join(terminal_safe(x) for x in lines) + "\n", width)


def plan_json(p: Plan) -> str:
    """The plan as JSON (:func:`~driftproof.pages.tables.json_text`, NaN refused).

    Its fields (but the rounding spread and its steps) and the headline; a cost too large to
    state (past the largest float: infinite) is null, its field named in ``too_large_to_state``.

    Raises:
        ValueError: a figure is NaN or infinite.
    """
    doc = asdict(p)
    said = "noise rounding_spread rounded_cases grader_step samples_per_draw draw_step effect_alone"
    for k in said.split():  # said in the text's reasons, not fields of the JSON
        del doc[k]
    doc["spread_level"], doc["pooled_spread_level"] = doc.pop("level"), doc.pop("pooled_level")
    big = [k for k in doc if k.startswith("judge_usd") and doc[k] == math.inf]
    doc |= dict.fromkeys(big) | {"too_large_to_state": big}  # null, apart from an unknown cost
    for c in doc["cases"]:
        c["larger_pilot_draws"] = c.pop("larger_pilot")
    n, keys = p.noise, ("draws", "cases", "expected", "at_least_one", "fewest_beyond")
    doc |= {
        "noise_alone": n and {k: getattr(n, k) for k in keys} | {"trials_per_case": n.trials},
        "larger_pilot_draws": doc.pop("larger_pilot"),
        "headline": headline(p),
        "undecided_cases": list(p.undecided_cases),
        "pools": [
            None
            if q is None
            else {"cases": q.cases, "df": q.df, "p": q.p, "pooled": q.pooled, "sd": q.sd}
            for q in p.pools
        ],
    }
    return json_text(doc)
