"""skill-creator import refusals driven through the CLI: each exits 2 with one line naming the
path (and the JSON pointer) and what was expected, and writes no receipt."""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from factories import run_main
from interop_helpers import sealed

from driftproof.errors import ImportError_
from driftproof.importers.skill_creator import SkillCreatorOptions, import_skill_creator

SAMPLE = "data/interop/skill-creator/anthropic-schemas-examples/benchmark.json"
NEBIUS = "data/interop/skill-creator/nebius-skills-workspace/evals/iteration-1"


def _import(args: list[str], tmp_path: Path, capsys: Any) -> str:
    out = tmp_path / "o"
    code, _, err = run_main(["import", "skill-creator", *args, "--out-dir", str(out)], capsys)
    assert code == 2 and "Traceback" not in err and not out.exists()
    return err


def _bench(shared: Path, folder: Path, edit: Any) -> Path:
    doc = copy.deepcopy(json.loads((shared / SAMPLE).read_text(encoding="utf-8")))
    edit(doc)
    folder.mkdir()
    path = folder / "benchmark.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_source_naming_no_skill_asks_for_the_option_naming_what_was_read(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    ask = "none found: give the skill's name with --skill-name\n"
    path = _bench(shared, tmp_path / "it", lambda d: d["metadata"].pop("skill_name"))
    assert _import([str(path)], tmp_path, capsys) == (
        f"error: {path}: expected skill_name (in benchmark.json metadata or evals.json); {ask}"
    )
    # the Nebius iteration's grading.json files, without its benchmark.json or any evals.json:
    # the refusal named "<folder>/benchmark.json", a file that does not exist
    it = tmp_path / "iteration-1"
    shutil.copytree(shared / NEBIUS, it, ignore=shutil.ignore_patterns("benchmark.*"))
    assert _import([str(it)], tmp_path, capsys) == (
        f"error: {it}: expected skill_name (in an evals.json beside or above this folder); {ask}"
    )


def test_a_run_number_given_twice_is_refused_at_the_second_run(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # the sample's one run is eval 1, with_skill, run 1: a copy of it is run 1 again
    path = _bench(shared, tmp_path / "it", lambda d: d["runs"].append(copy.deepcopy(d["runs"][0])))
    err = _import([str(path.parent)], tmp_path, capsys)
    assert err == (
        f"error: {path}: /runs/1: expected one run per run_number; run 1 of this case and "
        "configuration appears twice\n"
    )


def test_a_path_that_is_neither_file_nor_folder_is_refused(tmp_path: Path, capsys: Any) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    err = _import([str(pipe)], tmp_path, capsys)
    assert err == (
        f"error: {pipe}: expected a skill-creator iteration directory or a benchmark.json file\n"
    )


def test_a_folder_holding_no_iteration_is_refused(tmp_path: Path, capsys: Any) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "notes.txt").write_text("x", encoding="utf-8")
    err = _import([str(folder)], tmp_path, capsys)
    assert err == (
        f"error: {folder}: expected benchmark.json, eval-*/<configuration>/grading.json files, "
        "or iteration-*/ directories holding them\n"
    )


@pytest.mark.parametrize("arm", ["control=without_skill", "control=x"])
def test_an_arm_mapping_naming_neither_compared_arm_is_refused(
    shared: Path, tmp_path: Path, capsys: Any, arm: str
) -> None:
    err = _import([str(shared / SAMPLE), "--arm", arm], tmp_path, capsys)
    assert err.startswith("Usage: driftproof import skill-creator [OPTIONS] PATHS...\n")
    assert err.splitlines()[-1] == (
        "error: an arm mapping must name with_skill, baseline or both "
        "(one alone is a single-arm import)"
    )


