"""What a newcomer following the README read and found unclear: run's exit status 3, the
readings page's opening, and how long ``make test`` takes."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from driftproof.cli.run import run

REPO = Path(__file__).resolve().parents[1]


def test_run_help_says_plainly_what_exit_status_3_means() -> None:
    # "stopped because another model gave an answer" did not say the model was another than asked
    out = CliRunner().invoke(run, ["--help"], terminal_width=200).output
    flat = " ".join(out.split())
    assert (
        "3 when a reply came from another model than the one asked for, so the run stopped "
        "(its receipt reads UNVERIFIED)"
    ) in flat


def test_the_readings_page_says_once_what_the_specification_means() -> None:
    # it called the receipt specification the file's contract, then said "the specification"
    # means the method
    intro = (REPO / "site_src/decisions.md").read_text(encoding="utf-8").split("\n## ")[0]
    assert "contract" not in intro
    assert intro.count('"the specification"') == 1
    assert 'says "the specification" means the method' in " ".join(intro.split())


def test_readme_gives_make_tests_time_on_a_quiet_machine() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    line = next(ln for ln in readme.splitlines() if ln.startswith("make test "))
    assert "on a quiet two-core machine; much longer on a busy one" in line


def test_run_help_says_the_default_judges_known_price_is_frozen() -> None:
    # regrade --help said it; run --help did not, though run freezes it too
    out = CliRunner().invoke(run, ["--help"], terminal_width=200).output
    flat = " ".join(out.split())
    said = flat[flat.index("--judge-price") : flat.index("--base-url")]
    # Anthropic's list price of Claude Haiku 4.5: $1 in, $5 out per million tokens
    assert "Default: the known price of the judge model when there is one" in said
    assert "claude-haiku-4-5-20251001: 1,5,0.1,1.25, half that when batched" in said


def test_a_reading_below_tested_says_how_to_get_a_tested_receipt(tmp_path: Path) -> None:
    # diff and badge said "verification level DECLARED is below TESTED" and no more
    import json

    from factories import case, make_receipt

    from driftproof.cli.badge import badge
    from driftproof.cli.diff import diff

    # a run reads TESTED only when it finished, was not --quick, and neither its answering
    # provider nor its judge was offline (simulated or stub); "a real provider (not simulated)"
    # was untrue of a stopped run or one judged by the stub, both of which read below TESTED
    how = (
        "A driftproof run that finishes, without --quick, answered and judged by real models (not "
        "the simulated provider or the stub), gives a TESTED receipt."
    )
    c1 = case("C1", [0.6, 0.61, 0.62], [0.5, 0.51, 0.52])
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(make_receipt([c1])), encoding="utf-8")
    b.write_text(json.dumps(make_receipt([c1], level="DECLARED")), encoding="utf-8")
    said = CliRunner().invoke(diff, [str(a), str(b)])
    assert said.exit_code == 5 and said.output.endswith(f"\n{how}\n")
    assert how not in CliRunner().invoke(diff, [str(a), str(a)]).output  # a verdict: not said
    said = CliRunner().invoke(badge, [str(b), "--json", str(tmp_path / "badge.json")])
    assert said.output.splitlines()[:2] == [
        "no verdict: verification level DECLARED is below TESTED",
        how,
    ]
