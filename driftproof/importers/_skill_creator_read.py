"""Reading a skill-creator workspace into runs.

The ``benchmark.json`` shapes (``runs[]``, ``evals[]``, ``configurations[]``/``configs[]``),
else the ``grading.json`` files, and ``evals.json``/``eval_metadata.json`` (name, prompts).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from driftproof.importers import _common as common
from driftproof.importers._common import Where
from driftproof.importers._schema import validate_source
from driftproof.importers._text import Repair

TOOL = "skill-creator"
_ASSERTION_LISTS = ("expectations", "assertions", "assertion_results", "assertion_details")
#: The most grading.json files read from one iteration.
MAX_GRADING_FILES = 20000
_RUN_DIR = re.compile(r"run-(\d+)")


def benchmark_runs(bench: dict[str, Any], w: Where) -> list[dict[str, Any]] | None:
    """The runs of ``runs[]``, ``configurations[]``/``configs[]`` or ``evals[]``; ``None``: none.

    A ``configurations[]``/``configs[]`` run's ``total_tokens`` is its total, as in ``timing.json``;
    ``runs[].result.tokens`` none (``tokens_unsaid``: the aggregator may put characters or 0).
    """
    runs = []
    if isinstance(bench.get("runs"), list) and bench["runs"]:
        for i, r in enumerate(bench["runs"]):
            rw = w / "runs" / i
            result = rw.get(r, "result", dict, required=False)
            keys = ("configuration", "condition", "config")
            key = next((k for k in keys if k in r), "configuration")
            config, number = rw.get(r, key, str), rw.get(r, "run_number", int, required=False)
            graded = (r, rw, True) if result is None else (result, rw / "result", False)
            runs.append(_run(r.get("eval_id", r.get("case_id")), config, number, r, rw, *graded))
        return runs
    lists = ("configurations", "configs")
    ckey = next((k for k in lists if isinstance(bench.get(k), list) and bench[k]), None)
    if ckey is not None:
        for i, c in enumerate(bench[ckey]):
            cw = w / ckey / i
            config = cw.get(c, "name", str)
            keys = ("evals", "results", "runs")
            lkey = next((k for k in keys if isinstance(c, dict) and k in c), "evals")
            for j, e in enumerate(cw.get(c, lkey, list)):
                ew = cw / lkey / j
                eval_id = ew.get(e, "eval_id", (int, str))
                number = ew.get(e, "run_number", int, required=False)
                run = _run(eval_id, config, number, e, ew, e, ew)
                if (total := _total_tokens(e, ew)) is not None:
                    run["tokens"] = _with_total(run["tokens"], total)
                runs.append(run)
        return runs
    if not (isinstance(bench.get("evals"), list) and bench["evals"]):
        return None
    for i, e in enumerate(bench["evals"]):
        ew = w / "evals" / i
        eval_id = ew.get(e, "eval_id", (int, str))
        configs = [k for k, v in e.items() if isinstance(v, dict)]
        if (odd := next((k for k in configs if not _looks_like_run(e[k])), None)) is not None:
            raise (ew / odd).fail(
                "expected a configuration's run holding pass_rate, assertions_total or graded "
                "assertions, found an object with none of them"
            )
        if not configs:
            raise ew.fail(
                "expected one object per configuration (e.g. with_skill, without_skill) "
                "holding pass_rate or graded assertions"
            )
        for config in configs:
            runs.append(_run(eval_id, config, None, e[config], ew / config, e[config], ew / config))
    return runs


def _looks_like_run(v: dict[str, Any]) -> bool:
    lists = any(isinstance(v.get(k), list) for k in _ASSERTION_LISTS)
    return "pass_rate" in v or "assertions_total" in v or lists


def _run(
    eval_id: Any,
    config: str,
    run_number: int | None,
    record: dict[str, Any],
    rw: Where,
    result: dict[str, Any],
    resw: Where,
    total: bool = True,
) -> dict[str, Any]:
    """One run of ``record`` (at ``rw``), graded in ``result`` (at ``resw``; may be ``record``)."""
    if not (type(eval_id) is int or common.is_name(eval_id)):
        raise (rw / "eval_id").fail(
            "expected the case's eval_id (an integer or a string, not blank)"
        )
    if run_number is not None and run_number < 1:  # the source numbers runs 1, 2, 3, ...
        raise (rw / "run_number").fail(f"expected a run number of 1 or more, found {run_number}")
    score, lost, note = _score(result, record, resw, rw)
    errors = result.get("errors")  # the executor's errors_encountered: the run was still graded
    if errors is not None and not common.is_count(errors):
        raise (resw / "errors").fail("expected a count of 0 or more (errors during execution)")
    if errors:
        said = f"{rw.file}: {rw.pointer or '/'}: the run met {errors} errors during execution "
        said += "(as the executor counted them); its graded pass rate is kept"
        note = f"{note}; {said}" if note else said
    fired = record.get("skill_loaded", result.get("skill_loaded"))
    if fired is not None and not isinstance(fired, bool):
        raise (rw / "skill_loaded").fail("expected true, false or null")
    tokens = common.source_tokens(record, "input_tokens", "output_tokens", rw)
    count = result.get("tokens")  # benchmark.json runs[].result.tokens
    if count is not None and not common.count_at(count, resw / "tokens"):
        raise (resw / "tokens").fail(
            f"expected a token count of 0 or more, found {common.kind_of(count)}"
        )
    model = record.get("model")
    return {
        "eval": str(eval_id),
        "config": config,
        "run_number": run_number,
        "score": score,
        "lost": lost,
        "skill_fired": fired,
        "where": rw,
        "tokens": tokens if count is None or not total else _with_total(tokens, count),
        "tokens_unsaid": count is not None and not total,
        "model": common.stated(model, rw / "model"),
        "note": note,
    }


def _total_tokens(holder: dict[str, Any], w: Where) -> int | None:
    """``holder["total_tokens"]``: the run's total (its task notification); ``None``: none."""
    total = w.get(holder, "total_tokens", int, required=False, nullable=True)
    if total is not None and total < 0:
        raise (w / "total_tokens").fail(f"expected a token count of 0 or more, found {total}")
    return total


