"""What an A/A calibration says about noise (issue 37, item 4)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from statistics import NormalDist

import pytest
from click.testing import CliRunner
from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof.cli import cli
from driftproof.receipt import Receipt, parse_receipt
from driftproof.stats.aa import aa_reading
from driftproof.stats.false_alarms import p_regressed

#: A 0.01 grid on the 0..1 scale: a 0.05 judge step, five judge samples a draw.
FINE = (0.01, (0.0, 1.0))


def _false_call_rate(sd: float, n: int) -> float:
    """The chance of a call either way between two arms of ``n`` draws, as an A/A reading has it."""
    return p_regressed(sd, n, sd, n, mean=0.5, grid_a=FINE, grid_b=FINE, either=True)


@pytest.mark.parametrize(
    ("sd", "n", "published"),
    # STATISTICS-NOTES §6.2: false improved + regressed under no change, N(0.70, σ) rounded to
    # 0.01, 200,000 replicates; here 2,000 seeded trials (standard error under 0.006)
    [(0.05, 3, 0.069), (0.03, 3, 0.030), (0.05, 5, 0.014), (0.02, 3, 0.003)],
)
def test_false_call_rate_matches_the_published_table(sd: float, n: int, published: float) -> None:
    assert _false_call_rate(sd, n) == pytest.approx(published, abs=0.018)


def test_a_spread_far_under_the_floor_never_calls() -> None:
    # σ = .005: the difference of two means of 3 has sd .005·√(2/3) = .0041; .05 is 12 sd away
    assert _false_call_rate(0.005, 3) == 0.0


def _draw_chances(mean: float, sd: float, step: float) -> dict[int, float]:
    """Grid point ``k`` (score ``k·step``, 0..1) → its chance: ``N(mean, σ)`` rounded to the grid
    and clipped to 0..1, ``σ`` found by bisection so that the rounded draws have spread ``sd``
    (a measured spread is a spread of scores already on the grid)."""
    top = round(1 / step)

    def chances(latent: float) -> dict[int, float]:
        cdf = [NormalDist(mean, latent).cdf((k + 0.5) * step) for k in range(top)] + [1.0]
        return {k: cdf[k] - (cdf[k - 1] if k else 0.0) for k in range(top + 1)}

    def spread(latent: float) -> float:
        c = chances(latent)
        mid = sum(p * k * step for k, p in c.items())
        return math.sqrt(sum(p * (k * step - mid) ** 2 for k, p in c.items()))

    lo, hi = 1e-9, sd + step
    for _ in range(60):
        lo, hi = ((lo + hi) / 2, hi) if spread((lo + hi) / 2) < sd else (lo, (lo + hi) / 2)
    return {k: p for k, p in chances(lo).items() if p > 1e-12}


def _exact_false_call_rate(mean: float, sd: float, n: int, step: float) -> float:
    """The chance the rule calls a change either way between two arms of ``n`` such draws
    (:func:`_draw_chances`), over every outcome: each arm's multiset of grid points with its
    multinomial chance, then every pair of arms (D-3, D-4: |Δ| > s_A + s_B, |Δ| ≥ .05)."""
    p = _draw_chances(mean, sd, step)
    arms = []
    for pts in itertools.combinations_with_replacement(sorted(p), n):
        ways = math.factorial(n) / math.prod(math.factorial(pts.count(k)) for k in set(pts))
        xs = [k * step for k in pts]
        m = sum(xs) / n
        arms.append(
            (
                m,
                math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)),
                ways * math.prod(p[k] for k in pts),
            )
        )
    return math.fsum(
        pa * pb
        for (ma, sa, pa), (mb, sb, pb) in itertools.product(arms, arms)
        if abs(mb - ma) - (sa + sb) > 1e-9 and abs(mb - ma) >= 0.05 - 1e-9
    )


def _coarse_aa(scores: list[float], step: float) -> Receipt:
    """A one-case A/A receipt on a 0..1 judge scale of ``step``, one judge sample a draw."""
    doc = make_receipt([case("c1", scores, scores[::-1])])
    doc["run"]["aa"] = True
    doc["run"]["judge_samples_per_generation"] = 1
    doc["judge"]["scale"] = {"worst": 0.0, "best": 1.0, "step": step}
    return parse_receipt(json.dumps(seal_document(doc)).encode(), "aa.json")


def test_the_false_call_rate_is_simulated_on_the_receipts_own_grid() -> None:
    # A 0.1 judge step, one judge sample a draw: draws on a 0.1 grid. Two draws .40 and .50 in
    # each arm: mean .45, spread .0707. Every outcome of two such arms, enumerated, gives the
    # chance of a false call, 0.1343; the 2,000 simulated pairs have a standard error of
    # √(.1343 × .8657 / 2000) = .0076, so the simulated rate is within four of them (.031).
    # Simulated at .5 on a 0.01 grid instead, the rate came out .192: 7.6 standard errors off.
    exact = _exact_false_call_rate(0.45, math.sqrt(0.005), 2, 0.1)
    assert exact == pytest.approx(0.1343, abs=5e-4)
    (c,) = aa_reading(_coarse_aa([0.4, 0.5], 0.1)).cases
    assert c.false_call_rate == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 2000))


SUITE_SHA = "cd" * 32


def _aa_doc() -> dict:
    cases = [
        # c1: .70 .71 .72 vs .70 .72 .71: sd .01 each; resolution .02 + 2·√(2·.0001/3) = .036330
        # → smallest effect .05 (the floor)
        case("c1", [0.70, 0.71, 0.72], [0.70, 0.72, 0.71]),
        # c2: sd .05 each, Δ .05 ≤ .10: no call; resolution .10 + 2·√(2·.0025/3) = .181650
        case("c2", [0.60, 0.65, 0.70], [0.55, 0.60, 0.65]),
        # c3: .90 .91 .92 vs .70 .71 .72: Δ .20 > .02 → a (false) call
        case("c3", [0.90, 0.91, 0.92], [0.70, 0.71, 0.72]),
    ]
    doc = make_receipt(cases)
    doc["run"]["aa"] = True
    doc["suite"]["sha256"] = SUITE_SHA  # as run records it: the suite file's sha256
    return seal_document(doc)


def test_aa_reading_by_hand() -> None:
    aa = aa_reading(parse_receipt(json.dumps(_aa_doc()).encode(), "aa.json"))
    assert [x.called for x in aa.cases] == [False, False, True] and aa.observed == 1
    c1, c2, c3 = aa.cases
    assert c1.smallest_effect == pytest.approx(0.05)
    assert c2.smallest_effect == pytest.approx(0.181650, abs=1e-6)
    assert c3.smallest_effect == pytest.approx(0.05)  # sd .01 each, as c1
    assert aa.smallest_median == pytest.approx(0.05)
    assert aa.smallest_max == pytest.approx(0.181650, abs=1e-6)
    rates = [x.false_call_rate for x in aa.cases]
    # the factory's 0.05 judge step, one sample a draw: a 0.05 grid. c1 and c3 (spread .01, means
    # .71 and .81) call by enumeration with a chance of .00013 each (a call needs every draw of
    # one arm a grid step above every draw of the other): .26 calls expected in 2,000 trials.
    # c2, at the middle .625 of its means and spread .05, calls with a chance of .0638, whose
    # 2,000 simulated pairs have a standard error of √(.0638 × .9362 / 2000) = .0055
    assert _exact_false_call_rate(0.71, 0.01, 3, 0.05) == pytest.approx(1.28e-4, abs=1e-6)
    assert _exact_false_call_rate(0.81, 0.01, 3, 0.05) == pytest.approx(1.28e-4, abs=1e-6)
    assert rates[0] is not None and rates[0] < 0.002 and rates[2] is not None and rates[2] < 0.002
    assert _exact_false_call_rate(0.625, 0.05, 3, 0.05) == pytest.approx(0.0638, abs=5e-5)
    assert rates[1] == pytest.approx(0.0638, abs=4 * 0.0055)
    assert aa.expected == pytest.approx(sum(rates))
    assert aa.at_least_one == pytest.approx(1 - math.prod(1 - p for p in rates))


def test_an_aa_receipt_carries_no_verdict_and_diff_cites_it(tmp_path: Path) -> None:
    aa = tmp_path / "aa.json"
    aa.write_text(json.dumps(_aa_doc()))
    view = CliRunner().invoke(cli, ["view", str(aa)]).output
    assert "an A/A calibration: both arms ran with the skill" in view
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    plain = json.loads(aa.read_text())
    del plain["run"]["aa"]
    for p in (a, b):
        p.write_text(json.dumps(seal_document(plain)))
    res = CliRunner().invoke(cli, ["diff", str(a), str(b), "--aa", str(aa)])
    assert res.exit_code == 0, res.output
    said = f"A/A calibration {aa}: the rule called a change, up or down, in 1 of 3 cases"
    assert said in res.output
    doc = json.loads(
        CliRunner()
        .invoke(cli, ["diff", str(a), str(b), "--aa", str(aa), "--format", "json"])
        .output
    )
    assert doc["aa"]["observed_false_calls"] == 1 and doc["aa"]["cases"] == 3
    refused = CliRunner().invoke(cli, ["diff", str(a), str(b), "--aa", str(a)])
    assert refused.exit_code == 2 and "/run/aa: expected an A/A calibration" in refused.output
    # it said "found absent" (a receipt with no run.aa member); "None" never
    assert (
        refused.output.rstrip().endswith("(made by driftproof run --aa); it records no A/A mark")
        and "None" not in refused.output
    )


def test_diff_refuses_an_aa_receipt_of_another_suite(tmp_path: Path) -> None:
    a, aa = tmp_path / "a.json", tmp_path / "aa.json"
    plain = _aa_doc()
    del plain["run"]["aa"]
    a.write_text(json.dumps(seal_document(plain)))
    other = _aa_doc()
    other["suite"]["sha256"] = "ab" * 32
    aa.write_text(json.dumps(seal_document(other)))
    refused = CliRunner().invoke(cli, ["diff", str(a), str(a), "--aa", str(aa)])
    assert refused.exit_code == 2
    assert (
        f"{aa}: /suite/sha256: expected the compared receipts' suite sha256 ({SUITE_SHA}), "
        f"found {'ab' * 32}: an A/A calibration is cited only for its own skill and suite"
    ) in refused.output


@pytest.mark.parametrize(
    ("unrecorded", "whose"),
    [(("aa", "b"), "aa"), (("b",), "b")],
    ids=["none records it", "a compared receipt does not"],
)
def test_diff_refuses_an_aa_receipt_when_a_suite_sha256_is_not_recorded(
    tmp_path: Path, unrecorded: tuple[str, ...], whose: str
) -> None:
    # an unrecorded sha256 once matched another unrecorded one: two unknown suites passed as one
    for name in ("a", "b", "aa"):
        d = _aa_doc()
        if name != "aa":
            del d["run"]["aa"]
        if name in unrecorded:
            d["suite"]["sha256"] = None
        (tmp_path / f"{name}.json").write_text(json.dumps(seal_document(d)))
    a, b, aa = (str(tmp_path / f"{n}.json") for n in ("a", "b", "aa"))
    refused = CliRunner().invoke(cli, ["diff", a, b, "--aa", aa])
    assert refused.exit_code == 2
    # the line names the receipt that records none (it named the A/A file for b's fault)
    assert refused.output == (
        f"error: {tmp_path / whose}.json: /suite/sha256: records no suite sha256, so the A/A "
        f"calibration {aa} cannot be shown to be of the compared receipts' suite: an A/A "
        "calibration is cited only for its own skill and suite\n"
    )


def test_the_chance_of_at_least_one_false_call_is_bounded_by_its_simulation() -> None:
    # Found: three cases of σ .01 and 3 draws read "(chance of at least one: 0%)": no call in
    # 2,000 simulated trials a case is no chance of 0. Their 6,000 trials with no call bound the
    # sum of the chances, at 98.75%, by Garwood's count for no event, −ln .0125 = 4.382, over
    # 2,000 trials a case: .00219, and the chance of at least one is at most that sum: printed
    # up to a tenth of a percent, under 0.3%
    from driftproof.pages.words import aa_line

    same = [0.70, 0.71, 0.72]
    doc = make_receipt([case(c, same, [0.71, 0.72, 0.70]) for c in ("c1", "c2", "c3")])
    doc["run"]["aa"] = True
    doc["judge"]["scale"]["step"] = 0.01  # scores on a 0.01 grid, as these are
    aa = aa_reading(parse_receipt(json.dumps(seal_document(doc)).encode(), "aa.json"))
    # σ .01 at 3 draws: the means' difference has sd .0082; the floor .05 is six of them away
    assert [c.false_call_rate for c in aa.cases] == [0.0, 0.0, 0.0]
    assert "(chance of at least one: under 0.3%)" in aa_line("aa.json", aa)


def test_the_expected_false_calls_carry_only_the_decimals_their_simulation_supports() -> None:
    # Twenty cases, each a 5% false-call rate from 2,000 trials: the expected count 20 × .05 = 1
    # has simulation standard error √(20 × .05 × .95 / 2000) = .0218, a 95% half-width of .0427:
    # over half a hundredth (.005), under half a tenth (.05), so two decimals: "1.00"
    from driftproof.pages.words import aa_line
    from driftproof.stats.aa import AACase, AAReading

    cases = tuple(AACase(f"c{i}", False, 3, 0.05, True, 0.06) for i in range(20))
    aa = AAReading(cases, 0, 1.0, 1 - 0.95**20, 0.06, 0.06, 0, 2000)
    assert aa.expected_words() == "1.00"
    said = "expected to call an average of 1.00 changes, up or down, per comparison over 20 cases"
    assert said in aa_line("aa.json", aa)
