"""The stub lane: answers and grades from a hash of the request; no endpoint, UNVERIFIED."""

from __future__ import annotations

import hashlib
import json
import re

from driftproof.run.providers.base import Call, Provider, Reply

#: A criterion line of the judge's prompt (:data:`~driftproof.run.judge.CRITERION_LINE`).
CRITERION = re.compile(r"^- id: (\S+) \| weight:", re.M)


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
            text = json.dumps(
                {
                    "criteria": [
                        {"id": i, "met": bool(h[k % 32] & 1), "reason": "stub decision"}
                        for k, i in enumerate(ids)
                    ]
                }
            )
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
