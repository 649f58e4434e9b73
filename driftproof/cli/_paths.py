"""Output paths at the CLI edge: an output never lands on one of the command's own inputs."""

from __future__ import annotations

import os
from pathlib import Path

from driftproof.errors import RefusalError
from driftproof.outputs import OUT_RULE, refuse_existing_output, refuse_existing_outputs

__all__ = [
    "OUT_RULE",
    "refuse_existing_output",
    "refuse_existing_outputs",
    "refuse_output_on_input",
    "same_path",
]


def same_path(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name the same file (a link to it included)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def refuse_output_on_input(output: Path, option: str, **inputs: Path | None) -> None:
    """Refuse an ``output`` that names (or links to) any of ``inputs``, before anything is written.

    Raises:
        RefusalError: naming the option and the input it would overwrite.
    """
    for name, path in inputs.items():
        if path is not None and same_path(Path(output), Path(path)):
            raise RefusalError(
                f"{option} {output} is the {name.replace('_', ' ')} it reads; "
                "choose another path (nothing was written)"
            )
