"""The invalid fixtures of every frozen version: each breaks exactly one rule.

Used by ``make_fixtures.py`` (which see).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from fixture_shapes import H, _at_least, _draw0, base

Mutation = Callable[[dict[str, Any]], None]


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
