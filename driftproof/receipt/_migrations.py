"""Pure, one-step migrations of receipt documents, older version to the next (D-11, D-13).

Each step takes a document valid against its own frozen schema and returns a new one in the
next version's shape, never mutating the input; a field the older version did not establish
becomes ``None`` (unknown), never a default (D-13).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

Doc = dict[str, Any]


@overload
def _unknown(part: Doc, *names: str) -> Doc: ...
@overload
def _unknown(part: None, *names: str) -> None: ...
def _unknown(part: Doc | None, *names: str) -> Doc | None:
    """A copy of ``part`` with ``names`` set to ``None``, unknown (D-13); ``None`` stays so."""
    return None if part is None else {**part, **dict.fromkeys(names)}


def _map_draws(
    doc: Doc, fn: Callable[[Doc], Doc], arm_fn: Callable[[Doc], Doc] | None = None
) -> list[Doc]:
    """New ``cases`` list with ``fn`` applied to every draw (and ``arm_fn`` to every arm)."""
    cases = []
    for case in doc["cases"]:
        arms = {}
        for name, arm in case["arms"].items():
            new_arm = {**arm, "draws": [fn(dict(d)) for d in arm["draws"]]}
            arms[name] = arm_fn(new_arm) if arm_fn else new_arm
        cases.append({**case, "arms": arms})
    return cases


def v0_3_1_to_v0_10(doc: Doc) -> Doc:
    """0.3.1 → 0.10: ``run.capture``, ``run.harness`` and ``captured_files`` not recorded."""
    return {
        **doc,
        "schema_version": "0.10",
        "run": _unknown(doc["run"], "capture", "harness"),
        "cases": _map_draws(doc, lambda d: _unknown(d, "captured_files")),
    }


def v0_10_to_v0_11(doc: Doc) -> Doc:
    """0.10 → 0.11: no preset was recorded (``run.preset`` is ``None``)."""
    return {**doc, "schema_version": "0.11", "run": _unknown(doc["run"], "preset")}


def v0_11_to_v0_13(doc: Doc) -> Doc:
    """0.11 → 0.13: no printed source figures and no aggregates-only mark."""
    return {**_unknown(doc, "source_figures", "uncertainty_unavailable"), "schema_version": "0.13"}


def _band_source(doc: Doc) -> str | None:
    counts = [len(arm["draws"]) for case in doc["cases"] for arm in case["arms"].values()]
    if not counts:
        return None
    if all(n == 1 for n in counts):
        return "legacy"
    if all(n >= 2 for n in counts):
        return "generation"
    return None


def v0_13_to_v0_14(doc: Doc) -> Doc:
    """0.13 → 0.14: separate counts unknown, old judge-overhead counting stated honestly.

    ``run.samples`` did not say what it counted, so both new counts are ``None``. Cost before
    0.14 counted one draw per case (method, "What grading cost"): ``judged_draws_counted`` is
    the cases holding a draw. ``band_source``: one draw in every arm ``legacy``, two or more
    ``generation``, else ``None``.
    """
    run = _unknown(
        {k: v for k, v in doc["run"].items() if k != "samples"},
        "generations_per_arm",
        "judge_samples_per_generation",
        "endpoint_attempts",
    )
    overhead = doc["economics"]["judge_overhead"]
    if overhead is not None:
        with_draws = sum(1 for c in doc["cases"] if any(a["draws"] for a in c["arms"].values()))
        overhead = {
            **overhead,
            "judged_draws_counted": with_draws,
            "judged_draws_missing_usage": None,
        }
    return {
        **doc,
        "schema_version": "0.14",
        "run": run,
        "band_source": _band_source(doc),
        "cases": _map_draws(
            doc,
            lambda d: _unknown(d, "skill_fired", "source_error"),
            lambda a: _unknown(a, "generation"),
        ),
        "economics": {**doc["economics"], "judge_overhead": overhead},
        "provenance": None,
    }


def _v15_draw(d: Doc) -> Doc:
    return {
        **_unknown(d, "stop_reason", "refusal", "over_budget", "attempts", "harness_events"),
        "lost": _unknown(d["lost"], "kind", "error_class", "status"),
        "tokens": _unknown(
            d["tokens"], "cache_read_input", "cache_creation_input", "reasoning_output", "total"
        ),
        "judge_samples": [_unknown(s, "reason") for s in d["judge_samples"]],
    }


def v0_14_to_v0_15(doc: Doc) -> Doc:
    """0.14 → 0.15: every field 0.15 added is unknown (``None``); both arms are recorded."""
    judge = doc["judge"]
    if judge is not None:
        judge = {
            **_unknown(judge, "channel", "template_version", "max_output_tokens"),
            "price": _unknown(
                judge["price"], "cache_read_usd_per_mtok", "cache_write_usd_per_mtok", "tier"
            ),
        }
    arms = {
        name: {**_unknown(spec, "service", "construction", "skill_fired"), "recorded": True}
        for name, spec in doc["arms"].items()
        if spec is not None
    }
    overhead = _unknown(
        doc["economics"]["judge_overhead"],
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "reasoning_output_tokens",
    )
    run = _unknown(
        doc["run"],
        "started_at_offset",
        "finished_at_offset",
        "max_output_tokens",
        "truncation",
        "retry",
        "batch",
        "language",
    )
    return {
        **_unknown(doc, "text_repairs", "bounded_text"),
        "schema_version": "0.15",
        "run": run,
        "judge": judge,
        "arms": {**doc["arms"], **arms},
        "cases": _map_draws(doc, _v15_draw),
        "economics": {**doc["economics"], "judge_overhead": overhead},
        "provenance": _unknown(doc["provenance"], "partial", "notes", "details"),
    }


def v0_15_to_v0_16(doc: Doc) -> Doc:
    """0.15 → 0.16: every member 0.16 added is optional and unknown when absent (D-13)."""
    return {**doc, "schema_version": "0.16"}


#: Ordered migrations: version → (next version, pure one-step function), walked by ``migrate``.
MIGRATIONS: dict[str, tuple[str, Callable[[Doc], Doc]]] = {
    "0.3.1": ("0.10", v0_3_1_to_v0_10),
    "0.10": ("0.11", v0_10_to_v0_11),
    "0.11": ("0.13", v0_11_to_v0_13),
    "0.13": ("0.14", v0_13_to_v0_14),
    "0.14": ("0.15", v0_14_to_v0_15),
    "0.15": ("0.16", v0_15_to_v0_16),
}
