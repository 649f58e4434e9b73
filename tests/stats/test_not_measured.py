"""A run that measured nothing (D-17): no verdict, never UNDERPOWERED, "not measured" with the
commonest lost cause, on receipts built in memory with hand-chosen lost draws."""

from __future__ import annotations

from typing import Any

from factories import case, make_receipt
from receipt_docs import draw_doc
from stats_helpers import model

from driftproof.cli.validate import verdict_note
from driftproof.pages.badge import badge_reading
from driftproof.pages.comparison import compare_receipts
from driftproof.stats import Refusal, Status, lost_causes, no_verdict, receipt_reading

URL = "http://127.0.0.1:9"
REFUSED = "connection failed: Connection error."


def _failed(i: int, error: str = REFUSED, status: int | None = None) -> dict[str, Any]:
    """A draw lost to an error after two attempts, the last one failing with ``error``."""
    attempts = [
        {"error": error, "error_class": "transient", "status": status, "wait_s": 2.37},
        {"error": error, "error_class": "transient", "status": status, "wait_s": None},
    ]
    return draw_doc(
        i,
        lost_reason=f"{error}; transient, 2 attempts, retried after {2.37 + i} s",
        lost_kind="error",
        lost_error_class="transient",
        lost_status=status,
        attempts=attempts,
    )


def _case(cid: str, with_: list[dict[str, Any]], base: list[dict[str, Any]]) -> dict[str, Any]:
    c = case(cid, [], [])
    c["arms"] = {
        "with_skill": {"draws": with_, "generation": None},
        "baseline": {"draws": base, "generation": None},
    }
    return c


def _arms(service: str | None) -> dict[str, Any]:
    return {
        n: {"label": n, "instruction": None, "system_prompt_sha256": None, "service": service}
        for n in ("with_skill", "baseline")
    }


def test_every_draw_lost_to_a_refused_connection_reads_not_measured_with_the_base_url() -> None:
    # two cases x two arms x two draws, every one refused: 8 of 8 lost to one cause; the retry
    # tails differ draw by draw (their waits), the cause is the last attempt's error
    cases = [_case(c, [_failed(0), _failed(1)], [_failed(0), _failed(1)]) for c in ("a", "b")]
    r = model(make_receipt(cases, arms=_arms(URL)))
    refused = no_verdict(r)
    assert refused is not None and refused.refusal is Refusal.NOT_MEASURED
    want = f"not measured: 8 of 8 draws lost to {REFUSED} (base URL {URL})"
    assert refused.reason == want
    reading = receipt_reading(r)
    assert reading.status == Status.NO_VERDICT and reading.status != Status.UNDERPOWERED
    assert reading.sentence == "not measured" and reading.reason == want
    b = badge_reading(r)
    assert (b.status, b.message, b.reason) == ("no verdict", "not measured", want)
    assert verdict_note(r) == want and "can carry a verdict" not in verdict_note(r)


def test_commonest_cause_first_and_an_http_status_names_no_base_url() -> None:
    # with: 3 lost to HTTP 503 (a status: the server answered), baseline: 2 refused connections
    # and 1 timeout. Causes: 503 x3, refused x2, timeout x1.
    http = "HTTP 503: overloaded"
    cases = [
        _case("a", [_failed(0, http, 503), _failed(1, http, 503)], [_failed(0), _failed(1)]),
        _case("b", [_failed(0, http, 503)], [_failed(0, "timed out after 300 s")]),
    ]
    r = model(make_receipt(cases, arms=_arms(URL)))
    assert [(c.cause, c.draws) for c in lost_causes(r)] == [
        (http, 3),
        (f"{REFUSED} (base URL {URL})", 2),
        (f"timed out after 300 s (base URL {URL})", 1),
    ]
    assert receipt_reading(r).reason == f"not measured: 6 of 6 draws lost, most often to {http} (3)"


def test_arms_measured_in_different_cases_only_read_not_measured() -> None:
    # case a: with-skill measured, baseline lost; case b: the reverse. No case has both arms.
    cases = [
        _case("a", [draw_doc(0, score=0.5)], [_failed(0)]),
        _case("b", [_failed(0)], [draw_doc(0, score=0.6)]),
    ]
    r = model(make_receipt(cases, arms=_arms(None)))  # a CLI lane records no base URL
    assert receipt_reading(r).reason == (
        f"not measured: no case has a measured score in both arms; 2 of 4 draws lost to {REFUSED}"
    )


def test_nothing_drawn_and_an_unverified_run_read_not_measured() -> None:
    r = model(make_receipt([_case("a", [], [])], level="UNVERIFIED"))
    assert receipt_reading(r).reason == "not measured: no draw was made"
    assert badge_reading(r).message == "not measured"


def test_one_measured_case_keeps_the_rule() -> None:
    # case a measured in both arms (with .60 .62 .61, baseline .45 .50 .48: helps, as in
    # test_reading.HELPS); case b lost throughout: the receipt is measured and reads passing
    cases = [case("a", [0.60, 0.62, 0.61], [0.45, 0.50, 0.48]), _case("b", [_failed(0)], [])]
    r = model(make_receipt(cases))
    assert no_verdict(r) is None and receipt_reading(r).status == Status.PASSING


def test_diff_against_a_receipt_that_measured_nothing_names_it() -> None:
    a = model(make_receipt([case("a", [0.60, 0.62, 0.61], [0.45, 0.50, 0.48])]))
    b = model(make_receipt([_case("a", [_failed(0)], [_failed(0)])], arms=_arms(URL)))
    c = compare_receipts(a, b, a_name="A", b_name="B")
    assert c.refusals == (f"B: not measured: 2 of 2 draws lost to {REFUSED} (base URL {URL})",)


def test_draws_kept_without_a_score_and_never_lost_keep_the_level_first() -> None:
    # token counts only (no score, nothing lost): a DECLARED receipt reads below TESTED as
    # before; a TESTED one still gives no verdict, as not measured, with no lost cause to name
    kept = [
        draw_doc(i, tokens={"input": 10, "output": 5, "counted_by": "provider"}) for i in (0, 1)
    ]
    cases = [_case("a", kept, kept)]
    declared = model(make_receipt(cases, level="DECLARED"))
    assert no_verdict(declared).refusal is Refusal.BELOW_TESTED
    tested = model(make_receipt(cases))
    assert receipt_reading(tested).reason == (
        "not measured: no case has a measured score in both arms"
    )