def _with_total(tokens: dict[str, Any] | None, total: int) -> dict[str, Any]:
    """``tokens`` (or unknown counts by the source) with the run's ``total``."""
    return {**(tokens or {"input": None, "output": None, "counted_by": "source"}), "total": total}


#: A declared pass rate and the counted assertions agree when they differ by at most this
#: (a pass rate printed to three decimals, e.g. 0.833 for 5 of 6).
_AGREE = 0.005
#: A pass rate and its own passed/total counts agree when they differ by at most this (a rate
#: printed to two decimals, cut rather than rounded: 0.85 for 6 of 7).
_PRINTED_RATE = 0.01
#: Why a pass rate over no assertion is no score (its grading.json had no summary block).
_ZERO = "pass_rate is no score (skill-creator writes 0.0 when grading.json has no summary)"


def _score(
    result: dict[str, Any], record: dict[str, Any], resw: Where, rw: Where
) -> tuple[float | None, str | None, str | None]:
    """(score, lost reason, note): a pass rate within 0.005 of the counted assertions, else them."""
    summary = result.get("summary") if isinstance(result.get("summary"), dict) else None
    declared: tuple[float, str] | None = None
    for holder, hw, name in (
        (result, resw, "pass_rate"),
        (summary, resw / "summary", "summary.pass_rate"),
    ):
        if holder is not None and holder.get("pass_rate") is not None:
            declared = (_pass_rate(holder, hw), name)
            break
        if holder is not None and "pass_rate" in holder and _counted(result, record, rw) is None:
            reason = _note(result, record) or "the source recorded no pass_rate for this run"
            return None, reason, None
    counted = _counted(result, record, rw)
    own_total = _counts(result, resw)[1] if declared and declared[1] == "pass_rate" else None
    if own_total == 0 and common.is_count(own_total):
        # a rate over no assertion: aggregate_benchmark.py writes pass_rate 0.0 and total 0 for
        # a grading.json with no summary; the graded list is the score, else nothing is
        if counted is None:
            return None, f"the source counted no assertion (total 0): its {_ZERO}", None
        note = f"{rw.file}: {rw.pointer or '/'}: the run counts no assertion (total 0), so its "
        note += f"{_ZERO}; the {counted[1]} of {counted[2]} {counted[3]} passed are the score"
        return counted[0], None, note
    if counted is None:
        passed, total, ratio = _counts(result, resw)
        if ratio is not None:
            how = "assertions_passed of assertions_total"
            counted = (common.unit_score(ratio, resw), passed, total, how)
    if counted is None:
        if declared is None:
            raise resw.fail(
                "expected pass_rate, graded assertions (expectations, assertions or "
                "assertion_results) or assertions_passed with assertions_total"
            )
        return declared[0], None, None
    if declared is None:
        return counted[0], None, None
    if abs(declared[0] - counted[0]) <= _AGREE:
        return declared[0], None, None
    where = f"{rw.file}: {rw.pointer or '/'}"
    # a run's own total that the list does not reach: the list is abbreviated (benchmark.json
    # copies), so the declared pass rate stands, and the note says so; a summary never stands
    # against the list it summarises
    total = None if declared[1].startswith("summary") else _counts(result, resw)[1]
    if common.is_count(total) and total != counted[2]:
        note = (
            f"{where}: the {counted[3]} list holds {counted[2]} of the {total} assertions "
            f"the run counts; its {declared[1]} {declared[0]:g} is kept"
        )
        return declared[0], None, note
    note = (
        f"{where}: {declared[1]} {declared[0]:g} disagrees with the {counted[1]} of "
        f"{counted[2]} {counted[3]} counted ({counted[0]:.3f}); the counted assertions "
        "are the score"
    )
    return counted[0], None, note


