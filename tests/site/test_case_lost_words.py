"""A case page's lost draw says its failed call's class as the runner's reasons do: a call that
was not retried is "not retryable", never "fatal", the word for an error that stops the run
(a newcomer read "(request failed, fatal)" beside a run that went on)."""

from __future__ import annotations

from factories import case, make_receipt

from driftproof.pages.case import case_draws
from driftproof.receipt import Receipt

REASON = "HTTP 400: bad request; not retryable, 1 attempt"


def test_a_lost_draw_not_retried_reads_not_retryable_not_fatal() -> None:
    doc = make_receipt([case("c1", [0.5, None, 0.6], [0.4, 0.5, 0.4])])
    lost = doc["cases"][0]["arms"]["with_skill"]["draws"][1]
    lost["lost"] = {"reason": REASON, "kind": "error", "error_class": "fatal", "status": 400}
    lost["attempts"] = [
        {"error": "HTTP 400: bad request", "error_class": "fatal", "status": 400, "wait_s": None}
    ]
    r = Receipt.model_validate(doc)
    draw = case_draws(r, r.cases[0])["rows"][1][0]
    assert draw["lost"] == f"{REASON} (request failed, not retryable, status 400)"
    assert draw["attempts"] == ["not retryable: HTTP 400: bad request (status 400)"]
