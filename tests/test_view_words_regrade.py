"""Plain words where a regrade, an import note and validate spoke in field names or mixed
wordings (a newcomer's findings)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from day_one_helpers import run_args, write_files  # noqa: E402
from factories import JUDGE, SHARED, case, make_receipt, run_main  # noqa: E402

from driftproof.receipt import parse_receipt  # noqa: E402
from driftproof.stats import verdict_refusal  # noqa: E402


def _regraded_view(tmp_path, capsys, *judge: str) -> tuple[int, str, str]:
    """``view`` of a simulated run kept and regraded (by ``judge`` options, else the original's)."""
    suite, skill = write_files(tmp_path)
    run, regraded = tmp_path / "run.json", tmp_path / "regraded.json"
    simulated = run_args(suite, skill, run, "--keep-transcripts")
    simulated[simulated.index("stub")] = "simulated"
    assert run_main(simulated, capsys)[0] == 0
    regrade = ["regrade", str(run), "--rubric", str(suite), "--out", str(regraded), *judge]
    assert run_main(regrade, capsys)[0] == 0
    return run_main(["view", str(regraded)], capsys)


def test_a_regraded_receipt_is_said_to_be_regraded_not_imported(tmp_path, capsys) -> None:
    # view said "imported from  driftproof regrade 0.1.0": it was regraded, not imported
    code, out, _ = _regraded_view(tmp_path, capsys)
    assert code == 0 and "imported from" not in out
    line = next(x for x in out.splitlines() if x.strip().startswith("regraded by"))
    assert " ".join(line.split()).startswith(
        "regraded by driftproof regrade 0.1.0, from the receipt of file sha256 "
    )


def test_an_import_note_names_no_field(tmp_path, capsys) -> None:
    # the single-arm file's one run scores its skill-fired grader ("scored": true); the note
    # ended "the receipt also keeps the indicator beside the score, in skill_fired"
    src = SHARED / "data/interop/claude-plugin-eval/aggregate-result.single-arm.json"
    out = tmp_path / "out"
    assert (
        run_main(["import", "claude-plugin-eval", str(src), "--out-dir", str(out)], capsys)[0] == 0
    )
    (receipt,) = out.iterdir()
    code, text, _ = run_main(["view", str(receipt)], capsys)
    text = " ".join(text.split())
    assert code == 0 and "skill_fired" not in text
    assert (
        "the scores are kept as recorded, so they include it; the receipt also keeps, beside "
        "each score, whether the skill fired."
    ) in text


def test_validate_and_view_give_a_level_below_tested_in_one_wording(tmp_path, capsys) -> None:
    # validate said "below TESTED: no verdict" where view said this
    said = "no verdict: verification level UNVERIFIED is below TESTED"
    suite, skill = write_files(tmp_path)
    receipt = tmp_path / "stub.json"
    assert run_main(run_args(suite, skill, receipt), capsys)[0] == 0
    code, out, _ = run_main(["validate", str(receipt)], capsys)
    assert code == 0 and out.rstrip().endswith("; " + said)
    code, out, _ = run_main(["view", str(receipt)], capsys)
    assert said in " ".join(out.split())


def test_simulated_answers_regraded_by_the_stub_judge_name_that_judge(tmp_path, capsys) -> None:
    # view said "the simulated provider drew these answers and scores at random" under
    # "judge stub-judge (provider stub …)": the stub judge gave the scores
    code, out, _ = _regraded_view(
        tmp_path, capsys, "--judge-provider", "stub", "--judge-model", "stub-judge"
    )
    words = " ".join(out.split())
    assert code == 0 and "answers and scores at random" not in words
    assert "drew these answers at random and the stub judge scored them" in words


def test_a_simulated_judge_of_model_answers_is_named_alone() -> None:
    # the answers came from a model; only the scores were drawn at random
    judge = {**JUDGE, "provider": "simulated", "service": None, "price": None}
    doc = make_receipt([case("a", [0.6, 0.7, 0.65], [0.5, 0.5, 0.55])], judge=judge)
    r = parse_receipt(json.dumps(doc).encode(), "r.json")
    assert verdict_refusal(r) == (
        "simulated: no model judged; the simulated judge drew these scores at random, so the "
        "receipt gets no verdict"
    )
