"""The receipt: Driftproof's sealed, schema-validated result file.

Public API::

    read_receipt(path) -> Receipt            validate, verify the seal, parse (any version)
    parse_receipt(bytes, file) -> Receipt    the same, on bytes held in memory
    write_receipt(body, path) -> Receipt     seal (D-12), validate once, write atomically
    build_receipt(...) -> ReceiptBody        build as the model (also build_draw,
                                             build_judge_sample, sha256_text, skill_tokens)
    compute_seal(document) -> hex            sha256 of the RFC 8785 canonical JSON (D-12)
    schema_bytes(version) -> bytes           the frozen schema file, as served
    known_versions() -> tuple[str, ...]      every frozen version, oldest first (D-11)
    check_json_bounds(value, file, ...)      depth, string, collection and number limits
    breakdown_size_ok(path|bytes|size)       whether the lift breakdown may be computed
    breakdown_unavailable_reason(...)        the sentence naming the size limit, or None

A receipt of an older version is checked against its own frozen schema and seal, then read
into the current shape: ``Receipt.schema_version`` keeps the version the file declared,
``Receipt.is_migrated`` is true, and every field that version did not record is ``None``
(D-11, D-13). Limits (bytes, items, characters) are constants in
:mod:`driftproof.receipt._bounds`.
"""

from driftproof.receipt import _model
from driftproof.receipt._bounds import (
    BREAKDOWN_MAX_BYTES,
    breakdown_size_ok,
    breakdown_unavailable_reason,
    check_json_bounds,
)
from driftproof.receipt._build import (
    build_draw,
    build_judge_sample,
    build_receipt,
    sha256_text,
    skill_tokens,
)
from driftproof.receipt._load import parse_receipt, read_receipt
from driftproof.receipt._model import *  # noqa: F403 (the receipt models, re-exported whole)
from driftproof.receipt._seal import compute_seal
from driftproof.receipt._versions import known_versions, schema_bytes
from driftproof.receipt._write import write_receipt

__all__ = [
    "BREAKDOWN_MAX_BYTES",
    "breakdown_size_ok",
    "breakdown_unavailable_reason",
    "build_draw",
    "build_judge_sample",
    "build_receipt",
    "check_json_bounds",
    "compute_seal",
    "known_versions",
    "parse_receipt",
    "read_receipt",
    "schema_bytes",
    "sha256_text",
    "skill_tokens",
    "write_receipt",
]
__all__ += _model.__all__  # the receipt models, listed once there
__all__.sort()
