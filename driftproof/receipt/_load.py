"""Reading receipts: the one load edge, in a fixed order (STYLE-EXAMPLES 7).

size bound → strict JSON parse (no NaN, no duplicate keys) → depth, string,
collection and number bounds → known version, FORMAL refused → JSON Schema of the
receipt's own ``schema_version`` (D-11) → seal on the document as written (D-12) →
migration to the current shape (D-13) → pydantic model → consistency, with what the
receipt's own evidence recomputes (D-18). After this, the core trusts the types and never
re-checks.
"""

from __future__ import annotations

import json
import os
import stat
from itertools import islice
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from driftproof._json import JSONFault, loads_strict
from driftproof.errors import BoundsError, Problem, ReceiptError, UnknownVersionError
from driftproof.receipt import _bounds
from driftproof.receipt._bounds import check_json_bounds, quote
from driftproof.receipt._messages import compiled_problems, schema_problems, to_pointer
from driftproof.receipt._model import CURRENT_VERSION, Receipt
from driftproof.receipt._recompute import recompute_problems
from driftproof.receipt._seal import atomic_write, sealed_bytes, verify_seal
from driftproof.receipt._versions import (
    compiled_validator_for,
    known_versions,
    migrate,
    validator_for,
)

__all__ = [
    "parse_receipt",
    "read_receipt",
    "read_receipts",
    "to_pointer",
    "validate_document",
    "write_checked_receipt",
]

#: Schema failures collected from one file before they are sorted and cut to MAX_PROBLEMS.
_ERRORS_SCANNED = 1000


def _parse_json(data: bytes, file: str) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReceiptError.at(
            file, "", f"expected UTF-8 JSON, found an invalid byte at offset {exc.start}"
        ) from None
    try:
        return loads_strict(text)
    except JSONFault as exc:
        if exc.too_deep:
            raise BoundsError.at(
                file, "", f"expected nesting of at most {_bounds.MAX_DEPTH} levels"
            ) from None
        raise ReceiptError.at(file, "", exc.worded()) from None


def parse_receipt(
    data: bytes | str, file: str = "<receipt>", *, known_valid: bool = False
) -> Receipt:
    """Parse and check a receipt held in memory, of any frozen schema version.

    Order (STYLE-EXAMPLES 7): size bound → strict JSON (no NaN, no duplicate keys) →
    depth, string, collection and number bounds → FORMAL refused → the JSON Schema the
    receipt's own ``schema_version`` names (D-11) → seal, on the document as written
    (D-12) → migration to the current shape (fields the version did not establish are
    ``None``, D-13) → model → consistency.

    Args:
        data: the file's bytes (text is encoded as UTF-8 first).
        file: the name used in messages.
        known_valid: these exact bytes (by sha256) already passed every check under the same
            product version, as a build cache recorded (issue 19): the bounds, schema and seal
            checks are skipped; migration, model and consistency still run. Never set it for
            bytes not so recorded.

    Returns:
        The receipt in the current shape; ``schema_version`` keeps the version the file declared.

    Raises:
        BoundsError: over a limit of :mod:`driftproof.receipt._bounds`.
        UnknownVersionError: ``schema_version`` missing or not a frozen version (D-11).
        SealError: the seal is missing or does not match the content (D-12).
        ReceiptError: anything else; one :class:`~driftproof.errors.Problem` per place,
            each naming the file, the JSON pointer and what was expected.
    """
    if isinstance(data, str):  # a caller holding text: measure and parse it as UTF-8
        data = data.encode("utf-8", "surrogatepass")
    if len(data) > _bounds.RECEIPT_MAX_BYTES:
        raise BoundsError.at(
            file, "", f"expected at most {_bounds.RECEIPT_MAX_BYTES} bytes, found {len(data)}"
        )
    if known_valid:
        doc = json.loads(data)
        return _to_model(doc, doc["schema_version"], file)
    return validate_document(_parse_json(data, file), file)


