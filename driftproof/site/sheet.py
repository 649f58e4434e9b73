"""The receipt sheet: the page model of one receipt, for ``receipts/<name>/`` and the
``receipt_sheets`` report section.

This is the site's own reading of a receipt, built only from the core
(:mod:`driftproof.stats`): the receipt's reading (D-7), each case's with-skill and
baseline bands (D-2) and verdict, the suite lift and value per 1,000 skill tokens
(D-14), and every draw with its answer (untrusted text, escaped by the template).
When the view engineer's ``driftproof.view.sheet`` lands, this module is where it is
adopted (one place: :func:`receipt_sheet`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from driftproof.receipt import Receipt
from driftproof.site._render import fmt_int, fmt_num
from driftproof.site.sections import Cell, Column, Row, Table
from driftproof.stats import Band, arm_band, band_source_of, receipt_reading, suite_lift, value_per_1k
from driftproof.wording import BAND_SOURCE_LEGEND

__all__ = ["ReceiptSheet", "band_text", "receipt_sheet"]

ARMS = (("with_skill", "with skill"), ("baseline", "baseline"), ("control", "control"))


@dataclass(frozen=True)
class ReceiptSheet:
    """Plain data for templates: every string already formatted.

    Attributes:
        name: the receipt's name (path under ``receipts/`` without ``.json``).
        title: heading text.
        file_sha256: sha256 of the receipt file's bytes (as published).
        facts: (label, value) pairs: level, model, harness, skill, judge, seal, provenance …
        status, sentence, reason: the receipt's reading (D-7), words from the core.
        lift, lift_per_1k: the suite lift and the value per 1,000 skill tokens (D-14), or "n/a".
        legend: band-source legend lines for the sources shown (method, "Where a band comes from").
        cases: the per-case table (anchors set by the caller's ``anchor`` function).
        draws: per case, per arm, the draws: dicts of index, score, lost, tokens, checks, answer.
        unrecorded: what the source did not record (D-13).
    """

    name: str
    title: str
    file_sha256: str
    facts: tuple[tuple[str, str], ...]
    status: str
    sentence: str
    reason: str
    lift: str
    lift_per_1k: str
    legend: tuple[str, ...]
    cases: Table
    draws: tuple[dict[str, Any], ...]
    unrecorded: tuple[str, ...]


def band_text(b: Band) -> str:
    """``mean ± sd (n)``, ``mean (n = 1)`` with no spread, or ``–`` when nothing was measured."""
    if b.mean is None:
        return "–"
    if b.sd is None:
        return f"{fmt_num(b.mean)} (n = {b.n})"
    return f"{fmt_num(b.mean)} ± {fmt_num(b.sd)} (n = {b.n})"


def receipt_sheet(name: str, r: Receipt, raw: bytes, anchor: Any = None) -> ReceiptSheet:
    """Build the sheet of receipt ``r`` published as ``receipts/<name>.json``.

    Args:
        anchor: ``anchor(base) -> id`` making page-unique ids; default uses ``base`` as is.
    """
    anchor = anchor or (lambda base: base)
    reading = receipt_reading(r)
    verdicts = {v.case_id: v for v in reading.cases}
    src = band_source_of(r)
    lift = suite_lift(r) if reading.status != "no verdict" else None
    per_1k = value_per_1k(lift, r.skill.tokens)
    arms = [(k, label) for k, label in ARMS if k != "control" or r.arms.control is not None]
    cols = [Column("case")] + [Column(f"{label} band", numeric=True) for _, label in arms]
    cols += [Column("lift", numeric=True), Column("verdict"), Column("draws measured / drawn", numeric=True),
             Column("output tokens (" + " / ".join(label for _, label in arms) + ")", numeric=True)]
    rows, draws = [], []
    for case in r.cases:
        bands = {k: arm_band(getattr(case.arms, k), src) for k, _ in arms}
        v = verdicts.get(case.id)
        delta = v.delta if v is not None else None
        cells = [Cell(case.id)]
        cells += [Cell(band_text(bands[k]), "" if bands[k].mean is None else repr(bands[k].mean)) for k, _ in arms]
        cells.append(Cell(fmt_num(delta, signed=True), "" if delta is None else repr(delta)))
        cells.append(Cell(v.verdict if v is not None else "no verdict"))
        cells.append(Cell(" · ".join(f"{bands[k].n}/{bands[k].drawn}" for k, _ in arms)))
        cells.append(Cell(" / ".join(fmt_int(_output(getattr(case.arms, k))) for k, _ in arms)))
        rows.append(Row(tuple(cells), anchor=anchor(f"case-{case.id}"), header=True))
        draws.append({"case": case.id, "prompt": case.prompt, "arms": [
            {"label": label, "draws": [_draw(d) for d in getattr(case.arms, k).draws]} for k, label in arms]})
    table = Table(f"cases-{name.replace('/', '-')}",
                  f"Cases of {r.skill.name}: bands are mean ± one sample standard deviation of the per-draw "
                  "scores (n = measured draws); lift is with skill minus baseline", tuple(cols), tuple(rows))
    return ReceiptSheet(
        name=name, title=f"Receipt {name}", file_sha256=hashlib.sha256(raw).hexdigest(), facts=_facts(r),
        status=reading.status, sentence=reading.sentence, reason=reading.reason,
        lift=fmt_num(lift, signed=True) if lift is not None else "n/a",
        lift_per_1k=fmt_num(per_1k, signed=True) if per_1k is not None else "n/a",
        legend=(BAND_SOURCE_LEGEND[src],) if any(c.arms.with_skill.draws for c in r.cases) else (),
        cases=table, draws=tuple(draws),
        unrecorded=tuple(r.provenance.unrecorded) if r.provenance is not None else (),
    )


def _output(arm: Any) -> int | None:
    if arm is None:
        return None
    for d in arm.draws:
        if d.tokens is not None and d.tokens.output is not None:
            return int(d.tokens.output)
    return None


def _draw(d: Any) -> dict[str, Any]:
    return {
        "index": str(d.index),
        "score": fmt_num(d.score) if d.score is not None else "–",
        "lost": d.lost.reason if d.lost is not None else None,
        "tokens": (f"{fmt_int(d.tokens.input)} in, {fmt_int(d.tokens.output)} out ({d.tokens.counted_by})"
                   if d.tokens is not None else "not recorded"),
        "samples": ", ".join(fmt_num(s.score) if s.score is not None else f"invalid ({s.invalid_reason or 'no reason'})"
                             for s in d.judge_samples),
        "checks": [f"{c.name}: {'pass' if c.pass_ else 'fail'}" for c in d.checks],
        "answer": d.answer,
        "source_error": d.source_error,
    }


def _facts(r: Receipt) -> tuple[tuple[str, str], ...]:
    unknown = "not recorded"
    run = r.run
    facts = [
        ("verification level", r.verification_level + (" (smoke run: counts as below TESTED)" if r.is_smoke else "")),
        ("schema version", r.schema_version),
        ("model", run.model or unknown),
        ("provider · surface", f"{run.provider or unknown} · {run.surface or unknown}"),
        ("harness", f"{run.harness.name} {run.harness.version or '(version not recorded)'}" if run.harness else unknown),
        ("capture mode", run.capture or unknown),
        ("preset", run.preset or "none"),
        ("draws per arm", str(run.generations_per_arm) if run.generations_per_arm is not None else unknown),
        ("judge samples per draw", str(run.judge_samples_per_generation) if run.judge_samples_per_generation is not None else unknown),
        ("skill", f"{r.skill.name}, {fmt_int(r.skill.tokens)} tokens (ceil(characters ÷ 4))" if r.skill.tokens else r.skill.name),
        ("skill sha256", r.skill.sha256 or unknown),
        ("suite", f"{r.suite.name or unknown}, sha256 {r.suite.sha256 or unknown}"),
        ("judge", f"{r.judge.model} ({r.judge.provider or unknown}, {r.judge.surface or unknown})" if r.judge else "none"),
        ("band source", r.band_source or "not recorded"),
        ("started · finished", f"{run.started_at or unknown} · {run.finished_at or unknown}"),
        ("runner", f"{run.runner.name} {run.runner.version or ''}".strip()),
    ]
    oh = r.economics.judge_overhead
    if oh is not None:
        usd = f"${oh.usd:.4f}" if oh.usd is not None else "price not recorded"
        facts.append(("grading cost (floor)", f"{fmt_int(oh.input_tokens)} in, {fmt_int(oh.output_tokens)} out tokens, {usd}; "
                      f"{oh.judged_draws_counted} draws counted, {oh.judged_draws_missing_usage} without usage"))
    if r.provenance is not None:
        p = r.provenance
        facts.append(("imported from", f"{p.tool} {p.tool_version or '(version not recorded)'}: {p.document}"))
        facts.append(("source document sha256", p.document_sha256))
    facts.append(("seal", f"{r.seal.algorithm} {r.seal.sha256}"))
    return tuple(facts)
