"""caveman snapshots with ``usage`` and partial runs (seed 004: llm_run.py, measure.py; D-13,
D-15, D-16). The fixtures are built (tests/importers/fixtures/caveman/README.md): no public
snapshot of either shape exists. Expected figures are worked by hand from the fixture files and
recounted from the raw snapshot with measure.py's own arithmetic, never read from the product."""

from __future__ import annotations

import copy
import json
import statistics
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from driftproof.cli.import_ import import_group
from driftproof.errors import ImportError_
from driftproof.importers import write_imported
from driftproof.importers.caveman import CavemanOptions, import_caveman
from driftproof.pages.sheet import sheet
from driftproof.receipt import read_receipt
from driftproof.render.sheet import sheet_json

FIX = Path(__file__).resolve().parent / "fixtures" / "caveman"
SNAP = FIX / "evals" / "snapshots"
SKILLS = FIX / "skills"


def _doc(name: str) -> dict[str, Any]:
    return json.loads((SNAP / name).read_text(encoding="utf-8"))


def _import(tmp_path: Path, doc: dict[str, Any], name: str = "results.json") -> list[Path]:
    snap = tmp_path / name
    snap.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return write_imported(import_caveman(snap, CavemanOptions(skills_dir=SKILLS)), tmp_path / "out")


def _view_json(path: Path) -> dict[str, Any]:
    """The sheet of ``path`` as ``driftproof view --format json`` prints it."""
    return json.loads(sheet_json(sheet(read_receipt(path), path=path)))


# --- the usage block ---------------------------------------------------------------------------


def test_usage_becomes_each_draws_tokens_and_cost(tmp_path: Path) -> None:
    paths = write_imported(
        import_caveman(SNAP / "results.json", CavemanOptions(skills_dir=SKILLS)), tmp_path
    )
    assert [p.name for p in paths] == ["caveman-caveman.json", "caveman-ultracave.json"]
    r = read_receipt(paths[0])
    assert r.verification_level == "DECLARED" and r.judge is None  # D-15
    d = r.cases[0].arms.with_skill.draws[0]
    assert d.tokens is not None
    # usage.caveman[0]: input 4, cache-creation 3100, cache-read 0, output 100, $0.0060
    assert (d.tokens.input, d.tokens.output, d.tokens.counted_by) == (3104, 100, "provider")
    assert (d.tokens.cache_creation_input, d.tokens.cache_read_input) == (3100, 0)
    assert d.cost_usd == 0.006
    c = r.cases[1].arms.control
    assert c is not None and c.draws[0].tokens is not None
    # usage.__terse__[1]: input 4, cache-creation 0, cache-read 2010, output 150, $0.0011
    assert (c.draws[0].tokens.input, c.draws[0].tokens.output) == (2014, 150)
    assert c.draws[0].tokens.cache_read_input == 2010 and c.draws[0].cost_usd == 0.0011
    b = r.cases[2].arms.baseline.draws[0]
    assert b.tokens is not None and (b.tokens.input, b.tokens.output) == (16123, 520)
    assert r.provenance is not None
    assert not any(u.startswith("usage:") for u in r.provenance.unrecorded)


def _measure_usage(doc: dict[str, Any], skill: str) -> tuple[str, str, str, str, str]:
    """caveman's measure.py print_usage row, written again here from its published code."""

    def billed(c: dict[str, int]) -> int:
        return c["input_tokens"] + c["cache_creation_input_tokens"] + c["cache_read_input_tokens"]

    def pct(x: float) -> str:
        return f"{'−' if x < 0 else '+'}{abs(x) * 100:.0f}%"

    cells, terse = doc["usage"][skill], doc["usage"]["__terse__"]
    out_s = [c["output_tokens"] for c in cells]
    out_t = [c["output_tokens"] for c in terse]
    sv = [1 - s / t if t else 0.0 for s, t in zip(out_s, out_t, strict=True)]
    added = [billed(s) - billed(t) for s, t in zip(cells, terse, strict=True)]
    return (
        skill,
        pct(statistics.median(sv)),
        pct(statistics.mean(sv)),
        f"{sum(out_s)} / {sum(out_t)}",
        f"{statistics.median(added):+.0f}",
    )


