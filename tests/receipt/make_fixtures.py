"""Write the receipt fixtures under ``tests/receipt/fixtures/<version>/``.

Run ``.venv/bin/python tests/receipt/make_fixtures.py`` after changing this file; the
outputs are committed. Every document is written by hand here from the shape each
version's frozen schema describes (not by the package's builders or migrations), and
sealed with the ``rfc8785`` library directly (D-12), so the tests check the reader
against data made independently of it.

Per version:
* ``valid-*.json`` — sealed receipts the reader must accept;
* ``invalid-<rule>.json`` — each breaks exactly one rule and is sealed again afterwards
  (except the seal fixtures), so only that rule can refuse it;
* ``expected.json`` — for each invalid fixture: the error class, the JSON pointer the
  message must name, and a phrase the message must contain.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rfc8785

OUT = Path(__file__).parent / "fixtures"
VERSIONS = ("0.3.1", "0.10", "0.11", "0.13", "0.14", "0.15")
H = {c: c * 64 for c in "0123456789abcdef"}  # placeholder digests


def _at_least(version: str, oldest: str) -> bool:
    return VERSIONS.index(version) >= VERSIONS.index(oldest)


def seal(doc: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in doc.items() if k != "seal"}
    return {
        **body,
        "seal": {
            "algorithm": "sha256-rfc8785",
            "sha256": hashlib.sha256(rfc8785.dumps(body)).hexdigest(),
        },
    }


def draw(
    version: str, index: int, scores: list[float] | None, *, lost: str | None = None
) -> dict[str, Any]:
    samples = [
        {
            "score": s,
            "reply_sha256": H["c"],
            "reported_model": "claude-haiku-4-5-20251001",
            "serving_model": None,
            "invalid_reason": None,
        }
        for s in (scores or [])
    ]
    d: dict[str, Any] = {
        "index": index,
        "answer": None if lost else f"answer {index}",
        "answer_sha256": None if lost else H["d"],
        "score": None if lost or not scores else sum(scores) / len(scores),
        "judge_samples": samples,
        "lost": {"reason": lost} if lost else None,
        "tokens": None if lost else {"input": 1200, "output": 300, "counted_by": "provider"},
        "checks": [] if lost else [{"name": "conventional subject", "kind": "regex", "pass": True}],
    }
    if _at_least(version, "0.10"):
        d["captured_files"] = None
    if _at_least(version, "0.14"):
        d["skill_fired"] = None
        d["source_error"] = None
    return d


def arm(version: str, draws: list[dict[str, Any]], sd: float | None = None) -> dict[str, Any]:
    a: dict[str, Any] = {"draws": draws}
    if _at_least(version, "0.14"):
        a["generation"] = {"sd": sd} if sd is not None else None
    return a


def case(cid: str, with_skill: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": cid,
        "prompt": f"Write the commit message for {cid}.",
        "prompt_sha256": H["e"],
        "rubric_sha256": H["1"],
        "threshold": 0.7,
        "arms": {"with_skill": with_skill, "baseline": baseline},
    }


def base(version: str) -> dict[str, Any]:
    """A valid, unsealed receipt of ``version``: two cases, TESTED, one judge."""
    legacy = not _at_least(version, "0.14")
    if legacy:  # one generation per arm, judged five times (the pre-Report-007 shape)
        cases = [
            case(
                c,
                arm(version, [draw(version, 0, [0.8, 0.85, 0.8, 0.9, 0.85])]),
                arm(version, [draw(version, 0, [0.5, 0.55, 0.5, 0.45, 0.5])]),
            )
            for c in ("commit-1", "commit-2")
        ]
    else:
        cases = [
            case(
                c,
                arm(
                    version,
                    [draw(version, i, [s]) for i, s in enumerate([0.8, 0.9, 0.85])],
                    sd=0.05,
                ),
                arm(
                    version,
                    [
                        draw(version, 0, [0.5]),
                        draw(version, 1, [0.6]),
                        draw(version, 2, None, lost="timeout after 2 retries"),
                    ],
                    sd=0.0707,
                ),
            )
            for c in ("commit-1", "commit-2")
        ]
    run: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "provider": "anthropic",
        "surface": "api",
        "started_at": "2026-09-15T10:00:00Z",
        "finished_at": "2026-09-15T10:20:00+00:00",
        "runner": {"name": "driftproof", "version": "0.1.0"},
    }
    if _at_least(version, "0.10"):
        run["harness"] = None
        run["capture"] = None
    if _at_least(version, "0.11"):
        run["preset"] = None
    if legacy:
        run["samples"] = 5
    else:
        run.update(generations_per_arm=3, judge_samples_per_generation=1, endpoint_attempts=13)
    overhead: dict[str, Any] = {"input_tokens": 4000, "output_tokens": 400, "usd": 0.006}
    if not legacy:
        overhead.update(judged_draws_counted=10, judged_draws_missing_usage=0)
    doc: dict[str, Any] = {
        "$schema": f"https://driftproof.dev/spec/{version}/receipt.schema.json",
        "schema_version": version,
        "verification_level": "TESTED",
        "run": run,
        "skill": {"name": "commit-messages", "sha256": H["a"], "tokens": 400},
        "suite": {"name": "commit-messages", "sha256": H["b"]},
        "judge": {
            "model": "claude-haiku-4-5-20251001",
            "provider": "anthropic",
            "surface": "api",
            "service": "https://api.anthropic.com",
            "sampling": {"temperature": 1.0},
            "template_sha256": H["f"],
            "scale": {"worst": 0.0, "best": 1.0, "step": 0.05},
            "price": {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 5.0},
        },
        "arms": {
            "with_skill": {"label": None, "instruction": None, "system_prompt_sha256": H["2"]},
            "baseline": {"label": None, "instruction": None, "system_prompt_sha256": H["3"]},
        },
        "cases": cases,
        "economics": {"judge_overhead": overhead},
    }
    if _at_least(version, "0.13"):
        doc["source_figures"] = None
        doc["uncertainty_unavailable"] = None
    if not legacy:
        doc["band_source"] = "generation"
        doc["provenance"] = None
    return doc


def valid(version: str) -> dict[str, dict[str, Any]]:
    """Valid fixtures of ``version`` by file stem."""
    out = {"valid-basic": base(version)}
    if _at_least(version, "0.10"):
        d = base(version)
        d["run"]["harness"] = {"name": "claude-code", "version": "2.1.272"}
        d["run"]["surface"] = "cli"
        d["run"]["capture"] = "files"
        d["cases"][0]["arms"]["with_skill"]["draws"][0]["captured_files"] = [
            {"path": "NOTES.md", "bytes": 120, "status": "read", "reason": None},
            {"path": "out.bin", "bytes": 9, "status": "binary", "reason": "binary file"},
        ]
        out["valid-capture-files"] = d
    if _at_least(version, "0.11"):
        d = base(version)
        d["run"]["preset"] = "quick"
        d["verification_level"] = "UNVERIFIED"
        out["valid-smoke"] = d
    if _at_least(version, "0.13"):
        d = base(version)
        d["verification_level"] = "DECLARED"
        d["judge"] = None
        d["economics"]["judge_overhead"] = None
        for c in d["cases"]:
            for a in c["arms"].values():
                a["draws"] = []
                if "generation" in a:
                    a["generation"] = None
        d["source_figures"] = {
            "repository": "https://github.com/NVIDIA/skills",
            "commit": "2b10489",
            "files": [{"path": "benchmarks.json", "git_blob_sha1": "a" * 40}],
            "rows": [
                {
                    "dimension": "Correctness",
                    "agent": "codex",
                    "score_pct": 81.0,
                    "uplift_pct": 12.5,
                }
            ],
        }
        d["uncertainty_unavailable"] = "aggregates_only"
        if "band_source" in d:
            d["band_source"] = None
        out["valid-aggregates-only"] = d
    if _at_least(version, "0.15"):
        out["valid-every-0.15-member"] = every_015_member(base(version))
    return out


def every_015_member(d: dict[str, Any]) -> dict[str, Any]:
    """``d`` with every member 0.15 added set, written from the 0.15 schema by hand."""
    d["run"].update(
        started_at="2026-09-15T13:58:55Z",
        started_at_offset="-04:00",
        finished_at_offset=None,
        max_output_tokens=8192,
        truncation="lost",
        retry={"max_attempts": 4, "max_wait_s": 120, "backoff": "exponential with full jitter"},
        batch={"provider": "anthropic", "batch_ids": ["msgbatch_01"], "file_ids": []},
        language="en",
    )
    d["judge"].update(
        channel="tool_call", template_version="judge-rubric/2", max_output_tokens=2048
    )
    d["judge"]["price"].update(
        cache_read_usd_per_mtok=0.1, cache_write_usd_per_mtok=1.25, tier="batch"
    )
    d["arms"]["with_skill"].update(
        recorded=True,
        service="https://api.anthropic.com",
        construction="control_then_skill",
        skill_fired={"fired": 2, "observed": 3},
    )
    d["arms"]["baseline"].update(
        recorded=True, service="http://127.0.0.1:8080/v1", construction="bare", skill_fired=None
    )
    first = _draw0(d)
    first.update(
        stop_reason="end_turn",
        refusal=None,
        over_budget=False,
        attempts=[
            {"error": "overloaded_error", "error_class": "transient", "status": 529, "wait_s": 2.5}
        ],
        harness_events=[{"type": "system", "subtype": "hook_response"}],
    )
    first["tokens"].update(
        input=2214, cache_read_input=2048, cache_creation_input=162, reasoning_output=None
    )
    first["judge_samples"][0]["reason"] = "Names the change and its scope."
    lost = d["cases"][0]["arms"]["baseline"]["draws"][2]
    lost["lost"].update(kind="refusal", error_class=None, status=None)
    lost.update(
        stop_reason="refusal", refusal={"text": "I can't help with that.", "category": None}
    )
    d["economics"]["judge_overhead"].update(
        cache_read_input_tokens=1000, cache_creation_input_tokens=0, reasoning_output_tokens=None
    )
    d["text_repairs"] = [{"pointer": "/cases/0/arms/with_skill/draws/0/answer", "replaced": 1}]
    d["bounded_text"] = [{"pointer": "/cases/1/prompt", "sha256": H["9"], "chars": 1500000}]
    d["cases"][1]["prompt"] = None
    return d


Mutation = Callable[[dict[str, Any]], None]


def _draw0(d: dict[str, Any]) -> dict[str, Any]:
    return d["cases"][0]["arms"]["with_skill"]["draws"][0]


def _lost_draw(d: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    for ci, c in enumerate(d["cases"]):
        for a, arm_ in c["arms"].items():
            for j, dr in enumerate(arm_["draws"]):
                if dr["lost"] is not None:
                    return f"/cases/{ci}/arms/{a}/draws/{j}/score", dr
    dr = d["cases"][0]["arms"]["baseline"]["draws"][0]
    dr["lost"] = {"reason": "timeout"}
    return "/cases/0/arms/baseline/draws/0/score", dr


D0 = "/cases/0/arms/with_skill/draws/0"


def invalid(version: str) -> dict[str, tuple[Mutation, str, str, str]]:
    """stem → (mutation, error class, pointer, phrase): each breaks one rule of ``version``."""

    def lost_score(d: dict[str, Any]) -> None:
        _lost_draw(d)[1]["score"] = 0.5

    lost_ptr = _lost_draw(base(version))[0]
    rules: dict[str, tuple[Mutation, str, str, str]] = {
        "missing-member": (
            lambda d: d["run"].pop("model"),
            "ReceiptError",
            "/run/model",
            "expected member",
        ),
        "extra-member": (
            lambda d: d["run"].__setitem__("colour", "blue"),
            "ReceiptError",
            "/run/colour",
            "only the members this version defines",
        ),
        "wrong-type": (
            lambda d: _draw0(d).__setitem__("index", "0"),
            "ReceiptError",
            f"{D0}/index",
            "expected integer",
        ),
        "bad-level": (
            lambda d: d.__setitem__("verification_level", "VERIFIED"),
            "ReceiptError",
            "/verification_level",
            "expected one of",
        ),
        "formal-level": (
            lambda d: d.__setitem__("verification_level", "FORMAL"),
            "ReceiptError",
            "/verification_level",
            "FORMAL is reserved",
        ),
        "bad-sha256": (
            lambda d: d["skill"].__setitem__("sha256", "A" * 64),
            "ReceiptError",
            "/skill/sha256",
            "SHA-256",
        ),
        "score-above-scale": (
            lambda d: _draw0(d).__setitem__("score", 1.5),
            "ReceiptError",
            f"{D0}/score",
            "≤ 1",
        ),
        "lost-draw-with-score": (
            lost_score,
            "ReceiptError",
            lost_ptr,
            "a lost draw carries no score",
        ),
        "bad-case-id": (
            lambda d: d["cases"][0].__setitem__("id", "-leading-dash"),
            "ReceiptError",
            "/cases/0/id",
            "text matching",
        ),
        "bad-check-kind": (
            lambda d: _draw0(d)["checks"][0].__setitem__("kind", "llm"),
            "ReceiptError",
            f"{D0}/checks/0/kind",
            "expected one of",
        ),
        "check-without-pass": (
            lambda d: _draw0(d)["checks"][0].pop("pass"),
            "ReceiptError",
            f"{D0}/checks/0/pass",
            "expected member",
        ),
        "zero-skill-tokens": (
            lambda d: d["skill"].__setitem__("tokens", 0),
            "ReceiptError",
            "/skill/tokens",
            "≥ 1",
        ),
        "long-suite-name": (
            lambda d: d["suite"].__setitem__("name", "s" * 201),
            "ReceiptError",
            "/suite/name",
            "at most 200 characters",
        ),
        "bad-date-time": (
            lambda d: d["run"].__setitem__("started_at", "15 September 2026"),
            "ReceiptError",
            "/run/started_at",
            "RFC 3339",
        ),
        "seal-algorithm": (
            lambda d: d.__setitem__("seal", {"algorithm": "sha1", "sha256": H["0"]}),
            "ReceiptError",
            "/seal/algorithm",
            "sha256-rfc8785",
        ),
        "unknown-version": (
            lambda d: d.__setitem__("schema_version", "0.12"),
            "UnknownVersionError",
            "/schema_version",
            "expected one of",
        ),
        "duplicate-case-id": (
            lambda d: d["cases"][1].__setitem__("id", "commit-1"),
            "ReceiptError",
            "/cases/1/id",
            "duplicate case id",
        ),
        "duplicate-draw-index": (
            lambda d: d["cases"][0]["arms"]["with_skill"]["draws"].append(copy.deepcopy(_draw0(d))),
            "ReceiptError",
            "/cases/0/arms/with_skill/draws",
            "expected unique draw indices",
        ),
        "score-without-judge": (
            lambda d: d.__setitem__("judge", None),
            "ReceiptError",
            f"{D0}/score",
            "a score needs a judge",
        ),
        "control-arm-in-arms-only": (
            lambda d: d["arms"].__setitem__(
                "control",
                {
                    "label": "__terse__",
                    "instruction": "Answer concisely.",
                    "system_prompt_sha256": None,
                },
            ),
            "ReceiptError",
            "/cases/0/arms",
            "expected a control arm in every case exactly when /arms/control names one",
        ),
    }
    if _at_least(version, "0.10"):
        rules["bad-capture"] = (
            lambda d: d["run"].__setitem__("capture", "pdf"),
            "ReceiptError",
            "/run/capture",
            "expected one of",
        )
        rules["harness-without-version"] = (
            lambda d: d["run"].__setitem__("harness", {"name": "codex"}),
            "ReceiptError",
            "/run/harness/version",
            "expected member",
        )
        rules["bad-captured-file-status"] = (
            lambda d: _draw0(d).__setitem__(
                "captured_files", [{"path": "a", "bytes": 1, "status": "gone", "reason": None}]
            ),
            "ReceiptError",
            f"{D0}/captured_files/0/status",
            "expected one of",
        )
    else:
        rules["capture-before-0.10"] = (
            lambda d: d["run"].__setitem__("capture", "text"),
            "ReceiptError",
            "/run/capture",
            "is schema_version right?",
        )
    if _at_least(version, "0.11"):
        rules["preset-reads-tested"] = (
            lambda d: d["run"].__setitem__("preset", "quick"),
            "ReceiptError",
            "/verification_level",
            "a receipt that names a preset cannot read TESTED (v0.11)",
        )
    elif _at_least(version, "0.10"):
        rules["preset-before-0.11"] = (
            lambda d: d["run"].__setitem__("preset", "quick"),
            "ReceiptError",
            "/run/preset",
            "is schema_version right?",
        )
    if _at_least(version, "0.13"):
        rules["aggregates-without-figures"] = (
            lambda d: d.__setitem__("uncertainty_unavailable", "aggregates_only"),
            "ReceiptError",
            "/source_figures",
            "figures the source printed",
        )
    elif _at_least(version, "0.11"):
        rules["source-figures-before-0.13"] = (
            lambda d: d.__setitem__("source_figures", {"a": 1}),
            "ReceiptError",
            "/source_figures",
            "is schema_version right?",
        )
    if _at_least(version, "0.14"):
        rules["zero-generations-per-arm"] = (
            lambda d: d["run"].__setitem__("generations_per_arm", 0),
            "ReceiptError",
            "/run/generations_per_arm",
            "≥ 1",
        )
        rules["overhead-without-count"] = (
            lambda d: d["economics"]["judge_overhead"].pop("judged_draws_counted"),
            "ReceiptError",
            "/economics/judge_overhead/judged_draws_counted",
            "expected member",
        )
        rules["bad-band-source"] = (
            lambda d: d.__setitem__("band_source", "mixed"),
            "ReceiptError",
            "/band_source",
            "expected one of",
        )
        rules["negative-generation-sd"] = (
            lambda d: d["cases"][0]["arms"]["with_skill"].__setitem__("generation", {"sd": -0.1}),
            "ReceiptError",
            "/cases/0/arms/with_skill/generation/sd",
            "≥ 0",
        )
        rules["legacy-band-with-many-draws"] = (
            lambda d: d.__setitem__("band_source", "legacy"),
            "ReceiptError",
            "/cases/0/arms/with_skill/draws",
            "band_source legacy means one generation",
        )
        rules["samples-at-" + version] = (
            lambda d: d["run"].__setitem__("samples", 5),
            "ReceiptError",
            "/run/samples",
            "only the members this version defines",
        )
    if _at_least(version, "0.15"):
        rules["bad-grading-channel"] = (
            lambda d: d["judge"].__setitem__("channel", "free_text"),
            "ReceiptError",
            "/judge/channel",
            "expected one of",
        )
        rules["bad-truncation"] = (
            lambda d: d["run"].__setitem__("truncation", "graded"),
            "ReceiptError",
            "/run/truncation",
            "expected one of",
        )
        rules["batch-without-ids"] = (
            lambda d: d["run"].__setitem__("batch", {"provider": "openai", "file_ids": []}),
            "ReceiptError",
            "/run/batch/batch_ids",
            "expected member",
        )
        rules["recorded-not-boolean"] = (
            lambda d: d["arms"]["baseline"].__setitem__("recorded", "no"),
            "ReceiptError",
            "/arms/baseline/recorded",
            "expected boolean",
        )
        rules["bad-attempt-class"] = (
            lambda d: _draw0(d).__setitem__(
                "attempts", [{"error": "x", "error_class": "maybe", "status": 500, "wait_s": 1}]
            ),
            "ReceiptError",
            f"{D0}/attempts/0/error_class",
            "expected one of",
        )
        rules["bad-utc-offset"] = (
            lambda d: d["run"].__setitem__("started_at_offset", "EDT"),
            "ReceiptError",
            "/run/started_at_offset",
            "UTC offset",
        )
    elif _at_least(version, "0.14"):
        rules["stop-reason-before-0.15"] = (
            lambda d: _draw0(d).__setitem__("stop_reason", "end_turn"),
            "ReceiptError",
            f"{D0}/stop_reason",
            "is schema_version right?",
        )
    if not _at_least(version, "0.14"):
        rules["zero-samples"] = (
            lambda d: d["run"].__setitem__("samples", 0),
            "ReceiptError",
            "/run/samples",
            "≥ 1",
        )
        rules["draws-counted-before-0.14"] = (
            lambda d: d["economics"]["judge_overhead"].__setitem__("judged_draws_counted", 2),
            "ReceiptError",
            "/economics/judge_overhead/judged_draws_counted",
            "is schema_version right?",
        )
    return rules


def write(path: Path, doc: Any) -> None:
    path.write_text(
        json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def main() -> None:
    for version in VERSIONS:
        folder = OUT / version
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.json"):
            old.unlink()
        for stem, doc in valid(version).items():
            write(folder / f"{stem}.json", seal(doc))
        expected: dict[str, dict[str, str]] = {}
        for stem, (mutate, error, pointer, phrase) in invalid(version).items():
            doc = copy.deepcopy(base(version))
            mutate(doc)
            write(folder / f"invalid-{stem}.json", doc if stem == "seal-algorithm" else seal(doc))
            expected[f"invalid-{stem}.json"] = {
                "error": error,
                "pointer": pointer,
                "contains": phrase,
            }
        # The seal itself: content changed after sealing, and no seal at all.
        tampered = seal(base(version))
        tampered["cases"][0]["arms"]["with_skill"]["draws"][0]["answer"] = "answer 0, edited"
        write(folder / "invalid-seal-mismatch.json", tampered)
        expected["invalid-seal-mismatch.json"] = {
            "error": "SealError",
            "pointer": "/seal/sha256",
            "contains": "changed after it was sealed",
        }
        write(folder / "invalid-seal-missing.json", base(version))
        expected["invalid-seal-missing.json"] = {
            "error": "ReceiptError",
            "pointer": "/seal",
            "contains": "expected member",
        }
        # Text-level faults JSON data cannot express.
        text = json.dumps(seal(base(version)), indent=2, sort_keys=True)
        (folder / "invalid-duplicate-key.json").write_text(
            text.replace(
                '"schema_version"', f'"schema_version": "{version}",\n  "schema_version"', 1
            ),
            encoding="utf-8",
        )
        expected["invalid-duplicate-key.json"] = {
            "error": "ReceiptError",
            "pointer": "",
            "contains": "unique member names",
        }
        (folder / "invalid-nan.json").write_text(
            text.replace('"score": 0.8,', '"score": NaN,', 1), encoding="utf-8"
        )
        expected["invalid-nan.json"] = {"error": "ReceiptError", "pointer": "", "contains": "NaN"}
        write(folder / "expected.json", expected)


if __name__ == "__main__":
    main()
