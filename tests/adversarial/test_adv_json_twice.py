"""A member name given twice is refused at the object that gives it twice, not at the file.

The receipt reader and the importers named only the file ("expected unique member names, found
"score" twice"), so in a receipt of many draws the reader could not tell which one; the JSON
pointer of the object now comes first, as for every other problem.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factories import case, make_receipt, run_main


def test_a_receipt_names_the_draw_that_gives_score_twice(tmp_path: Path, capsys: Any) -> None:
    doc = make_receipt([case("c1", [0.9, 0.8, 0.85], [0.5, 0.6, 0.55])])
    text = json.dumps(doc, indent=1)
    # the second draw of the baseline arm: /cases/0/arms/baseline/draws/1
    at = text.index('"score": 0.6,')
    path = tmp_path / "r.json"
    path.write_text(text[:at] + '"score": 0.6, "score": 0.9,' + text[at + 13 :], encoding="utf-8")
    code, out, err = run_main(["view", str(path)], capsys)
    assert code == 2
    assert out == ""
    assert err == (
        f"error: {path}: /cases/0/arms/baseline/draws/1: expected unique member names, "
        'found "score" twice\n'
    )


def test_summary_json_names_the_object(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"format": "driftproof-summary-json", "skill": {"name": "a", "name": "b"}}')
    code, _, err = run_main(
        ["import", "summary-json", str(path), "--out-dir", str(tmp_path)], capsys
    )
    assert code == 2
    assert f'{path}: /skill: expected unique member names, found "name" twice' in err
    assert list(tmp_path.iterdir()) == [path]


def test_a_jsonl_line_names_the_line_and_the_object(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"a": 1}\n{"x": {"y": [{"k": 1, "k": 2}]}}\n', encoding="utf-8")
    out_dir = tmp_path / "out"
    argv = ["import", "openai-evals", str(path), "--skill-name", "s", "--out-dir", str(out_dir)]
    code, _, err = run_main(argv, capsys)
    assert code == 2
    assert f'{path}: /1/x/y/0: line 2: expected unique member names, found "k" twice' in err
    argv = ["import", "promptfoo", str(path), "--arm", "with_skill=a", "--skill-name", "s"]
    code, _, err = run_main([*argv, "--out-dir", str(out_dir)], capsys)
    assert code == 2
    assert f'{path}: /line 2/x/y/0: expected unique member names, found "k" twice' in err
    assert not out_dir.exists()
