"""skill-eval-harness ``benchmark.json`` (answer population) → a DECLARED receipt (D-15).

Each run is a draw scored by its objective pass rate, and a run up to the highest run number
that a case's variant lacks is a lost draw; the paired summary is the source's.
The mapping is the interop page's ("skill-eval-harness").
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from driftproof._json import member_object
from driftproof.importers import Imported, NoOptions, register
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._common import Where
from driftproof.importers._text import Repair
from driftproof.receipt import Case, Draw, build_draw, cut_label

TOOL = "skill-eval-harness"
_ARMS = {"with_skill": "with_skill", "without_skill": "baseline"}
_UNRECORDED = (
    "skill.sha256 and skill.tokens (the report names the skill, not its text)",
    "each case's prompt (the report keeps case ids only)",
    "judge.model (the objective assertions are the harness's checks; the report "
    "records no grader model)",
    "provenance.tool_version (the report records none)",
    "judge_samples_per_generation",
)
#: The most runs a case's variant may have: the most draws a receipt's arm holds.
_MAX_RUNS = 1000
#: (member, label, arm, (lowest, highest) value it can take).
_HEADLINE = (
    ("with_skill_objective_pass_rate", "objective pass rate", "with_skill", (0, 1)),
    ("without_skill_objective_pass_rate", "objective pass rate", "baseline", (0, 1)),
    ("absolute_delta", "absolute delta", "lift", (-1, 1)),
    ("normalized_gain", "normalized gain", "lift", (None, None)),
)


@register(TOOL, NoOptions)
def import_skill_eval_harness(path: Path, options: NoOptions | None = None) -> list[Imported]:
    """Convert a skill-eval-harness ``benchmark.json`` into a DECLARED receipt.

    Raises:
        ImportError_: not a report object, a suite manifest (saying which file to give),
            another population, no run of an arm, a run of the
            wrong shape, the same run twice, a paired summary of the wrong shape, or a
            paired-case count (``significance.n``, ``noise_check.cases``) the runs contradict;
            naming the file, the JSON pointer and what was expected.
    """
    path = Path(path)
    repairs: list[Repair] = []
    doc, raw = common.read_json(path, repairs)
    w = Where(path)
    if not isinstance(doc, dict):
        raise w.fail("expected a benchmark report object with results[] and paired_summary")
    # a suite manifest (shared-benchmark.json): cases[] beside variants or ablations, no results
    listed = isinstance(doc.get("cases"), list) and "results" not in doc
    if "population" not in doc and listed and ("variants" in doc or "ablations" in doc):
        raise (w / "population").fail(
            "expected a benchmark report (population 'answer', with results[] and "
            "paired_summary); this is a skill-eval-harness suite manifest (its cases, variants "
            "and ablations): a definition of the benchmark, not a report of its results. Give "
            "the benchmark.json that `skill-benchmark benchmark MANIFEST --runs RUNS_DIR --out "
            "benchmark.json` writes from the graded runs"
        )
    if doc.get("population") != "answer":
        raise (w / "population").fail(
            f"expected population 'answer' (a with/without comparison), "
            f"found {doc.get('population')!r}"
        )
    skill = common.named(w.get(doc, "skill_name", str), w / "skill_name", "the skill's name")
    rows = w.get(doc, "results", list)
    # each run's model, None where a run names none (absent or blank): none is given another's
    models = {
        common.stated(r.get("model"), w / "results" / i / "model")
        for i, r in enumerate(rows)
        if isinstance(r, dict)
    }
    model = common.sole(models)
    no_model = [] if model else ["run.model (a run names no model, or the runs name several)"]
    case_docs, other = _cases(rows, w, {m for m in models if m is not None})
    ps = w.get(doc, "paired_summary", dict)
    _check_headline(ps, w / "paired_summary", case_docs)
    _check_significance(ps, w / "paired_summary")
    _check_case_counts(ps, w / "paired_summary", case_docs)
    notes = [
        "Draw scores are each run's objective pass rate (the share of its objective assertions "
        "that passed).",
        "The source decides by a two-sided sign-flip permutation test over per-case paired "
        "deltas; its interval inverts that test.",
    ]
    if other:
        shown = ", ".join(f"{json.dumps(v)} ({n})" for v, n in sorted(other.items()))
        notes.append("Runs of other variants were not imported: " + cut_label(shown, 900))
    body = declared.declared_receipt(
        skill,
        None,
        case_docs,
        declared.provenance(
            TOOL,
            None,
            str(path),
            common.file_sha256(raw),
            [*_UNRECORDED, *no_model],
            notes=notes,
        ),
        model=model,
        judge=declared.unrecorded_judge(TOOL, "objective-assertions"),
        arms={arm: declared.arm_spec(variant) for variant, arm in _ARMS.items()},
        band_source="generation",
        source_report=_report(ps, w / "paired_summary"),
    )
    return [Imported.named(TOOL, body, repairs=repairs)]


def _cases(rows: list[Any], w: Where, models: set[str]) -> tuple[list[Case], dict[str, int]]:
    """The runs as cases (``case_id@model`` when several models ran), other variants' counts."""
    cases: dict[str, dict[str, list[Draw]]] = {}
    seen: set[tuple[str, str, int]] = set()
    other: dict[str, int] = {}
    for i, r in enumerate(rows):
        rw = w / "results" / i
        if not isinstance(r, dict):
            raise rw.fail("expected a run object")
        case = common.named(rw.get(r, "case_id", str), rw / "case_id", "the case's id", None)
        variant = rw.get(r, "variant", str)
        run = rw.get(r, "run_number", int)
        if not 1 <= run <= _MAX_RUNS:
            raise (rw / "run_number").fail(
                f"expected a run number from 1 to {_MAX_RUNS} (the most draws a receipt's arm "
                f"holds), found {run}"
            )
        model = common.stated(rw.get(r, "model", str, required=False), rw / "model")
        label = f"{case}@{model}" if len(models) > 1 and model else case
        if variant not in _ARMS:
            other[variant] = other.get(variant, 0) + 1
            continue
        if (label, variant, run) in seen:
            raise rw.fail(
                f"expected one run per case, variant and run number; {label!r} "
                f"{variant} run {run} is repeated"
            )
        seen.add((label, variant, run))
        arms = cases.setdefault(label, {a: [] for a in _ARMS.values()})
        arms[_ARMS[variant]].append(_draw(r, rw, run - 1))
    for variant, arm in _ARMS.items():
        if not any(arms[arm] for arms in cases.values()):
            raise (w / "results").fail(f"expected runs of both variants; none is {variant}")
    _gaps(cases, max(run for *_, run in seen), len(seen), w / "results")
    out = [
        declared.case_entry(
            common.case_id_for(label),
            None,
            {a: sorted(d, key=lambda x: x.index) for a, d in arms.items()},
        )
        for label, arms in cases.items()
    ]
    return out, other