def _counted(
    result: dict[str, Any], record: dict[str, Any], rw: Where
) -> tuple[float, int, int, str] | None:
    """Passed ÷ total over every graded assertion list the run gives, or ``None`` with none."""
    flags: list[bool] = []
    names = []
    for key in _ASSERTION_LISTS:
        holder = record if key in record else result
        items = holder.get(key)
        if isinstance(items, list) and items:
            names.append(key)
            flags += [(rw / key / i).get(a, "passed", bool) for i, a in enumerate(items)]
    if not flags:
        return None
    return sum(flags) / len(flags), sum(flags), len(flags), " and ".join(names)


def _pass_rate(holder: dict[str, Any], w: Where) -> float:
    """``pass_rate`` on 0..1; read as a percent (``80``) only when passed/total confirm it.

    Raises:
        ImportError_: a pass rate more than 0.01 from the passed/total counts beside it.
    """
    rate = holder["pass_rate"]
    passed, total, ratio = _counts(holder, w)
    percent = isinstance(rate, (int, float)) and not isinstance(rate, bool) and 1 < rate <= 100
    if percent and ratio is not None and abs(100 * passed / total - rate) <= 0.5:
        return common.unit_score(rate / 100, w / "pass_rate")
    value = common.unit_score(rate, w / "pass_rate")
    if ratio is not None and abs(value - ratio) > _PRINTED_RATE:
        raise (w / "pass_rate").fail(
            f"expected {ratio:.3g}, the {passed} of {total} assertions passed beside it, found "
            f"{rate!r}: the run contradicts itself"
        )
    return value


def _note(*objs: dict[str, Any]) -> str | None:
    for o in objs:
        if isinstance(o, dict) and isinstance(o.get("note"), str) and o["note"].strip():
            return o["note"].strip()[:4000]
    return None


# -- grading.json files (canonical per-run layout) -----------------------------------