def test_more_grading_files_than_are_read_are_refused(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    # found: past the bound the rest were cut off and the import went on without them
    import driftproof.importers._skill_creator_read as reader

    monkeypatch.setattr(reader, "MAX_GRADING_FILES", 2)
    grading = {"expectations": [{"text": "t", "passed": True, "evidence": "e"}]}
    for k in (1, 2, 3):
        run = tmp_path / "iteration-1" / "eval-0" / "with_skill" / f"run-{k}"
        run.mkdir(parents=True)
        (run / "grading.json").write_text(json.dumps(grading), "utf-8")
    said = _import(["--skill-name", "s", str(tmp_path / "iteration-1")], tmp_path, capsys)
    assert "iteration-1: expected at most 2 grading.json files in one iteration, found 3" in said


SPEC = "data/interop/skill-creator/agentskills-spec-examples/benchmark.json"
RS = "/run_summary"
# the spec's run_summary alone: with_skill pass_rate mean 0.83, without_skill 0.33, delta 0.5;
# tokens means 3800 and 2100, delta 1700 (aggregate_benchmark.py: the first mean minus the second)
SUMMARY_FAULTS = [
    (("with_skill", "pass_rate", "mean"), -0.2, "/mean", "a finite number from 0 to 1"),
    (("with_skill", "pass_rate", "mean"), 1.5, "/mean", "a finite number from 0 to 1"),
    (("with_skill", "pass_rate", "stddev"), -0.06, "/stddev", "a finite number from 0, found"),
    (("without_skill", "time_seconds", "mean"), -32.0, "/mean", "a finite number from 0, found"),
    (("without_skill", "tokens", "mean"), True, "/mean", "a number, found true"),
    (("without_skill", "tokens", "min"), 1800.5, "/min", "an integer, found the number 1800.5"),
    (("without_skill", "tokens", "max"), -1, "/max", "a finite number from 0, found"),
    (("with_skill", "pass_rate", "min"), 0.9, "/mean", "min <= mean <= max, found min 0.9"),
    (("delta", "pass_rate"), "+1.50", "", "a pass rate difference from -1 to 1"),
    (("delta", "pass_rate"), 0.6, "", "expected +0.5, the with_skill mean 0.83 minus"),
    (("delta", "tokens"), "+1900", "", "expected +1700, the with_skill mean 3800 minus"),
    (("delta", "pass_rate"), "50%", "", "a delta as a number or a signed number string such"),
]


@pytest.mark.parametrize(("path", "value", "tail", "expected"), SUMMARY_FAULTS)
def test_a_run_summary_figure_outside_its_measure_is_refused(
    shared: Path,
    tmp_path: Path,
    capsys: Any,
    path: tuple[str, ...],
    value: Any,
    tail: str,
    expected: str,
) -> None:
    # found: run_summary was kept as printed, so a negative mean or a pass rate of 1.5 passed
    doc = json.loads((shared / SPEC).read_text(encoding="utf-8"))
    holder = doc["run_summary"]
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    (tmp_path / "it").mkdir()
    bench = tmp_path / "it" / "benchmark.json"
    bench.write_text(json.dumps(doc), encoding="utf-8")
    err = _import([str(bench), "--skill-name", "s"], tmp_path, capsys)
    where = "/".join((RS, *path[:-1])) + (tail or f"/{path[-1]}")
    assert err.startswith(f"error: {bench}: {where}: expected ") and expected in err


# the sample's one run: result passed 6, failed 1, total 7, tokens 3800; metadata plans 3 runs
RUN_FAULTS = [
    (("runs", 0, "result", "total"), -7, "a count of 0 or more, found the number -7"),
    (("runs", 0, "result", "total"), True, "a count of 0 or more, found true"),
    (("runs", 0, "result", "failed"), 1.5, "a count of 0 or more, found the number 1.5"),
    (("runs", 0, "result", "tokens"), -3800, "a token count of 0 or more, found the number -3800"),
    (("runs", 0, "result", "tokens"), True, "a token count of 0 or more, found true"),
    (("metadata", "runs_per_configuration"), 0, "a finite number from 1, found the number 0"),
    (("metadata", "runs_per_configuration"), 2.5, "an integer, found the number 2.5"),
]


@pytest.mark.parametrize(("path", "value", "expected"), RUN_FAULTS)
def test_a_run_count_that_is_no_count_is_refused(
    shared: Path, tmp_path: Path, capsys: Any, path: tuple[Any, ...], value: Any, expected: str
) -> None:
    # found: each was taken for "not recorded" (a total of -7 or true, tokens of -3800) or, for
    # runs_per_configuration, for "not stated by the source"
    def edit(doc: dict[str, Any]) -> None:
        holder = doc
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = value

    bench = _bench(shared, tmp_path / "it", edit)
    pointer = "/" + "/".join(map(str, path))
    assert (
        _import([str(bench)], tmp_path, capsys)
        == f"error: {bench}: {pointer}: expected {expected}\n"
    )


def test_a_run_summary_listing_without_skill_first_has_its_delta_read_first_minus_second(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # Found: aggregate_benchmark.py's delta is the first listed configuration's mean minus the
    # second's; a summary listing without_skill first (its first eval held no with_skill run)
    # was refused as contradicting itself. By hand: 0.33 - 0.83 = -0.50, 32 - 45, 2100 - 3800
    doc = json.loads((shared / SPEC).read_text(encoding="utf-8"))
    rs = doc["run_summary"]
    delta = {"pass_rate": "-0.50", "time_seconds": "-13.0", "tokens": "-1700"}
    doc["run_summary"] = {"without_skill": rs["without_skill"], "with_skill": rs["with_skill"]}
    doc["run_summary"]["delta"] = delta
    (tmp_path / "it").mkdir()
    bench = tmp_path / "it" / "benchmark.json"
    bench.write_text(json.dumps(doc), encoding="utf-8")
    args = ["import", "skill-creator", str(bench), "--skill-name", "s"]
    code, _, err = run_main([*args, "--out-dir", str(tmp_path / "first")], capsys)
    assert code == 0, err
    # listed with_skill first, the same delta contradicts the means
    doc["run_summary"] = {**rs, "delta": delta}
    bench.write_text(json.dumps(doc), encoding="utf-8")
    assert "expected +0.50, the with_skill mean 0.83 minus" in _import(
        [str(bench), "--skill-name", "s"], tmp_path, capsys
    )


def test_a_results_file_a_folder_search_would_leave_unread_is_refused_naming_it(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # a grading-only copy of the Nebius iteration beside a folder holding the schema example's
    # benchmark.json: the grading files were read, the benchmark.json left out in silence
    t = tmp_path / "t"
    shutil.copytree(shared / NEBIUS, t / "run-a")
    (t / "run-a" / "benchmark.json").unlink()
    (t / "run-b").mkdir()
    shutil.copy(shared / SAMPLE, t / "run-b")
    said = _import(["--skill-name", "s", str(t)], tmp_path, capsys)
    assert f"these would be left unread: {t / 'run-b' / 'benchmark.json'}: give each" in said
    # an iteration three folders down beside one the search finds: all three of its files named
    u = tmp_path / "u"
    shutil.copytree(shared / NEBIUS, u / "iteration-1")
    shutil.copytree(shared / NEBIUS, u / "a" / "b" / "iteration-2")
    said = _import([str(u)], tmp_path, capsys)
    deep = u / "a" / "b" / "iteration-2"
    run = deep / "eval-0-finetune-upload-and-start"
    unread = [deep / "benchmark.json", run / "with_skill/grading.json"]
    unread.append(run / "without_skill/grading.json")
    assert f"left unread: {', '.join(map(str, unread))}: give each one's iteration" in said
    for k, each in enumerate((t / "run-a", t / "run-b", u / "iteration-1", deep)):  # on its own
        args = ["import", "skill-creator", "--skill-name", "s", str(each), "--out-dir", f"{u}{k}"]
        assert run_main(args, capsys)[0] == 0


def test_a_results_file_that_is_a_broken_link_a_folder_search_leaves_is_named(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # an iteration three folders down whose benchmark.json is a link to nothing, beside one the
    # search finds: the search passed over the link, and that iteration was left out unsaid
    u = tmp_path / "u"
    shutil.copytree(shared / NEBIUS, u / "iteration-1")
    (u / "a" / "b" / "iteration-2").mkdir(parents=True)
    (u / "a" / "b" / "iteration-2" / "benchmark.json").symlink_to(tmp_path / "gone.json")
    said = _import([str(u)], tmp_path, capsys)
    assert f"left unread: {u / 'a' / 'b' / 'iteration-2' / 'benchmark.json'}: give each" in said


def test_results_in_a_linked_folder_a_folder_search_leaves_are_named(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # an iteration three folders down that is a link to a folder, beside one the search finds:
    # the walk did not go into links, and that iteration was left out unsaid
    u, away = tmp_path / "u", tmp_path / "away"
    shutil.copytree(shared / NEBIUS, u / "iteration-1")
    shutil.copytree(shared / NEBIUS, away / "iteration-2")
    (u / "a" / "b").mkdir(parents=True)
    (u / "a" / "b" / "iteration-2").symlink_to(away / "iteration-2")
    said = _import([str(u)], tmp_path, capsys)
    assert f"left unread: {u / 'a' / 'b' / 'iteration-2' / 'benchmark.json'}, " in said
    # a linked folder with no results file in it (the skill, say) is no reason to refuse
    (u / "a" / "b" / "iteration-2").unlink()
    shutil.rmtree(away / "iteration-2")
    (u / "a" / "b" / "skill").symlink_to(away)
    args = ["import", "skill-creator", str(u), "--out-dir"]
    assert run_main([*args, str(tmp_path / "o1")], capsys)[0] == 0
    # a link that leads round in a circle is named, not a traceback
    (u / "a" / "benchmark.json").symlink_to(u / "a" / "benchmark.json")
    assert f"left unread: {u / 'a' / 'benchmark.json'}: " in _import([str(u)], tmp_path, capsys)
    (u / "a" / "benchmark.json").unlink()
    # nor is a link to an iteration the import reads (a "latest"): its files are read
    (u / "latest").symlink_to(u / "iteration-1", target_is_directory=True)
    assert run_main([*args, str(tmp_path / "o3")], capsys)[0] == 0
    # nor is an eval's folder that is a link, in an iteration whose benchmark.json stands for it
    evals = u / "iteration-1" / "eval-1-copy"
    shutil.copytree(u / "iteration-1" / "eval-0-finetune-upload-and-start", tmp_path / "e")
    evals.symlink_to(tmp_path / "e")
    assert run_main([*args, str(tmp_path / "o2")], capsys)[0] == 0
    # but a link there to another iteration is: that benchmark stands for none of its files
    shutil.copytree(shared / NEBIUS, tmp_path / "i0")
    (u / "iteration-1" / "old").symlink_to(tmp_path / "i0")
    said = _import([str(u / "iteration-1")], tmp_path, capsys)
    assert f"left unread: {u / 'iteration-1' / 'old' / 'benchmark.json'}, " in said
    (u / "iteration-1" / "old").unlink()
    # with no benchmark.json, its grading.json files are named: the linked eval's runs went unread
    (u / "iteration-1" / "benchmark.json").unlink()
    said = _import([str(u / "iteration-1")], tmp_path, capsys)
    assert f"left unread: {evals / 'with_skill' / 'grading.json'}, " in said


def test_an_evals_json_that_is_no_file_to_read_is_refused_naming_it(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # Found: the Nebius workspace's evals.json a link to a file not there, a folder or a named
    # pipe was passed over without a word, and the five prompts only it holds read as unknown
    it = tmp_path / "evals" / "iteration-1"
    shutil.copytree(shared / NEBIUS, it)
    evals = it.parent / "evals.json"
    for make, what in (
        (lambda: evals.symlink_to(tmp_path / "gone.json"), "a link that leads to no file"),
        (evals.mkdir, "a directory"),
        (lambda: os.mkfifo(evals), "a named pipe, socket or device"),
    ):
        make()
        assert _import([str(it)], tmp_path, capsys) == (
            f"error: {evals}: expected a file, found {what}\n"
        )
        evals.rmdir() if evals.is_dir() else evals.unlink()


def test_an_eval_metadata_json_that_is_a_broken_link_is_refused_naming_it(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # Found: with benchmark.json's runs read (no grading.json opened), the eval's
    # eval_metadata.json a link to a file not there was passed over, its prompt read as unknown
    it = tmp_path / "iteration-1"
    shutil.copytree(shared / NEBIUS, it)
    (meta := it / "eval-0-finetune-upload-and-start" / "eval_metadata.json").unlink()
    meta.symlink_to(tmp_path / "gone.json")
    assert _import([str(it)], tmp_path, capsys) == (
        f"error: {meta}: expected a file, found a link that leads to no file\n"
    )


def test_an_eval_folder_that_is_a_broken_link_is_refused_naming_it(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # Found: beside the read eval-0 (benchmark.json read, or its grading.json files alone), an
    # eval-1 folder that is a link to a folder not there was passed over without a word
    it = tmp_path / "iteration-1"
    shutil.copytree(shared / NEBIUS, it)
    (it / "eval-1-gone").symlink_to(tmp_path / "nowhere")
    said = f"error: {it / 'eval-1-gone' / 'eval_metadata.json'}: expected a file, found a link"
    assert _import([str(it)], tmp_path, capsys) == f"{said} that leads to no file\n"
    (it / "benchmark.json").unlink()
    args = [str(it), "--skill-name", "nebius"]
    assert _import(args, tmp_path, capsys) == f"{said} that leads to no file\n"


def test_a_configuration_folder_that_is_a_link_is_refused_unless_a_benchmark_stands_for_it(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # Found: with grading.json files alone, without_skill a link to a real folder was not
    # searched (no link is followed), and the receipt read the baseline as not recorded
    it = tmp_path / "iteration-1"
    shutil.copytree(shared / NEBIUS, it)
    config = it / "eval-0-finetune-upload-and-start" / "without_skill"
    config.rename(moved := tmp_path / "baseline-runs")
    config.symlink_to(moved, target_is_directory=True)
    out = tmp_path / "kept"  # its benchmark.json holds the runs: nothing is left unread
    assert run_main(["import", "skill-creator", str(it), "--out-dir", str(out)], capsys)[0] == 0
    (it / "benchmark.json").unlink()
    said = _import([str(it), "--skill-name", "nebius"], tmp_path, capsys)
    assert said.startswith(
        f"error: {it}: expected every benchmark.json and grading.json below this folder to be "
        f"read; these would be left unread: {config / 'grading.json'}"
    ), said


def test_an_iteration_folder_that_is_a_broken_link_is_refused_naming_it(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # Found: a workspace whose iteration-2 is a link to a folder not there imported iteration-1
    # alone, without a word
    ws = tmp_path / "ws"
    shutil.copytree(shared / NEBIUS, ws / "iteration-1")
    (gone := ws / "iteration-2").symlink_to(tmp_path / "nowhere")
    assert _import([str(ws)], tmp_path, capsys) == (
        f"error: {gone}: expected a folder, found a link that leads to no folder\n"
    )


def test_a_benchmark_above_the_iteration_of_the_grading_files_is_not_theirs(
    shared: Path, tmp_path: Path
) -> None:
    # up/ws/benchmark.json, the schema example's (eval 1), sits above the Nebius iteration
    # without its own: the iteration is the folder holding eval-*/, so the grading files are
    # read (their one eval, eval_id 0), never the benchmark.json of another run above them;
    # the folder above both is refused, naming that benchmark.json, never read as theirs
    it = tmp_path / "up" / "ws" / "evals" / "iteration-1"
    shutil.copytree(shared / NEBIUS, it)
    (it / "benchmark.json").unlink()
    examples = shared / "data/interop/skill-creator/anthropic-schemas-examples"
    shutil.copy(examples / "benchmark.json", tmp_path / "up" / "ws")
    with pytest.raises(ImportError_, match=f"left unread: {tmp_path / 'up/ws/benchmark.json'}:"):
        import_skill_creator([tmp_path / "up"], SkillCreatorOptions(skill_name="s"))
    (doc,) = import_skill_creator([it], SkillCreatorOptions(skill_name="s"))
    assert [c.id for c in sealed(doc).cases] == ["0"]


def test_a_run_summary_stddev_wider_than_its_min_and_max_allow_is_refused(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # aggregate_benchmark.py's stddev is the runs' sample stddev: runs from min 0.80 to max 0.90
    # spread at most (0.90 - 0.80) / sqrt(2) = 0.07071 (two runs, one at each end)
    doc = json.loads((shared / SAMPLE).read_text(encoding="utf-8"))
    del doc["runs"]  # the run_summary alone is read
    doc["run_summary"]["with_skill"]["pass_rate"]["stddev"] = 0.09
    bench = tmp_path / "it" / "benchmark.json"
    bench.parent.mkdir()
    bench.write_text(json.dumps(doc), encoding="utf-8")
    err = _import([str(bench), "--skill-name", "s"], tmp_path, capsys)
    assert err == (
        f"error: {bench}: {RS}/with_skill/pass_rate/stddev: expected at most 0.07071, the "
        "largest sample standard deviation of runs from min 0.8 to max 0.9 (their range over "
        "the square root of 2), found 0.09: the summary contradicts itself\n"
    )