def _gaps(cases: dict[str, dict[str, list[Draw]]], runs: int, held: int, w: Where) -> None:
    """Each run up to ``runs`` (the highest run number) a case's variant lacks: a lost draw."""
    missing = sum(runs - len(draws) for arms in cases.values() for draws in arms.values())
    if missing > held:
        raise w.fail(
            f"expected each case's runs 1 to {runs} of both variants (the highest run number); "
            f"{missing} of them are missing, more than the {held} the report holds"
        )
    names = {arm: variant for variant, arm in _ARMS.items()}
    for label, arms in cases.items():
        for arm, draws in arms.items():
            for k in sorted(set(range(runs)) - {d.index for d in draws}):
                why = f"the report holds no {names[arm]} run {k + 1} of case {label}, though it "
                why += f"numbers runs up to {runs}"
                draws.append(build_draw(k, lost_reason=why[:3900], lost_kind="missing"))


def _draw(r: dict[str, Any], w: Where, index: int) -> Draw:
    """One run as a draw; a run the harness does not score is lost with the report's own words.

    The harness scores a run only when it has output, ``execution_valid`` is not false and
    ``grading_availability`` is ``"complete"`` (``ablation_model.scorable_run``,
    ``eval_grading.grade_case_variant``:
    https://github.com/adewale/skill-eval-harness/blob/main/eval_grading.py).
    """
    if w.get(r, "missing_output", bool, required=False):
        return build_draw(index, lost_reason="the run produced no output", lost_kind="no_answer")
    if w.get(r, "execution_valid", bool, required=False) is False:
        said = "execution_valid: false" + _failure_words(r.get("metadata"))
        return build_draw(
            index,
            lost_reason=f"source error: the run failed to execute ({said})"[:4000],
            source_error=said[:4000],
            lost_kind="source_error",
        )
    rate = w.number(r, "objective_pass_rate", low=0, high=1)
    grading = r.get("grading_availability")
    if grading is not None and grading != "complete":  # the harness's grading_evidence_incomplete
        why = f"unscored: the harness marked this run's grading {str(grading)[:40]!r}, not "
        why += "complete (an assertion could not be graded), so its pass rate is not a whole "
        why += "grading" + _blocked_words(r)
        return build_draw(index, lost_reason=why[:3900], lost_kind="unscored")
    if rate is None:
        return build_draw(
            index, lost_reason="unscored: the run has no objective pass rate", lost_kind="unscored"
        )
    return build_draw(index, score=rate)


