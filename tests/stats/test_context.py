"""Context beyond the method (paired SE over cases, spread split), worked by hand."""

from __future__ import annotations

import copy
import json

import pytest
from factories import JUDGE, case, make_receipt
from receipt_docs import draw_doc, judge_sample_doc

from driftproof.receipt import parse_receipt
from driftproof.stats.breakdown import lift_breakdown
from driftproof.stats.context import lift_interval, spread_split, t_quantile


def _read(cases):
    return parse_receipt(json.dumps(make_receipt(copy.deepcopy(cases))).encode(), "t.json")


def test_paired_interval_over_cases() -> None:
    # lifts .30, −.10, −.10 (see test_breakdown): mean .03333; deviations .26667, −.13333, −.13333;
    # SS = .071111 + .017778 + .017778 = .106667; var = .053333; sd = .230940; SE = sd/√3 = .133333;
    # t(.975, 2) = 4.3027; half-width .573693 → [−.540360, .607027].
    r = _read(
        [
            case("c1", [0.80, 0.82, 0.84], [0.50, 0.52, 0.54]),
            case("c2", [0.60, 0.61, 0.62], [0.70, 0.71, 0.72]),
            case("c3", [0.50, 0.52, 0.54], [0.60, 0.62, 0.64]),
        ]
    )
    iv = lift_interval(lift_breakdown(r))
    assert iv.reason is None and iv.cases == 3 and iv.df == 2 and iv.t == 4.3027
    assert iv.se == pytest.approx(0.133333, abs=1e-6)
    assert iv.low == pytest.approx(-0.540360, abs=1e-6) and iv.high == pytest.approx(
        0.607027, abs=1e-6
    )


def test_interval_unavailable_with_one_case() -> None:
    iv = lift_interval(lift_breakdown(_read([case("c1", [0.8, 0.82, 0.84], [0.5, 0.52, 0.54])])))
    assert iv.se is None and iv.reason == "one included case: no spread across cases"


def test_t_quantiles() -> None:
    # published t(.975): df 4 → 2.7764, df 30 → 2.0423, df 60 → 2.0003, df 120 → 1.9799
    assert t_quantile(0.975, 4) == 2.7764 and t_quantile(0.975, 30) == 2.0423
    assert t_quantile(0.975, 60) == pytest.approx(2.0003, abs=1e-4)
    assert t_quantile(0.975, 120) == pytest.approx(1.9799, abs=1e-4)
    with pytest.raises(ValueError):
        t_quantile(0.975, 0)


def _judged(pairs):
    return [
        draw_doc(
            i,
            answer=f"a{i}",
            judge_samples=[
                judge_sample_doc(s, reply=str(s), reported_model=JUDGE["model"]) for s in p
            ],
        )
        for i, p in enumerate(pairs)
    ]


def test_spread_split_judge_and_draw_parts() -> None:
    c = case("s", [0.5, 0.5, 0.5], [0.5, 0.5, 0.5])
    # with skill: draws (.6,.8) (.7,.9) (.8,1.0) → scores .7 .8 .9, total var .01;
    # each draw s² = .02, /2 samples = .01 → judge part .01, draw part 0: all judge noise.
    c["arms"]["with_skill"]["draws"] = _judged([(0.6, 0.8), (0.7, 0.9), (0.8, 1.0)])
    # baseline: draws (.5,.5) (.7,.7) (.9,.9) → scores .5 .7 .9, total var .04; judge part 0.
    c["arms"]["baseline"]["draws"] = _judged([(0.5, 0.5), (0.7, 0.7), (0.9, 0.9)])
    w, b = spread_split(_read([c]))
    assert (w.total, w.judge_part, w.draw_part) == (
        pytest.approx(0.01),
        pytest.approx(0.01),
        pytest.approx(0.0, abs=1e-12),
    )
    assert w.judge_share == pytest.approx(1.0)
    assert (b.total, b.judge_part, b.draw_part) == (pytest.approx(0.04), 0.0, pytest.approx(0.04))
    assert b.judge_share == 0.0


def test_spread_split_needs_two_judge_samples() -> None:
    w, _ = spread_split(_read([case("c", [0.7, 0.8, 0.9], [0.5, 0.5, None])]))
    assert w.total == pytest.approx(0.01) and w.judge_part is None
    assert w.reason == "no draw has two judge samples: the judge part cannot be read"
    _, b = spread_split(_read([case("c", [0.7, 0.8, 0.9], [0.5, None, None])]))
    assert b.reason == "fewer than two measured draws" and b.draws == 1


def test_paired_interval_is_clipped_to_the_range_a_lift_can_take() -> None:
    # lifts −.25, 0: mean −.125; sd .176777; SE .125; t(.975, 1) = 12.7062; half-width 1.588275
    # → −1.713275 to +1.463275, beyond −1 and +1 at both ends: shown as −1 to +1
    r = _read([case("c1", [0.5], [0.75]), case("c2", [0.5], [0.5])])
    iv = lift_interval(lift_breakdown(r))
    assert iv.se == pytest.approx(0.125) and iv.t == 12.7062
    assert (iv.low, iv.high, iv.clipped_low, iv.clipped_high) == (-1.0, 1.0, True, True)
    # lifts .5, .4: mean .45, SE .05, half-width .63531 → −.18531 to +1.08531: the top clipped
    iv = lift_interval(lift_breakdown(_read([case("c1", [0.9], [0.4]), case("c2", [0.8], [0.4])])))
    assert iv.low == pytest.approx(-0.18531) and iv.high == 1.0
    assert (iv.clipped_low, iv.clipped_high) == (False, True)
