"""skill-validator's results schema: the owner and version pairs its own reader accepts."""

from __future__ import annotations

import json
from typing import Any

from driftproof.importers._common import Where


def check_schema(doc: dict[str, Any], w: Where) -> None:
    """Refuse a file, or a verdict of it, that names another schema owner or version.

    skill-validator's own reader (``eng/skill-validator``, ``LegacySkillValidatorResultsSchema``)
    reads a file only when it has neither ``schemaOwner`` nor ``schemaVersion`` (absent or null:
    the unversioned files written before the schema was named) or ``schemaOwner``
    ``"skill-validator"`` with ``schemaVersion`` 1; any other pair it refuses, the Vally
    adapter's results among them. A verdict's member that is absent or null reads as that
    default (``SkillVerdict``'s getters), so a verdict is refused only for another owner or
    version it names. The same pairs are read here (fail closed).

    Raises:
        ImportError_: at ``schemaOwner`` or ``schemaVersion`` of the file or of ``verdicts[i]``.
    """
    places = [(doc, w, False)]
    places += [(v, w / "verdicts" / i, True) for i, v in enumerate(doc["verdicts"])]
    for obj, ow, verdict in places:
        owner, version = obj.get("schemaOwner"), obj.get("schemaVersion")
        if owner is None and version is None and not verdict:
            continue
        # a verdict's absent or null member reads as skill-validator's version 1
        read_owner = "skill-validator" if verdict and owner is None else owner
        read_version = 1 if verdict and version is None else version
        if read_owner == "skill-validator" and type(read_version) is int and read_version == 1:
            continue
        bad = "schemaOwner" if read_owner != "skill-validator" else "schemaVersion"
        raise (ow / bad).fail(
            "expected skill-validator's results schema: schemaOwner 'skill-validator' with "
            "schemaVersion 1, or neither member (an unversioned file); found "
            f"{json.dumps(owner)[:64]} and {json.dumps(version)[:64]}"
        )