#: The run metadata the harness's ``execution_valid`` reads, each with the values it counts as
#: a failure (``ablation_model.execution_valid``).
_FAILURE_FIELDS: tuple[tuple[str, Any], ...] = (
    ("timed_out", lambda v: bool(v)),
    ("timeout", lambda v: bool(v)),
    ("returncode", lambda v: v not in (0, None)),
    ("provider_response_complete", lambda v: v is False),
    ("artifact_set_complete", lambda v: v is False),
    ("metadata_error", lambda v: bool(v)),
)


def _failure_words(meta: Any) -> str:
    """The run metadata's failure fields that say the run failed, as written (else ``""``)."""
    if not isinstance(meta, dict):
        return ""
    said = [
        f"{k}: {json.dumps(meta[k])[:200]}"
        for k, bad in _FAILURE_FIELDS
        if k in meta and bad(meta[k])
    ]
    return f"; metadata {', '.join(said)}" if said else ""


def _blocked_words(r: dict[str, Any]) -> str:
    """The report's ``blocked_assertions`` (name: evidence) and deferred judge tasks, as written."""
    said = [
        f"{str(b.get('name'))[:80]}: {str(b.get('evidence'))[:300]}"
        for b in r.get("blocked_assertions") or []
        if isinstance(b, dict)
    ]
    deferred = r.get("deferred_judge_tasks")
    if common.is_count(deferred) and deferred > 0:
        said.append(f"{deferred} judge task(s) deferred")
    return f"; the report says: {'; '.join(said)}" if said else ""


