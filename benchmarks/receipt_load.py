"""How a receipt's load time splits between its stages, as ratios (not a timed test).

Builds a sealed receipt of 50 cases × 2 arms × 10 draws × 5 judge samples (1,000 draws,
answers of 3,000 characters), reads it through ``parse_receipt`` and prints each stage's
share of the whole and the cost per draw relative to the JSON parse alone; the schema stage
is timed for the compiled validator that decides (jsonschema-rs) and for python-jsonschema,
which only words a refusal (issue 19). Then, as processes: ``driftproof validate`` of the
file against a ``python -c`` that only ``json.load``s it (target: at most 20×).
"""

from __future__ import annotations

import json
import timeit

from driftproof.receipt import (
    build_draw,
    build_judge_sample,
    build_receipt,
    compute_seal,
    parse_receipt,
)
from driftproof.receipt._bounds import check_json_bounds
from driftproof.receipt._versions import compiled_validator_for, validator_for

JUDGE = {
    "model": "judge-1",
    "provider": "anthropic",
    "surface": "api",
    "service": None,
    "sampling": None,
    "template_sha256": None,
    "scale": {"worst": 0.0, "best": 1.0, "step": 0.05},
    "price": None,
}


def _receipt() -> bytes:
    def arm() -> dict:
        return {
            "draws": [
                build_draw(
                    j, answer="x" * 3000, judge_samples=[build_judge_sample(0.8, reply="0.8")] * 5
                )
                for j in range(10)
            ],
            "generation": {"sd": 0.0},
        }

    cases = [
        {
            "id": f"c{i}",
            "prompt": "p",
            "prompt_sha256": None,
            "rubric_sha256": None,
            "threshold": None,
            "arms": {"with_skill": arm(), "baseline": arm()},
        }
        for i in range(50)
    ]
    doc = build_receipt(
        level="TESTED",
        skill_name="s",
        skill_text="skill",
        cases=cases,
        judge=JUDGE,
        band_source="generation",
        generations_per_arm=10,
        judge_samples_per_generation=5,
    ).to_json_dict()
    doc["seal"] = {"algorithm": "sha256-rfc8785", "sha256": compute_seal(doc)}
    return json.dumps(doc).encode()


def _best(fn, n: int = 3) -> float:
    """Best of n runs, in seconds (stdlib timeit, one call per run)."""
    return min(timeit.repeat(fn, number=1, repeat=n))


def main() -> None:
    data = _receipt()
    doc = json.loads(data)
    stages = {
        "json parse": lambda: json.loads(data),
        "bounds": lambda: check_json_bounds(doc, "r.json"),
        "schema (compiled)": lambda: compiled_validator_for(doc["schema_version"]).is_valid(doc),
        "schema (python-jsonschema, wording only)": lambda: list(
            validator_for(doc["schema_version"]).iter_errors(doc)
        ),
        "seal": lambda: compute_seal(doc),
    }
    whole = _best(lambda: parse_receipt(data, "r.json"), 5)
    times = {name: _best(fn, 5) for name, fn in stages.items()}
    base = times["json parse"]
    print(
        f"receipt: {len(data) / 1e6:.1f} MB, 1000 draws "
        "(stages timed apart; shares may not sum to 100 %)"
    )
    for name, t in times.items():
        print(f"{name:>10}: {t / whole:6.1%} of a full read, {t / base:6.1f}× the JSON parse")
    print(f"{'full read':>10}: {whole / base:6.1f}× the JSON parse")
    _as_processes(data)


def _as_processes(data: bytes) -> None:
    import os
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        f = Path(d, "r.json")
        f.write_bytes(data)
        cli = Path(sys.executable).with_name("driftproof")
        runs = {
            "validate": [str(cli), "validate", str(f)],
            "json.load": [sys.executable, "-c", f"import json; json.load(open({str(f)!r}, 'rb'))"],
        }
        best = {
            k: min(
                timeit.repeat(
                    lambda c=c: subprocess.run(
                        c, check=True, capture_output=True, env=dict(os.environ)
                    ),
                    number=1,
                    repeat=3,
                )
            )
            for k, c in runs.items()
        }
    print(
        f"as processes: driftproof validate {best['validate']:.2f} s, "
        f"python -c json.load {best['json.load']:.2f} s: "
        f"{best['validate'] / best['json.load']:.1f}× (target ≤ 20×)"
    )


if __name__ == "__main__":
    main()
