"""Importers: neighbouring tools' result files converted into receipts (D-15).

Every importer is a function registered here under the source tool's name::

    @register("caveman")
    def import_caveman(source: Path, **options) -> list[Imported]: ...

It reads ``source`` (and whatever its options name), checks it fails closed
(:class:`~driftproof.errors.ImportError_` naming file, JSON pointer and what was
expected) and returns one :class:`Imported` per receipt, unsealed, without
writing anything. :func:`write_imported` then checks every document against the
current receipt schema and writes them all, or none.

Public API::

    IMPORTERS: dict[str, Importer]     name -> importer function
    register(name)                     decorator adding a function to IMPORTERS
    get_importer(name) -> Importer     lookup with a clear error for an unknown name
    Imported(filename, document)       one receipt to write
    write_imported(items, out_dir) -> list[Path]

Adding an importer: create ``driftproof/importers/<tool>.py`` with a function
decorated ``@register("<tool>")`` and add its module name to ``_BUILTIN`` below
(the registry imports the built-in modules on first lookup).
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof.errors import ImportError_, Problem, ReceiptError
from driftproof.importers._common import safe_filename
from driftproof.importers._text import bound_document, collect_repairs, finalize_document
from driftproof.receipt import parse_receipt, seal_document, write_receipt
from driftproof.receipt._seal import unsealable_values

__all__ = [
    "IMPORTERS",
    "Imported",
    "Importer",
    "get_importer",
    "register",
    "register_single",
    "write_imported",
]


@dataclass(frozen=True)
class Imported:
    """One receipt an importer produced.

    Attributes:
        filename: the receipt's file name (no directory), e.g. ``caveman-2b10489-caveman.json``.
        document: the unsealed receipt document at the current schema version.
    """

    filename: str
    document: dict[str, Any]

    @classmethod
    def named(cls, prefix: str, doc: dict[str, Any], *labels: str) -> Imported:
        """``doc`` under the file name ``<prefix>-<skill>[-<label>…]-<document sha256[:8]>.json``,
        unsafe characters as ``-`` (:func:`~driftproof.importers._common.safe_filename`)."""
        digest = doc["provenance"]["document_sha256"][:8]
        return cls(safe_filename(prefix, doc["skill"]["name"], *labels, digest), doc)


Importer = Callable[..., list[Imported]]

#: name -> importer function. Filled by :func:`register`.
IMPORTERS: dict[str, Importer] = {}

#: modules under ``driftproof.importers`` imported on first lookup, so their
#: ``@register`` decorators run. One line per built-in importer.
_BUILTIN: tuple[str, ...] = (
    "caveman",
    "skill_creator",
    "nvidia",
    "promptfoo",
    "inspect_ai",
    "summary_json",
    "claude_plugin_eval",
    "openai_evals",
    "skill_validator",
    "vally",
    "skill_eval_harness",
)

_FILENAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.json$")


def register(name: str) -> Callable[[Importer], Importer]:
    """Decorator: register ``fn`` as the importer for source tool ``name``.

    Raises:
        ValueError: ``name`` is already registered to another function.
    """

    def deco(fn: Importer) -> Importer:
        if IMPORTERS.get(name, fn) is not fn:
            raise ValueError(f"importer {name!r} is already registered")
        IMPORTERS[name] = fn
        return fn

    return deco


def register_single(name: str, prefix: str, read: Callable[..., dict[str, Any]]) -> Importer:
    """Register, as the importer for source tool ``name``, the registry entry of an importer
    that turns one source file into one receipt: ``read(Path(source), **options)``, filed as
    ``<prefix>-<skill>-<document sha256[:8]>.json`` (:meth:`Imported.named`).

    Raises:
        ValueError: ``name`` is already registered to another function.
    """

    def importer(source: Path, **options: Any) -> list[Imported]:
        return [Imported.named(prefix, read(Path(source), **options))]

    importer.__doc__ = (
        f"Registry entry: :func:`{read.__name__}`, file ``{prefix}-<skill>-<document "
        "sha256[:8]>.json``."
    )
    return register(name)(importer)


def _load_builtins() -> None:
    for module in _BUILTIN:
        importlib.import_module(f"driftproof.importers.{module}")


def get_importer(name: str) -> Importer:
    """The importer registered as ``name``, wrapped so that its documents are finished the
    same way for every tool (issue 14, item 1): text the source held as invalid Unicode is
    recorded in ``text_repairs`` and big fields are bounded into ``bounded_text``
    (:func:`~driftproof.importers._text.finalize_document`).

    Raises:
        KeyError: no importer has that name (the message lists the known names).
    """
    _load_builtins()
    try:
        fn = IMPORTERS[name]
    except KeyError:
        raise KeyError(
            f"no importer named {name!r}; known: {', '.join(sorted(IMPORTERS))}"
        ) from None

    @functools.wraps(fn)
    def finished(*args: Any, **kwargs: Any) -> list[Imported]:
        with collect_repairs() as repairs:
            items = fn(*args, **kwargs)
        return [Imported(i.filename, finalize_document(i.document, repairs)) for i in items]

    return finished


def write_imported(
    items: list[Imported], out_dir: str | Path, *, source: str = "<import>", force: bool = False
) -> list[Path]:
    """Seal and write every imported receipt into ``out_dir``, or write none.

    Each document is sealed and checked in memory against the current receipt
    schema, its seal and the model (:func:`~driftproof.receipt.parse_receipt`)
    before any file is written; each file is then written atomically.

    Args:
        items: what an importer returned.
        out_dir: the receipts directory (created when missing).
        source: the source file's name, used in messages.
        force: replace receipts that already exist; without it an existing one is refused.

    Returns:
        The paths written, in the order of ``items``.

    Raises:
        ImportError_: a file name is unsafe or repeated, or a document is not a valid
            receipt (an importer bug), with the receipt's pointer; nothing was written.
        RefusalError: a receipt file already exists and ``force`` is not set, naming every
            such file; nothing was written.
    """
    out = Path(out_dir)
    seen: set[str] = set()
    for item in items:
        if not _FILENAME.match(item.filename) or item.filename in seen:
            raise ImportError_.at(
                source, "", f"receipt file name {item.filename!r} is unsafe or repeated"
            )
        seen.add(item.filename)
        bound_document(item.document)
        unsealable = unsealable_values(item.document)
        if unsealable:
            problems = [
                Problem(
                    source,
                    "",
                    f"cannot be converted: the value it gives at {at} of the receipt cannot be "
                    f"sealed ({what}); nothing was written",
                )
                for at, what in unsealable
            ]
            raise ImportError_(str(problems[0]), problems)
        data = json.dumps(
            seal_document(item.document), sort_keys=True, ensure_ascii=False, allow_nan=False
        ).encode("utf-8")
        try:
            parse_receipt(data, item.filename)
        except ReceiptError as exc:
            # name the source, never the receipt file: nothing was written (issue 14)
            problems = [
                Problem(
                    source,
                    "",
                    f"cannot be converted: the value it gives at {p.pointer or '/'} of the "
                    f"receipt is not valid there ({p.message}); nothing was written",
                )
                for p in exc.problems
            ]
            raise ImportError_(
                str(problems[0])
                if problems
                else f"{source}: cannot be converted; nothing was written",
                problems,
            ) from None
    from driftproof.outputs import refuse_existing_outputs

    refuse_existing_outputs([out / item.filename for item in items], "--out-dir", force=force)
    return _write_all_or_none(items, out, source)


def _write_all_or_none(items: list[Imported], out: Path, source: str) -> list[Path]:
    """Write each receipt to a temporary sibling first, then rename them all into place.

    A failure before the renames (a read-only or missing-and-uncreatable ``out``, a full
    disk) removes every temporary file and any directory made here, so nothing is left
    half-written; it is raised as :class:`~driftproof.errors.ImportError_` naming the path.
    """
    made: list[Path] = []
    staged: list[tuple[Path, Path]] = []
    try:
        for parent in reversed([out, *out.parents]):
            if not parent.exists():
                parent.mkdir()
                made.append(parent)
        for item in items:
            target = out / item.filename
            if target.is_dir():
                raise IsADirectoryError(21, "Is a directory", str(target))
            fd, tmp = tempfile.mkstemp(prefix=f".{item.filename}.", suffix=".tmp", dir=out)
            staged.append((Path(tmp), target))
            os.close(fd)
            write_receipt(item.document, tmp)
        for staged_path, target in staged:
            os.replace(staged_path, target)
    except BaseException as exc:  # an OSError, or Ctrl-C while staging: leave nothing behind
        for staged_path, _ in staged:
            staged_path.unlink(missing_ok=True)
        for d in reversed(made):
            try:
                d.rmdir()
            except OSError:
                pass
        if not isinstance(exc, OSError):
            raise
        raise ImportError_.at(
            out,
            "",
            f"cannot write the receipts into this directory: {exc.strerror or exc}; "
            "nothing was written",
        ) from None
    return [target for _, target in staged]
