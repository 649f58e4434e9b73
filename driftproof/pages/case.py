"""The case evidence page: one case of one receipt, every answer and judge sample (D-9, D-13)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import zip_longest
from typing import Any

from driftproof._anchor import slug, unique, windows_device
from driftproof.pages.band_sources import band_facts, band_legend
from driftproof.pages.sheet import CaseRow, Sheet
from driftproof.pages.words import (
    ARM_NOT_RECORDED,
    CHECK_KIND_WORDS,
    CHECK_OUTCOME_WORDS,
    COUNTED_BY_WORDS,
    ERROR_CLASS_WORDS,
    arm_words,
    case_direction,
    count_of,
    draws_of,
    fmt,
    lost_kind_words,
    token_counts,
)
from driftproof.receipt import Case, CaseArm, Check, Draw, Receipt, Tokens

#: An answer longer than this many characters or lines is folded (``<details>``), and with it
#: every answer of its row, so the arms side by side are shown alike.
FOLD_CHARS, FOLD_LINES = 1200, 24


def first_output_tokens(arm: CaseArm | None) -> int | None:
    """The output tokens of the arm's first draw that records them, or ``None``."""
    counts = token_counts(arm.draws) if arm is not None else []
    return int(counts[0]) if counts else None


def case_slugs(r: Receipt) -> dict[str, str]:
    """Case id to its page's folder name: safe, no leading dot, unique case-insensitively.

    A name Windows reads as a device (``CON``, ``nul.v2``) is put after ``case-``.
    """
    used: set[str] = set()
    slugs = {}
    for c in r.cases:
        base = slug(c.id, strip="-.", empty="case")
        slugs[c.id] = unique(f"case-{base}" if windows_device(base) else base, used, fold=True)
    return slugs


#: What a case page shows of a draw, each with whether a draw holds it, in the page's order.
_HELD: tuple[tuple[str, Callable[[Draw], bool]], ...] = (
    ("the answer", lambda d: d.answer is not None),
    ("the judge samples with their reasons", lambda d: bool(d.judge_samples)),
    ("checks", lambda d: bool(d.checks)),
    ("why a draw was lost", lambda d: d.lost is not None),
    ("refusals", lambda d: d.refusal is not None),
    ("stop reasons", lambda d: d.stop_reason is not None),
)


def case_pages_about(r: Receipt) -> str:
    """What the receipt page says of its case pages, naming only what ``r``'s draws hold."""
    draws = [d for *_, d in draws_of(r)]
    held = [words for words, has in _HELD if any(has(d) for d in draws)]
    said = ", ".join(held[:-1]) + " and " + held[-1] if len(held) > 1 else "".join(held)
    lead = "Each case has a page of its own: its prompt and each arm's draws, a row for each draw"
    return lead + (f", with what the receipt holds of each: {said}." if said else ".")


def _no_answer(r: Receipt) -> str:
    if r.provenance is not None:
        unrecorded = " ".join(r.provenance.unrecorded or ())
        files = " (it keeps outputs as files)" if "as files" in unrecorded else ""
        return f"{r.provenance.tool} kept no answer text for this draw{files}."
    return "The receipt holds no answer text for this draw."


def _joined(parts: Any, sep: str = ", ") -> str:
    return sep.join(p for p in parts if p)


def _lost(d: Draw) -> str | None:
    if d.lost is None:
        return None
    status = None if d.lost.status is None else f"status {d.lost.status}"
    kind = d.lost.kind and lost_kind_words(d.lost.kind)
    extra = _joined((kind, d.lost.error_class and ERROR_CLASS_WORDS[d.lost.error_class], status))
    return d.lost.reason + (f" ({extra})" if extra else "")


def _refusal(d: Draw) -> str | None:
    if d.refusal is None:
        return None
    category = d.refusal.category and f"category {d.refusal.category}"
    return _joined((category, d.refusal.text), " · ") or "refused"


def _check(c: Check) -> str:
    """``<name> (<kind>): <outcome>``; an outcome not recorded as its pass or fail."""
    kind = CHECK_KIND_WORDS[c.kind]
    kind += f", {c.source_type}" if c.kind == "assertion" and c.source_type else ""
    return f"{c.name} ({kind}): {CHECK_OUTCOME_WORDS[c.outcome or ('pass' if c.pass_ else 'fail')]}"


def _samples(d: Draw) -> list[dict[str, Any]]:
    return [
        {
            "n": str(i),
            "score": fmt(x.score)
            if x.score is not None
            else f"invalid ({x.invalid_reason or 'no reason recorded'})",
            "reason": x.reason,
            "model": x.reported_model or x.serving_model,
        }
        for i, x in enumerate(d.judge_samples, 1)
    ]


def _tokens(t: Tokens) -> str:
    """``120 in, 41 out (as the provider reported them)``; a count not recorded is said so."""
    said = (f"{n:,} {short}" if n is not None else f"{long} not recorded" for n, short, long in
            ((t.input, "in", "input"), (t.output, "out", "output")))  # fmt: skip
    return f"{', '.join(said)} ({COUNTED_BY_WORDS[t.counted_by]})"