def _report(ps: dict[str, Any], w: Where) -> dict[str, Any]:
    """The paired summary's figures, interval and test as written; bad figures or interval fail."""
    figures = [
        declared.figure(label, w.number(ps, key, low=low, high=high), arm=arm, unit="fraction")
        for key, label, arm, (low, high) in _HEADLINE
    ]
    sig = w.get(ps, "significance", dict, required=False) or {}
    sgw = w / "significance"
    delta = sgw.number(sig, "observed_mean_delta", low=-1, high=1)
    figures.append(declared.figure("mean paired delta", delta, arm="lift", unit="fraction"))
    iv = w.get(ps, "interval", dict, required=False) or {}
    reason = (w / "interval").get(iv, "reason", str, required=False)
    figures.append(
        declared.figure(
            "sign-flip interval of the mean per-case delta",
            None,
            arm="lift",
            unit="fraction",
            printed=(f"unbounded: {reason}" if reason else None),
            **declared.interval(iv, w / "interval", "lower", "upper", "confidence"),
        )
    )
    noise = w.get(ps, "noise_check", dict, required=False) or {}
    nw = w / "noise_check"
    for key in ("cases", "cases_moved", "cases_needed_for_alpha"):
        count = nw.number(noise, key, low=0, count=True)
        figures.append(
            declared.figure(f"noise check: {key.replace('_', ' ')}", count, unit="count")
        )
    verdict = nw.get(noise, "verdict", str, required=False)
    if verdict is not None:
        figures.append(declared.figure("noise check", None, printed=verdict))
    significant = sgw.get(sig, "significant_at_0_05", bool, required=False)
    method = sgw.get(sig, "method", str, required=False)
    printed = {True: "significant at 0.05", False: "not significant at 0.05"}.get(
        significant, "no decision recorded"
    )
    if ps.get("availability") == "partial":
        printed += " (the harness marked its pairing partial and withheld the headline figures)"
    return {
        "figures": figures,
        "decision": {
            "printed": printed,
            "significant": significant,
            "test": cut_label(method or "sign-flip", 100)
            + " (two-sided permutation test over per-case paired deltas)",
            "p_value": sgw.number(sig, "p_value", low=0, high=1),
        },
    }


def _same(value: float | None, expected: float | None, w: Where, what: str) -> None:
    common.same_derived(value, expected, w, what, "report")


def _run_rates(cases: list[Case]) -> tuple[float, float] | None:
    """The harness's headline rates from the runs: each case's mean run rate, averaged over cases.

    ``None`` when a run is lost (the harness then pairs a subset or withholds its headline).
    """
    means: dict[str, list[float]] = {arm: [] for arm in _ARMS.values()}
    for case in cases:
        for arm, out in means.items():
            scores = [d.score for d in getattr(case.arms, arm).draws]
            if not scores or any(x is None for x in scores):
                return None
            out.append(math.fsum(x for x in scores if x is not None) / len(scores))
    with_skill, baseline = (means[a] for a in _ARMS.values())
    return math.fsum(with_skill) / len(with_skill), math.fsum(baseline) / len(baseline)


def _check_headline(ps: dict[str, Any], w: Where, cases: list[Case]) -> None:
    """Refuse headline figures that the runs or one another contradict.

    The harness's definitions: each rate is the mean over cases of the case's mean run rate;
    ``absolute_delta`` is with minus without; ``normalized_gain`` is the delta over
    (1 - without) when with is at least without and without below 1, else null; the sign-flip
    test's ``observed_mean_delta`` is the mean per-case delta, so the absolute delta again.

    Raises:
        ImportError_: at the figure that disagrees, naming what it should be.
    """
    with_skill = w.number(ps, "with_skill_objective_pass_rate", low=0, high=1)
    without = w.number(ps, "without_skill_objective_pass_rate", low=0, high=1)
    delta = w.number(ps, "absolute_delta", low=-1, high=1)
    availability = ps.get("availability")
    if availability not in (None, "complete", "partial"):
        raise (w / "availability").fail(
            f"expected 'complete' or 'partial' (whether the harness paired every run), "
            f"found {availability!r}"
        )
    rates = _run_rates(cases) if availability != "partial" else None
    if rates is not None:
        what = "the mean over cases of each case's mean {} run rate (results[])"
        _same(with_skill, rates[0], w / "with_skill_objective_pass_rate", what.format("with_skill"))
        _same(without, rates[1], w / "without_skill_objective_pass_rate", what.format("without"))
    if with_skill is not None and without is not None:
        what = "the with rate minus the without rate"
        _same(delta, with_skill - without, w / "absolute_delta", what)
    sig = member_object(ps, "significance")
    observed = (w / "significance").number(sig, "observed_mean_delta", low=-1, high=1)
    what = "the absolute delta (the mean of the per-case deltas)"
    _same(observed, delta, w / "significance" / "observed_mean_delta", what)
    if with_skill is None or without is None:
        return
    gain = w.number(ps, "normalized_gain")
    if with_skill >= without and without < 1:
        what = "the absolute delta over (1 - the without rate)"
        _same(gain, (with_skill - without) / (1 - without), w / "normalized_gain", what)
    elif gain is not None:
        raise (w / "normalized_gain").fail(
            f"expected null (the harness gives no normalized gain when the with rate "
            f"{with_skill:g} is below the without rate {without:g} or the without rate is 1), "
            f"found {gain:.6g}: the report contradicts itself"
        )


