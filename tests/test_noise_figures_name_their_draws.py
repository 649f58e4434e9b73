"""diff --aa prints two noise-alone figures: the comparison's, at the compared receipts' spreads
and draws, and the A/A receipt's, at its own; each names which, with its draws per arm (a
newcomer read two "at these spreads and draws" and could not tell them apart)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import case, make_receipt, run_main
from receipt_docs import seal_document


def test_each_noise_figure_names_its_spreads_and_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    eight = [case(f"c{i}", [0.6, 0.7] * 4, [0.4, 0.5] * 4) for i in range(3)]
    aa = make_receipt([case(f"c{i}", [0.6, 0.7, 0.8], [0.6, 0.7, 0.8, 0.7]) for i in range(3)])
    aa["run"]["aa"] = True
    for name, doc in (("a", make_receipt(eight)), ("b", make_receipt(eight)), ("aa", aa)):
        doc["suite"]["sha256"] = "5" * 64  # one suite, as diff --aa requires
        (tmp_path / f"{name}.json").write_text(json.dumps(seal_document(doc)))
    a, b, c = (str(tmp_path / f"{n}.json") for n in ("a", "b", "aa"))
    code, out, err = run_main(["diff", a, b, "--aa", c], capsys)
    assert code in (0, 1), err
    # 8 draws in every arm of both compared receipts; the A/A receipt's arms 3 and 4
    assert "would read regressed at the compared receipts' spreads and 8 draws per arm; " in out
    assert "; at the A/A run's spreads and 3 to 4 draws per arm, noise alone is expected" in out
    assert "these spreads and draws" not in out
