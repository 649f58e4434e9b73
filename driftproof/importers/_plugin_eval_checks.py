"""``claude plugin eval`` aggregates checked against the runs and cases they summarise.

The definitions are the format's (the interop SOURCE.md, "The fields, in brief"): a case's
``score`` and ``passRate`` are its with arm's (mean run score, share of runs passed), and under
ablation ``scoreWithout``/``passRateWithout`` the without arm's and ``delta`` the score minus
``scoreWithout``; the document's ``casesTotal`` counts its cases, ``casesPassed`` those whose
score reaches the suite's ``threshold``, ``overallScore`` is the mean case score and ``meanDelta``
the mean case delta; ``costUsd`` is the whole suite's spend, so at least its runs' costs added
up. A figure that breaks one is refused, so no receipt seals an aggregate its own document
contradicts (fail closed). A figure is compared only where every input to it is recorded
plainly (a run that errored, skipped its paid graders or has no score leaves its arm's
figures uncompared, as the source may still have graded it). ``graded_share`` works a run's
score out again from its graders, or says why it cannot; ``grader_check`` keeps a grader's
result as a check.
"""

from __future__ import annotations

import math
from typing import Any

from driftproof.importers._common import ROUNDING, Where, named, same_derived, source_number
from driftproof.receipt._bounds import cut_label, quote
from driftproof.wording import count_of

#: (case member, the arm it summarises, how it summarises a run: score or pass).
_CASE_FIGURES = (
    ("score", "with", "score"),
    ("passRate", "with", "passed"),
    ("scoreWithout", "without", "score"),
    ("passRateWithout", "without", "passed"),
)


def check_aggregates(doc: dict[str, Any], w: Where, threshold: float | None) -> None:
    """Refuse aggregates (case and document) or a suite cost its runs and cases contradict.

    Args:
        doc: the schema-checked document.
        w: its place (the file).
        threshold: the suite's threshold, read (``None``: not recorded).

    Raises:
        ImportError_: at the aggregate that disagrees, naming what its parts make it.
    """
    scores, deltas = [], []
    for i, case in enumerate(doc["cases"]):
        aw = w / "cases" / i / "aggregates"
        agg = case.get("aggregates") or {}  # an object or null (the schema)
        for member, arm, what in _CASE_FIGURES:
            expected = _arm_figure(case["arms"].get(arm), what)
            _same(
                aw.number(agg, member),
                expected,
                aw / member,
                f"the {'mean score' if what == 'score' else 'share passed'} of its "
                f"{count_of(len(case['arms'].get(arm) or []), arm + ' run')}",
            )
        score = aw.number(agg, "score")
        without = aw.number(agg, "scoreWithout")
        delta = aw.number(agg, "delta")
        if score is not None and without is not None:
            _same(delta, score - without, aw / "delta", "score minus scoreWithout")
        scores.append(score)
        deltas.append(delta)
    _check_document(doc, w, threshold, scores, deltas)


def _check_document(
    doc: dict[str, Any],
    w: Where,
    threshold: float | None,
    scores: list[float | None],
    deltas: list[float | None],
) -> None:
    """The document's aggregates against its cases' (``scores``, ``deltas``) and its cost."""
    aw = w / "aggregates"
    agg = doc.get("aggregates") or {}
    total = aw.number(agg, "casesTotal")
    if total is not None and doc.get("partial") is not True and total != len(doc["cases"]):
        raise (aw / "casesTotal").fail(
            f"expected {len(doc['cases'])}, the cases the document holds, found {total:g}: the "
            "document contradicts itself"
        )
    aw.number(agg, "overallPassRate", low=0, high=1)  # a share, however the source reads it
    passed = aw.number(agg, "casesPassed")
    if passed is not None and total is not None and passed > total:
        raise (aw / "casesPassed").fail(
            f"expected at most casesTotal ({total:g}), found {passed:g}: the document "
            "contradicts itself"
        )
    for key, values, what in (("overallScore", scores, "scores"), ("meanDelta", deltas, "deltas")):
        known = [v for v in values if v is not None]
        if not values or len(known) < len(values) or doc.get("partial") is True:
            continue
        mean = math.fsum(known) / len(known)
        _same(aw.number(agg, key), mean, aw / key, f"the mean of the cases' {what}")
        if key == "overallScore" and threshold is not None:
            reached = sum(1 for s in known if s >= threshold - ROUNDING)
            _same(
                passed,
                float(reached),
                aw / "casesPassed",
                f"the cases whose score reaches the suite's threshold {threshold:g}",
            )
    _check_cost(doc, w)


