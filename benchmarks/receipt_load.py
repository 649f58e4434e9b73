"""How a receipt's load time splits between its stages, as ratios (not a timed test).

Builds a sealed 0.14 receipt of 50 cases × 2 arms × 10 draws × 5 judge samples (1,000
draws, answers of 3,000 characters), reads it through ``parse_receipt`` and prints each
stage's share of the whole and the cost per draw relative to the JSON parse alone.
"""

from __future__ import annotations

import json
import time
import timeit
from collections.abc import Callable

from driftproof.receipt import draw_doc, judge_sample_doc, parse_receipt, receipt_doc, seal_document
from driftproof.receipt._bounds import check_json_bounds
from driftproof.receipt._seal import compute_seal
from driftproof.receipt._versions import validator_for

JUDGE = {"model": "judge-1", "provider": "anthropic", "surface": "api", "service": None, "sampling": None,
         "template_sha256": None, "scale": {"worst": 0.0, "best": 1.0, "step": 0.05}, "price": None}


def _receipt() -> bytes:
    def arm() -> dict:
        return {"draws": [draw_doc(j, answer="x" * 3000, judge_samples=[judge_sample_doc(0.8, reply="0.8")] * 5)
                          for j in range(10)], "generation": {"sd": 0.01}}
    cases = [{"id": f"c{i}", "prompt": "p", "prompt_sha256": None, "rubric_sha256": None, "threshold": None,
              "arms": {"with_skill": arm(), "baseline": arm()}} for i in range(50)]
    doc = receipt_doc(level="TESTED", skill_name="s", skill_text="skill", cases=cases, judge=JUDGE,
                      band_source="generation", generations_per_arm=10, judge_samples_per_generation=5)
    return json.dumps(seal_document(doc)).encode()


def _best(fn, n: int = 3) -> float:
    """Best of n runs, in seconds (stdlib timeit, one call per run)."""
    return min(timeit.repeat(fn, number=1, repeat=n))


def main() -> None:
    data = _receipt()
    doc = json.loads(data)
    stages = {
        "json parse": lambda: json.loads(data),
        "bounds": lambda: check_json_bounds(doc, "r.json"),
        "schema": lambda: list(validator_for("0.14").iter_errors(doc)),
        "seal": lambda: compute_seal(doc),
    }
    whole = _best(lambda: parse_receipt(data, "r.json"), 5)
    times = {name: _best(fn, 5) for name, fn in stages.items()}
    base = times["json parse"]
    print(f"receipt: {len(data) / 1e6:.1f} MB, 1000 draws (stages timed apart; shares may not sum to 100 %)")
    for name, t in times.items():
        print(f"{name:>10}: {t / whole:6.1%} of a full read, {t / base:6.1f}× the JSON parse")
    print(f"{'full read':>10}: {whole / base:6.1f}× the JSON parse")


if __name__ == "__main__":
    main()
