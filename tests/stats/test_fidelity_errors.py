"""An errored check in the fidelity tallies' failure lists: the receipt's schema says outcome
"error" is the check itself failing to run, never the answer's fail, so it is listed as "could
not run (error)", the case page's words, never as "failed" or "missing"."""

from __future__ import annotations

from pathlib import Path

from factories import edited

from driftproof.receipt import Check, read_receipt
from driftproof.stats.fidelity import check_tally, fact_tally

RECEIPT = Path(__file__).resolve().parents[2] / "receipts"
RECEIPT /= "caveman-902028f-judged-fidelity-caveman.json"


def test_an_errored_check_is_listed_as_could_not_run_not_as_failed() -> None:
    checks = [
        ("A", "assertion", "judged fact", "error"),
        ("B", "assertion", "judged fact", "fail"),
        ("verbatim", "must_include", None, "error"),
        ("v2", "must_include", None, "fail"),
        ("old", "must_include", None, None),  # no outcome recorded: a fail, as before
    ]
    docs = [
        {"name": n, "kind": k, "pass": False, "source_type": t, "outcome": o}
        for n, k, t, o in checks
    ]
    r = edited(
        read_receipt(RECEIPT),
        "/cases/0/arms/with_skill/draws/0/checks",
        [Check.model_validate(d) for d in docs],
    )
    (facts,) = fact_tally(r, ("with_skill",))
    assert facts.failures[0] == (
        "p01",
        (
            'fact "A" could not run (error)',
            'failed fact "B"',
            "verbatim could not run (error)",
            "failed v2",
            "failed old",
        ),
    )
    (tally,) = check_tally(r, ("with_skill",))
    # listed by kind as the scorer lists them (must_include first), then in check order
    assert tally.failures[0] == (
        "p01",
        (
            "verbatim could not run (error)",
            "missing v2",
            "missing old",
            "A could not run (error)",
            "failed B",
        ),
    )
