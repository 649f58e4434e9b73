"""Importers: neighbouring tools' result files converted into receipts (D-15).

Every importer is a function registered here under the source tool's name, with the frozen
dataclass of its options::

    @register("caveman", CavemanOptions)
    def import_caveman(source: Path, options: CavemanOptions) -> list[Imported]: ...

It reads ``source`` (and whatever its options name), fails closed
(:class:`~driftproof.errors.ImportError_` naming file, JSON pointer and what was expected) and
returns one :class:`Imported` per receipt, unsealed, with the strings it repaired while
parsing, without writing anything. :func:`write_imported` then seals, checks and writes them
all, or none.

Adding an importer: create ``driftproof/importers/<tool>.py`` with a function decorated
``@register("<tool>", <Options>)`` and add its module name to ``_BUILTIN`` below (the
registry imports the built-in modules on first lookup).
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof.errors import ImportError_, Problem, ReceiptError
from driftproof.importers._common import safe_filename
from driftproof.importers._text import Repair, finish
from driftproof.outputs import refuse_existing_outputs
from driftproof.receipt import Receipt, ReceiptBody, read_receipt, write_receipt

__all__ = [
    "IMPORTERS",
    "Imported",
    "Importer",
    "NoOptions",
    "get_importer",
    "register",
    "write_imported",
]


@dataclass(frozen=True)
class Imported:
    """One receipt an importer produced.

    Attributes:
        filename: the receipt's file name (no directory), e.g. ``caveman-2b10489-caveman.json``.
        body: the unsealed receipt at the current schema version.
        repairs: the strings made valid Unicode while its sources were parsed.
    """

    filename: str
    body: ReceiptBody
    repairs: tuple[Repair, ...] = ()

    @classmethod
    def named(
        cls, prefix: str, body: ReceiptBody, *labels: str, repairs: list[Repair] | None = None
    ) -> Imported:
        """``body`` filed as ``<prefix>-<skill>[-<label>…]-<document sha256[:8]>.json``.

        Characters outside ``[A-Za-z0-9._-]`` become ``-``
        (:func:`~driftproof.importers._common.safe_filename`).
        """
        assert body.provenance is not None
        digest = body.provenance.document_sha256[:8]
        name = safe_filename(prefix, body.skill.name, *labels, digest)
        return cls(name, body, tuple(repairs or ()))


@dataclass(frozen=True)
class NoOptions:
    """The options of an importer that takes none."""


#: An importer: (source, its options) -> the receipts.
Importer = Callable[[Any, Any], list[Imported]]

#: name -> (importer function, its options class). Filled by :func:`register`.
IMPORTERS: dict[str, Importer] = {}
OPTIONS: dict[str, type] = {}

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


def register(name: str, options: type) -> Callable[[Importer], Importer]:
    """Decorator: register ``fn`` as the importer for source tool ``name``.

    Args:
        name: the source tool's name.
        options: the frozen dataclass of the importer's options.

    Raises:
        ValueError: ``name`` is already registered to another function.
    """

    def deco(fn: Importer) -> Importer:
        if IMPORTERS.get(name, fn) is not fn:
            raise ValueError(f"importer {name!r} is already registered")
        IMPORTERS[name] = fn
        OPTIONS[name] = options
        return fn

    return deco


def get_importer(name: str) -> Callable[..., list[Imported]]:
    """The importer registered as ``name``, its receipts finished for writing.

    The returned function takes the source and either the importer's options object or its
    fields as keywords. Its receipts have big fields bounded and the text repaired while
    parsing recorded (:func:`~driftproof.importers._text.finish`).

    Raises:
        KeyError: no importer has that name (the message lists the known names).
    """
    for module in _BUILTIN:
        importlib.import_module(f"driftproof.importers.{module}")
    try:
        fn, kind = IMPORTERS[name], OPTIONS[name]
    except KeyError:
        raise KeyError(
            f"no importer named {name!r}; known: {', '.join(sorted(IMPORTERS))}"
        ) from None

    @functools.wraps(fn)
    def finished(source: Any, options: Any = None, **fields: Any) -> list[Imported]:
        items = fn(source, options if options is not None else kind(**fields))
        return [Imported(i.filename, finish(i.body, i.repairs)) for i in items]

    return finished


def write_imported(
    items: list[Imported], out_dir: str | Path, *, source: str = "<import>", force: bool = False
) -> list[Path]:
    """Seal, check and write every imported receipt into ``out_dir``, or write none.

    Each receipt is finished (:func:`~driftproof.importers._text.finish`), then sealed, checked
    against the current receipt schema and written to a temporary file beside its target; only
    when all are written are they renamed into place.

    Args:
        items: what an importer returned.
        out_dir: the receipts directory (created when missing).
        source: the source file's name, used in messages.
        force: replace receipts that already exist; without it an existing one is refused.

    Returns:
        The paths written, in the order of ``items``.

    Raises:
        ImportError_: a file name is unsafe or repeated, a receipt is not valid (an importer
            bug, named by the source and the receipt's pointer), or the directory cannot be
            written; nothing was written.
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
    refuse_existing_outputs([out / item.filename for item in items], "--out-dir", force=force)
    bodies = [(item.filename, finish(item.body, item.repairs)) for item in items]
    return _write_all_or_none(bodies, out, source)


def _not_convertible(source: str, exc: ReceiptError) -> ImportError_:
    """The error for a receipt that failed its checks.

    The error for a receipt that failed its checks, naming the source, never the receipt file
    (nothing was written).
    """
    problems = [
        Problem(
            source,
            "",
            f"cannot be converted: the value it gives at {p.pointer or '/'} of the receipt is "
            f"not valid there ({p.message}); nothing was written",
        )
        for p in exc.problems
    ]
    first = str(problems[0]) if problems else f"{source}: cannot be converted; nothing was written"
    return ImportError_(first, problems)


def _write_all_or_none(bodies: list[tuple[str, ReceiptBody]], out: Path, source: str) -> list[Path]:
    """Write each receipt to a temporary sibling first, then rename them all into place.

    A receipt that fails its checks, or a failure before the renames (a read-only or
    uncreatable ``out``, a full disk), removes every temporary file and any directory made
    here, so nothing is left half-written.
    """
    made: list[Path] = []
    staged: list[tuple[Path, Path]] = []
    try:
        for parent in reversed([out, *out.parents]):
            if not parent.exists():
                parent.mkdir()
                made.append(parent)
        for filename, body in bodies:
            target = out / filename
            if target.is_dir():
                raise IsADirectoryError(21, "Is a directory", str(target))
            fd, tmp = tempfile.mkstemp(prefix=f".{filename}.", suffix=".tmp", dir=out)
            staged.append((Path(tmp), target))
            os.close(fd)
            if not isinstance(write_receipt(body, tmp), Receipt):
                read_receipt(tmp)  # a writer that does not check against the schema itself
        for staged_path, target in staged:
            os.replace(staged_path, target)
    except BaseException as exc:  # a bad receipt, an OSError, or Ctrl-C: leave nothing behind
        for staged_path, _ in staged:
            staged_path.unlink(missing_ok=True)
        for d in reversed(made):
            try:
                d.rmdir()
            except OSError:
                pass
        if isinstance(exc, ReceiptError):
            raise _not_convertible(source, exc) from None
        if not isinstance(exc, OSError):
            raise
        raise ImportError_.at(
            out,
            "",
            f"cannot write the receipts into this directory: {exc.strerror or exc}; "
            "nothing was written",
        ) from None
    return [target for _, target in staged]