def _check_cost(doc: dict[str, Any], w: Where) -> None:
    """Refuse a suite cost below zero or below its runs' declared costs added up."""
    cost = source_number(doc.get("costUsd"), w / "costUsd")
    if cost is None:
        return
    runs = [
        r.get("costUsd")
        for c in doc["cases"]
        for arm in (c["arms"].get("with"), c["arms"].get("without"))
        for r in arm or []
    ]
    spent = math.fsum(x for x in runs if type(x) in (int, float))
    if cost < 0 or cost < spent * (1 - 1e-9) - 1e-12:
        raise (w / "costUsd").fail(
            f"expected the suite's whole cost in USD, at least its runs' costs added up "
            f"({spent:.6g}), found {cost:.6g}: the document contradicts itself"
        )


def _arm_figure(runs: list[dict[str, Any]] | None, what: str) -> float | None:
    """An arm's mean run score or share passed; ``None`` unless every run records it plainly."""
    if not runs or not all(
        r.get(what) is not None
        and r.get("error") is None
        and r.get("skippedPaidGraders") is not True
        for r in runs
    ):
        return None
    return math.fsum(float(r[what]) for r in runs) / len(runs)


def _same(value: float | None, expected: float | None, w: Where, what: str) -> None:
    same_derived(value, expected, w, what, "document")


def check_weights(graders: Any, w: Where) -> None:
    """Refuse, at its pointer, a blank grader name or a weight that is no finite number >= 0.

    Args:
        graders: a case's grader definitions or a run's grader results.
        w: where ``graders`` is (the list).

    Raises:
        ImportError_: a blank ``name`` (it names a check); a ``weight`` that is no number,
            negative or not finite: a run's score is the weighted share of its scored graders
            that passed, which such a weight leaves undefined.
    """
    for i, g in enumerate(graders or []):
        if isinstance(g, dict) and isinstance(g.get("name"), str):
            named(g["name"], w / i / "name", "the grader's name", None)  # a check's name
        weight = g.get("weight") if isinstance(g, dict) else None
        if weight is None:
            continue  # null or absent: no weight to check
        number = isinstance(weight, int | float) and not isinstance(weight, bool)
        if not number or not 0 <= weight < math.inf:
            raise (w / i / "weight").fail(
                f"expected a grader weight of 0 or more, found {quote(weight)}: a run's score "
                "is the weighted share of its scored graders that passed"
            )


def graded_share(results: Any) -> tuple[float | None, str]:
    """The run's score as the source defines it, or why it cannot be worked out.

    Args:
        results: a run's grader results (``graders``), as recorded, their weights already
            checked by :func:`check_weights` (each null, absent or a number of 0 or more).

    Returns:
        ``(share, "")``: the weighted share of the run's scored graders (``scored: true``) that
        passed. ``(None, why)``, ``why`` in plain words, when no grader is scored, a scored
        grader does not say plainly (a ``passed`` that is not true or false, no weight, a
        score of its own) or the weights add up to nothing.
    """
    if not results:
        return None, "it records no grader results"
    scored = [g for g in results if isinstance(g, dict) and g.get("scored") is True]
    if not scored:
        return None, "none of its graders is scored"
    total = passed = 0.0
    for g in scored:
        w, name = g.get("weight"), cut_label(str(g.get("name")))
        if not isinstance(g.get("passed"), bool):
            said = g.get("explanation")
            said = (
                f" (it says {said.strip()[:300]!r})"
                if isinstance(said, str) and said.strip()
                else ""
            )
            return None, f"its scored grader {name!r} recorded no pass or fail{said}"
        if "score" in g:
            return None, f"its scored grader {name!r} records a score of its own"
        if w is None:  # any other weight is a number of 0 or more (check_weights, run first)
            return None, f"its scored grader {name!r} records no weight of 0 or more"
        total += w
        passed += w if g["passed"] else 0.0
    if total <= 0:
        return None, "the weights of its scored graders add up to 0"
    return passed / total, ""


def grader_check(name: str, kind: Any, passed: bool) -> dict[str, Any]:
    """A grader's result as a check: a regex grader's as ``regex``, another's as its type.

    ``name`` and the type are cut by :func:`cut_label`.
    """
    if kind == "regex":
        return {"name": cut_label(name), "kind": "regex", "pass": passed}
    shown = cut_label(kind) if isinstance(kind, str) else "grader (no definition in the case)"
    return {
        "name": cut_label(name),
        "kind": "assertion",
        "pass": passed,
        "outcome": "pass" if passed else "fail",
        "source_type": shown,
    }
