"""README's noise-alone figure for a gate, checked by an independent simulation of the verdict rule.

README: "at 40 cases, 3 draws per arm and a spread of 0.05 per draw, about 1.4 cases, with a 75%
chance of at least one" (it said 68%). Worked here from the method's words, not from
driftproof/stats: two with-skill arms of the same true mean (0.70), 3 draws each, per-draw score
N(0.70, 0.05) rounded to 0.01 and clipped to 0..1; band = mean ± sample sd (ddof 1); a case reads
regressed when the bands are apart (touching overlaps, tolerance 1e-9) and the mean falls by at
least 0.05 (D-3, D-4). Per case that happens with p ≈ 0.0345 (the statistics notes' operating
table: 6.9% false improved-or-regressed at spread 0.05 and 3 draws, half each way), so over 40
unchanged cases the expected count is 40p ≈ 1.38 and P(at least one) = 1 − (1 − p)^40 ≈ 0.75, not
0.68. A grid model (scores on the 0.05 judge grid) gives 0.72 to 0.76; `driftproof diff` itself
prints 74% for this suite, and tests/test_action_beyond_noise.py works out 0.75 by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"
CLAIM = re.compile(
    r"at\s+40\s+cases,\s+3\s+draws\s+per\s+arm\s+and\s+a\s+spread\s+of\s+0\.05\s+per\s+draw,"
    r"\s+about\s+([\d.]+)\s+cases?,\s+with\s+a\s+(\d+)%\s+chance\s+of\s+at\s+least\s+one"
)


def _p_regressed(sd: float, draws: int, reps: int, seed: int) -> float:
    """Share of unchanged cases (true Δ = 0) that the rule reads regressed, by simulation."""
    rng = np.random.default_rng(seed)
    a = np.clip(np.round(0.70 + sd * rng.standard_normal((reps, draws)), 2), 0.0, 1.0)
    b = np.clip(np.round(0.70 + sd * rng.standard_normal((reps, draws)), 2), 0.0, 1.0)
    delta = b.mean(axis=1) - a.mean(axis=1)
    apart = np.abs(delta) - (a.std(axis=1, ddof=1) + b.std(axis=1, ddof=1)) > 1e-9
    return float(np.mean(apart & (delta <= -(0.05 - 1e-9))))


def test_readme_chance_of_at_least_one_noise_regression_matches_simulation() -> None:
    m = CLAIM.search(README.read_text(encoding="utf-8"))
    assert m, "README no longer states the 40-case noise-alone figure"
    p = _p_regressed(0.05, 3, 400_000, seed=20261205)
    assert 0.032 < p < 0.037  # simulation error ±0.0003 around 0.0345
    chance = 1.0 - (1.0 - p) ** 40
    stated = int(m.group(2)) / 100
    assert abs(float(m.group(1)) - 40 * p) <= 0.1  # the expected count, 1.38 ± 0.01
    # 0.75 ± 0.004 by simulation; allow 3 points for the choice of score model
    assert abs(stated - chance) <= 0.03, (
        f"README says {stated:.0%} chance of at least one case regressed by noise; "
        f"simulation of the rule gives {chance:.1%} (expected count {40 * p:.2f})"
    )


METHOD = README.parent / "site_src" / "method.md"


def test_method_pages_worked_example_halves_its_own_table_and_matches_the_readme() -> None:
    """The method page's forty-case example takes the table's A/A rate at σ 0.05 and 3 draws,
    half each way; its per-case chance, expected count and chance of at least one must follow
    from that by arithmetic (it said 7.1%, "half of them each way", 3.45%: half is 3.55%), and
    its chance must be the README's."""
    text = METHOD.read_text(encoding="utf-8")
    row = re.search(r"^\| 0\.05 \| 3 \| ([\d.]+)% \|", text, re.MULTILINE)
    assert row, "the operating table has no σ 0.05, 3 draws row"
    example = re.search(
        r"half\s+of\s+them\s+each\s+way,\s+so\s+each\s+case\s+reads\s+regressed\s+with\s+a\s+"
        r"chance\s+of\s+about\s+([\d.]+)%\.\s+Noise\s+alone\s+then\s+gives\s+about\s+"
        r"40\s+×\s+([\d.]+)\s+=\s+([\d.]+)\s+regressed\s+cases.*?"
        r"1\s+−\s+\(1\s+−\s+([\d.]+)\)⁴⁰\s+=\s+(\d+)%",
        text,
        re.DOTALL,
    )
    assert example, "the method page no longer works the forty-case example"
    half = float(row.group(1)) / 2 / 100
    p = float(example.group(1)) / 100
    assert abs(p - half) <= 0.0006, (p, half)  # the table's rate, halved, to its rounding
    assert float(example.group(2)) == float(example.group(4)) == p
    assert abs(float(example.group(3)) - 40 * p) < 0.05
    stated = int(example.group(5)) / 100
    assert abs(stated - (1 - (1 - p) ** 40)) < 0.005
    readme = CLAIM.search(README.read_text(encoding="utf-8"))
    assert readme and int(readme.group(2)) / 100 == stated
