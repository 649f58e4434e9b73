"""Start-up of the command line, and how often a run seals and validates its receipt.

    .venv/bin/python benchmarks/startup.py [--runs 5]

Part 1: each command's ``--help`` (the top level, every command, every subcommand) started as
a new process through the ``driftproof`` console script; the median wall time of ``--runs``
starts, in seconds and as a ratio to ``python -c pass`` on the same machine, and the median CPU
time (user + system) of the same starts, which a busy machine inflates far less. The target is
under 0.3 s each; a command is flagged by its CPU time.

Part 2: one offline run (``driftproof run --provider simulated``, a three-case suite), in this
process under :mod:`cProfile`; prints how many times each function of the receipt package
that seals or validates a receipt was called (by function name, so that it counts whatever
module holds the function). The target is one seal and one validation per run.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Receipt-package functions that compute a seal or validate a whole receipt.
SEAL_FUNCTIONS = ("compute_seal",)
VALIDATE_FUNCTIONS = (
    "check_consistency",
    "validate_document",
    "parse_receipt",
    "_check_schema",
    "_to_model",
)


def _median_seconds(argv: list[str], runs: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of ``runs`` starts, in seconds."""
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True)
        wall.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(wall), statistics.median(cpu)


def _commands() -> list[list[str]]:
    """Every command line whose --help is timed: the top level, each command and subcommand."""
    import click

    from driftproof.cli import cli

    lines: list[list[str]] = [[]]
    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        lines.append([name])
        cmd = cli.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            sub = click.Context(cmd, parent=ctx)
            lines += [[name, s] for s in cmd.list_commands(sub)]
    return lines


def startup(runs: int) -> None:
    """Print each --help's median start time (Part 1)."""
    script = Path(sys.executable).with_name("driftproof")
    base = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "from driftproof.cli import main; main()"]
    )
    floor, floor_cpu = _median_seconds([sys.executable, "-c", "pass"], runs)
    print(f"python -c pass: {floor:.3f} s wall, {floor_cpu:.3f} s CPU (medians of {runs})")
    print(f"{'command':44} {'wall s':>7} {'x pass':>7} {'CPU s':>7} {'x pass':>7}")
    lines = _commands()
    slow = 0
    for line in lines:
        wall, cpu = _median_seconds([*base, *line, "--help"], runs)
        slow += cpu >= 0.3
        shown = " ".join(["driftproof", *line, "--help"])
        flag = "  over 0.3 s" if cpu >= 0.3 else ""
        print(f"{shown:44} {wall:7.3f} {wall / floor:7.1f} {cpu:7.3f} {cpu / floor_cpu:7.1f}{flag}")
    print(
        f"{slow} of {len(lines)} over 0.3 s of CPU (wall time also counts waiting on a busy host)"
    )


def seals_per_run() -> None:
    """Run one simulated run under cProfile and print the seal and validation counts (Part 2)."""
    from driftproof.cli import main
    from driftproof.demo import DATA

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "suite.json").write_bytes((DATA / "suite.json").read_bytes())
        (folder / "SKILL.md").write_bytes((DATA / "skill-v1" / "SKILL.md").read_bytes())
        argv = [
            "run", str(folder / "suite.json"), "--skill", str(folder / "SKILL.md"),
            "--model", "simulated-model", "--provider", "simulated", "--out",
            str(folder / "r.json"),
        ]  # fmt: skip
        profile = cProfile.Profile()
        saved = sys.stdout
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the run's summary is not the point
        t = time.perf_counter()
        try:
            profile.runcall(main, argv)
        except SystemExit as exc:
            if exc.code not in (0, None):
                raise
        finally:
            sys.stdout.close()
            sys.stdout = saved
        seconds = time.perf_counter() - t
    calls: dict[str, int] = {}
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    for (file, _line, name), (_cc, ncalls, *_rest) in stats.items():
        if f"driftproof{os.sep}receipt" in file and name in SEAL_FUNCTIONS + VALIDATE_FUNCTIONS:
            calls[name] = calls.get(name, 0) + ncalls
    print(f"\nsimulated run, 3 cases: {seconds:.2f} s under the profiler")
    for group, names in (("seal computed", SEAL_FUNCTIONS), ("validated", VALIDATE_FUNCTIONS)):
        counts = ", ".join(f"{n} {calls.get(n, 0)}" for n in names if n in calls) or "none seen"
        print(f"  {group}: {counts}")


def main() -> None:
    """Parse the options and print both parts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="starts per command (median)")
    args = parser.parse_args()
    startup(args.runs)
    seals_per_run()


if __name__ == "__main__":
    main()
