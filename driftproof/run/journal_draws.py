"""What a resumed run checks of each journal draw beyond its shape: what the receipt will hold.

A journal draw becomes a receipt draw as it stands (the seal may only mark it lost), so a draw the
receipt's schema or its consistency checks would refuse is refused when the journal is read,
naming the journal line, not later by the seal naming a receipt never written.
"""

from __future__ import annotations

import functools
from typing import Any

import jsonschema_rs

from driftproof._json import pointer
from driftproof.receipt import Draw
from driftproof.receipt._recompute import draw_score_problems, holds_its_judge_samples
from driftproof.receipt._versions import CURRENT_VERSION, compiled_validator_for


@functools.cache
def _draw_schema() -> jsonschema_rs.Draft202012Validator:
    return compiled_validator_for(CURRENT_VERSION, "draw")


def draw_problem(doc: dict[str, Any], draw: Draw, judge_samples: int | None) -> str | None:
    """Why the receipt would refuse the journal draw ``doc`` (``draw`` as read), else ``None``.

    Args:
        doc: the draw record's ``draw`` member, as JSON.
        draw: ``doc`` as the receipt's model reads it.
        judge_samples: the judge samples per draw the run takes (its identity), if known.

    Returns:
        The member of ``doc`` at fault, as a JSON pointer into ``doc``, and what was expected
        and found: the receipt schema's first complaint, a score that is not the mean
        of the draw's valid judge samples (D-1), or a judged draw without that many samples.
    """
    if (err := next(_draw_schema().iter_errors(doc), None)) is not None:
        msg = err.message if len(err.message) <= 200 else f"{err.message[:80]}…{err.message[-80:]}"
        return f"{pointer(err.instance_path)} does not fit a receipt's draw ({msg})"
    if found := next(draw_score_problems(draw, "/score"), None):
        return f"{found[0]} does not follow from its judge samples ({found[1]})"
    if judge_samples is not None and not holds_its_judge_samples(draw, judge_samples):
        return (
            f"/judge_samples holds {len(draw.judge_samples)} judge samples, expected "
            f"{judge_samples}, the judge samples per draw of this run"
        )
    return None
