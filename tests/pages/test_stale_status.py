"""``driftproof stale``'s arm status and notes, by hand from a receipt and what is given today."""

from __future__ import annotations

from factories import case, edited, make_receipt

from driftproof.pages.stale import Today, stale_report
from driftproof.receipt import Receipt

R = Receipt.model_validate(make_receipt([case("c1", [0.6, 0.7], [0.4, 0.5])]))
# today: the receipt's own model and skill, unchanged
SAME = {"model": "claude-sonnet-4-5", "skill_sha256": R.skill.sha256}


def test_a_new_judge_with_its_template_not_given_is_unknown_not_regrade_only() -> None:
    # the judge moved (its saved answers could be graded again), but today's judge template is
    # not given, so whether the grading stands at all is not known: the arms read unknown, the
    # graver of the two, whichever finding comes first
    rep = stale_report(R, Today(**SAME, judge_model="another-judge"))
    effects = {f.field: f.effect for f in rep.findings}
    assert (effects["judge"], effects["judge prompt template"]) == ("regrade only", "unknown")
    assert {a.status for a in rep.arms} == {"unknown"}


def test_a_changed_template_names_the_template_versions_recorded_and_today() -> None:
    r = edited(R, "/judge/template_version", "3")
    today = Today(**SAME, judge_template_sha256="1" * 64, judge_template_version="4")
    note = next(f.note for f in stale_report(r, today).findings if f.field.startswith("judge p"))
    assert note.endswith(" (template version 3 recorded, 4 today)")
    # neither version known: no parenthesis of two unknowns
    plain = next(
        f.note
        for f in stale_report(R, Today(**SAME, judge_template_sha256="1" * 64)).findings
        if f.field == "judge prompt template"
    )
    assert "template version" not in plain
