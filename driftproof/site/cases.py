"""Case evidence pages: one permalink per case of every receipt (issue 15, item 1).

``receipts/<name>/cases/<slug>/`` shows, for one case: the prompt; each arm's answers side
by side, draw by draw; each draw's judge samples with the grader's reasons; checks; lost
draws with their reasons; refusals and stop reasons; and the case's bands and verdict in
the method's words (the words of :mod:`driftproof.pages.sheet`, from the core). Where the source
kept no answer text, the page says so in place of the answer. Long answers fold open
(``<details>``). Every text from a receipt is untrusted: the templates escape it
(autoescape) and the environment's ``finalize`` shows control characters as visible
symbols (:func:`driftproof.site._render.printable`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from driftproof._anchor import slug, unique
from driftproof.pages import sheet as view
from driftproof.pages.band_sources import band_facts
from driftproof.receipt import Receipt
from driftproof.site._render import fmt_int

__all__ = [
    "ARMS",
    "FOLD_CHARS",
    "FOLD_LINES",
    "case_draws",
    "case_pages",
    "case_slugs",
    "case_url",
]

#: An answer longer than this many characters or lines is folded (``<details>``).
FOLD_CHARS, FOLD_LINES = 1200, 24

#: The arms in page order: receipt key and the words shown.
ARMS = (("with_skill", "with skill"), ("baseline", "baseline"), ("control", "control"))


def case_slugs(r: Receipt) -> dict[str, str]:
    """Case id → the folder name of its page: safe characters only, never starting with a dot,
    unique within the receipt (a clash gets ``-2``, ``-3`` …), in case order."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for c in r.cases:
        # folded: case-insensitive file systems must not merge two pages
        out[c.id] = unique(slug(c.id, strip="-.", empty="case"), used, fold=True)
    return out


def case_url(name: str, slug: str) -> str:
    """Site-root-relative folder URL of a case page (``receipts/<name>/cases/<slug>/``)."""
    return f"receipts/{name}/cases/{slug}/index.html"


def _no_answer(r: Receipt) -> str:
    if r.provenance is not None:
        unrecorded = " ".join(r.provenance.unrecorded or ())
        files = " (it keeps outputs as files)" if "as files" in unrecorded else ""
        return f"{r.provenance.tool} kept no answer text for this draw{files}."
    return "The receipt holds no answer text for this draw."


def _draw(d: Any, no_answer: str) -> dict[str, Any]:
    answer = d.answer
    lines = answer.count("\n") + 1 if answer is not None else 0
    samples = []
    for i, x in enumerate(d.judge_samples, 1):
        score = (
            view.fmt(x.score)
            if x.score is not None
            else f"invalid ({x.invalid_reason or 'no reason recorded'})"
        )
        samples.append(
            {
                "n": str(i),
                "score": score,
                "reason": x.reason,
                "model": x.reported_model or x.serving_model,
            }
        )
    lost = None
    if d.lost is not None:
        extra = [
            p
            for p in (
                d.lost.kind,
                d.lost.error_class,
                None if d.lost.status is None else f"status {d.lost.status}",
            )
            if p
        ]
        lost = d.lost.reason + (f" ({', '.join(extra)})" if extra else "")
    tokens = None
    if d.tokens is not None:
        tokens = (
            f"{fmt_int(d.tokens.input)} in, {fmt_int(d.tokens.output)} out "
            f"(counted by {d.tokens.counted_by})"
        )
    return {
        "index": str(d.index),
        "score": view.fmt(d.score)
        if d.score is not None
        else ("lost" if d.lost is not None else "no score"),
        "samples": samples,
        "lost": lost,
        "stop_reason": d.stop_reason,
        "refusal": None
        if d.refusal is None
        else " · ".join(
            p
            for p in (d.refusal.category and f"category {d.refusal.category}", d.refusal.text)
            if p
        )
        or "refused",
        "over_budget": bool(d.over_budget),
        "attempts": [
            f"{a.error_class}: {a.error}"
            + (f" (status {a.status})" if a.status is not None else "")
            for a in (d.attempts or [])
        ],
        "tokens": tokens,
        "checks": [f"{c.name} ({c.kind}): {'pass' if c.pass_ else 'fail'}" for c in d.checks],
        "files": [
            f"{f.path}: {f.status}"
            + (f", {f.bytes:,} bytes" if f.bytes is not None else "")
            + (f" ({f.reason})" if f.reason else "")
            for f in (d.captured_files or [])
        ],
        "skill_fired": None if d.skill_fired is None else ("yes" if d.skill_fired else "no"),
        "source_error": d.source_error,
        "answer": answer,
        "answer_size": f"{len(answer):,} characters, {lines:,} line{'s' if lines != 1 else ''}"
        if answer is not None
        else "",
        "fold": answer is not None and (len(answer) > FOLD_CHARS or lines > FOLD_LINES),
        "no_answer": no_answer,
    }


