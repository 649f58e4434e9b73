"""The README's quick start, followed literally in a temp dir (issue 16, "Done when").

Every ``driftproof …`` line of the README's quick-start block is run through the console entry
point, in order, from the folder the block's ``cd`` lines lead to; each step's assertions say
what a user sees there. Then a run is interrupted (Ctrl-C) and resumed with the command the
interrupt printed.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from factories import run_main  # noqa: E402

README = Path(__file__).resolve().parents[1] / "README.md"
#: plan's headline on the quick start's first.json: the simulated lane's spreads sum well under
#: the 0.05 floor, so plan names a draw count a receipt can hold (at most 1,000 per arm), after
#: a larger pilot when one would likely cut it.
PLAN_HEAD = re.compile(
    r"(?:Next, run a pilot [^\n]* Or skip the pilot and r|R)un (\d[\d,]*) draws per arm\b[^\n]*"
)


def quick_start_lines() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = text.split("<!-- quick-start:", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_readme_quick_start_begins_with_the_demo() -> None:
    lines = quick_start_lines()
    assert lines[0].startswith("driftproof demo")
    # the run lines name their output (issue 16: the README's run line shows --out)
    assert all("--out " in line for line in lines if line.startswith("driftproof run "))
    # diff exits 5 on the simulated receipts (no verdict): a script with set -e would stop there
    diff = next(line for line in lines if line.startswith("driftproof diff "))
    assert diff.endswith(
        "  # exits 5: simulated receipts get no verdict (a set -e script stops here)"
    )


def test_quick_start_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    seen: dict[str, tuple[int, str, str]] = {}
    for line in quick_start_lines():
        argv = shlex.split(line, comments=True)
        if argv[0] == "cd":
            monkeypatch.chdir(Path.cwd() / argv[1])
            continue
        assert argv[0] == "driftproof", line
        key = " ".join(argv[1:3])
        while key in seen:
            key += "'"
        seen[key] = run_main(argv[1:], capsys)

    # demo: every mechanic, labelled simulated, with the exact no-verdict reason
    code, out, err = seen["demo driftproof-demo"]
    assert code == 0, err
    assert "SIMULATED data" in out
    # no time of its own: it was timed from after start-up (0.2 s of a 1.0 s command)
    assert out.endswith(
        "Wrote driftproof-demo/: suite.json, skill-v1/ and skill-v2/SKILL.md, 4 receipts in "
        "receipts/, diff.txt, plan.txt, WALKTHROUGH.txt (the text above) and site/. Open "
        "driftproof-demo/site/index.html.\n"
    )
    assert re.search(
        r"1\. Draws vary\. Case retry-429, with skill, receipts/v1-run1\.json: per-draw scores "
        r"(\d\.\d\d, ){2,}\d\.\d\d\.",
        out,
    )
    assert re.search(
        r"2\. Bands have spread\. The same arm's band is 0\.\d{3} ± 0\.\d{3} .* "
        r"site/method\.html#bands\n",  # the method's section on bands, not a verdict's example
        out,
    )
    assert "± 0.000" not in out.split("2. Bands")[1].split("\n")[0]
    m = re.search(
        r"3\. The stopping rule adds draws\. receipts/v\d-run\d\.json, \S+ \([a-z ]+\) drew (\d+) "
        r"times",
        out,
    )
    assert m and int(m.group(1)) > 3  # more than the minimum of three
    # the reason brings no brackets of its own: view and diff show it inside theirs
    assert (
        "4. A lost draw, with its reason. receipts/v2-run1.json, rename-flag (with skill), draw 2: "
        "simulated failure: the simulated provider made this answering call fail, as a real "
        "failed call would, so the draw is lost; not retryable, 1 attempt. It is left out" in out
    )
    # the walkthrough quotes plan's own headline: a draw count, never "no number of draws"
    walkthrough_plan = re.search(rf"5\. Plan: ({PLAN_HEAD.pattern}) \(plan\.txt\)", out)
    assert walkthrough_plan
    # beside the count, what sets it, as plan.txt says further down (a toy suite's 148 draws
    # read unexplained)
    planned = (tmp_path / "driftproof-demo" / "plan.txt").read_text(encoding="utf-8")
    alone = re.search(r"a true lift of (0\.\d{3}) alone would be called at (\d+) draws", planned)
    assert alone and "keeping a run with no effect from reading underpowered sets it" in planned
    assert (
        "(plan.txt)\n   Why so many: the count is sized so that a run with no effect seldom "
        "reads underpowered, and that sets it; a true lift of "
        f"{alone.group(1)} alone would be called at {alone.group(2)} draws per arm. "
        "site/method.html#planning-a-run\n"
    ) in out
    assert re.search(
        r"6\. The lift of receipts/v1-run1\.json, with its paired interval as context: "
        r"suite lift [+-]0\.\d{3}, paired standard error .* approximate 95% "
        r"interval .* Student's t for 2 degrees of freedom, one fewer than the cases.* "
        r"site/method\.html#the-paired-interval-on-the-lift\n",
        out,
    )
    assert (
        "7. No verdict, and why, in the product's exact words: simulated: no model answered and no "
        "model "
        "judged" in out
    )
    assert "site/method.html#worked-examples" in out
    # the last line names every file written and the site's page from where the command ran
    assert "WALKTHROUGH.txt" in out.splitlines()[-1]
    assert out.splitlines()[-1].endswith("Open driftproof-demo/site/index.html.")
    demo = tmp_path / "driftproof-demo"
    for rel in (
        "suite.json",
        "skill-v1/SKILL.md",
        "skill-v2/SKILL.md",
        "diff.txt",
        "plan.txt",
        "receipts/v1-run1.json",
        "receipts/v1-run2.json",
        "receipts/v2-run1.json",
        "receipts/v2-run2.json",
        "site/index.html",
    ):
        assert (demo / rel).is_file(), rel
    assert all(
        (demo / f).read_text().startswith("SIMULATED DATA") for f in ("diff.txt", "plan.txt")
    )
    receipt = json.loads((demo / "receipts/v1-run1.json").read_text())
    assert receipt["run"]["provider"] == "simulated" and receipt["judge"]["provider"] == "simulated"
    assert receipt["verification_level"] == "UNVERIFIED"
    # the local site's walkthrough links the site's own method page, at anchors it has
    index = (demo / "site/index.html").read_text()
    anchors = re.findall(r'<a href="method\.html#([\w-]+)">', index)
    assert {"worked-examples", "planning-a-run", "bands", "the-paired-interval-on-the-lift"} <= set(
        anchors
    )
    assert "https://driftproof.dev/method.html" not in index
    method = (demo / "site/method.html").read_text()
    assert all(f'id="{a}"' in method for a in anchors)
    pages = list((demo / "site").rglob("*.html"))
    assert len(pages) >= 6 and all(b"SIMULATED DATA" in p.read_bytes() for p in pages)

    # suite check: run's own validation, then the examples
    code, out, _ = seen["suite check"]
    assert code == 0 and "suite.json: ok (driftproof suite, 3 cases" in out

    # run twice: two receipts, neither replaced
    for key, name in (("run suite.json", "first.json"), ("run suite.json'", "second.json")):
        code, out, err = seen[key]
        assert code == 0, err
        assert f"receipt: {name}\nnext: driftproof view {name} to read it; " in out
        assert "no verdict: simulated: no model answered" in out
        assert "(UNVERIFIED)" in out  # the level, which the README defines under the block
        assert (demo / name).is_file()

    # diff: no verdict, the reason heads a table of every case's bands and lost draws
    code, out, _ = seen["diff first.json"]
    assert code == 5
    head, table = out.split("The bands below are shown as context; no verdict is given.")
    assert "first.json: simulated: no model answered" in head
    rows = [
        ln for ln in table.splitlines() if ln.startswith(("retry-429", "rename-flag", "drop-py38"))
    ]
    assert len(rows) == 3 and all(
        re.search(r"0\.\d{3} ± 0\.\d{3}.*no verdict\s+\d+/\d+\s+\d+/\d+", r) for r in rows
    )
    assert re.search(
        r"Lift \(with skill − baseline\), context: first\.json [+-]0\.\d{3}, second\.json "
        r"[+-]0\.\d{3}, "
        r"over the 3 cases both receipts measured",
        out,
    )

    # view: the sheet, labelled no verdict, with the lift as context (the headline figure of item 8
    # belongs to wt-14b's view work; here the sheet as it is)
    code, out, _ = seen["view second.json"]
    assert code == 0 and "simulated" in out and "context only" in out
    assert "the receipt's verification level, UNVERIFIED, is below TESTED" in out

    # stale from the receipt alone: still stands with no template file
    code, out, _ = seen["stale first.json"]
    assert code == 0, out
    assert out.splitlines()[:2] == ["with skill: still stands", "baseline: still stands"]
    assert "judge prompt template: unchanged (" in out
    assert "): the receipt still stands on this" in out

    # regrade: the answers --keep-transcripts kept are graded again; its own receipt is written
    code, out, err = seen["regrade second.json"]
    assert code == 0, err
    assert Path("regraded.json").is_file()

    # plan: the next step is a draw count, the very plan of the demo's v1 run (first.json draws
    # what receipts/v1-run1.json drew: skill-v1, the simulated lane's defaults, seed 0)
    code, out, _ = seen["plan first.json"]
    assert code == 0
    head = out.splitlines()[0]
    assert head == walkthrough_plan.group(1)  # the demo's walkthrough quotes the same plan
    n = int(PLAN_HEAD.fullmatch(head).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert 3 <= n <= 1000
    assert f"To draw each arm {n:,} times, give driftproof run --draws {n}." in out.splitlines()
    assert (demo / "plan.txt").read_text().splitlines()[2] == head
    assert json.loads((demo / "first.json").read_text())["cases"] == receipt["cases"]

    # badge: files in the --out-dir folder, and no verdict for a simulated receipt
    code, out, _ = seen["badge first.json"]
    assert code == 0
    # and says why, as diff does (it printed "no verdict" alone)
    assert out.startswith("no verdict: ") and "simulated" in out.splitlines()[0]
    assert sorted(p.name for p in (demo / "badges").iterdir()) == [
        "first.details.json",
        "first.json",
        "first.svg",
    ]

    # a second run onto an existing receipt is refused, naming it
    code, out, err = run_main(
        [
            "run",
            "suite.json",
            "--skill",
            "skill-v1/SKILL.md",
            "--model",
            "simulated-model",
            "--provider",
            "simulated",
            "--out",
            "first.json",
        ],
        capsys,
    )
    assert code == 2 and "--out first.json already exists; it was not replaced" in err


def test_interrupted_run_says_what_was_kept_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.demo import DATA
    from driftproof.run.providers.simulated import SimulatedProvider

    monkeypatch.chdir(tmp_path)
    Path("suite.json").write_bytes((DATA / "suite.json").read_bytes())
    Path("SKILL.md").write_bytes((DATA / "skill-v1" / "SKILL.md").read_bytes())
    argv = [
        "run",
        "suite.json",
        "--skill",
        "SKILL.md",
        "--model",
        "simulated-model",
        "--provider",
        "simulated",
        "--concurrency",
        "1",
        "--out",
        "r.json",
    ]
    real = SimulatedProvider.call
    answers = {"n": 0}

    def interrupting(self, **kw):  # type: ignore[no-untyped-def]
        if kw.get("schema") is None and "<answer" not in kw["prompt"]:
            answers["n"] += 1
            if answers["n"] == 5:  # Ctrl-C while the fifth draw is being answered
                raise KeyboardInterrupt
        return real(self, **kw)

    monkeypatch.setattr(SimulatedProvider, "call", interrupting)
    code, out, err = run_main(argv, capsys)
    assert code == 130
    assert err.splitlines() == [
        "interrupted: 4 finished draws kept in r.json.journal; no receipt was written yet.",
        "To resume, run the same command again:",
        "  driftproof " + shlex.join(argv),
    ]
    assert not Path("r.json").exists() and Path("r.json.journal").is_file()
    monkeypatch.setattr(SimulatedProvider, "call", real)
    # a session killed while writing its receipt leaves the temporary file write_receipt made
    # (probe, round 4: resuming kept it for ever); another file of a like name is not the run's
    Path(".r.json.abc_1234.tmp").write_text("partial", encoding="utf-8")
    Path(".r.json.notours").write_text("keep", encoding="utf-8")
    code, out, err = run_main(shlex.split(err.splitlines()[-1])[1:], capsys)
    assert code == 0, err
    assert Path("r.json").is_file() and not Path("r.json.journal").exists()
    assert not Path(".r.json.abc_1234.tmp").exists() and Path(".r.json.notours").is_file()
    assert "receipt: r.json" in out


def test_the_readmes_action_section_names_every_input_of_action_yml() -> None:
    # a newcomer found `aa` and `python-version` in action.yml and nowhere in the README
    import yaml

    inputs = yaml.safe_load((README.parent / "action.yml").read_text(encoding="utf-8"))["inputs"]
    section = README.read_text(encoding="utf-8").split("### The GitHub Action", 1)[1]
    section = section.split("\n## ", 1)[0]
    assert sorted(inputs) == ["aa", "baseline", "fail-on", "python-version", "receipt"]
    assert [
        name for name in inputs if f"`{name}" not in section and f"{name}:" not in section
    ] == []


def test_the_readme_says_why_the_quick_starts_second_run_reads_like_its_first() -> None:
    # a newcomer's second.json showed no change where the demo's v2 receipts show v2 better:
    # the simulated lane gives every skill one effect, the demo simulates v2 at its own
    from driftproof.demo import EFFECTS
    from driftproof.run.run_plan import SIMULATED_SKILL_EFFECT

    text = " ".join(README.read_text(encoding="utf-8").split())
    assert f"the same simulated effect, +{SIMULATED_SKILL_EFFECT:.2f} on the judge's" in text
    assert f"simulate skill-v2 at +{EFFECTS['v2']:.2f}" in text


def test_the_quick_start_defines_the_words_its_output_shows() -> None:
    # a newcomer met UNVERIFIED, bands, the lift, "no verdict" and "below TESTED" in the quick
    # start's output, and the levels were defined some 100 lines further down
    after = README.read_text(encoding="utf-8").split("<!-- quick-start:", 1)[1].split("```", 2)[2]
    terms = after.lstrip("\n").split("\n\n", 2)[1]  # the list right under the block
    for term in ("band", "lift", "verification level", "no verdict", "below TESTED"):
        assert f"- **{term}**" in terms, term
    flat = " ".join(terms.split())
    assert all(f"reads {level};" in flat for level in ("TESTED", "UNVERIFIED"))
    assert "an import reads DECLARED." in flat
