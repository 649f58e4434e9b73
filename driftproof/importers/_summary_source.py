"""summary-json's ``summary.source``: the import a receipt exported to summary-json was made by."""

from __future__ import annotations

from typing import Any

from driftproof.importers import _declared as declared
from driftproof.importers._common import Where
from driftproof.receipt import Provenance


def exported_from(doc: dict[str, Any], w: Where) -> dict[str, Any] | None:
    """The imported receipt a file was exported from, as ``summary.source`` says; else None.

    Raises:
        ImportError_: at ``/summary/source``, a member that is not what the exporter writes.
    """
    src = (doc.get("summary") or {}).get("source")
    if src is None:
        return None
    sw = w / "summary" / "source"
    ok = (
        isinstance(src, dict)
        and isinstance(src.get("tool"), str)
        and 0 < len(src["tool"]) <= 100
        and isinstance(src.get("tool_version"), str | None)
        and isinstance(src.get("document_sha256"), str)
        and isinstance(src.get("harness_recorded"), bool)
        and isinstance(src.get("notes"), list)
        and all(isinstance(n, str) for n in src["notes"])
    )
    if not ok:
        raise sw.fail(
            "expected what `driftproof export summary-json` writes: tool, tool_version, "
            "document_sha256, harness_recorded and notes (strings)"
        )
    return dict(src)


def provenance_of(
    doc: dict[str, Any], origin: dict[str, Any] | None, path: str, sha: str, unrecorded: list[str]
) -> Provenance:
    """The import's provenance: the harness's name, or summary-json for an exported import.

    A file exported from an imported receipt is imported by summary-json (the sha256 is this
    file's), with a note naming the first import's tool and document, then that import's notes.
    """
    if origin is None:
        harness = doc["harness"]
        return declared.provenance(harness["name"], harness.get("version"), path, sha, unrecorded)
    tool = f"{origin['tool']} {origin['tool_version'] or ''}".strip()
    notes = [
        f"this file was exported from a receipt imported from {tool} (document sha256 "
        f"{origin['document_sha256'][:64]}); the document sha256 above is this file's"
    ] + [f"the {origin['tool']} import's note: {n}" for n in origin["notes"]]
    return declared.provenance("summary-json", None, path, sha, unrecorded, notes=notes)
