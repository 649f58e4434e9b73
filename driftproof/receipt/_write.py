"""Writing a receipt: sealed once (D-12), validated once, written atomically, current version.

Cases are checked, hashed and written one at a time: a large receipt is never held whole as JSON.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from driftproof._pool import live_objects_frozen
from driftproof.errors import BoundsError, ReceiptError
from driftproof.outputs import open_mode, staged_sibling, staging_in
from driftproof.receipt import _bounds
from driftproof.receipt._bounds import check_json_bounds, within_bounds
from driftproof.receipt._load import _too_big, check_schema
from driftproof.receipt._model import CURRENT_VERSION, Receipt, ReceiptBody, Seal
from driftproof.receipt._recompute import check_consistency
from driftproof.receipt._seal import SEAL_ALGORITHM, compute_seal
from driftproof.receipt._versions import compiled_validator_for

#: A seal of the right shape, for checking a receipt against its schema before it is sealed.
_UNSET = {"seal": {"algorithm": SEAL_ALGORITHM, "sha256": "0" * 64}}


def write_receipt(body: ReceiptBody, path: str | Path, *, replace: bool = True) -> Receipt:
    """Seal ``body``, validate it once and write it atomically to ``path``.

    UTF-8 JSON, sorted keys, two-space indent, final newline: the same receipt always writes
    the same bytes, never half-written; a failed check leaves ``path`` as it was. Returns the
    receipt as readers will see it.

    Raises:
        ReceiptError: (and subclasses) the receipt is not of the current schema version
            (writers write the current version only, D-11), or fails a bound, its schema or a
            consistency check, or would be more cases or bytes than a reader reads
            (:mod:`._bounds`); each problem names ``path`` and a JSON pointer.
        FileExistsError: ``replace`` is false and ``path`` exists.
        OSError: the file cannot be written; the error names ``path``.
    """
    path = Path(path)
    if body.schema_version != CURRENT_VERSION:
        raise ReceiptError.at(
            path,
            "/schema_version",
            f"expected {CURRENT_VERSION!r} (writers write the current schema version only), "
            f"found {body.schema_version!r}",
        )
    check_consistency(body, str(path))
    if (n := len(body.cases)) > (most := _bounds.RECEIPT_MAX_ITEMS):  # as a reader refuses it
        raise BoundsError.at(path, "/cases", f"expected at most {most} items, found {n}")
    head = body.to_json_dict(cases=False)
    if not (
        within_bounds(head)
        and compiled_validator_for(CURRENT_VERSION).is_valid({**head, "cases": [], **_UNSET})
    ):
        _refuse(body, path)
    with _staged(path, replace) as write, live_objects_frozen():
        seal = Seal(algorithm=SEAL_ALGORITHM, sha256=_write_members(write, body, head, path))
    members = {name: getattr(body, name) for name in ReceiptBody.model_fields}
    return Receipt.model_construct(body.model_fields_set | {"seal"}, **members, seal=seal)


def _json(value: Any, level: int) -> str:
    """``value`` as indented JSON, its lines after the first indented ``level`` more steps."""
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    return text.replace("\n", "\n" + "  " * level)  # JSON text holds no raw newline


def _write_members(
    write: Callable[[str], object], body: ReceiptBody, head: dict[str, Any], path: Path
) -> str:
    """Write every member through ``write`` in sorted order; return the seal's sha256."""
    names = sorted({*head, "cases", "seal"})
    split = names.index("cases")
    for i, name in enumerate(names[:split]):  # "cases" sorts before "seal"
        write(("{\n" if i == 0 else ",\n") + f"  {json.dumps(name)}: {_json(head[name], 1)}")
    write(',\n  "cases": [')
    validator = compiled_validator_for(CURRENT_VERSION, "case")

    def cases() -> Iterator[dict[str, Any]]:
        for i, case in enumerate(body.cases):
            data = case.model_dump(mode="json", by_alias=True)
            if not (within_bounds(data, depth=3) and validator.is_valid(data)):
                _refuse(body, path)
            write((",\n    " if i else "\n    ") + _json(data, 2))
            yield data

    sha256 = compute_seal(head, cases())
    write("\n  ]" if body.cases else "]")
    seal = {"algorithm": SEAL_ALGORITHM, "sha256": sha256}
    for name in names[split + 1 :]:
        value = seal if name == "seal" else head[name]
        write(f",\n  {json.dumps(name)}: {_json(value, 1)}")
    write("\n}\n")
    return sha256


def _refuse(body: ReceiptBody, path: Path) -> NoReturn:
    """Raise the problems of a receipt a fast check refused, worded as a reader words them."""
    doc = {**body.to_json_dict(), **_UNSET}
    check_json_bounds(doc, path)
    check_schema(doc, CURRENT_VERSION, str(path))
    raise ReceiptError.at(path, "", "expected a receipt its frozen schema accepts")


@contextmanager
def _staged(path: Path, replace: bool) -> Iterator[Callable[[str], object]]:
    """A text writer to a temporary file beside ``path``, moved onto it on a clean exit.

    The folder is held (:func:`~driftproof.outputs.staging_in`) until the file is moved or
    removed: no clean-up takes it for one a killed write left.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with staging_in(path.parent), _moved_on_exit(path, replace) as write:
        yield write


@contextmanager
def _moved_on_exit(path: Path, replace: bool) -> Iterator[Callable[[str], object]]:
    """:func:`_staged`'s writer, once its folder is held."""
    fd, tmp = staged_sibling(path)
    try:
        open_mode(fd)
        with os.fdopen(fd, "wb") as out:
            yield lambda text: out.write(text.encode("utf-8"))
            if out.tell() > _bounds.RECEIPT_MAX_BYTES:  # a file no reader would parse
                raise _too_big(path, out.tell())
            out.flush()
            os.fsync(out.fileno())  # the receipt on disk before its name is
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # FileExistsError if it exists
            except FileExistsError:
                raise
            except OSError:  # a file system without hard links: check, then move
                if path.exists():
                    raise FileExistsError(errno.EEXIST, "the file exists", str(path)) from None
                os.replace(tmp, path)
    except OSError as exc:
        if exc.filename is None:  # a full disk: name the receipt, not its temporary file
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise
    finally:
        Path(tmp).unlink(missing_ok=True)
