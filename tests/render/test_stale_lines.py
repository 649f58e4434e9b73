"""``driftproof stale``'s text: the fields a receipt does not record, named in one sentence."""

from __future__ import annotations

from driftproof.pages.stale import ArmStaleness, Finding, StaleReport
from driftproof.render.stale import stale_text


def _never(*fields: str) -> list[str]:
    """The lines of a report whose receipt records none of ``fields`` (nothing given today)."""
    findings = tuple(
        Finding(f, None, None, "unknown", ("with_skill",), "not recorded in the receipt")
        for f in fields
    )
    arm = ArmStaleness("with_skill", "unknown", ())
    return stale_text(StaleReport((arm,), findings)).splitlines()


def test_one_two_and_three_unrecorded_fields_are_each_named() -> None:
    # one: "its judge ... confirms it"; two: "its harness and judge ... confirms them"; three:
    # commas between the first two, "and" before the last
    head = "The receipt does not record its"
    assert f"{head} judge: nothing given today confirms it." in _never("judge")
    assert f"{head} harness and judge: nothing given today confirms them." in _never(
        "harness", "judge"
    )
    assert f"{head} model, harness and judge: nothing given today confirms them." in _never(
        "model", "harness", "judge"
    )