def grading_files(iteration: Path) -> list[Path]:
    """``iteration``'s ``eval-*/<configuration>/[run-<k>/]grading.json`` files, sorted.

    Raises:
        ImportError_: more than ``MAX_GRADING_FILES`` (each is a run, none left out); the
            files belong to two iterations (their ``eval-*`` folders sit in two different
            folders), naming both: their runs would be one iteration's draws; a
            ``grading.json`` that is not a file (:func:`present`).
    """
    for top, dirs, names in os.walk(iteration):  # rglob passes over a link that leads nowhere
        if "grading.json" in (*dirs, *names) and len(Path(top).relative_to(iteration).parts) >= 2:
            present(Path(top) / "grading.json")
    files = sorted(
        g for g in iteration.rglob("grading.json") if len(g.relative_to(iteration).parts) >= 3
    )
    roots: dict[Path, Path] = {}  # iteration folder -> its first grading.json
    for g in files:
        roots.setdefault(iteration_of(g), g)
    if len(roots) > 1:
        (a, fa), (b, fb) = list(roots.items())[:2]
        raise Where(iteration).fail(
            f"expected the grading.json files of one iteration, found those of two: {a} "
            f"(e.g. {fa.relative_to(iteration)}) and {b} (e.g. {fb.relative_to(iteration)}); "
            "give each iteration's folder on its own"
        )
    if len(files) > MAX_GRADING_FILES:
        raise Where(iteration).fail(
            f"expected at most {MAX_GRADING_FILES} grading.json files in one iteration, found "
            f"{len(files)}"
        )
    return files


def present(path: Path) -> bool:
    """Whether a file is at ``path`` to read; ``False`` when nothing is there.

    Raises:
        ImportError_: something else is there (a directory, a named pipe, socket or device, a
            link that leads nowhere, there or as its folder: :func:`common.to_read`),
            naming it: its run or its eval's words would be left out without a word.
    """
    if path.is_file():
        return True
    if common.to_read(path):
        what = "a named pipe, socket or device" if path.exists() else "a link that leads to no file"
        what = "a directory" if path.is_dir() else what
        raise Where(path).fail(f"expected a file, found {what}")
    return False


def iteration_of(grading: Path) -> Path:
    """The iteration folder of ``<iteration>/eval-*/<configuration>/[run-<k>/]grading.json``."""
    run_dir = _RUN_DIR.fullmatch(grading.parent.name)
    config_dir = grading.parent.parent if run_dir else grading.parent
    return config_dir.parent.parent