def test_usage_table_as_measure_py_prints_it(tmp_path: Path) -> None:
    paths = write_imported(
        import_caveman(SNAP / "results.json", CavemanOptions(skills_dir=SKILLS)), tmp_path
    )
    views = {p.name: _view_json(p)["usage"] for p in paths}
    # by hand: caveman vs terse output 100/200, 120/150, 130/260 -> savings .5, .2, .5:
    # median +50%, mean +40%, 350 / 610; billed input 3104-2014, 3004-2014, 3304-2014 =
    # 1090, 990, 1290 -> median +1090.
    assert views["caveman-caveman.json"]["rows"] == [
        ["caveman", "+50%", "+40%", "350 / 610", "+1090"]
    ]
    # ultracave: 250/200, 90/150, 270/260 -> -.25, .4, -.0385: median −4% (U+2212), mean
    # +4% (.0372); 610 / 610; billed input 2604 - 2014 = 590 on every prompt.
    assert views["caveman-ultracave.json"]["rows"] == [
        ["ultracave", "\u22124%", "+4%", "610 / 610", "+590"]
    ]
    doc = _doc("results.json")
    for name, skill in (
        ("caveman-caveman.json", "caveman"),
        ("caveman-ultracave.json", "ultracave"),
    ):
        assert views[name]["rows"] == [list(_measure_usage(doc, skill))]
    # reported cost: caveman .0060 + .0014 + .0017; terse .0050 + .0011 + .0016;
    # baseline .0311 + .0102 + .0150
    cost = {f["label"]: f["value"] for f in views["caveman-caveman.json"]["cost"]}
    assert cost == {
        "cost reported, caveman": "$0.0091 over 3 calls",
        "cost reported, __baseline__": "$0.0563 over 3 calls",
        "cost reported, __terse__": "$0.0077 over 3 calls",
    }
    assert views["caveman-caveman.json"]["unavailable"] is None


def test_a_length_snapshot_without_usage_shows_no_usage_table() -> None:
    repo = Path(__file__).resolve().parents[2]
    r = read_receipt(repo / "receipts" / "caveman-2b10489-caveman.json")
    assert sheet(r).usage is None and sheet(r).fidelity is None


def test_a_sum_of_costs_past_the_largest_float_is_too_large_to_state(tmp_path: Path) -> None:
    """Two calls of $1e308 each sum past the largest float (about 1.8e308): never "$inf"."""
    doc = _doc("results.json")
    for cell in doc["usage"]["caveman"][:2]:
        cell["total_cost_usd"] = 1e308
    paths = _import(tmp_path, doc)
    cost = {f["label"]: f["value"] for f in _view_json(paths[0])["usage"]["cost"]}
    assert cost["cost reported, caveman"] == "too large to state over 3 calls"
    assert cost["cost reported, __terse__"] == "$0.0077 over 3 calls"  # .0050 + .0011 + .0016


def test_a_cell_without_total_cost_keeps_its_cost_unknown(tmp_path: Path) -> None:
    doc = _doc("results.json")
    del doc["usage"]["__terse__"][2]["total_cost_usd"]
    paths = _import(tmp_path, doc)
    r = read_receipt(paths[0])
    c = r.cases[2].arms.control
    assert c is not None and c.draws[0].cost_usd is None  # D-13, never 0
    assert r.provenance is not None
    assert "cost of some calls: their usage cell has no total_cost_usd" in r.provenance.unrecorded
    cost = {f["label"]: f["value"] for f in _view_json(paths[0])["usage"]["cost"]}
    assert cost["cost reported, __terse__"] == "not recorded"


