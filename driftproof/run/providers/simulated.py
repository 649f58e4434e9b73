"""The offline lanes (no endpoint, UNVERIFIED): the stub, and the simulated ``driftproof demo``.

The stub answers and grades from a hash of the request. The simulated lane draws each answer's
quality as ``base + case offset + effect(system) + N(0, spread)`` clipped to 0..1; its judge scores
``quality + N(0, judge_spread)`` on the 0.05 grid. Randomness is seeded by the call's
:class:`~.base.DrawId`, so runs repeat at any concurrency and resume exactly. It reports
each text's tokens as a SKILL.md's are counted, ceil(characters / 4) (D-14): an input's are its
prompt's plus its system prompt's, so with the skill as the system prompt an input exceeds the
bare prompt's by the skill's own count.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterable, Mapping

from driftproof.receipt import sha256_text, skill_tokens
from driftproof.run.providers.base import AttemptError, Call, DrawId, Provider, Reply

#: A criterion line of the judge's prompt (:data:`~driftproof.run.judge.CRITERION_LINE`).
CRITERION = re.compile(r"^- id: (\S+) \| weight:", re.M)
#: The marker an answer carries so the simulated judge can read its quality back.
MARKER = re.compile(r"\[simulated quality (\d\.\d{4})\]")
_STEP = 0.05
#: The simulated lane's mean quality, answer spread and judge spread (judge scale), for
#: ``driftproof demo`` and ``run --provider simulated`` alike. Two arms' spreads together stay
#: well under the 0.05 effect floor, so following ``plan`` settles: a 3-draw pilot's count is
#: sized from loose bounds and asks for more, and a run at a larger pilot's count names about
#: as many again. Spreads summing near the floor do not settle (each run asks for more draws),
#: and at or past it no count exists.
BASE, SPREAD, JUDGE_SPREAD = 0.55, 0.012, 0.03


def _clip(x: float) -> float:
    return min(1.0, max(0.0, x))


def _criteria(ids: list[str], met: Iterable[bool], reason: str) -> str:
    """A criteria decision, each of ``ids`` ``met`` or not, with ``reason``."""
    return json.dumps(
        {"criteria": [{"id": i, "met": m, "reason": reason} for i, m in zip(ids, met, strict=True)]}
    )


class StubProvider(Provider):
    """The offline stub lane: fixed answers and grades, no endpoint, no budget sent.

    It grades in free text: only its final verdict counts (the simulated lane's too).
    """

    name, surface, makes_endpoint_attempts, sends_budget = "stub", None, False, False

    def attempt(self, call: Call) -> Reply:
        """The stub's reply to ``call`` (see :meth:`Provider.attempt`)."""
        model, system, prompt, schema = call.model, call.system, call.prompt, call.schema
        h = hashlib.sha256(f"{model}\0{system}\0{prompt}".encode()).digest()
        if "<criteria>" in prompt:
            ids = CRITERION.findall(prompt)
            text = _criteria(ids, [bool(h[k % 32] & 1) for k in range(len(ids))], "stub decision")
        elif "<rubric>" in prompt:
            text = json.dumps({"score": round(h[0] % 21 * 0.05, 2), "reason": "stub score"})
        else:
            text = f"Stub answer {h.hex()[:12]} to: {prompt[:200]}"
        return Reply(
            text,
            reported_model=model,
            raw=text,
            channel="final_verdict" if schema is not None else None,
        )


class SimulatedProvider(StubProvider):
    """A seeded simulated model and judge (see the module docstring).

    ``effects`` maps a system prompt's sha256 (``None``: no system prompt) to an effect on the
    quality; ``lose`` maps (prompt sha256, system sha256 or ``None``, n) to a reason the ``n``-th
    draw (from 1) fails with, unretried.
    """

    name = "simulated"

    def __init__(
        self,
        *,
        seed: int = 0,
        base: float = BASE,
        effects: Mapping[str | None, float] | None = None,
        spread: float = SPREAD,
        judge_spread: float = JUDGE_SPREAD,
        lose: Mapping[tuple[str, str | None, int], str] | None = None,
    ) -> None:
        """Keep the seed and the simulated means, effects, spreads and losses."""
        self.seed, self.base, self.spread, self.judge_spread = seed, base, spread, judge_spread
        self.effects = dict(effects or {})
        self.lose = dict(lose or {})

    def _rng(self, key: str, draw: DrawId) -> random.Random:
        ident = f"{draw.case}\0{draw.arm}\0{draw.index}\0{draw.attempt}\0{draw.sample}"
        h = hashlib.sha256(f"{self.seed}\0{key}\0{ident}".encode()).digest()
        return random.Random(int.from_bytes(h[:8], "big"))

    def attempt(self, call: Call) -> Reply:
        """A seeded answer or grade for ``call.draw`` (see :meth:`Provider.attempt`).

        Raises:
            ValueError: ``call.draw`` is ``None``: a caller's mistake, as every draw and judge
                sample of a run or regrade is identified, and no draw can be seeded from none.
        """
        model, system, prompt, schema = call.model, call.system, call.prompt, call.schema
        if (draw := call.draw) is None:
            raise ValueError("the simulated lane was called with no draw identity (DrawId)")
        if schema is not None or (
            "<answer" in prompt and ("<rubric>" in prompt or "<criteria>" in prompt)
        ):
            return self._judge(model, prompt, draw)
        sys_sha = sha256_text(system) if system is not None else None
        rng = self._rng(f"{model}\0{sys_sha}\0{sha256_text(prompt)}", draw)
        n = draw.index + 1
        reason = self.lose.get((sha256_text(prompt), sys_sha, n))
        if reason is not None:
            raise AttemptError(reason, retryable=False)
        offset = (int(sha256_text(prompt)[:8], 16) / 0xFFFFFFFF - 0.5) * 0.2
        q = _clip(self.base + offset + self.effects.get(sys_sha, 0.0) + rng.gauss(0.0, self.spread))
        text = (
            f"Simulated answer (draw {n}) to: {prompt[:120]}\n"
            f"No model wrote this; its quality was drawn at random. [simulated quality {q:.4f}]"
        )
        return Reply(
            text,
            input_tokens=skill_tokens(prompt) + (skill_tokens(system) if system else 0),
            output_tokens=skill_tokens(text),
            reported_model=model,
            raw=text,
        )

    def _judge(self, model: str, prompt: str, draw: DrawId) -> Reply:
        m = MARKER.search(prompt)
        rng = self._rng(f"judge\0{model}\0{sha256_text(prompt)}", draw)
        q = None if m is None else float(m.group(1))
        if q is None:
            text = json.dumps(
                {"score": 0.0, "reason": "simulated judge: the answer carries no simulated quality"}
            )
        elif "<criteria>" in prompt:
            ids = CRITERION.findall(prompt.split("<criteria>", 1)[1])
            text = _criteria(ids, [rng.random() < q for _ in ids], "simulated decision")
        else:
            s = _clip(round((q + rng.gauss(0.0, self.judge_spread)) / _STEP) * _STEP)
            text = json.dumps(
                {"score": round(s, 2), "reason": f"simulated judge around quality {q:.2f}"}
            )
        return Reply(
            text,
            input_tokens=skill_tokens(prompt),
            output_tokens=skill_tokens(text),
            reported_model=model,
            raw=text,
            channel="final_verdict",
        )
