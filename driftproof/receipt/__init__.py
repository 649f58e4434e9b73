"""The receipt: Driftproof's sealed, schema-validated result file.

Public API::

    read_receipt(path) -> Receipt          validate, verify the seal, parse (any version)
    parse_receipt(bytes, file) -> Receipt
    validate_document(doc, file) -> Receipt   the same checks on JSON data already in memory
    build_receipt(...) -> ReceiptBody      build as the model (also build_draw, build_judge_sample)
    seal_receipt(body) -> Receipt          seal a built receipt (D-12)
    write_receipt(body|document, path)     seal (D-12) and write atomically, current version
    write_checked_receipt(document, path) -> Receipt   seal, validate in memory, write atomically
    seal_document(document) -> document
    compute_seal(document) -> hex
    schema_bytes(version) -> bytes         the frozen schema file, as served
    known_versions() -> tuple[str, ...]    every frozen version, oldest first (D-11)
    breakdown_size_ok(path|bytes|size)     whether the lift breakdown may be computed
    breakdown_unavailable_reason(...)      the sentence naming the size limit, or None
    check_json_bounds(value, file, ...)    depth, string, collection and number limits

A receipt of an older version is checked against its own frozen schema and seal, then
read into the current shape: ``Receipt.schema_version`` keeps the version the file
declared, ``Receipt.is_migrated`` is true, and every field that version did not record
is ``None`` (D-11, D-13). Limits (bytes, items, characters) are constants in
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
    draw_doc,
    judge_sample_doc,
    receipt_doc,
    sha256_text,
    skill_tokens,
    to_doc,
)
from driftproof.receipt._load import (
    parse_receipt,
    read_receipt,
    read_receipts,
    to_pointer,
    validate_document,
    write_checked_receipt,
)
from driftproof.receipt._model import *  # noqa: F403 (the receipt models, re-exported whole)
from driftproof.receipt._seal import (
    SEAL_ALGORITHM,
    canonical_bytes,
    complete_document,
    compute_seal,
    seal_document,
    seal_receipt,
    verify_seal,
    write_receipt,
)
from driftproof.receipt._versions import known_versions, schema_bytes, schema_for

SCHEMA_ID_BASE = "https://driftproof.dev/spec"

__all__ = [
    "BREAKDOWN_MAX_BYTES",
    "SCHEMA_ID_BASE",
    "SEAL_ALGORITHM",
    "breakdown_size_ok",
    "breakdown_unavailable_reason",
    "build_draw",
    "build_judge_sample",
    "build_receipt",
    "canonical_bytes",
    "check_json_bounds",
    "complete_document",
    "compute_seal",
    "draw_doc",
    "judge_sample_doc",
    "known_versions",
    "parse_receipt",
    "read_receipt",
    "read_receipts",
    "receipt_doc",
    "schema_bytes",
    "schema_for",
    "seal_document",
    "seal_receipt",
    "sha256_text",
    "skill_tokens",
    "to_doc",
    "to_pointer",
    "validate_document",
    "verify_seal",
    "write_checked_receipt",
    "write_receipt",
]
__all__ += _model.__all__  # the receipt models, listed once there
__all__.sort()
