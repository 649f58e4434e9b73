"""A run that measured nothing says so (D-17; issue 33, item 5): the no-network case of
docs/reference.md, ``--provider anthropic`` pointed at a loopback port that hangs up unanswered,
exits 4 with one line naming the commonest lost reason and the base URL, keeps the journal beside
the receipt, which reads "not measured".

The suite's first case alone: 2 arms x 3 draws = 6 draws, each lost after 2 attempts
(``--retry-delays 0``: one retry). The cause is the Anthropic SDK's own message for a connection
that got no answer, ``APIConnectionError``'s default "Connection error." (anthropic/_exceptions.py).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator

import pytest
from factories import case, make_receipt, run_main
from run_helpers import SUITE, run_args

from driftproof.receipt import read_receipt
from driftproof.stats import verdict_refusal


@pytest.fixture
def hangs_up() -> Iterator[str]:
    """The base URL of a loopback port that accepts each connection and closes it unanswered
    (a port that refuses connections stops the run at once: tests/run/test_refused.py)."""
    srv = socket.create_server(("127.0.0.1", 0))
    srv.settimeout(0.1)
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            with contextlib.suppress(OSError):
                srv.accept()[0].close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.getsockname()[1]}"
    done.set()
    t.join()
    srv.close()


@pytest.mark.parametrize("how", ["--base-url", "ANTHROPIC_BASE_URL"])
def test_no_network_exits_4_with_the_cause_and_the_base_url_and_keeps_the_journal(
    how, hangs_up, suite_file, skill_file, tmp_path, monkeypatch, capsys
):
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    url = hangs_up
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("COLUMNS", "300")  # rich's width when stdout is not a terminal
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    extra = ["--base-url", url] if how == "--base-url" else []
    if how == "ANTHROPIC_BASE_URL":
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    out = tmp_path / "r.json"
    code, stdout, err = run_main(
        run_args(suite_file, skill_file, *extra, "--retry-delays", "0", "--out", str(out)), capsys
    )
    assert code == 4
    journal = tmp_path / "r.json.journal"
    cause = f"connection failed: Connection error. (base URL {url})"
    assert err == (
        f"error: nothing was measured in the with-skill and baseline arms: 6 of 6 draws lost to "
        f'{cause}; {out} reads "not measured" and the draws are kept in {journal} (once the cause '
        "is fixed, remove both before running again: a resumed run keeps its lost draws)\n"
    )
    assert f"top lost reasons: {cause} (6)\n" in stdout
    r = read_receipt(out)
    assert verdict_refusal(r) == f"not measured: 6 of 6 draws lost to {cause}"
    records = [json.loads(x) for x in journal.read_text().splitlines()[1:]]
    draws = [x["draw"] for x in records if "draw" in x]
    assert len(draws) == 6 and all(d["draw"]["score"] is None for d in draws)
    assert sum("attempt" in x for x in records) == 12  # 6 draws x 2 attempts; no judge call
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "SKILL.md",
        "r.json",
        "r.json.journal",
        "suite.json",
    ]


def test_a_run_summary_names_its_top_lost_reasons() -> None:
    """Four lost draws: three to HTTP 503 (two in the with-skill arm, one in the baseline), one
    to a timeout with no answer (on an API lane: its base URL named). Commonest first."""
    from types import SimpleNamespace

    from receipt_docs import draw_doc
    from rich.console import Console

    from driftproof.receipt import parse_receipt
    from driftproof.render.run_summary import print_result

    def lost(i, error, status):
        att = [{"error": error, "error_class": "transient", "status": status, "wait_s": None}]
        return draw_doc(
            i,
            lost_reason=f"{error}; transient, 1 attempt",
            lost_kind="error",
            lost_status=status,
            attempts=att,
        )

    http, url = "HTTP 503: overloaded", "https://api.example.test"
    c = case("a", [0.6, 0.7], [0.4, 0.5])
    c["arms"]["with_skill"]["draws"] += [lost(2, http, 503), lost(3, http, 503)]
    c["arms"]["baseline"]["draws"] += [lost(2, http, 503), lost(3, "timed out after 300 s", None)]
    arms = {
        n: {"label": n, "instruction": None, "system_prompt_sha256": None, "service": url}
        for n in ("with_skill", "baseline")
    }
    r = parse_receipt(json.dumps(make_receipt([c], arms=arms)))
    console = Console(width=300, record=True)
    print_result(
        SimpleNamespace(
            receipt=r,
            receipt_path="r.json",
            stopped=None,
            quick_answers={},
            transcripts_path=None,
        ),
        console,
    )
    text = console.export_text()
    assert f"top lost reasons: {http} (3); timed out after 300 s (base URL {url}) (1)\n" in text


def test_an_empty_control_arm_alone_keeps_the_verdict_and_says_the_receipt_is_written() -> None:
    """with .60 .62 .61 against baseline .45 .50 .48 helps (tests/stats/test_reading.HELPS); the
    control arm's three draws are lost: run exits non-zero for it, yet the receipt reads passing."""
    from pathlib import Path

    from receipt_docs import draw_doc

    from driftproof.receipt import parse_receipt
    from driftproof.run.engine import nothing_measured_line
    from driftproof.stats import arms_measured_nothing, receipt_reading

    c = case("a", [0.60, 0.62, 0.61], [0.45, 0.50, 0.48])
    c["arms"]["control"] = {
        "draws": [draw_doc(i, lost_reason="the model refused") for i in range(3)],
        "generation": None,
    }
    arms = {
        n: {
            "label": n,
            "instruction": "Answer concisely." if n == "control" else None,
            "system_prompt_sha256": None,
        }
        for n in ("with_skill", "baseline", "control")
    }
    r = parse_receipt(json.dumps(make_receipt([c], arms=arms)))
    assert receipt_reading(r).status == "passing"
    assert arms_measured_nothing(r) == ("control",)
    line = nothing_measured_line(r, ("control",), Path("r.json"), Path("r.json.journal"))
    assert line == (
        "nothing was measured in the control arm: 3 of 3 draws lost to the model refused; "
        "r.json is written and the draws are kept in r.json.journal (once the cause is fixed, "
        "remove both before running again: a resumed run keeps its lost draws)"
    )


