"""Which skill-validator results schema a file says it is, refused when it is not one read.

skill-validator's own reader (``eng/skill-validator``, ``LegacySkillValidatorResultsSchema``)
reads a file, and each verdict in it, only when it has neither ``schemaOwner`` nor
``schemaVersion`` (the unversioned files written before the schema was named) or
``schemaOwner`` ``"skill-validator"`` with ``schemaVersion`` 1; any other pair it refuses, the
Vally adapter's results among them. The same pairs are read here (fail closed).
"""

from __future__ import annotations

import json
from typing import Any

from driftproof.importers._common import Where


def check_schema(doc: dict[str, Any], w: Where) -> None:
    """Refuse a file, or a verdict of it, that names another schema owner or version.

    Raises:
        ImportError_: at ``schemaOwner`` or ``schemaVersion`` of the file or of ``verdicts[i]``.
    """
    places = [(doc, w)] + [(v, w / "verdicts" / i) for i, v in enumerate(doc["verdicts"])]
    for obj, ow in places:
        owner, version = obj.get("schemaOwner"), obj.get("schemaVersion")
        if "schemaOwner" not in obj and "schemaVersion" not in obj:
            continue
        if owner == "skill-validator" and type(version) is int and version == 1:
            continue
        bad = "schemaOwner" if owner != "skill-validator" else "schemaVersion"
        raise (ow / bad).fail(
            "expected skill-validator's results schema: schemaOwner 'skill-validator' with "
            "schemaVersion 1, or neither member (an unversioned file); found "
            f"{json.dumps(owner)[:64]} and {json.dumps(version)[:64]}"
        )
