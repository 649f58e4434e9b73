"""What ``driftproof run`` builds from its options: the default judges and their frozen prices,
the skill's name, the judge price and the simulated lane's options (split from
:mod:`driftproof.cli.run`)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import click
import yaml

__all__ = [
    "DEFAULT_JUDGE",
    "KNOWN_BATCH_PRICES",
    "KNOWN_PRICES",
    "OFFLINE",
    "parse_delays",
    "parse_price",
    "simulated_options",
    "skill_name_of",
]

DEFAULT_JUDGE = {
    "anthropic": "claude-haiku-4-5-20251001",
    "openai": "gpt-5-mini",
    "stub": "stub-judge",
    "simulated": "simulated-judge",
}
OFFLINE = ("stub", "simulated")
#: USD per million tokens (input, output, cache read, cache write), frozen into the receipt
#: for the default judges (Anthropic's price list: cache reads 0.1x input, 5-minute cache writes
# 1.25x).
KNOWN_PRICES = {
    "claude-haiku-4-5-20251001": (1.0, 5.0, 0.1, 1.25),
    "claude-haiku-4-5": (1.0, 5.0, 0.1, 1.25),
}
#: The same judges' batch prices (Message Batches bill 50% of the standard prices, cache parts
#: included), frozen with ``judge.price.tier`` = ``batch`` when the run is batched (issue 17).
KNOWN_BATCH_PRICES = {
    "claude-haiku-4-5-20251001": (0.5, 2.5, 0.05, 0.625),
    "claude-haiku-4-5": (0.5, 2.5, 0.05, 0.625),
}


def skill_name_of(path: Path, text: str) -> str:
    m = re.match(r"^---\s*\n(.*?)\n---\s*\n", text, re.S)
    if m:
        try:
            front = yaml.safe_load(m.group(1))
        except yaml.YAMLError:
            front = None
        if isinstance(front, dict) and isinstance(front.get("name"), str) and front["name"].strip():
            return front["name"].strip()[:200]
    return (path.resolve().parent.name or path.stem)[:200]


def parse_price(value: str | None) -> tuple[float, ...] | None:
    if value is None:
        return None
    try:
        parts = tuple(float(x) for x in value.split(","))
    except ValueError as exc:
        raise click.BadParameter(
            "expected IN,OUT[,CACHE_READ,CACHE_WRITE] in USD per million tokens, "
            "e.g. 1.0,5.0 or 1.0,5.0,0.1,1.25"
        ) from exc
    if len(parts) not in (2, 4):
        raise click.BadParameter(
            "expected IN,OUT or IN,OUT,CACHE_READ,CACHE_WRITE in USD per million tokens"
        )
    if not all(math.isfinite(x) and x >= 0 for x in parts):
        raise click.BadParameter(
            "expected finite prices of 0 or more (NaN and infinity cannot be sealed)"
        )
    return parts


def parse_delays(value: str) -> tuple[float, ...]:
    return tuple(float(x) for x in value.split(",") if x.strip())


def simulated_options(seed: int, skill_text: str, control: str | None) -> dict[str, Any]:
    """The simulated lane for ``run --provider simulated``: the skill arm adds 0.10 to the mean
    quality, the control 0.03 (a seeded demonstration, not a measurement)."""
    from driftproof.receipt import sha256_text
    from driftproof.run.engine import arm_systems

    systems = arm_systems(skill_text, control)
    effects = {sha256_text(systems["with_skill"] or ""): 0.10}
    if control is not None:
        effects[sha256_text(control)] = 0.03
    return {"seed": seed, "effects": effects}
