"""The valid receipt shapes of every frozen version, written by hand for the fixtures.

Used by ``make_fixtures.py`` (which see): each document follows the shape the version's
frozen schema describes, not the package's builders, and is sealed with ``rfc8785`` directly.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import rfc8785

OUT = Path(__file__).parent / "fixtures"
VERSIONS = ("0.3.1", "0.10", "0.11", "0.13", "0.14", "0.15", "0.16")
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
        # the digest of the answer text, as a reader recomputes it (D-18)
        "answer_sha256": None if lost else hashlib.sha256(f"answer {index}".encode()).hexdigest(),
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
        # the shape the NVIDIA catalogue import writes (the model reads it; the schema allows
        # any object here)
        pct = {"unit": "%", "field": "uplift_pct"}
        d["source_figures"] = {
            "source": "nvidia-benchmarks-json",
            "repository": "https://github.com/NVIDIA/skills",
            "commit": "2b10489",
            "files": [{"path": "benchmarks.json", "git_blob_sha1": "a" * 40}],
            "rows": [
                {
                    "dimension": "Correctness",
                    "agent": "codex",
                    "num": 8,
                    "printed": None,
                    "score": {"value": 81.0, "unit": "%", "field": "score_pct"},
                    "baseline": None,
                    "uplift": {"value": 12.5, "printed": "12.5", **pct},
                    "note": None,
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


def _draw0(d: dict[str, Any]) -> dict[str, Any]:
    return d["cases"][0]["arms"]["with_skill"]["draws"][0]


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