def test_the_nothing_measured_line_shows_control_characters_escaped(
    hangs_up, suite_file, skill_file, tmp_path, monkeypatch, capsys
):
    # the line quotes the server's words and the paths: an adversary's server put a colour code,
    # a window-title sequence and a line break on the terminal through it; here a file name does
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    out = tmp_path / "r\x1b[31m\nx.json"
    argv = run_args(suite_file, skill_file, "--base-url", hangs_up, "--retry-delays", "0")
    code, _, err = run_main(argv + ["--out", str(out)], capsys)
    assert code == 4
    assert "\x1b" not in err and err.count("\n") == 1
    assert "r\\x1b[31m\\x0ax.json" in err


def test_a_regrade_with_only_its_control_arm_empty_does_not_say_it_reads_not_measured(
    tmp_path, capsys
) -> None:
    # the passing receipt of the test above (control: 3 draws refused) as a regrade wrote it:
    # regrade exits 4 as run does, and says what run says, never that it reads "not measured"
    from types import SimpleNamespace

    from receipt_docs import draw_doc

    from driftproof.cli.regrade import _exit_if_nothing_measured

    c = case("a", [0.60, 0.62, 0.61], [0.45, 0.50, 0.48])
    c["arms"]["control"] = {
        "draws": [draw_doc(i, lost_reason="the model refused") for i in range(3)],
        "generation": None,
    }
    spec = {"instruction": None, "system_prompt_sha256": None}
    arms = {n: {"label": n, **spec} for n in ("with_skill", "baseline")}
    arms["control"] = {"label": "control", **spec, "instruction": "Answer concisely."}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(make_receipt([c], arms=arms)), encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        _exit_if_nothing_measured(SimpleNamespace(receipt_path=path))
    err = capsys.readouterr().err
    assert stop.value.code == 4
    assert err == (
        "error: nothing was measured in the control arm: 3 of 3 draws lost to the model "
        f"refused; {path} is written; fix the cause, then run the same regrade again with "
        "--force\n"
    )
