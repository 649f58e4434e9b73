"""driftproof stale compares the services a receipt records (each arm's answering service and
the judge's) with today's ``--base-url`` and ``--judge-base-url``.

Found: a receipt answered by one server read "still stands" against another server serving the
same model name; stale took no base URL and compared no service, although the receipt records
each arm's ``service`` and the judge's.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from factories import case, make_receipt, run_main
from receipt_docs import seal_document

from driftproof.cli.stale import _service
from driftproof.pages.stale import Today, stale_report
from driftproof.receipt import parse_receipt
from driftproof.render.stale import stale_text
from driftproof.run.providers import make_provider

HERE, THERE = "http://127.0.0.1:8000/v1", "http://10.0.0.9:8000/v1"
JUDGE_AT = "https://api.anthropic.com"  # factories' judge service
SKILL, SUITE, TEMPLATE = "a" * 64, "b" * 64, "0" * 64  # TEMPLATE: factories' judge template
NOW = Today(
    model="claude-sonnet-4-5",
    skill_sha256=SKILL,
    suite_sha256=SUITE,
    judge_model="claude-haiku-4-5-20251001",
    judge_template_sha256=TEMPLATE,
)


def _doc(with_skill: str | None = HERE, baseline: str | None = HERE) -> dict:
    doc = make_receipt([case("c1", [0.7, 0.72, 0.71], [0.5, 0.52, 0.51])])
    doc["skill"]["sha256"], doc["suite"]["sha256"] = SKILL, SUITE
    doc["arms"]["with_skill"]["service"] = with_skill
    doc["arms"]["baseline"]["service"] = baseline
    return doc


def _statuses(doc: dict, today: Today) -> dict[str, str]:
    r = parse_receipt(json.dumps(seal_document(doc)).encode())
    return {a.arm: a.status for a in stale_report(r, today).arms}


def test_another_answering_service_runs_both_arms_again():
    assert _statuses(_doc(), replace(NOW, service=THERE)) == {
        "with_skill": "run again",
        "baseline": "run again",
    }
    assert _statuses(_doc(), replace(NOW, service=HERE)) == {
        "with_skill": "still stands",
        "baseline": "still stands",
    }


def test_each_arm_is_compared_with_the_service_that_answered_it():
    statuses = _statuses(_doc(baseline=THERE), replace(NOW, service=HERE))
    assert statuses == {"with_skill": "still stands", "baseline": "run again"}


def test_a_service_the_receipt_does_not_record_is_unknown_when_given():
    statuses = _statuses(_doc(None, None), replace(NOW, service=HERE))
    assert statuses == {"with_skill": "unknown", "baseline": "unknown"}


def test_no_base_url_given_names_each_recorded_service_as_not_compared():
    # a receipt served at HERE read "still stands" with no word of its service: a run today
    # may be served anywhere its environment points. Each recorded service is named as not
    # compared, beside the status it leaves as it was (an advisory, as a harness patch is).
    report = stale_report(parse_receipt(json.dumps(seal_document(_doc())).encode()), NOW)
    assert {a.status for a in report.arms} == {"still stands"}
    uncompared = {(f.field, f.recorded) for f in report.findings if f.advisory}
    assert uncompared == {("service", HERE), ("judge service", JUDGE_AT)}
    text = stale_text(report)
    assert f"- service: recorded {HERE}, today not supplied (give --base-url) -> advisory" in text
    assert "today not supplied (give --judge-base-url) -> advisory: not compared" in text


def test_no_base_url_given_and_none_recorded_names_no_service():
    report = stale_report(parse_receipt(json.dumps(seal_document(_doc(None, None))).encode()), NOW)
    assert "service" not in [f.field for f in report.findings]


def test_another_judge_service_moves_the_grading_only():
    r = parse_receipt(json.dumps(seal_document(_doc())).encode())
    moved = replace(NOW, judge_service=THERE)
    finding = next(f for f in stale_report(r, moved).findings if f.field == "judge service")
    assert (finding.recorded, finding.today) == (JUDGE_AT, THERE)
    assert finding.effect == "regrade only"  # the factories' draws keep their answers
    assert _statuses(_doc(), moved) == {"with_skill": "regrade only", "baseline": "regrade only"}
    same = next(
        f
        for f in stale_report(r, replace(NOW, judge_service=JUDGE_AT)).findings
        if f.field == "judge service"
    )
    assert same.effect == "still stands"


@pytest.mark.parametrize(
    "given",
    [
        "http://127.0.0.1:8000/v1",
        "http://127.0.0.1:8000/v1/",
        "HTTP://LocalHost:80/v1",
        "http://user:secret@127.0.0.1:8000/v1?key=k",
        "https://api.openai.com:443/v1",
    ],
)
def test_a_base_url_is_read_as_the_run_records_its_service(given, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    lane = make_provider("openai", "api", base_url=given)
    try:
        assert _service(given, "--base-url") == lane.service
    finally:
        lane.close()


def test_stale_from_the_command_line_names_the_moved_service(tmp_path: Path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(seal_document(_doc())), encoding="utf-8")
    argv = ["stale", str(path), "--model", "claude-sonnet-4-5", "--base-url", THERE + "/"]
    code, out, _ = run_main(argv, capsys)
    assert code == 1
    assert out.splitlines()[0].startswith(
        "with skill: run again (service: a different service answers: the same model name there "
        "may be another model or build;"
    )
    assert (
        f"- service: recorded {HERE}, today {THERE} -> run again: a different service answers"
        in out
    )
    code, out, err = run_main(["stale", str(path), "--base-url", "ftp://x"], capsys)
    assert code == 2 and "--base-url: expected an http or https URL" in err
    long = "http://h/" + "a" * 70_000  # httpx: a traceback, "URL too long"
    for url in (long, "http://999.1.1.1/v1"):
        code, out, err = run_main(["stale", str(path), "--judge-base-url", url], capsys)
        assert code == 2 and "Traceback" not in err
        assert "Invalid value for --judge-base-url: expected a" in err
