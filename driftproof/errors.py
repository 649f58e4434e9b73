"""Driftproof's exception tree.

Every error a user can cause names the file, the JSON pointer and what was expected. Each class
subclasses a builtin (``ValueError`` for bad input, ``RuntimeError`` for a refusal or a failure
met while working) so callers may catch broadly.

The CLI turns these into one line per problem and a non-zero exit; any other exception is a bug.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Self

from driftproof.wording import is_blank


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one input file.

    Attributes:
        file: the path as the user gave it (or a label such as ``<stdin>``).
        pointer: RFC 6901 JSON pointer to the offending value; ``""`` is the whole document
            (of ``member``, when one is named).
        message: what was expected, in plain words.
        member: the archive member (its name as the archive lists it) ``pointer`` is in; ``""``
            when ``file`` is no archive.
    """

    file: str
    pointer: str
    message: str
    member: str = ""

    def __str__(self) -> str:
        """``file: pointer: message``, or ``file: message`` when it is about the whole file.

        Inside an archive member: ``file, member NAME: pointer: message``. The pointer is
        shown by :func:`shown_pointer`.
        """
        where = f"{shown_pointer(self.pointer)}: " if self.pointer else ""
        member = f", member {self.member}" if self.member else ""
        return f"{self.file}{member}: {where}{self.message}"


def shown_pointer(pointer: str) -> str:
    r"""``pointer`` as a message prints it, so no two keys print alike.

    In each key a backslash is printed as ``\\``, a control as ``\xNN`` and each other character
    that does not print (a format character such as a zero-width space or a byte-order mark, a
    space other than U+0020, a lone surrogate) as ``\uNNNN`` (``\UNNNNNNNN`` past U+FFFF); ``~0``
    and ``~1`` (RFC 6901) stay. A blank key (:func:`~driftproof.wording.is_blank`), or one that
    begins with a double quote, is in double quotes, its quote marks as ``\"`` (``/grades/"  "``,
    ``/a/""/b``, ``/"\"  \""``, ``/"\u200b"``); every other key is printed so (``/cases/0/id``).
    """
    if not pointer.startswith("/"):
        return pointer
    return "".join("/" + _shown_key(k) for k in pointer[1:].split("/"))


def _shown_key(key: str) -> str:
    quoted = is_blank(key) or key.startswith('"')
    shown = "".join(_shown_char(c, '\\"' if quoted else "\\") for c in key)
    return f'"{shown}"' if quoted else shown


def _shown_char(c: str, escaped: str) -> str:
    if c in escaped:
        return "\\" + c
    return c if c.isprintable() else shown_char(c)


def shown_char(c: str) -> str:
    r"""``c`` as an error line and a terminal's line show a character that does not print.

    ``\xNN`` for a control (below U+00A0), else ``\uNNNN`` (``\UNNNNNNNN`` past U+FFFF).
    """
    if ord(c) < 0xA0:
        return f"\\x{ord(c):02x}"
    return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"


class DriftproofError(Exception):
    """Base of every error Driftproof raises on purpose.

    Attributes:
        problems: the individual problems, one per offending place (may be empty).
    """

    def __init__(self, message: str, problems: list[Problem] | None = None) -> None:
        """An error with its ``message`` (one line) and its ``problems``, if any."""
        super().__init__(message)
        self.problems: list[Problem] = list(problems or [])

    def lines(self) -> list[str]:
        """One line per problem, or the message itself when there are none."""
        return [str(p) for p in self.problems] or [str(self)]

    @classmethod
    def at(cls, file: str | Path, pointer: str, message: str, *, member: str = "") -> Self:
        """Build the error for a single problem at ``pointer`` in ``file`` (in its ``member``)."""
        p = Problem(str(file), pointer, message, member)
        return cls(str(p), [p])


class ReceiptError(DriftproofError, ValueError):
    """A receipt file is unreadable, malformed or fails its schema."""


class SealError(ReceiptError):
    """The receipt's seal does not match its content (D-12)."""


class UnknownVersionError(ReceiptError):
    """``schema_version`` names no frozen schema this reader knows (D-11)."""


class BoundsError(ReceiptError):
    """An input exceeds a size, length, count or depth limit checked before parsing."""


class ImportError_(DriftproofError, ValueError):
    """A neighbouring tool's result file cannot be converted (``_``: not the builtin)."""


class SuiteError(DriftproofError, ValueError):
    """A suite file is invalid; raised before any model call."""


class RefusalError(DriftproofError, RuntimeError):
    """A command refuses to act on this input, on principle, and writes nothing."""


class ProviderError(DriftproofError, RuntimeError):
    """A model endpoint or CLI failed after the runner's retries."""


class SiteBuildError(DriftproofError, RuntimeError):
    """The site cannot be built; ``site/`` was left as it was."""
