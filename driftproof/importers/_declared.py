"""The DECLARED receipt an importer builds from what it read: every importer passes the skill,
the case documents and the source's provenance the same way (:func:`declared_receipt`); a
source that recorded only aggregate figures gives no cases at all (:func:`aggregates_receipt`).
"""

from __future__ import annotations

from typing import Any

from driftproof.receipt import receipt_doc

__all__ = ["aggregates_receipt", "declared_receipt", "figure"]


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


def figure(label: str, value: Any, **more: Any) -> dict[str, Any]:
    """A ``source_report`` figure; ``value`` kept only when it is a number."""
    number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return {
        "label": label[:200],
        "value": number,
        **{k: v for k, v in more.items() if v is not None},
    }
