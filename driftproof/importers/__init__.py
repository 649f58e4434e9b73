"""Importers: neighbouring tools' result files converted into DECLARED receipts (D-15).

An importer is ``@register("<tool>", <Options>)`` on ``fn(source, options) -> list[Imported]``
in ``driftproof/importers/<tool>.py`` (a public module). It fails closed
(:class:`~driftproof.errors.ImportError_` naming file, JSON pointer and expectation) and writes
nothing; :func:`write_imported` seals, checks and writes all its receipts, or none.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof.errors import ImportError_, Problem, ReceiptError
from driftproof.importers import _common as common
from driftproof.importers import _shapes
from driftproof.importers._common import Where
from driftproof.importers._text import Repair, finish
from driftproof.outputs import Wait, refuse_special, write_all_or_none
from driftproof.receipt import ReceiptBody, write_receipt

__all__ = [
    "IMPORTERS",
    "Imported",
    "Importer",
    "NoOptions",
    "get_importer",
    "importers_reading",
    "register",
    "unread_format",
    "write_imported",
]


@dataclass(frozen=True)
class Imported:
    """One unsealed receipt an importer produced, its file name and the strings it repaired.

    ``notices`` are what the import says beside it, such as a folder's file it skipped (why).
    """

    filename: str
    body: ReceiptBody
    repairs: tuple[Repair, ...] = ()
    notices: tuple[str, ...] = ()

    @classmethod
    def named(
        cls, prefix: str, body: ReceiptBody, *labels: str, repairs: list[Repair] | None = None
    ) -> Imported:
        """``body`` filed as ``<prefix>-<skill>[-<label>…]-<document sha256[:8]>.json``."""
        assert body.provenance is not None
        digest = body.provenance.document_sha256[:8]
        name = common.safe_filename(prefix, body.skill.name, *labels, digest)
        return cls(name, body, tuple(repairs or ()))


@dataclass(frozen=True)
class NoOptions:
    """The options of an importer that takes none."""


#: An importer: (source, its options) -> the receipts.
Importer = Callable[[Any, Any], list[Imported]]

#: name -> importer function, and name -> its options class. Filled by :func:`register`.
IMPORTERS: dict[str, Importer] = {}
OPTIONS: dict[str, type] = {}

_FILENAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.json$")


def register(name: str, options: type) -> Callable[[Importer], Importer]:
    """Decorator: register ``fn`` as the importer for source tool ``name``, with its options class.

    Raises:
        ValueError: ``name`` is already registered to another function.
    """

    def deco(fn: Importer) -> Importer:
        if IMPORTERS.setdefault(name, fn) is not fn:
            raise ValueError(f"importer {name!r} is already registered")
        OPTIONS[name] = options
        return fn

    return deco


def get_importer(name: str) -> Callable[..., list[Imported]]:
    """The importer registered as ``name``, its receipts finished (:func:`~._text.finish`).

    The returned function takes the source and an options object or its fields as keywords.

    Raises:
        KeyError: no importer has that name (the message lists the known names).
    """
    for module in pkgutil.iter_modules(__path__):  # every public module is an importer
        if not module.name.startswith("_"):
            importlib.import_module(f"driftproof.importers.{module.name}")
    try:
        fn, kind = IMPORTERS[name], OPTIONS[name]
    except KeyError:
        raise KeyError(
            f"no importer named {name!r}; known: {', '.join(sorted(IMPORTERS))}"
        ) from None

    @functools.wraps(fn)
    def finished(source: Any, options: Any = None, **fields: Any) -> list[Imported]:
        items = fn(source, options if options is not None else kind(**fields))
        return [Imported(i.filename, finish(i.body, i.repairs), notices=i.notices) for i in items]

    return finished


#: The largest file :func:`importers_reading` tries other importers on, in bytes: each parses
#: it again (about a second per importer at this size; real result files are under 2 MB).
GUESS_MAX_BYTES = 8 * 1024 * 1024


def importers_reading(path: Path, but: str) -> list[str]:
    """The importers other than ``but`` that read ``path``, sorted by name.

    An importer that needs no option is run with its defaults and its own checks decide; one
    that needs options (promptfoo, inspect, openai-evals) is never run: a file with its format's
    top-level members fits it (:func:`driftproof.importers._shapes.fitting`). Nothing is
    written. A directory, or a regular file of at most :data:`GUESS_MAX_BYTES`, is tried;
    anything else (a larger file, a pipe, a missing path) is not, and gives no name.
    """
    get_importer(but)  # every importer registered
    if (mode := _guessed(path)) is None:
        return []
    found = []
    shaped = _shapes.fitting(path) if stat.S_ISREG(mode) else []
    for name in sorted(IMPORTERS.keys() - {but}):
        try:
            options = OPTIONS[name]()
        except TypeError:  # the importer needs an option: not run, its format's shape decides
            if name in shaped:
                found.append(name)
            continue
        try:
            IMPORTERS[name](path, options)
        except Exception:  # noqa: BLE001 - any refusal: that importer does not read the file
            continue
        found.append(name)
    return found


def _guessed(path: Path) -> int | None:
    """The mode of ``path`` when it is a directory or a file of at most GUESS_MAX_BYTES."""
    try:
        st = path.stat()
    except OSError:
        return None
    small = stat.S_ISREG(st.st_mode) and st.st_size <= GUESS_MAX_BYTES
    return st.st_mode if stat.S_ISDIR(st.st_mode) or small else None


def unread_format(path: Path) -> str | None:
    """The known format no importer reads that the file ``path`` has, in words, else ``None``.

    Recognised by the members its files always have
    (:func:`driftproof.importers._shapes.unread_format`); only a file :func:`importers_reading`
    would try is read.
    """
    mode = _guessed(path)
    return _shapes.unread_format(path) if mode is not None and stat.S_ISREG(mode) else None


def _whence(item: Imported) -> str:
    """``skill 'NAME' from DOCUMENT``: which skill, read from which file, a receipt holds."""
    doc = item.body.provenance.document if item.body.provenance else None
    return f"skill {item.body.skill.name!r}" + (f" from {doc}" if doc else "")


def write_imported(
    items: list[Imported],
    out_dir: str | Path,
    *,
    source: str = "<import>",
    force: bool = False,
    wait: Wait | None = None,
) -> list[Path]:
    """Seal, check and write every imported receipt into ``out_dir`` (made if missing), or none.

    ``source`` names the source in messages; ``force`` replaces existing receipts; without it
    a receipt file already there with the very bytes this import writes (a killed import's) is
    left as it is. Returns the paths written, in the order of ``items``. The temporary files a
    killed write of these receipts left in ``out_dir`` are removed first, unless a write there
    is under way (:func:`~driftproof.outputs.write_all_or_none`, given ``wait``).

    Raises:
        ImportError_: a file name is unsafe or repeated (in any letter case), a receipt is
            not valid (an importer bug, named by the source and the receipt's pointer), or the
            directory cannot be written; nothing was written.
        RefusalError: a receipt file already exists with other bytes and ``force`` is not
            set, naming every such file; nothing was written.
    """
    out = Path(out_dir)
    seen: dict[str, Imported] = {}
    for item in items:  # in any letter case: macOS and Windows hold both names as one file
        if not _FILENAME.fullmatch(item.filename):
            raise Where(source).fail(f"receipt file name {item.filename!r} is unsafe")
        earlier = seen.setdefault(item.filename.lower(), item)
        if earlier is not item:
            raise Where(source).fail(
                f"two receipts of this import would both be written as {item.filename!r} (file "
                f"names are compared ignoring letter case): {_whence(earlier)} and "
                f"{_whence(item)}; import them apart, into separate folders (--out-dir); nothing "
                "was written"
            )
    refuse_special([out / item.filename for item in items], "--out-dir")
    writers = {
        out / i.filename: functools.partial(write_receipt, finish(i.body, i.repairs)) for i in items
    }
    try:
        return write_all_or_none(writers, replace=force, option="--out-dir", wait=wait)
    except ReceiptError as exc:
        problems = [
            Problem(
                source,
                "",
                f"cannot be converted: the value it gives at {p.pointer or '/'} of the receipt "
                f"is not valid there ({p.message}); nothing was written",
            )
            for p in exc.problems
        ]
        first = (
            str(problems[0]) if problems else f"{source}: cannot be converted; nothing was written"
        )
        raise ImportError_(first, problems) from None
    except OSError as exc:
        raise Where(out).fail(
            f"cannot write the receipts into this directory: {exc.strerror or exc}; "
            "nothing was written"
        ) from None