BAD_USAGE: list[tuple[str, Any, str, str]] = [
    (
        "arms differ",
        lambda d: d["usage"].pop("ultracave"),
        "/usage",
        "expected an object with the arms of /arms (__baseline__, __terse__, caveman, "
        'ultracave), found "__baseline__", "__terse__", "caveman"',
    ),
    (
        "short row",
        lambda d: d["usage"]["caveman"].pop(),
        "/usage/caveman",
        "expected exactly one usage cell per prompt (3), found 2",
    ),
    (
        "token missing",
        lambda d: d["usage"]["__terse__"][2].pop("cache_read_input_tokens"),
        "/usage/__terse__/2/cache_read_input_tokens",
        "expected a non-negative integer, found null",
    ),
    (
        "negative tokens",
        lambda d: d["usage"]["caveman"][0].__setitem__("output_tokens", -1),
        "/usage/caveman/0/output_tokens",
        "expected a non-negative integer, found a number",
    ),
    (
        "boolean tokens",
        lambda d: d["usage"]["caveman"][0].__setitem__("input_tokens", True),
        "/usage/caveman/0/input_tokens",
        "expected a non-negative integer, found true",
    ),
    (
        "negative cost",
        lambda d: d["usage"]["caveman"][1].__setitem__("total_cost_usd", -0.5),
        "/usage/caveman/1/total_cost_usd",
        "expected a non-negative number of US dollars",
    ),
    (
        "cost of 401 digits (no float holds it)",
        lambda d: d["usage"]["caveman"][1].__setitem__("total_cost_usd", 10**400),
        "/usage/caveman/1/total_cost_usd",
        "expected a number a receipt holds exactly",
    ),
    (
        "cell not an object",
        lambda d: d["usage"]["caveman"].__setitem__(1, 7),
        "/usage/caveman/1",
        "expected an object of token counts, found a number",
    ),
    (
        "null usage beside an answer",
        lambda d: d["usage"]["caveman"].__setitem__(1, None),
        "/usage/caveman/1",
        "expected a usage cell exactly where /arms has an output",
    ),
]


@pytest.mark.parametrize(
    ("label", "mutate", "pointer", "expected"), BAD_USAGE, ids=[b[0] for b in BAD_USAGE]
)
def test_malformed_usage_is_refused_naming_the_pointer(
    tmp_path: Path, label: str, mutate: Any, pointer: str, expected: str
) -> None:
    doc = _doc("results.json")
    mutate(doc)
    snap = tmp_path / "results.json"
    snap.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "receipts"
    result = CliRunner().invoke(
        import_group, ["caveman", str(snap), "--skills", str(SKILLS), "--out", str(out)]
    )
    assert result.exit_code != 0
    assert isinstance(result.exception, ImportError_)
    (problem,) = result.exception.problems
    assert (problem.file, problem.pointer) == (str(snap), pointer)
    assert expected in problem.message
    assert not out.exists()  # nothing written


# --- partial runs ------------------------------------------------------------------------------


def test_partial_run_imports_as_a_partial_receipt(tmp_path: Path) -> None:
    src = SNAP / "results.partial.json"
    doc = _doc("results.partial.json")
    paths = write_imported(import_caveman(src, CavemanOptions(skills_dir=SKILLS)), tmp_path)
    assert [p.name for p in paths] == [
        "caveman-caveman-partial.json",
        "caveman-ultracave-partial.json",
    ]
    error = doc["metadata"]["error"]
    assert error.startswith("caveman prompt 1: Command ")
    cave, ultra = (read_receipt(p) for p in paths)
    for r in (cave, ultra):
        assert r.provenance is not None and r.provenance.partial is True
        assert r.run.language == "en"  # metadata.lang; "partial" in the file name is no language
        for case in r.cases:  # both controls finished before the skill arms ran
            for arm in (case.arms.baseline, case.arms.control):
                assert arm is not None and arm.draws[0].lost is None
    # caveman finished prompt 0 and stopped at prompt 1; ultracave never ran
    assert cave.cases[0].arms.with_skill.draws[0].lost is None
    assert cave.cases[0].arms.with_skill.draws[0].tokens.output == 100  # usage.caveman[0]
    lost = [
        (r.skill.name, c.id)
        for r in (cave, ultra)
        for c in r.cases
        if c.arms.with_skill.draws[0].lost is not None
    ]
    assert lost == [
        ("caveman", "p02"),
        ("caveman", "p03"),
        ("ultracave", "p01"),
        ("ultracave", "p02"),
        ("ultracave", "p03"),
    ]
    d = ultra.cases[2].arms.with_skill.draws[0]
    assert d.lost is not None and d.lost.kind == "source_error"
    assert d.lost.reason == f"unfinished: the source's run stopped with this error: {error}"
    assert d.source_error == error
    assert d.answer is None and d.tokens is None and d.cost_usd is None and d.score is None


