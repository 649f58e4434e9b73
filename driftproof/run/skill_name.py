"""The skill's name a run records, and the refusal of a run's option before any call.

``run --help`` imports this module, so YAML and the receipt are imported inside functions.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from driftproof.wording import is_blank, name_refusal


class RunOptionError(ValueError):
    """Options that cannot run together (``option`` at fault); nothing was called or written."""

    def __init__(self, option: str, message: str) -> None:
        """Name the option at fault and say what is wrong."""
        super().__init__(message)
        self.option = option
        self.message = message


def skill_name_of(path: Path, text: str, given: str | None = None) -> str:
    """The skill's name: ``given``, else SKILL.md's front matter's (past a BOM), else its folder's.

    Raises:
        RunOptionError: the name is longer than the 200 characters a receipt holds (refused
            before any call, never cut: the receipt publishes it as the skill's); ``given`` is
            blank or holds a line break or control character (:func:`name_refusal`); the front
            matter gives a name that is not a text or is blank (the author's, never replaced); the
            front matter's or folder's name holds a line break or control character.
    """
    if given is not None and (why := name_refusal(given, "the skill's name")) is not None:
        raise RunOptionError("--skill-name", why)
    name, said = given, ""
    m = re.match(r"^---\s*\n(.*?)\n---\s*\n", text.removeprefix("\ufeff"), re.S)
    if name is None and m:
        import yaml  # deferred: start-up time of run --help

        try:
            front = yaml.safe_load(m.group(1))
        except (yaml.YAMLError, RecursionError) as exc:  # nesting past Python's stack: unread too
            raise _unreadable(exc, m.group(1), path) from None
        if isinstance(front, dict) and "name" in front:
            name, said = _front_name(front["name"], path), f"{path}: the front matter's name"
    if name is None:
        name, said = path.resolve().parent.name or path.stem, f"{path}: its folder's name"
        if is_blank(name):
            raise _no_name(name, said, "")
    if given is None and (why := name_refusal(name, "the skill's name")) is not None:
        raise RunOptionError("--skill", f"{said}: {why}; give another with --skill-name")
    if len(name) > 200:
        raise RunOptionError(
            "--skill-name" if given is not None else "--skill",
            f"{said}{': ' if said else ''}expected at most 200 characters, found {len(name)}"
            + ("" if given is not None else "; give a shorter one with --skill-name"),
        )
    return name


def _front_name(value: Any, path: Path) -> str:
    """The front matter's ``name`` of SKILL.md at ``path``, spaces stripped.

    Raises:
        RunOptionError: a ``value`` that is not a text or is blank (:func:`is_blank`).
    """
    if isinstance(value, str) and not is_blank(value):
        return value.strip()
    raise _no_name(value, f"{path}: the front matter's name", "there or ")


def _unreadable(exc: BaseException, front: str, path: Path) -> RunOptionError:
    """The refusal of SKILL.md at ``path``, whose front matter ``front`` YAML could not read.

    It says YAML's problem and where it stands in the file (the front matter begins on line 2).
    """
    import yaml  # deferred: start-up time of run --help

    why, at = "nested too deeply", None  # a RecursionError
    if isinstance(exc, yaml.reader.ReaderError):  # a character YAML refuses, where it stands
        before = front[: exc.position]
        at = (before.count("\n"), len(before) - before.rfind("\n") - 1)
        why = str(exc).partition("\n")[0]
    elif isinstance(exc, yaml.MarkedYAMLError):
        why = str(exc.problem or exc.context)
        mark = exc.problem_mark or exc.context_mark
        at = (mark.line, mark.column) if mark else None
    elif isinstance(exc, yaml.YAMLError):
        why = str(exc).partition("\n")[0]
    where = f", line {at[0] + 2}, column {at[1] + 1}" if at else ""
    return RunOptionError(
        "--skill",
        f"{path}: its front matter could not be read as YAML ({why}{where}); give the skill's "
        "name with --skill-name",
    )


def _no_name(value: Any, said: str, there: str) -> RunOptionError:
    """The refusal of ``value``, a name ``said`` gives that is no name (not a text, or blank)."""
    from driftproof.receipt._bounds import quote  # deferred: start-up time of run --help

    return RunOptionError(
        "--skill",
        f"{said}: expected the skill's name, found "
        f"{'the blank text ' if isinstance(value, str) else ''}{quote(value)}; give one {there}"
        "with --skill-name",
    )
