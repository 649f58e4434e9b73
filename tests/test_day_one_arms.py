"""Issue 16, day one, continued: caveman's arms and languages, and the public site refusing
simulated receipts (see test_day_one.py)."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from driftproof.importers.caveman import CavemanOptions

sys.path.insert(0, str(Path(__file__).parent))
from day_one_helpers import SKILL, SUITE, run_args, write_files  # noqa: E402
from factories import SHARED, run_main  # noqa: E402

from driftproof.errors import SuiteError  # noqa: E402
from driftproof.receipt import read_receipt, sha256_text  # noqa: E402
from driftproof.run.providers.base import Provider, Reply  # noqa: E402
from driftproof.run.suite import load_suite  # noqa: E402

MKDOCS = Path(__file__).resolve().parents[1] / "mkdocs.yml"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_files(tmp_path)


# ---- caveman's arms and languages ------------------------------------------------------------


class Recording(Provider):
    name, surface, makes_endpoint_attempts = "stub", None, False

    def __init__(self) -> None:
        self.systems: list[tuple[str | None, str]] = []

    def sampling(self, max_tokens: int) -> dict[str, Any]:
        return {}

    channel = "final_verdict"
    sends_budget = False

    def call(
        self,
        *,
        model: str,
        system: str | None,
        prompt: str,
        timeout: float,
        max_tokens: int,
        schema: dict[str, Any] | None = None,
        draw: Any = None,
    ) -> Reply:
        if schema is not None or "<answer" in prompt:
            return Reply(
                '{"score": 0.5, "reason": "r"}', reported_model=model, channel="final_verdict"
            )
        self.systems.append((system, prompt))
        return Reply("An answer.", reported_model=model)


def test_control_arm_is_the_control_then_skill_md(files, tmp_path):
    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.suite import load_suite

    lane = Recording()
    res = run_suite(
        load_suite(files[0]),
        skill_text=SKILL,
        skill_name="terse",
        cfg=RunConfig(model="m", judge_model="j", control="Answer concisely."),
        provider=lane,
        judge=Recording(),
        out=tmp_path / "r.json",
    )
    systems = {s for s, _ in lane.systems}
    assert systems == {
        None,
        "Answer concisely.",
        "Answer concisely.\n\n" + SKILL,
    }  # seed 004's three arms
    r = res.receipt
    assert (
        r.arms.with_skill.construction,
        r.arms.baseline.construction,
        r.arms.control.construction,
    ) == ("control_then_skill", "bare", "control")
    assert r.arms.control.instruction == "Answer concisely."
    assert r.arms.with_skill.system_prompt_sha256 == sha256_text("Answer concisely.\n\n" + SKILL)
    assert r.skill.sha256 == sha256_text(SKILL)  # the skill itself, as stale compares it


def test_lang_takes_translated_prompts_and_control(files, tmp_path, capsys):
    out = tmp_path / "pt.json"
    code, _, err = run_main(
        run_args(*files, out, "--control", "Answer concisely.", "--lang", "pt"), capsys
    )
    assert code == 0, err
    r = read_receipt(out)
    assert r.run.language == "pt"
    assert [c.prompt for c in r.cases] == ["Pergunta A?", "Pergunta B?"]
    assert (
        r.arms.control.instruction == "Responda de forma concisa."
    )  # caveman's TERSE_PREFIXES["pt"]


def test_a_language_without_prompts_or_control_stops_before_any_call(files, tmp_path, capsys):
    out = tmp_path / "fr.json"
    code, _, err = run_main(run_args(*files, out, "--lang", "fr"), capsys)
    assert code == 2
    assert f"{files[0]}: /cases/0/translations/fr: case 'a' has no prompt in 'fr'" in err
    assert not out.exists() and not Path(str(out) + ".journal").exists()
    doc = copy.deepcopy(SUITE)
    for c in doc["cases"]:
        c["translations"]["de"] = "Frage?"
    files[0].write_text(json.dumps(doc))
    code, _, err = run_main(
        run_args(*files, out, "--lang", "de", "--control", "Answer concisely."), capsys
    )
    assert code == 2 and "no translated control for 'de'" in err and not out.exists()
    # the suite's own table supplies one
    doc["controls"] = {"Answer concisely.": {"de": "Antworte knapp."}}
    files[0].write_text(json.dumps(doc))
    code, _, err = run_main(
        run_args(*files, out, "--lang", "de", "--control", "Answer concisely."), capsys
    )
    assert code == 0, err
    assert read_receipt(out).arms.control.instruction == "Antworte knapp."


@pytest.mark.parametrize("table", [None, "Antworte knapp.", ["Antworte knapp."]])
def test_a_control_whose_translations_are_not_a_table_is_refused(table, tmp_path) -> None:
    # controls maps a control text to {language: translated control}; null is no table
    doc = {**copy.deepcopy(SUITE), "controls": {"Answer concisely.": table}}
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(SuiteError) as info:
        load_suite(p)
    assert [(q.pointer, q.message) for q in info.value.problems] == [
        ("/controls/Answer concisely.", "expected an object {language: translated control}")
    ]


def test_caveman_language_snapshot_records_its_language(tmp_path):
    from driftproof.importers.caveman import import_caveman

    src = SHARED / "data/caveman/evals/snapshots/results.json"
    if not src.is_file():
        pytest.skip(f"shared data not found at {src}")
    doc = json.loads(src.read_text())
    doc["metadata"]["lang"] = "pt"
    doc["metadata"]["terse_prefix"] = "Responda de forma concisa."
    snap = tmp_path / "results.pt.json"
    snap.write_text(json.dumps(doc, ensure_ascii=False))
    items = import_caveman(
        snap, CavemanOptions(skills_dir=SHARED / "data/caveman/at-snapshot-2b10489/skills")
    )
    assert items and all(i.body.to_json_dict()["run"]["language"] == "pt" for i in items)
    assert all(i.filename.endswith("-pt.json") for i in items)
    doc["metadata"].pop("lang")  # the file name alone names it
    snap.write_text(json.dumps(doc, ensure_ascii=False))
    assert (
        import_caveman(
            snap, CavemanOptions(skills_dir=SHARED / "data/caveman/at-snapshot-2b10489/skills")
        )[0].body.to_json_dict()["run"]["language"]
        == "pt"
    )


# ---- the public site refuses simulated receipts ---------------------------------------------


def test_public_site_refuses_simulated_receipts(files, tmp_path, capsys):
    from driftproof.errors import SiteBuildError
    from driftproof.site import build_site

    receipts = tmp_path / "receipts"
    receipts.mkdir()
    out = receipts / "sim.json"
    assert run_main(run_args(*files, out)[:7] + ["simulated", "--out", str(out)], capsys)[0] == 0
    (tmp_path / "reports").mkdir()
    with pytest.raises(SiteBuildError) as ei:
        build_site(receipts, tmp_path / "reports", tmp_path / "site", config_file=MKDOCS)
    assert not (tmp_path / "site").exists()
    # made by run --provider simulated: the message names both ways, not the demo alone
    assert [(p.pointer, p.message) for p in ei.value.problems] == [
        (
            "/run/provider",
            "expected a receipt a model produced; this one is simulated (made by driftproof "
            "demo or by driftproof run --provider simulated), and the public site refuses "
            "simulated receipts",
        )
    ]


def test_a_simulated_receipt_is_not_exported_where_the_mark_would_be_lost(files, tmp_path, capsys):
    """summary-json has no provider field: exported, a simulated run would import as data."""
    out, exported = tmp_path / "sim.json", tmp_path / "summary.json"
    assert run_main(run_args(*files, out)[:7] + ["simulated", "--out", str(out)], capsys)[0] == 0
    code, _, err = run_main(["export", "summary-json", str(out), "-o", str(exported)], capsys)
    assert code != 0 and not exported.exists()
    # made by run, not by the demo: the refusal names the file and both ways, not "the demo's"
    assert err == (
        f"error: {out}: this receipt's scores come from the simulated model (driftproof demo or "
        "run --provider simulated), not from a measurement, and summary-json has no place to say "
        "so; it is not exported. Export is for measured receipts: export the receipt of a run "
        "against a model's provider, or of an import.\n"
    )
    # README's command table says so on the export row, with why (a newcomer read only "the
    # minimal interchange format" there)
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    row = next(x for x in readme.splitlines() if x.startswith("| `driftproof export summary-json"))
    assert "simulated receipt" in row and "`run --provider simulated`" in row
    assert "is refused, because summary-json has no field to say" in row


def test_a_run_that_called_no_model_says_so_not_zero_requests(files, tmp_path, capsys):
    out = tmp_path / "sim.json"
    code, said, err = run_main(run_args(*files, out)[:7] + ["simulated", "--out", str(out)], capsys)
    assert code == 0 and read_receipt(out).run.endpoint_attempts == 0
    text = " ".join((said + err).split())  # the table wraps lines to the terminal's width
    assert "no request made to a model" in text and "requests made 0" not in text


def test_a_receipt_that_appears_during_the_run_is_not_replaced(files, tmp_path, monkeypatch):
    from driftproof.errors import RefusalError
    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.providers.simulated import StubProvider
    from driftproof.run.suite import load_suite

    out = tmp_path / "r.json"
    real = StubProvider.call

    def appear(self, **kw):  # type: ignore[no-untyped-def]
        if not out.exists():
            out.write_text("another run's receipt")
        return real(self, **kw)

    monkeypatch.setattr(StubProvider, "call", appear)
    with pytest.raises(RefusalError, match="appeared while the run went on; it was not replaced"):
        run_suite(
            load_suite(files[0]),
            skill_text=SKILL,
            skill_name="terse",
            cfg=RunConfig(model="m", judge_model="j"),
            provider=StubProvider(),
            judge=StubProvider(),
            out=out,
            replace=False,
        )
    assert out.read_text() == "another run's receipt"
    assert (tmp_path / "r.json.journal").is_file()  # the finished draws are kept
    assert not list(tmp_path.glob(".r.json.unchecked"))


def test_lang_of_the_suite_itself_still_translates_a_known_control(tmp_path):
    from driftproof.run.suite import in_language, load_suite

    doc = copy.deepcopy(SUITE)
    doc["language"] = "pt"
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc))
    s = load_suite(p)
    suite, control = in_language(s, "pt", "Answer concisely.")
    assert [c.prompt for c in suite.cases] == [
        "Question A?",
        "Question B?",
    ]  # its own prompts, as written
    assert control == "Responda de forma concisa."  # never the English control on a pt run
    assert (
        in_language(s, "pt", "Seja breve.")[1] == "Seja breve."
    )  # no table knows it: taken as given