def test_partial_receipt_view_says_partial_and_gives_no_usage_figures(tmp_path: Path) -> None:
    (path, _) = write_imported(
        import_caveman(SNAP / "results.partial.json", CavemanOptions(skills_dir=SKILLS)), tmp_path
    )
    view = _view_json(path)
    facts = {f["label"]: f["value"] for f in view["provenance"]}
    assert facts["partial"] == "yes: the source's run did not finish"
    assert view["usage"]["rows"] == []
    assert view["usage"]["unavailable"].startswith("unavailable: case p02, arm with_skill")
    assert [(x["case_id"], x["arm"]) for x in view["lost_draws"]] == [
        ("p02", "with skill"),
        ("p03", "with skill"),
    ]


@pytest.mark.parametrize(
    ("name", "lang", "language", "suffix"),
    [
        ("results.partial.json", None, None, "-partial"),
        ("results.pt.partial.json", "pt", "pt", "-pt-partial"),
        ("results.pt.partial.json", None, "pt", "-pt-partial"),
    ],
)
def test_partial_file_names_give_the_language_not_partial(
    tmp_path: Path, name: str, lang: str | None, language: str | None, suffix: str
) -> None:
    doc = _doc("results.partial.json")
    doc["metadata"].pop("lang")
    if lang is not None:
        doc["metadata"]["lang"] = lang
    paths = _import(tmp_path, doc, name)
    assert paths[0].name == f"caveman-caveman{suffix}.json"
    assert read_receipt(paths[0]).run.language == language


def test_partial_refusals(tmp_path: Path) -> None:
    # an error with every cell filled, and a null cell with no error, are not what llm_run writes
    filled = _doc("results.json")
    filled["metadata"]["error"] = "caveman prompt 1: boom"
    with pytest.raises(ImportError_) as info:
        _import(tmp_path, filled)
    assert [p.pointer for p in info.value.problems] == ["/metadata/error"]
    assert "expected the unfinished cells as null" in info.value.problems[0].message
    silent = _doc("results.partial.json")
    del silent["metadata"]["error"]
    with pytest.raises(ImportError_) as info:
        _import(tmp_path, silent)
    assert [p.pointer for p in info.value.problems] == ["/arms/caveman/1"]
    blank = _doc("results.partial.json")
    blank["metadata"]["error"] = " "
    with pytest.raises(ImportError_) as info:
        _import(tmp_path, blank)
    assert [p.pointer for p in info.value.problems] == ["/metadata/error"]
    answered = copy.deepcopy(_doc("results.partial.json"))
    answered["usage"]["caveman"][1] = answered["usage"]["caveman"][0]
    with pytest.raises(ImportError_) as info:
        _import(tmp_path, answered)
    assert [p.pointer for p in info.value.problems] == ["/usage/caveman/1"]
    assert "(the output at /arms/caveman/1 is null)" in info.value.problems[0].message
    assert not (tmp_path / "out").exists()


def test_interop_page_gives_the_mapping_and_says_no_public_snapshot_exists() -> None:
    page = (Path(__file__).resolve().parents[2] / "site_src" / "interop.md").read_text("utf-8")
    section = page.split("## caveman evals snapshots", 1)[1].split("\n## ", 1)[0]
    for words in (
        "driftproof import caveman",
        "`cache_creation_input_tokens` + `cache_read_input_tokens`",
        "`usage.<arm>[i].total_cost_usd` → the draw's `cost_usd`",
        "`provenance.partial: true`",
        "No public caveman snapshot with `usage`, no public fidelity snapshot of this kind and "
        "no\npartial file exists yet.",
    ):
        assert words in section
