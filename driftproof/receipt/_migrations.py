"""Pure, one-step migrations of receipt documents, older version to the next (D-11, D-13).

Each step takes a document already valid against its own frozen schema and
returns a new document in the next version's shape; the input is never
mutated. A step only restates what the older receipt recorded: a field that
version did not establish becomes ``None`` (unknown), never a default (D-13).

What each step restates (the receipt specification's version map):

* ``0.3.1 → 0.10``: ``run.capture`` and ``run.harness`` were not recorded → ``None``;
  no draw listed ``captured_files`` → ``None``.
* ``0.10 → 0.11``: ``run.preset`` was not recorded → ``None``.
* ``0.11 → 0.13``: no ``source_figures`` and no ``uncertainty_unavailable`` mark → ``None``.
* ``0.13 → 0.14``: the single ``run.samples`` count did not say whether it counted
  generations or judge samples, so ``generations_per_arm`` and
  ``judge_samples_per_generation`` are both ``None`` (readers state them as unknown,
  never as one sample; method, "Receipts are an open format"); ``endpoint_attempts``,
  ``generation``, ``provenance``, ``skill_fired`` and ``source_error`` were not recorded
  → ``None``. The grader's cost before 0.14 counted one draw per case (method, "What
  grading cost"), so ``judged_draws_counted`` is the number of cases holding at least
  one draw, and ``judged_draws_missing_usage`` is ``None`` (not recorded).
  ``band_source`` is read from the draws: one draw in every arm of every case means
  the bands can only be that draw's judge samples (``legacy``); at least two draws in
  every arm means the bands are across draws (``generation``); anything else, or no
  draws, stays ``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "STEPS",
    "v0_3_1_to_v0_10",
    "v0_10_to_v0_11",
    "v0_11_to_v0_13",
    "v0_13_to_v0_14",
    "v0_14_to_v0_15",
]

Doc = dict[str, Any]


def _arms(case: Doc) -> Iterator[tuple[str, Doc]]:
    yield from case["arms"].items()


def _map_draws(
    doc: Doc, fn: Callable[[Doc], Doc], arm_fn: Callable[[Doc], Doc] | None = None
) -> list[Doc]:
    """New ``cases`` list with ``fn`` applied to every draw (and ``arm_fn`` to every arm)."""
    cases = []
    for case in doc["cases"]:
        arms = {}
        for name, arm in _arms(case):
            new_arm = {**arm, "draws": [fn(dict(d)) for d in arm["draws"]]}
            arms[name] = arm_fn(new_arm) if arm_fn else new_arm
        cases.append({**case, "arms": arms})
    return cases


def v0_3_1_to_v0_10(doc: Doc) -> Doc:
    """0.3.1 → 0.10: capture mode, harness and captured files were not recorded."""
    run = {**doc["run"], "capture": None, "harness": None}
    return {
        **doc,
        "schema_version": "0.10",
        "run": run,
        "cases": _map_draws(doc, lambda d: {**d, "captured_files": None}),
    }


def v0_10_to_v0_11(doc: Doc) -> Doc:
    """0.10 → 0.11: no preset was recorded (``run.preset`` is ``None``)."""
    return {**doc, "schema_version": "0.11", "run": {**doc["run"], "preset": None}}


def v0_11_to_v0_13(doc: Doc) -> Doc:
    """0.11 → 0.13: no printed source figures and no aggregates-only mark."""
    return {
        **doc,
        "schema_version": "0.13",
        "source_figures": None,
        "uncertainty_unavailable": None,
    }


def _band_source(doc: Doc) -> str | None:
    counts = [len(arm["draws"]) for case in doc["cases"] for _, arm in _arms(case)]
    if not counts:
        return None
    if all(n == 1 for n in counts):
        return "legacy"
    if all(n >= 2 for n in counts):
        return "generation"
    return None


def v0_13_to_v0_14(doc: Doc) -> Doc:
    """0.13 → 0.14: separate counts unknown, old judge-overhead counting stated honestly."""
    run = {k: v for k, v in doc["run"].items() if k != "samples"}
    run.update(generations_per_arm=None, judge_samples_per_generation=None, endpoint_attempts=None)
    overhead = doc["economics"]["judge_overhead"]
    if overhead is not None:
        with_draws = sum(1 for case in doc["cases"] if any(arm["draws"] for _, arm in _arms(case)))
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
            lambda d: {**d, "skill_fired": None, "source_error": None},
            lambda a: {**a, "generation": None},
        ),
        "economics": {**doc["economics"], "judge_overhead": overhead},
        "provenance": None,
    }


def _v15_draw(d: Doc) -> Doc:
    lost = d["lost"]
    if lost is not None:
        lost = {**lost, "kind": None, "error_class": None, "status": None}
    tokens = d["tokens"]
    if tokens is not None:
        tokens = {
            **tokens,
            "cache_read_input": None,
            "cache_creation_input": None,
            "reasoning_output": None,
            "total": None,
        }
    return {
        **d,
        "lost": lost,
        "tokens": tokens,
        "stop_reason": None,
        "refusal": None,
        "over_budget": None,
        "attempts": None,
        "harness_events": None,
        "judge_samples": [{**s, "reason": None} for s in d["judge_samples"]],
    }


def v0_14_to_v0_15(doc: Doc) -> Doc:
    """0.14 → 0.15: every field 0.15 added is unknown (``None``); both arms are recorded."""
    run = {
        **doc["run"],
        "started_at_offset": None,
        "finished_at_offset": None,
        "max_output_tokens": None,
        "truncation": None,
        "retry": None,
        "batch": None,
        "language": None,
    }
    judge = doc["judge"]
    if judge is not None:
        price = judge["price"]
        if price is not None:
            price = {
                **price,
                "cache_read_usd_per_mtok": None,
                "cache_write_usd_per_mtok": None,
                "tier": None,
            }
        judge = {
            **judge,
            "channel": None,
            "template_version": None,
            "max_output_tokens": None,
            "price": price,
        }
    arms = {
        name: {**spec, "recorded": True, "service": None, "construction": None, "skill_fired": None}
        for name, spec in doc["arms"].items()
        if spec is not None
    }
    overhead = doc["economics"]["judge_overhead"]
    if overhead is not None:
        overhead = {
            **overhead,
            "cache_read_input_tokens": None,
            "cache_creation_input_tokens": None,
            "reasoning_output_tokens": None,
        }
    provenance = doc["provenance"]
    if provenance is not None:
        provenance = {**provenance, "partial": None, "notes": None, "details": None}
    return {
        **doc,
        "schema_version": "0.15",
        "run": run,
        "judge": judge,
        "arms": {**doc["arms"], **arms},
        "cases": _map_draws(doc, _v15_draw),
        "economics": {**doc["economics"], "judge_overhead": overhead},
        "provenance": provenance,
        "text_repairs": None,
        "bounded_text": None,
    }


#: version → (next version, step). Registered in :data:`driftproof.receipt._versions.MIGRATIONS`.
STEPS: dict[str, tuple[str, Callable[[Doc], Doc]]] = {
    "0.3.1": ("0.10", v0_3_1_to_v0_10),
    "0.10": ("0.11", v0_10_to_v0_11),
    "0.11": ("0.13", v0_11_to_v0_13),
    "0.13": ("0.14", v0_13_to_v0_14),
    "0.14": ("0.15", v0_14_to_v0_15),
}
