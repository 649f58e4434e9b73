"""A run killed after its receipt was put in place and before its journal was removed: the
receipt is whole, the journal still beside it. The same command refuses to replace the receipt
and says the journal is there and what to do with it; with --force it writes the same receipt
again from the journal and removes the journal. Before, the refusal named only
the receipt, so the journal stayed behind unexplained."""

from __future__ import annotations

import json
import os

from factories import run_main
from run_helpers import SUITE, run_args

from driftproof.run.journal import Journal


def test_a_receipt_written_before_the_kill_names_the_journal_left_beside_it(
    tmp_path, suite_file, skill_file, capsys, monkeypatch
):
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    out = tmp_path / "r.json"
    argv = [*run_args(suite_file, skill_file)[:7], "stub", "--out", str(out)]
    with monkeypatch.context() as m:  # killed between the receipt and the journal's removal
        m.setattr(Journal, "remove", lambda self: os.close(self.fd))
        code, _, err = run_main(argv, capsys)
    assert code == 0, err
    journal, written = tmp_path / "r.json.journal", out.read_bytes()
    assert journal.exists()
    code, _, err = run_main(argv, capsys)
    assert (code, err) == (
        2,
        f"error: --out {out} already exists; it was not replaced. The run journal {journal} is "
        "still beside it (a run writing it stopped before removing it): give --force to write "
        "the receipt again from that journal, or remove the journal\n",
    )
    assert out.read_bytes() == written and journal.exists()
    code, _, err = run_main([*argv, "--force"], capsys)
    assert code == 0, err
    assert not journal.exists()
    a, b = json.loads(written), json.loads(out.read_bytes())
    assert a["cases"] == b["cases"]  # every draw as it was journaled
