"""Source figures are read, never passed on unchecked: a number the source recorded is a number
(true or false is not one; an integer too big for a float is refused), a level lies between 0
and 1, an interval's lower end is not above its upper end, a flag is true or false and an object
is an object. Each fault is one line naming the file, the source's JSON pointer and what was
expected; nothing is written (fail closed, D-13, D-15).

Each case mutates one member of a source the other tests read by hand (the real skill-validator
run, the NVIDIA catalogue, the Vally and skill-eval-harness fixtures built from their writers'
contracts).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from interop_helpers import write_json
from test_dotnet_skills import RUN, _vally
from test_inspect_reducers import POP_JSON
from test_nvidia import NV
from test_skill_eval_harness import _report

from driftproof.cli import cli
from driftproof.errors import ImportError_

BIG = 10**400  # 401 digits: no float holds it


def _sv(shared: Path) -> dict[str, Any]:
    return json.loads((shared / RUN).read_text("utf-8"))


def _nvidia(shared: Path) -> dict[str, Any]:
    return json.loads((shared / NV / "benchmarks.json").read_text("utf-8"))


def _set(*path: Any) -> Any:
    """A change setting the member at ``path[:-1]`` to ``path[-1]``."""

    def change(doc: Any) -> None:
        for key in path[:-2]:
            doc = doc[key]
        doc[path[-2]] = path[-1]

    return change


V = ("verdicts", 0)
PS = ("paired_summary",)
FAULTS = [
    # Vally: the confidence level must be a number strictly between 0 and 1
    (
        "vally",
        _set(*V, "confidenceInterval", "level", ""),
        "/verdicts/0/confidenceInterval/level",
        "a number",
    ),
    (
        "vally",
        _set(*V, "confidenceInterval", "level", 1.5),
        "/verdicts/0/confidenceInterval/level",
        "between 0 and 1",
    ),
    (
        "vally",
        _set(*V, "confidenceInterval", "low", 2.0),
        "/verdicts/0/confidenceInterval/low",
        "at most the upper end",
    ),
    ("vally", _set(*V, "signTest", "wins", True), "/verdicts/0/signTest/wins", "an integer"),
    ("vally", _set(*V, "signTest", "pValue", 1.5), "/verdicts/0/signTest/pValue", "from 0 to 1"),
    (
        "vally",
        _set(*V, "scenarios", 0, "trials", 0, True),
        "/verdicts/0/scenarios/0/trials/0",
        "trial object",
    ),
    (
        "vally",
        _set(*V, "scenarios", 0, "meanScore", [1]),
        "/verdicts/0/scenarios/0/meanScore",
        "a number",
    ),
    ("vally", _set(*V, "netWin", BIG), "/verdicts/0/netWin", "401 digits"),
    ("vally", _set(*V, "passed", "yes"), "/verdicts/0/passed", "true or false"),
    # skill-validator (the real run)
    (
        "skill-validator",
        _set(*V, "confidenceInterval", "high", True),
        "/verdicts/0/confidenceInterval/high",
        "a number",
    ),
    (
        "skill-validator",
        _set(*V, "confidenceInterval", True),
        "/verdicts/0/confidenceInterval",
        "an object",
    ),
    (
        "skill-validator",
        _set(*V, "scenarios", 1, "withSkill", "metrics", "assertionResults", 1, "passed", "x"),
        "/verdicts/0/scenarios/1/withSkill/metrics/assertionResults/1/passed",
        "true or false",
    ),
    (
        "skill-validator",
        _set(*V, "scenarios", 0, "perRunScores", 0, BIG),
        "/verdicts/0/scenarios/0/perRunScores/0",
        "401 digits",
    ),
    ("skill-validator", _set(*V, "isSignificant", 1), "/verdicts/0/isSignificant", "true or false"),
    # skill-eval-harness
    (
        "skill-eval-harness",
        _set(*PS, "absolute_delta", BIG),
        "/paired_summary/absolute_delta",
        "401 digits",
    ),
    (
        "skill-eval-harness",
        _set(*PS, "absolute_delta", 10**19),
        "/paired_summary/absolute_delta",
        "20 digits",
    ),
    (
        "skill-eval-harness",
        _set(*PS, "interval", "lower", 1.5),
        "/paired_summary/interval/lower",
        "at most the upper end",
    ),
    (
        "skill-eval-harness",
        _set(*PS, "noise_check", 10**19),
        "/paired_summary/noise_check",
        "an object",
    ),
    (
        "skill-eval-harness",
        _set(*PS, "significance", "significant_at_0_05", -1),
        "/paired_summary/significance/significant_at_0_05",
        "true or false",
    ),
    (
        "skill-eval-harness",
        _set("results", 3, "execution_valid", 1.5),
        "/results/3/execution_valid",
        "true or false",
    ),
    (
        "skill-eval-harness",
        _set(*PS, "with_skill_objective_pass_rate", -0.5),
        "/paired_summary/with_skill_objective_pass_rate",
        "from 0 to 1",
    ),
    # NVIDIA catalogue
    ("nvidia", _set("results", 3, "uplift_pct", BIG), "/results/3/uplift_pct", "401 digits"),
    ("nvidia", _set("results", 3, "score_pct", BIG), "/results/3/score_pct", "401 digits"),
]


@pytest.mark.parametrize(("tool", "change", "pointer", "words"), FAULTS)
def test_bad_source_figure_is_refused_naming_its_pointer(
    shared: Path, tmp_path: Path, tool: str, change: Any, pointer: str, words: str
) -> None:
    doc = {
        "vally": _vally,
        "skill-validator": lambda: _sv(shared),
        "skill-eval-harness": _report,
        "nvidia": lambda: _nvidia(shared),
    }[tool]()
    change(doc)
    name = "benchmarks.json" if tool == "nvidia" else "results.json"
    path = tmp_path / "src" / name
    path.parent.mkdir()
    write_json(path, doc)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["import", tool, str(path), "--out-dir", str(out)])
    assert isinstance(result.exception, ImportError_), result.exception
    (p,) = result.exception.problems
    assert (p.file, p.pointer) == (str(path), pointer) and words in p.message, p.message
    assert not out.exists()


SCORE = ("results", "scores", 0)


@pytest.mark.parametrize(
    ("path", "pointer"),
    [
        ((*SCORE, "metrics", "accuracy", "value"), "/results/scores/0/metrics/accuracy/value"),
        ((*SCORE, "scored_samples"), "/results/scores/0/scored_samples"),
        (("reductions", 0, "samples", 0, "value"), "/reductions/0/samples/0/value"),
        (("samples", 0, "scores", "match", "value"), "/samples/0/scores/match/value"),
    ],
)
def test_inspect_integer_no_float_holds_is_refused(
    shared: Path, tmp_path: Path, path: tuple[Any, ...], pointer: str
) -> None:
    doc = json.loads((shared / POP_JSON).read_text("utf-8"))
    _set(*path, BIG)(doc)
    src = tmp_path / "log.json"
    src.write_text(json.dumps(doc), "utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli,
        ["import", "inspect", "--with-skill", str(src), "--skill-name", "s", "--out-dir", str(out)],
    )
    assert isinstance(result.exception, ImportError_), result.exception
    (p,) = result.exception.problems
    assert (p.file, p.pointer) == (str(src), pointer), p.message
    assert not out.exists()