def validate_document(doc: Any, file: str = "<receipt>") -> Receipt:
    """Check a receipt already held as JSON data, in memory: what :func:`parse_receipt` does
    after the strict parse, so a writer can validate before its atomic write instead of
    reading its file back (issue 19).

    Order (STYLE-EXAMPLES 7): depth, string, collection and number bounds → FORMAL refused →
    the JSON Schema the document's own ``schema_version`` names (D-11), decided by the
    compiled validator → seal, on the document as given (D-12) → migration to the current
    shape (D-13) → model → consistency. The document is not mutated.

    Args:
        doc: the parsed JSON (objects as ``dict``, arrays as ``list``).
        file: the name used in messages.

    Returns:
        The receipt in the current shape; ``schema_version`` keeps the version declared.

    Raises:
        BoundsError, UnknownVersionError, SealError, ReceiptError: as :func:`parse_receipt`.
    """
    check_json_bounds(doc, file)
    if not isinstance(doc, dict):
        raise ReceiptError.at(file, "", f"expected a JSON object, found {type(doc).__name__}")
    version = doc.get("schema_version")
    if not isinstance(version, str) or version not in known_versions():
        raise UnknownVersionError.at(
            file,
            "/schema_version",
            f"expected one of {', '.join(known_versions())} (newest {CURRENT_VERSION}), "
            f"found {quote(version)}",
        )
    if doc.get("verification_level") == "FORMAL":
        raise ReceiptError.at(
            file,
            "/verification_level",
            "expected UNVERIFIED, DECLARED or TESTED; "
            "FORMAL is reserved and no receipt can claim it yet",
        )
    _check_schema(doc, version, file)
    verify_seal(doc, file)
    return _to_model(doc, version, file)


def _to_model(doc: dict[str, Any], version: str, file: str) -> Receipt:
    current = migrate(doc)
    current["schema_version"] = version
    try:
        receipt = Receipt.model_validate(current)
    except (
        ValidationError
    ) as exc:  # pragma: no cover - the schema and migrations should catch these first
        problems = [
            Problem(file, to_pointer(e["loc"]), e["msg"])
            for e in exc.errors()[: _bounds.MAX_PROBLEMS]
        ]
        raise ReceiptError(f"{file}: receipt does not match the model", problems) from None
    _check_consistency(receipt, file)
    return receipt


def _check_schema(doc: dict[str, Any], version: str, file: str) -> None:
    """The compiled validator decides; python-jsonschema only words a refusal (issue 19).

    Should python-jsonschema find nothing wrong with a document the compiled validator
    refused, the document is refused all the same, in the compiled validator's words.
    """
    compiled = compiled_validator_for(version)
    if compiled.is_valid(doc):
        return
    errors = list(islice(validator_for(version).iter_errors(doc), _ERRORS_SCANNED))
    if errors:
        problems = schema_problems(errors, version, file, CURRENT_VERSION)
    else:
        problems = compiled_problems(
            list(islice(compiled.iter_errors(doc), _ERRORS_SCANNED)), version, file
        )
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    raise ReceiptError(f"{problems[0]}{more}", problems)


