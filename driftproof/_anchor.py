"""Safe names made from untrusted labels (element ids, case folders, file names), and checked."""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")

#: Windows' device names: a file or folder so named, in any letter case and with or without an
#: extension (``nul.json``, ``Com1.v2``), is the device, never a file.
_DEVICE = re.compile(r"(?:CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])(?:\..*)?", re.IGNORECASE)


def slug(text: str, *, strip: str = "-", empty: str = "x") -> str:
    """``text`` with each run of characters outside ``[A-Za-z0-9_.-]`` as one ``-``.

    The characters in ``strip`` are removed from both ends; ``empty`` when nothing is left.

    >>> slug("Case 1: <b>")
    'Case-1-b'
    """
    return _UNSAFE.sub("-", text).strip(strip) or empty


def unique(base: str, used: set[str], *, fold: bool = False) -> str:
    """``base``, or ``base-2``, ``base-3`` ... the first not in ``used``; it is added to ``used``.

    ``fold`` compares (and records) names case-folded, for a case-insensitive file system.
    """
    candidate, n = base, 2
    while (candidate.casefold() if fold else candidate) in used:
        candidate, n = f"{base}-{n}", n + 1
    used.add(candidate.casefold() if fold else candidate)
    return candidate


def windows_device(name: str) -> str | None:
    """Why Windows cannot hold a file or folder named ``name`` (one path part), or ``None``.

    A device name (``CON``, ``PRN``, ``AUX``, ``NUL``, ``COM0`` to ``COM9``, ``LPT0`` to
    ``LPT9``) in any letter case, alone or before a ``.``; or a name ending in ``.``, which
    Windows drops (``a.`` is ``a``).

    >>> windows_device("nul.v2"), windows_device("a."), windows_device("console")
    ("a Windows device name, 'nul.v2'", "a name ending in '.', 'a.'", None)
    """
    if _DEVICE.fullmatch(name):
        return f"a Windows device name, {name!r}"
    if name.endswith("."):
        return f"a name ending in '.', {name!r}"
    return None


def stays_inside(name: str) -> bool:
    """Whether ``name`` is a plain relative ``/``-path that stays inside the folder it is put in.

    No absolute path, no ``..``, ``.`` or empty part, no backslash.

    >>> stays_inside("a/b.html"), stays_inside("../x"), stays_inside("/tmp/x")
    (True, False, False)
    """
    parts = name.split("/")
    return bool(name) and "\\" not in name and all(p not in ("", ".", "..") for p in parts)