def _band(text: str) -> str:
    return "no score (lost or unscored)" if text == "–" else text


def case_draws(r: Receipt, case: Any) -> dict[str, Any]:
    """The case's draws for the page: arm labels, and rows by draw position, one cell per arm
    (``None`` where that arm has fewer draws)."""
    arms = [
        (label, getattr(case.arms, key))
        for key, label in ARMS
        if getattr(case.arms, key, None) is not None
    ]
    no_answer = _no_answer(r)
    per_arm = [[_draw(d, no_answer) for d in arm.draws] for _, arm in arms]
    depth = max((len(x) for x in per_arm), default=0)
    rows = [
        [(per_arm[a][i] if i < len(per_arm[a]) else None) for a in range(len(arms))]
        for i in range(depth)
    ]
    return {"labels": [label for label, _ in arms], "rows": rows}


def case_pages(
    name: str,
    r: Receipt,
    sheet: view.Sheet,
    cited: Sequence[Mapping[str, str]],
    render: Any,
    anchors: Mapping[str, str],
) -> dict[str, bytes]:
    """Every case page of receipt ``name``: ``{site path: bytes}``.

    Args:
        sheet: the receipt's :class:`driftproof.pages.sheet.Sheet` (bands, verdicts, reading).
        cited: the reports citing the receipt, ``{"ident", "title"}``.
        render: ``render(template, path, **ctx) -> bytes`` (the site's page renderer).
        anchors: case id → the element id of its row on the receipt sheet.
    """
    slugs = case_slugs(r)
    facts = band_facts(r)
    rows = {c.case_id: c for c in sheet.cases}
    reading = {f.label: f.value for f in sheet.reading}
    files: dict[str, bytes] = {}
    for i, case in enumerate(r.cases):
        row = rows.get(case.id)
        path = case_url(name, slugs[case.id])
        prev_c = r.cases[i - 1] if i > 0 else None
        next_c = r.cases[i + 1] if i + 1 < len(r.cases) else None
        verdict = row.verdict if row is not None else "no verdict"
        why = reading.get("why", "") if verdict == "no verdict" else ""
        bands: list[tuple[str, str]] = []
        scored = row is not None and any(v is not None for v in row.numbers[::2])
        if row is not None and scored:
            bands = [("with skill", _band(row.with_skill)), ("baseline", _band(row.baseline))]
            if row.control is not None:
                bands.append(("control", _band(row.control)))
            bands.append(
                (
                    "lift (with skill minus baseline)",
                    row.lift if row.lift != "–" else "n/a: an arm has no score",
                )
            )
        about = [
            ("checks", row.checks if row is not None else "none"),
            ("lost draws", row.lost if row is not None else "none"),
            ("receipt reading", reading.get("reading", "")),
            ("band source", facts.source),
            ("draws per arm", facts.draws),
            ("judge samples per draw", facts.judge_samples),
        ]
        files[path] = render(
            "case.html",
            path,
            nav_current="receipts/index.html",
            name=name,
            skill=r.skill.name,
            case_id=case.id,
            prompt=case.prompt,
            prompt_fold=case.prompt is not None
            and (len(case.prompt) > FOLD_CHARS or case.prompt.count("\n") >= FOLD_LINES),
            verdict=verdict,
            why=why,
            bands=bands,
            about=about,
            draws=case_draws(r, case),
            cited=list(cited),
            prev=None
            if prev_c is None
            else {"id": prev_c.id, "url": f"../{slugs[prev_c.id]}/index.html"},
            next=None
            if next_c is None
            else {"id": next_c.id, "url": f"../{slugs[next_c.id]}/index.html"},
            sheet_anchor=anchors.get(case.id, ""),
        )
    return files