def _draw(d: Draw, no_answer: str) -> dict[str, Any]:
    """One draw as the page shows it: every value a string (or a list of them)."""
    answer = d.answer
    lines = answer.count("\n") + 1 if answer is not None else 0
    t = d.tokens
    return {
        "index": str(d.number),
        "score": fmt(d.score)
        if d.score is not None
        else ("lost" if d.lost is not None else "no score"),
        "samples": _samples(d),
        "lost": _lost(d),
        "stop_reason": d.stop_reason,
        "refusal": _refusal(d),
        "over_budget": bool(d.over_budget),
        "attempts": [
            f"{ERROR_CLASS_WORDS[a.error_class]}: {a.error}"
            + (f" (status {a.status})" if a.status is not None else "")
            for a in (d.attempts or [])
        ],
        "tokens": None if t is None else _tokens(t),
        "checks": [_check(c) for c in d.checks],
        "files": [
            f"{f.path}: {f.status}"
            + (f", {f.bytes:,} bytes" if f.bytes is not None else "")
            + (f" ({f.reason})" if f.reason else "")
            for f in (d.captured_files or [])
        ],
        "skill_fired": None if d.skill_fired is None else ("yes" if d.skill_fired else "no"),
        "source_error": d.source_error,
        "answer": answer,
        "answer_size": f"{len(answer):,} characters, {count_of(lines, 'line')}"
        if answer is not None
        else "",
        "fold": answer is not None and (len(answer) > FOLD_CHARS or lines > FOLD_LINES),
        "no_answer": no_answer,
    }


def case_draws(r: Receipt, case: Case) -> dict[str, Any]:
    """``{"labels": arm words, "rows": by draw position, "none": per arm}``.

    A cell per arm (``None``: no draw there); ``none`` says why a cell is empty: the arm is not
    recorded by the source, it has no draw in this case, or none at that position.
    """
    named = arm_words(r).items()  # an A/A calibration's arms are its two runs
    arms = [(k, label, a) for k, label in named if (a := getattr(case.arms, k))]
    no_answer = _no_answer(r)
    per_arm = [[_draw(d, no_answer) for d in arm.draws] for _, _, arm in arms]
    rows = [list(row) for row in zip_longest(*per_arm)]
    for row in rows:  # side by side, one arm's answer folded beside another's shown misleads
        if any(c is not None and c["fold"] for c in row):
            for c in row:
                if c is not None:
                    c["fold"] = c["answer"] is not None
    gone = ARM_NOT_RECORDED.capitalize() + "."
    none = [
        "No draw at this position."
        if a.draws
        else (gone if not getattr(r.arms, k).recorded else "No draw of this arm in this case.")
        for k, _, a in arms
    ]
    return {"labels": [label for _, label, _ in arms], "rows": rows, "none": none}


def _no_lift(row: CaseRow) -> str:
    """Why a case has no lift: the first of with skill and baseline with no band, as it is said."""
    means = row.numbers[::2]  # with skill's and baseline's
    gone = [f"{a} {b}" for (a, b), m in zip(row.said[:2], means, strict=True) if m is None]
    return f"n/a: {gone[0]}"


def case_pages(r: Receipt, sheet: Sheet) -> list[dict[str, Any]]:
    """The case page template's values for each case of ``r`` (``sheet`` is its), in case order."""
    slugs = case_slugs(r)  # the neighbours' links, None before the first and after the last
    near = [None, *({"id": c.id, "url": f"../{slugs[c.id]}/index.html"} for c in r.cases), None]
    reading = {f.label: f.value for f in sheet.reading}
    facts, legend = band_facts(r), band_legend(r, "the ")

    pages = []
    for index, (case, row) in enumerate(zip(r.cases, sheet.cases, strict=True)):
        bands: list[tuple[str, str]] = []
        if any(v is not None for v in row.numbers[::2]):
            lift = row.lift if row.lift != "–" else _no_lift(row)
            lift_is = case_direction(r).split(" is ", 1)  # an A/A's: a difference of runs
            bands = [*row.said, (f"{lift_is[0]} ({lift_is[1]})", lift)]
        prompt = case.prompt
        pages.append(
            {
                "skill": r.skill.name,
                "case_id": case.id,
                "prompt": prompt,
                "prompt_fold": prompt is not None
                and (len(prompt) > FOLD_CHARS or prompt.count("\n") >= FOLD_LINES),
                "verdict": row.verdict,
                "why": reading.get("why", "") if row.verdict == "no verdict" else "",
                "bands": bands,
                "band_legend": legend[:1].upper() + legend[1:],
                "about": [
                    ("checks", row.checks),
                    ("lost draws", row.lost),
                    ("receipt reading", reading.get("reading", "")),
                    ("band source", facts.source),
                    ("draws per arm", facts.draws),
                    ("judge samples per draw", facts.judge_samples),
                ],
                "draws": case_draws(r, case),
                "prev": near[index],
                "next": near[index + 2],
            }
        )
    return pages
