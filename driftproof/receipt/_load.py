"""Reading receipts: the one load edge, in a fixed order (STYLE-EXAMPLES 7).

size bound → strict JSON parse (no NaN, no duplicate keys, bounded depth) →
JSON Schema of the receipt's own ``schema_version`` → seal → migration to the
current version → pydantic model → consistency. After this, the core trusts the
types and never re-checks.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from driftproof.errors import BoundsError, Problem, ReceiptError, UnknownVersionError
from driftproof.receipt import _bounds
from driftproof.receipt._model import Receipt
from driftproof.receipt._seal import verify_seal
from driftproof.receipt._versions import known_versions, migrate, validator_for

__all__ = ["parse_receipt", "read_receipt", "read_receipts", "to_pointer"]


def to_pointer(path: Any) -> str:
    """RFC 6901 JSON pointer for a sequence of keys and indices."""
    parts = []
    for p in path:
        s = str(p).replace("~", "~0").replace("/", "~1")
        parts.append(s)
    return "".join("/" + p for p in parts)


def _quote(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True, default=str)
    if len(text) > _bounds.MAX_QUOTE:
        text = text[: _bounds.MAX_QUOTE] + "…"
    return text


class _Duplicate(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Duplicate(k)
        out[k] = v
    return out


def _bad_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _depth(value: Any, limit: int) -> int:
    # Iterative, so a hostile document cannot exhaust the stack here.
    stack = [(value, 1)]
    deepest = 0
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return deepest


def _parse_json(data: bytes, file: str) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReceiptError.at(file, "", f"expected UTF-8 JSON, found an invalid byte at offset {exc.start}") from None
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_bad_constant)
    except _Duplicate as exc:
        raise ReceiptError.at(file, "", f"duplicate key {_quote(str(exc))}: a receipt's keys must be unique") from None
    except RecursionError:
        raise BoundsError.at(file, "", f"JSON nested deeper than {_bounds.MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        raise ReceiptError.at(file, "", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        raise ReceiptError.at(file, "", f"not valid JSON: {exc}") from None


def parse_receipt(data: bytes, file: str = "<receipt>") -> Receipt:
    """Parse and check a receipt held in memory.

    Args:
        data: the file's bytes.
        file: the name used in messages.

    Returns:
        The receipt, migrated to the current schema version.

    Raises:
        BoundsError: over :data:`~driftproof.receipt._bounds.RECEIPT_MAX_BYTES` or too deep.
        UnknownVersionError: ``schema_version`` missing or not a frozen version (D-11).
        SealError: the seal does not match the content (D-12).
        ReceiptError: anything else, one :class:`~driftproof.errors.Problem` per place.
    """
    if len(data) > _bounds.RECEIPT_MAX_BYTES:
        raise BoundsError.at(file, "", f"receipt is {len(data)} bytes; the limit is {_bounds.RECEIPT_MAX_BYTES}")
    doc = _parse_json(data, file)
    if _depth(doc, _bounds.MAX_DEPTH) > _bounds.MAX_DEPTH:
        raise BoundsError.at(file, "", f"JSON nested deeper than {_bounds.MAX_DEPTH} levels")
    if not isinstance(doc, dict):
        raise ReceiptError.at(file, "", f"expected a JSON object, found {type(doc).__name__}")
    version = doc.get("schema_version")
    if not isinstance(version, str) or version not in known_versions():
        raise UnknownVersionError.at(
            file,
            "/schema_version",
            f"expected one of {', '.join(known_versions())}, found {_quote(version)}",
        )
    if doc.get("verification_level") == "FORMAL":
        raise ReceiptError.at(file, "/verification_level", "FORMAL is reserved: no receipt can claim it yet")
    _check_schema(doc, version, file)
    verify_seal(doc, file)
    current = migrate(dict(doc))
    try:
        receipt = Receipt.model_validate(current)
    except ValidationError as exc:  # pragma: no cover - the schema should catch these first
        problems = [Problem(file, to_pointer(e["loc"]), e["msg"]) for e in exc.errors()[: _bounds.MAX_PROBLEMS]]
        raise ReceiptError(f"{file}: receipt does not match the model", problems) from None
    _check_consistency(receipt, file)
    return receipt


def _check_schema(doc: dict[str, Any], version: str, file: str) -> None:
    validator = validator_for(version)
    errors = sorted(validator.iter_errors(doc), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if not errors:
        return
    problems = []
    for e in errors[: _bounds.MAX_PROBLEMS]:
        msg = e.message
        if len(msg) > 300:
            msg = msg[:300] + "…"
        problems.append(Problem(file, to_pointer(e.absolute_path), f"{msg} (schema {version}: {e.validator})"))
    if len(errors) > _bounds.MAX_PROBLEMS:
        problems.append(Problem(file, "", f"… and {len(errors) - _bounds.MAX_PROBLEMS} more problems"))
    raise ReceiptError(f"{file}: receipt fails schema {version}", problems)


def _check_consistency(r: Receipt, file: str) -> None:
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for i, case in enumerate(r.cases):
        if case.id in seen:
            problems.append(Problem(file, f"/cases/{i}/id", f"duplicate case id {_quote(case.id)} (first at /cases/{seen[case.id]})"))
        seen.setdefault(case.id, i)
        for arm_name in ("with_skill", "baseline", "control"):
            arm = getattr(case.arms, arm_name)
            if arm is None:
                continue
            base = f"/cases/{i}/arms/{arm_name}"
            idx = [d.index for d in arm.draws]
            if len(set(idx)) != len(idx):
                problems.append(Problem(file, f"{base}/draws", "draw indices must be unique"))
            for j, d in enumerate(arm.draws):
                if d.lost is not None and d.score is not None:
                    problems.append(Problem(file, f"{base}/draws/{j}/score", "a lost draw carries no score"))
                if d.score is not None and r.judge is None:
                    problems.append(Problem(file, f"{base}/draws/{j}/score", "a score needs a judge: /judge is null"))
                if d.score is not None and not math.isfinite(d.score):
                    problems.append(Problem(file, f"{base}/draws/{j}/score", "expected a finite score"))
            if r.band_source == "legacy" and len(arm.draws) > 1:
                problems.append(Problem(file, f"{base}/draws", "band_source legacy means one generation per arm"))
        if (case.arms.control is None) != (r.arms.control is None):
            problems.append(Problem(file, f"/cases/{i}/arms", "the control arm must be present in every case exactly when /arms/control is"))
    if r.is_aggregates_only and r.source_figures is None:
        problems.append(Problem(file, "/source_figures", "aggregates_only requires the figures the source printed"))
    if problems:
        raise ReceiptError(f"{file}: receipt is inconsistent", problems[: _bounds.MAX_PROBLEMS])


def read_receipt(path: str | Path) -> Receipt:
    """Read, validate, verify and parse one receipt file.

    The size bound is checked on the file's size before a byte is read.

    Raises:
        ReceiptError: (and subclasses) as :func:`parse_receipt`; also when the file
            cannot be read.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ReceiptError.at(path, "", f"cannot read: {exc.strerror}") from None
    if size > _bounds.RECEIPT_MAX_BYTES:
        raise BoundsError.at(path, "", f"receipt is {size} bytes; the limit is {_bounds.RECEIPT_MAX_BYTES}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ReceiptError.at(path, "", f"cannot read: {exc.strerror}") from None
    return parse_receipt(data, str(path))


def read_receipts(paths: list[Path]) -> tuple[dict[Path, Receipt], list[ReceiptError]]:
    """Read many receipts, collecting every failure instead of stopping at the first.

    Returns:
        (receipts by path, errors) — the caller decides whether any error is fatal.
    """
    good: dict[Path, Receipt] = {}
    bad: list[ReceiptError] = []
    for p in paths:
        try:
            good[p] = read_receipt(p)
        except ReceiptError as exc:
            bad.append(exc)
    return good, bad
