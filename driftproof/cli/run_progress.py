"""The progress bar of ``driftproof run`` and the command that resumes an interrupted run."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["bar_steps", "resume_command", "with_progress"]


def resume_command(argv: Sequence[str] | None) -> str:
    """The command line that resumes a run, quoted for a POSIX shell.

    Args:
        argv: the arguments the command was given (:func:`driftproof.cli.main` passes them as
            the context object); ``None`` reads this process's ``sys.argv``.
    """
    return shlex.join(["driftproof", *(sys.argv[1:] if argv is None else argv)])


def with_progress(fn: Any, console: Any = None) -> Any:
    """Call ``fn(progress)`` under a progress bar on stderr, and return what it returns.

    The bar shows draws done of planned, ETA, spend (judge usage at the frozen price plus the
    cost a harness reported), then the sealing step (assembling, checking and sealing the
    receipt), which the bar counts as one more step so that it never reads finished while the
    receipt is still being written. Off when stderr is not a terminal. With ``--batch``, the
    line also gives each open batch's state and the provider's own request counts
    (``progress.batch``).
    """
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )

    console = console or Console(stderr=True)
    columns: list[ProgressColumn] = [
        TextColumn("{task.fields[phase]}"),
        BarColumn(),
        TextColumn("{task.fields[draws]}"),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("spend ${task.fields[spend]:.4f}"),
        TextColumn("{task.fields[batch]}"),
    ]
    with Progress(
        *columns, console=console, disable=not console.is_terminal, transient=False
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
    """(steps completed, steps in all, label) of the run's bar.

    Each planned draw is a step and sealing the receipt one more, so the bar is full only once
    the receipt is written.
    """
    steps = total + 1
    if phase == "done":
        return steps, steps, "sealed"
    return done, steps, phase
