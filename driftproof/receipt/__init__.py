"""The receipt: Driftproof's sealed (D-12), schema-validated result file; its API is ``__all__``.

An older receipt is checked against its own frozen schema and seal, then read into the current
shape: ``schema_version`` keeps the declared version, ``is_migrated`` is true and every field
it did not record is ``None`` (D-11, D-13).
"""

from driftproof.receipt import _model
from driftproof.receipt._bounds import (
    BREAKDOWN_MAX_BYTES,
    breakdown_size_ok,
    breakdown_unavailable_reason,
    check_json_bounds,
    cut_label,
)
from driftproof.receipt._build import (
    build_draw,
    build_judge_sample,
    build_receipt,
    sha256_text,
    skill_tokens,
)
from driftproof.receipt._load import (
    parse_receipt,
    read_receipt,
    read_receipt_json,
    receipt_from_json,
)
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
    "cut_label",
    "known_versions",
    "parse_receipt",
    "read_receipt",
    "read_receipt_json",
    "receipt_from_json",
    "schema_bytes",
    "sha256_text",
    "skill_tokens",
    "write_receipt",
]
__all__ += _model.__all__  # the receipt models, listed once there
__all__.sort()