def _check_significance(ps: dict[str, Any], w: Where) -> None:
    """Refuse a decision its p values contradict, a noise check moving more cases than it has.

    The harness calls a lift significant when ``p_value_upper_bound`` (``p_value`` for the
    exact test) is at most 0.05; the bound is never below ``p_value``.

    Raises:
        ImportError_: at ``significant_at_0_05``, ``p_value_upper_bound`` or ``cases_moved``.
    """
    sig = member_object(ps, "significance")
    sw = w / "significance"
    p = sw.number(sig, "p_value", low=0, high=1)
    upper = sw.number(sig, "p_value_upper_bound", low=0, high=1)
    if p is not None and upper is not None and upper < p:
        raise (sw / "p_value_upper_bound").fail(
            f"expected at least the p value {p:g}, found {upper:g}: the report contradicts itself"
        )
    bound = upper if upper is not None else p
    significant = sig.get("significant_at_0_05")
    if isinstance(significant, bool) and bound is not None and significant != (bound <= 0.05):
        raise (sw / "significant_at_0_05").fail(
            f"expected {str(bound <= 0.05).lower()}, as the p value bound is {bound:g} (the "
            f"harness calls a lift significant when it is at most 0.05), found "
            f"{str(significant).lower()}: the report contradicts itself"
        )
    noise = member_object(ps, "noise_check")
    nw = w / "noise_check"
    cases, moved = (nw.number(noise, k, low=0, count=True) for k in ("cases", "cases_moved"))
    if cases is not None and moved is not None and moved > cases:
        raise (nw / "cases_moved").fail(
            f"expected at most the noise check's {cases:g} cases, found {moved:g}: the report "
            "contradicts itself"
        )


def _check_case_counts(ps: dict[str, Any], w: Where, cases: list[Case]) -> None:
    """Refuse a paired-case count that the runs contradict.

    The harness builds ``significance``, ``interval`` and ``noise_check`` from one list of
    per-(case, model) deltas, one delta per paired case: ``significance.n``, ``interval.n`` and
    ``noise_check.cases`` each count them. No count can exceed the cases the runs hold; when
    every run is scored and the pairing is not ``partial``, every case pairs, so each count is
    the number of cases.

    Raises:
        ImportError_: at the count that disagrees, naming what it should be.
    """
    every = all(
        d.score is not None for c in cases for a in _ARMS.values() for d in getattr(c.arms, a).draws
    )
    exact = every and ps.get("availability") != "partial"
    for member, key in (("significance", "n"), ("interval", "n"), ("noise_check", "cases")):
        count = (w / member).number(member_object(ps, member), key, low=0, count=True)
        if count is None or count == len(cases) or (not exact and count < len(cases)):
            continue
        held = f"the {len(cases)} paired cases the runs hold"
        raise (w / member / key).fail(
            f"expected {len(cases) if exact else f'at most {len(cases)}'}, {held} (one delta "
            f"per case), found {count:g}: the report contradicts itself"
        )