def _check_consistency(r: Receipt, file: str) -> None:
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for i, case in enumerate(r.cases):
        if case.id in seen:
            problems.append(
                Problem(
                    file,
                    f"/cases/{i}/id",
                    f"expected unique case ids: duplicate case id {quote(case.id)} "
                    f"(first at /cases/{seen[case.id]})",
                )
            )
        seen.setdefault(case.id, i)
        for arm_name in ("with_skill", "baseline", "control"):
            arm = getattr(case.arms, arm_name)
            if arm is None:
                continue
            base = f"/cases/{i}/arms/{arm_name}"
            idx = [d.index for d in arm.draws]
            if len(set(idx)) != len(idx):
                problems.append(Problem(file, f"{base}/draws", "expected unique draw indices"))
            for j, d in enumerate(arm.draws):
                if d.score is not None and r.judge is None:
                    problems.append(
                        Problem(
                            file,
                            f"{base}/draws/{j}/score",
                            "expected no score: /judge is null, and a score needs a judge",
                        )
                    )
            if r.band_source == "legacy" and len(arm.draws) > 1:
                problems.append(
                    Problem(
                        file,
                        f"{base}/draws",
                        "expected one draw: band_source legacy means one generation per arm",
                    )
                )
            spec = getattr(r.arms, arm_name)
            if spec is not None and not spec.recorded and arm.draws:
                problems.append(
                    Problem(
                        file,
                        f"{base}/draws",
                        f"expected no draws: /arms/{arm_name}/recorded is false "
                        "(the source did not record this arm)",
                    )
                )
        if (case.arms.control is None) != (r.arms.control is None):
            problems.append(
                Problem(
                    file,
                    f"/cases/{i}/arms",
                    "expected a control arm in every case exactly when /arms/control names one",
                )
            )
    if not r.arms.with_skill.recorded and not r.arms.baseline.recorded:
        problems.append(
            Problem(
                file,
                "/arms/baseline/recorded",
                "expected at least one of the with-skill and baseline "
                "arms recorded; both are marked recorded: false",
            )
        )
    problems += recompute_problems(r, file)  # D-18: recomputed, not trusted
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        shown = problems[: _bounds.MAX_PROBLEMS]
        if len(problems) > _bounds.MAX_PROBLEMS:
            shown.append(
                Problem(file, "", f"… and {len(problems) - _bounds.MAX_PROBLEMS} more problems")
            )
        raise ReceiptError(f"{problems[0]}{more}", shown)


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
        raise BoundsError.at(
            path, "", f"expected at most {_bounds.RECEIPT_MAX_BYTES} bytes, found {size}"
        )
    return parse_receipt(read_bounded(path), str(path))


def read_bounded(path: Path, *, regular_only: bool = False) -> bytes:
    """The bytes of the file at ``path``, reading at most one byte past the receipt size bound
    (a device or pipe reports size 0 and never ends).

    With ``regular_only`` the file is opened with ``O_NOFOLLOW`` and ``O_NONBLOCK`` and refused
    unless it is a regular file: a file swapped for a symbolic link, a FIFO or a device after a
    directory walk is refused, not followed or waited on (issue 15).

    Raises:
        ReceiptError: the file cannot be read, or is not a regular file.
        BoundsError: it holds more than the receipt size bound.
    """
    try:
        if regular_only:
            flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
            fh = os.fdopen(os.open(path, flags), "rb")
        else:
            fh = path.open("rb")
        with fh:
            if regular_only and not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise ReceiptError.at(path, "", "expected a regular file")
            data = fh.read(_bounds.RECEIPT_MAX_BYTES + 1)
    except OSError as exc:
        raise ReceiptError.at(path, "", f"cannot read: {exc.strerror}") from None
    if len(data) > _bounds.RECEIPT_MAX_BYTES:
        raise BoundsError.at(
            path, "", f"expected at most {_bounds.RECEIPT_MAX_BYTES} bytes, found more"
        )
    return data


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


def write_checked_receipt(document: dict[str, Any], path: str | Path) -> Receipt:
    """Seal ``document``, validate it once in memory and only then write it atomically (issue 19).

    The sealed document goes through :func:`validate_document` (bounds, the compiled schema
    check, seal, model, consistency) before a byte is written; the file is never read back.
    A document that fails leaves ``path`` exactly as it was.

    Returns:
        The receipt as every reader of the written file will see it.

    Raises:
        ReceiptError: (and subclasses) as :func:`validate_document`, naming ``path``; also
            when the document does not declare the current schema version (D-11).
    """
    sealed, data = sealed_bytes(document, path)
    receipt = validate_document(sealed, str(path))
    atomic_write(path, data)
    return receipt
