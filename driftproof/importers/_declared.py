"""The DECLARED receipt an importer builds from what it read, and its parts (D-15)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from driftproof.importers._common import Where
from driftproof.receipt import (
    ArmSpec,
    Case,
    Draw,
    Judge,
    JudgeScale,
    Provenance,
    ReceiptBody,
    SkillFired,
    SourceFigures,
    build_receipt,
    cut_label,
    sha256_text,
)
from driftproof.wording import ARM_WORDS


def declared_receipt(
    skill_name: str,
    skill_text: str | None,
    cases: list[Case],
    source: Provenance,
    **run: Any,
) -> ReceiptBody:
    """The unsealed DECLARED receipt of an import.

    ``skill_text`` is hashed and counted (D-14), ``None`` when unknown; ``run`` holds the other
    keywords of :func:`~driftproof.receipt.build_receipt`.
    """
    return build_receipt(
        level="DECLARED",
        skill_name=skill_name,
        skill_text=skill_text,
        cases=cases,
        provenance=source,
        **run,
    )


def aggregates_receipt(
    skill_name: str, figures: SourceFigures, source: Provenance, **run: Any
) -> ReceiptBody:
    """A receipt of aggregate ``figures`` only: no cases, skill text, judge or uncertainty."""
    return declared_receipt(
        skill_name,
        None,
        [],
        source,
        judge=None,
        source_figures=figures,
        uncertainty_unavailable="aggregates_only",
        **run,
    )


#: The most figures a receipt's source report holds (the receipt schema's bound).
MAX_FIGURES = 10000


def bounded_figures(figures: list[dict[str, Any]], w: Where) -> list[dict[str, Any]]:
    """``figures`` as given, when one receipt can hold them all.

    Raises:
        ImportError_: more than :data:`MAX_FIGURES` figures, at ``w`` (what gives them).
    """
    if len(figures) > MAX_FIGURES:
        raise w.fail(
            f"expected at most {MAX_FIGURES:,} reported numbers in all (the most a receipt "
            f"holds), found {len(figures):,}"
        )
    return figures


def figure(label: str, value: float | None, **more: Any) -> dict[str, Any]:
    """A ``source_report`` figure (``None`` value: unknown); a ``None`` member is left out.

    ``label`` and a ``printed`` text are cut by :func:`cut_label`.
    """
    if isinstance(more.get("printed"), str):
        more["printed"] = cut_label(more["printed"])
    return {
        "label": cut_label(label),
        "value": value,
        **{k: v for k, v in more.items() if v is not None},
    }


def interval(obj: dict[str, Any], w: Where, lower: str, upper: str, level: str) -> dict[str, Any]:
    """``obj``'s ``lower``, ``upper``, ``level`` members as a figure's; absent: unknown (D-13).

    Raises:
        ImportError_: an end that is not a number, a level not strictly between 0 and 1, or a
            lower end above the upper end; naming the file and pointer.
    """
    lo, hi = w.number(obj, lower), w.number(obj, upper)
    lvl = w.number(obj, level)
    if lvl is not None and not 0 < lvl < 1:
        raise (w / level).fail(f"expected a confidence level between 0 and 1, found {lvl:g}")
    if lo is not None and hi is not None and lo > hi:
        raise (w / lower).fail(f"expected a lower end at most the upper end {hi:g}, found {lo:g}")
    return {"lower": lo, "upper": hi, "level": lvl}


def case_entry(
    case_id: str,
    prompt: str | None,
    draws: Mapping[str, list[Draw]],
    *,
    category: str | None = None,
    rubric_sha256: str | None = None,
    threshold: float | None = None,
) -> Case:
    """A receipt case; ``draws`` maps each arm it holds to its draws (``[]``: none).

    ``prompt_sha256`` hashes ``prompt`` (none without one); no rubric or threshold unless given
    (D-13).
    """
    return Case.model_validate(
        {
            "id": case_id,
            "prompt": prompt,
            "prompt_sha256": sha256_text(prompt) if prompt is not None else None,
            "rubric_sha256": rubric_sha256,
            "threshold": threshold,
            "arms": {arm: {"draws": d, "generation": None} for arm, d in draws.items()},
            "category": category,
        }
    )


def held_as_declared(
    cases: list[Case], arms: Iterable[str], n: int | None, where: Where, what: str
) -> None:
    """Refuse a case arm holding other than the ``n`` draws the source declares per case and arm.

    ``where`` is the declared count; ``what`` names a draw in the source's words. ``n`` of
    ``None`` (nothing declared) checks nothing.

    Raises:
        ImportError_: at ``where``, naming the first case and arm whose count differs.
    """
    if n is None:
        return
    for case in cases:
        for arm in arms:
            held_arm = getattr(case.arms, arm)
            held = 0 if held_arm is None else len(held_arm.draws)
            if held != n:
                raise where.fail(
                    f"expected {n} {what} per case and arm, the count declared here; case "
                    f"{case.id} holds {held} for the {ARM_WORDS[arm]} arm, so the file is not the "
                    "whole run it declares"
                )


def source_check(
    source_type: str, value: str | None, kind: str, passed: bool, outcome: str
) -> dict[str, Any]:
    """A check as the source recorded it, named ``<type>: <value>`` (:func:`cut_label`)."""
    return {
        "name": cut_label(f"{source_type}: {value}" if value is not None else source_type),
        "kind": kind,
        "pass": passed,
        "outcome": outcome,
        "source_type": cut_label(source_type),
    }


def arm_spec(
    label: str | None,
    *,
    instruction: str | None = None,
    system_prompt_sha256: str | None = None,
    recorded: bool = True,
    skill_fired: SkillFired | None = None,
) -> ArmSpec:
    """A receipt ``arms.<arm>`` entry, ``label`` cut by :func:`cut_label`.

    ``recorded=False`` for an arm the source never ran.
    """
    return ArmSpec(
        label=None if label is None else cut_label(label),
        instruction=instruction,
        system_prompt_sha256=system_prompt_sha256,
        recorded=recorded,
        skill_fired=skill_fired,
    )


def unrecorded_judge(
    tool: str,
    grader: str,
    *,
    model: str | None = None,
    channel: Literal["source"] | None = None,
    step: float | None = None,
) -> Judge:
    """The judge of a source that scored with a grader, scale 0..1, ``step`` unknown unless given.

    Without ``model`` the model is the marker ``unrecorded:<tool>/<grader>``, and the caller
    lists ``judge.model`` in ``provenance.unrecorded`` (D-13).
    """
    return Judge(
        model=cut_label(model or f"unrecorded:{tool}/{grader}"),
        provider=None,
        surface=None,
        service=None,
        sampling=None,
        template_sha256=None,
        scale=JudgeScale(worst=0.0, best=1.0, step=step),
        price=None,
        channel=channel,
    )


#: Notes a receipt's provenance holds (its schema's maxItems).
MAX_NOTES = 50


def provenance(
    tool: str,
    tool_version: str | None,
    document: str,
    document_sha256: str,
    unrecorded: list[str],
    *,
    notes: list[str] | None = None,
    details: dict[str, Any] | None = None,
    partial: bool | None = None,
) -> Provenance:
    """What an imported receipt was converted from.

    Cuts: ``document`` to 4096 characters; ``unrecorded`` to 200 each and ``notes`` to 1000 each
    (:func:`cut_label`), repeats of an item dropped, at most :data:`MAX_NOTES` notes (none:
    absent), the last of more saying how many more there were.
    """
    if notes and len(notes) > MAX_NOTES:
        more = (
            f"and {len(notes) - MAX_NOTES + 1:,} more notes, not kept: a receipt holds {MAX_NOTES}"
        )
        notes = [*notes[: MAX_NOTES - 1], more]
    return Provenance(
        tool=tool,
        tool_version=tool_version,
        document=document[:4096],
        document_sha256=document_sha256,
        unrecorded=list(dict.fromkeys(cut_label(item) for item in unrecorded))[:200],
        notes=[cut_label(n, 1000) for n in notes] if notes else None,
        details=details,
        partial=partial,
    )
