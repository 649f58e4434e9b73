"""The progress bar of ``driftproof run`` and the command that resumes an interrupted run."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from typing import Any


def resume_command(argv: Sequence[str] | None) -> str:
    """The command line that resumes a run, quoted for a POSIX shell.

    ``argv`` is what the command was given (``None``: this process's ``sys.argv``).
    """
    return shlex.join(["driftproof", *(sys.argv[1:] if argv is None else argv)])


def with_progress(fn: Any, console: Any = None) -> Any:
    """Call ``fn(progress)`` under a progress bar on stderr (off when not a terminal); its result.

    The bar shows draws done of planned, ETA and spend, then sealing as one more step, so that it
    never reads finished before the receipt is written; with ``--batch``, ``progress.batch`` adds
    each open batch's state and counts.
    """
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    console = console or Console(stderr=True)
    with Progress(
        TextColumn("{task.fields[phase]}"),
        BarColumn(),
        TextColumn("{task.fields[draws]}"),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("spend ${task.fields[spend]:.4f}"),
        TextColumn("{task.fields[batch]}"),
        console=console,
        disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task("draws", total=None, spend=0.0, phase="draws", draws="", batch="")

        def progress(done: int, total: int, spend: float, phase: str = "draws") -> None:
            completed, steps, label = bar_steps(done, total, phase)
            bar.update(
                task,
                completed=completed,
                total=steps,
                spend=spend,
                draws=f"{done}/{total}",
                phase=label,
            )

        def batch_status(statuses: Any) -> None:
            from driftproof.run.batch_io import describe

            bar.update(task, batch=describe(statuses))

        progress.batch = batch_status  # type: ignore[attr-defined]

        return fn(progress)


def bar_steps(done: int, total: int, phase: str) -> tuple[int, int, str]:
    """(steps completed, steps in all, label): each planned draw a step, sealing one more."""
    steps = total + 1
    if phase == "done":
        return steps, steps, "sealed"
    return done, steps, phase
