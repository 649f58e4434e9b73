"""The DECLARED receipt an importer builds from what it read: every importer passes the skill,
the case documents and the source's provenance the same way (:func:`declared_receipt`); a
source that recorded only aggregate figures gives no cases at all (:func:`aggregates_receipt`).
"""

from __future__ import annotations

from typing import Any

from driftproof.importers._common import Where
from driftproof.receipt import receipt_doc

__all__ = ["aggregates_receipt", "declared_receipt", "figure", "interval"]


def declared_receipt(
    skill_name: str,
    skill_text: str | None,
    cases: list[dict[str, Any]],
    provenance: dict[str, Any],
    **run: Any,
) -> dict[str, Any]:
    """The unsealed DECLARED receipt of an import: the skill (its name, and its SKILL.md text or
    ``None``), the case documents, the source's ``provenance`` (:func:`provenance_doc`) and what
    else the source recorded (``run``: the other keywords of
    :func:`~driftproof.receipt.receipt_doc`)."""
    return receipt_doc(
        level="DECLARED",
        skill_name=skill_name,
        skill_text=skill_text,
        cases=cases,
        provenance=provenance,
        **run,
    )


def aggregates_receipt(
    skill_name: str, figures: dict[str, Any], provenance: dict[str, Any], **run: Any
) -> dict[str, Any]:
    """The DECLARED receipt of a source that recorded only aggregate figures: no cases, no
    SKILL.md text, no judge; the ``figures`` as ``source_figures`` and no uncertainty
    (``aggregates_only``)."""
    return declared_receipt(
        skill_name,
        None,
        [],
        provenance,
        judge=None,
        source_figures=figures,
        uncertainty_unavailable="aggregates_only",
        **run,
    )


def figure(label: str, value: float | None, **more: Any) -> dict[str, Any]:
    """A ``source_report`` figure: ``value`` a number read with
    :meth:`~driftproof.importers._common.Where.number` (``None``: unknown), ``more`` its other
    members (a ``None`` member is left out)."""
    return {
        "label": label[:200],
        "value": value,
        **{k: v for k, v in more.items() if v is not None},
    }


def interval(obj: dict[str, Any], w: Where, lower: str, upper: str, level: str) -> dict[str, Any]:
    """A source's interval as a figure's ``lower``, ``upper`` and ``level`` (members of ``obj``
    named ``lower``, ``upper``, ``level``); an absent or null member is unknown (D-13).

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
