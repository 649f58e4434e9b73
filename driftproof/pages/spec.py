"""The served receipt schemas: every frozen version and the canonical one (D-11)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from driftproof.errors import SiteBuildError
from driftproof.pages.tables import json_text, sums_of
from driftproof.receipt import known_versions, schema_bytes
from driftproof.receipt._canonical import canonical_id, canonical_schema_bytes, version_id
from driftproof.receipt._spec_page import unpublished_versions


def schema_files() -> tuple[dict[str, bytes], dict[str, Any]]:
    """The schemas, ``index.json`` and ``SHA256SUMS`` by site path, and the versions page's model.

    Raises:
        SiteBuildError: no frozen schema is known (a broken install).
    """
    versions = known_versions()
    if not versions:
        raise SiteBuildError("no frozen receipt schema is known")
    current = versions[-1]
    files = {f"spec/{v}/receipt.schema.json": schema_bytes(v) for v in versions}
    files["spec/receipt.schema.json"] = canonical_schema_bytes()
    index = {
        "current": current,
        "canonical_url": canonical_id(),
        "current_url": version_id(current),
        "versions": {v: version_id(v) for v in versions},
    }
    files["spec/index.json"] = json_text(index).encode("utf-8")
    files["spec/SHA256SUMS"] = sums_of(
        {p: hashlib.sha256(d).hexdigest() for p, d in files.items() if p.endswith(".schema.json")}
    )
    model = {
        "current": current,
        "canonical_id": canonical_id(),
        "current_id": version_id(current),
        "unpublished": unpublished_versions(),  # the specification page says it in these words
        "versions": [
            {
                "version": v,
                "url": f"../{v}/receipt.schema.json",
                "id": json.loads(schema_bytes(v)).get("$id", ""),
                "sha256": hashlib.sha256(schema_bytes(v)).hexdigest(),
            }
            for v in reversed(versions)
        ],
    }
    return files, model