def grading_runs(
    iteration: Path, files: list[Path], repairs: list[Repair]
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The runs of ``iteration``'s ``grading.json`` files, and (path, sha256) of every file read.

    A ``timing.json`` beside a grading file gives its run's ``total_tokens``.
    """
    runs, entries = [], []
    for f in files:
        data, raw = common.read_json(f, repairs)
        entries.append((f.relative_to(iteration).as_posix(), common.file_sha256(raw)))
        validate_source(data, TOOL, f, definition="grading")
        w = Where(f)
        m = _RUN_DIR.fullmatch(f.parent.name)
        if m and int(m.group(1)) < 1:
            raise Where(f.parent).fail(
                f"expected a run-<k> directory numbered from 1, found {f.parent.name}"
            )
        config_dir = f.parent.parent if m else f.parent
        eval_id = _eval_id_of(config_dir.parent, data, repairs)
        run = _run(eval_id, config_dir.name, int(m.group(1)) if m else None, data, w, data, w)
        timing = f.parent / "timing.json"
        if present(timing):
            times, raw = common.read_json(timing, repairs)
            total = _total_tokens(times, Where(timing))
            entries.append((timing.relative_to(iteration).as_posix(), common.file_sha256(raw)))
            if total is not None:
                run["tokens"] = _with_total(run["tokens"], total)
        runs.append(run)
    return runs, entries


def _eval_id_of(eval_dir: Path, grading: dict[str, Any], repairs: list[Repair]) -> Any:
    """The eval's id: from its ``eval_metadata.json``, the grading, or the directory name."""
    meta = eval_dir / "eval_metadata.json"
    for held in (common.read_json(meta, repairs)[0] if present(meta) else None, grading):
        value = held.get("eval_id") if isinstance(held, dict) else None
        if isinstance(value, (int, str)) and not isinstance(value, bool):
            return value
    m = re.match(r"eval-([A-Za-z0-9]+)", eval_dir.name)
    return m.group(1) if m else eval_dir.name


def evals_file(iteration: Path, repairs: list[Repair]) -> tuple[dict[str, Any] | None, Path]:
    """The ``evals.json`` holding ``evals[]`` beside or above ``iteration`` (or None), its path."""
    places = (
        iteration / "evals.json",
        iteration.parent / "evals.json",
        iteration.parent / "evals" / "evals.json",
        iteration.parent.parent / "evals" / "evals.json",
    )
    for cand in places:
        if present(cand):
            data, _ = common.read_json(cand, repairs)
            if isinstance(data, dict) and isinstance(data.get("evals"), list):
                return data, cand
    return None, places[0]


def skill_name_of(
    bench: dict[str, Any] | None, bench_path: Path, evals: dict[str, Any] | None, evals_path: Path
) -> str | None:
    """The ``skill_name`` of the benchmark's metadata, the benchmark, or ``evals.json``.

    Raises:
        ImportError_: the name, spaces stripped, is longer than a receipt's skill name holds
            (200 characters), naming its file and member.
    """
    bw = Where(bench_path)
    held = ((bench or {}).get("metadata"), bw / "metadata"), (bench, bw), (evals, Where(evals_path))
    for obj, w in held:
        name = obj.get("skill_name") if isinstance(obj, dict) else None
        if common.is_name(name):
            return common.within(name.strip(), w / "skill_name")
    return None


def _id_prompt(obj: Any, key: str) -> tuple[str, str] | None:
    """(``obj[key]`` as text, ``obj["prompt"]``) when ``obj`` holds both; else ``None``."""
    if isinstance(obj, dict) and isinstance(obj.get("prompt"), str):
        if isinstance(obj.get(key), (int, str)):
            return str(obj[key]), obj["prompt"]
    return None


def prompts_of(
    evals: dict[str, Any] | None, iteration: Path, repairs: list[Repair]
) -> dict[str, str]:
    """Each eval id's prompt, from ``evals.json`` or the evals' ``eval_metadata.json``."""
    prompts = dict(p for e in (evals or {}).get("evals", []) if (p := _id_prompt(e, "id")))
    for meta in (d / "eval_metadata.json" for d in iteration.glob("*")):  # a broken link too
        if present(meta) and (found := _id_prompt(common.read_json(meta, repairs)[0], "eval_id")):
            prompts.setdefault(*found)
    return prompts


def _counts(holder: dict[str, Any], w: Where) -> tuple[Any, Any, Any]:
    """(passed, total, ratio or ``None``); each the first of x, assertions_x that is a count.

    Raises:
        ImportError_: a count that is no whole number of 0 or more (null: not recorded), a
            passed count above the total, or passed and failed counts that do not add up to
            the total, naming the count that disagrees.
    """
    found: list[Any] = []
    keys_used: list[str] = []
    for name in ("passed", "total", "failed"):
        keys = [k for k in (name, f"assertions_{name}") if k in holder]
        key = next((k for k in keys if common.is_count(holder[k])), keys[0] if keys else name)
        value = holder.get(key)
        if value is not None and not common.count_at(value, w / key):
            raise (w / key).fail(f"expected a count of 0 or more, found {common.kind_of(value)}")
        found.append(value)
        keys_used.append(key)
    passed, total, failed = found
    whole = common.is_count(passed) and common.is_count(total)
    if whole and passed > total:
        raise (w / keys_used[0]).fail(
            f"expected at most the run's {total} assertions ({keys_used[1]}), found {passed}"
        )
    if whole and common.is_count(failed) and passed + failed != total:
        raise (w / keys_used[1]).fail(
            f"expected {passed + failed}, the {passed} passed and {failed} failed assertions "
            f"added up, found {total}: the run contradicts itself"
        )
    return passed, total, passed / total if whole and total > 0 else None
