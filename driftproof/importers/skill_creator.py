"""skill-creator / agentskills.io workspaces → DECLARED receipts (D-15).

Reads one iteration of a skill-creator workspace (``iteration-N/``) or its
``benchmark.json``. Accepted shapes (INTEROP-NOTES.md §2, "Pitfalls"):

- canonical ``runs[]`` (``eval_id``, ``configuration``, ``run_number``, ``result.pass_rate``,
  ``expectations[]``) with ``run_summary.delta`` as strings (``"+0.50"``) or numbers;
- the LLM-written drift ``evals[]`` with one object per configuration
  (``{"with_skill": {"pass_rate", "assertions_passed", "skill_loaded", …}}``);
- the drift ``configurations[]`` (``{name, evals[{eval_id, pass_rate, assertion_details}]}``), also
  spelled ``configs[]`` with ``results[]``;
- no per-run data in ``benchmark.json``: the per-run ``grading.json`` files under
  ``eval-*/<configuration>/[run-<k>/]``, graded as ``expectations[]`` or ``assertion_results[]``;
- only ``run_summary`` and no ``grading.json``: an aggregates-only receipt whose
  ``source_figures`` hold the summary as printed (method, "Figures a source printed").

Mapping: case = ``eval_id`` (prompt from ``evals.json`` or ``eval_metadata.json``);
arm = configuration (``with_skill`` → with_skill, ``without_skill`` → baseline, anything
else only through an explicit mapping); draw = one run (index ``run_number − 1``);
score = the run's pass rate as recorded (else passed ÷ total of its graded
assertions); a run with no pass rate is a lost draw with the source's note as its
reason. ``skill_loaded`` is kept in ``skill_fired`` beside the score, never inside it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from driftproof.errors import ImportError_
from driftproof.importers import Imported, register
from driftproof.importers._common import (
    Where,
    case_id_for,
    file_sha256,
    git_blob_sha1,
    manifest_sha256,
    provenance_doc,
    read_json,
    safe_filename,
    unit_score,
    unrecorded_judge,
    validate_source,
)
from driftproof.receipt import draw_doc, receipt_doc, sha256_text

__all__ = ["DEFAULT_ARMS", "import_skill_creator", "skill_creator_importer"]

TOOL = "skill-creator"
#: configuration name -> receipt arm, used when no explicit mapping is given.
DEFAULT_ARMS: dict[str, str] = {
    "with_skill": "with_skill",
    "without_skill": "baseline",
    "baseline": "baseline",
}
_ASSERTION_LISTS = ("expectations", "assertions", "assertion_results", "assertion_details")
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
_MAX_GRADING_FILES = 20000


def import_skill_creator(
    paths: list[Path],
    *,
    skill_md: Path | None = None,
    arms: dict[str, str] | None = None,
    skill_name: str | None = None,
) -> list[dict[str, Any]]:
    """Convert skill-creator iterations into unsealed DECLARED receipt documents.

    Args:
        paths: iteration directories (``…/iteration-N``), workspaces holding them, or
            ``benchmark.json`` files. One receipt per iteration.
        skill_md: the SKILL.md measured, hashed and counted (D-14); unknown when omitted.
        arms: receipt arm (``with_skill``, ``baseline``, ``control``) -> configuration
            name, replacing :data:`DEFAULT_ARMS` (e.g. ``{"with_skill": "new_skill",
            "baseline": "old_skill"}`` for a version comparison).
        skill_name: the skill's name when neither ``benchmark.json`` nor ``evals.json`` names it.

    Returns:
        One receipt document per iteration, unsealed.

    Raises:
        ImportError_: a file is unreadable or malformed (a member of the wrong type per
            ``schemas/skill-creator.schema.json``), or a configuration is not mapped,
            naming the file, the JSON pointer and what was expected.
    """
    config_to_arm = _config_map(arms)
    skill_text = _read_text(skill_md) if skill_md is not None else None
    out = []
    for path in paths:
        for iteration in _iterations(Path(path)):
            out.append(_import_iteration(iteration, config_to_arm, skill_text, skill_name))
    return out


def _config_map(arms: dict[str, str] | None) -> dict[str, str]:
    if not arms:
        return dict(DEFAULT_ARMS)
    out: dict[str, str] = {}
    for arm, config in arms.items():
        if arm not in ("with_skill", "baseline", "control"):
            raise ImportError_.at(
                "<options>",
                "",
                f"expected an arm name with_skill, baseline or control, found {arm!r}",
            )
        out[config] = arm
    if "with_skill" not in out.values() and "baseline" not in out.values():
        raise ImportError_.at(
            "<options>",
            "",
            "an arm mapping must name with_skill, baseline or both "
            "(one alone is a single-arm import)",
        )
    return out


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportError_.at(path, "", f"cannot read SKILL.md as UTF-8 text: {exc}") from None


def _iterations(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ImportError_.at(
            path, "", "expected a skill-creator iteration directory or a benchmark.json file"
        )
    if (path / "benchmark.json").is_file():
        return [path]
    found = sorted(
        p for p in list(path.glob("iteration-*")) + list(path.glob("*/iteration-*")) if p.is_dir()
    )
    if found:
        return found
    if any(len(g.relative_to(path).parts) >= 3 for g in path.rglob("grading.json")):
        return [
            path
        ]  # an iteration without benchmark.json: eval-*/<configuration>/[run-<k>/]grading.json
    raise ImportError_.at(
        path,
        "",
        "expected benchmark.json, eval-*/<configuration>/grading.json files, "
        "or iteration-*/ directories holding them",
    )


def _import_iteration(
    path: Path, config_to_arm: dict[str, str], skill_text: str | None, skill_name: str | None
) -> dict[str, Any]:
    bench_path = path if path.is_file() else path / "benchmark.json"
    iteration = bench_path.parent if path.is_file() else path
    bench: dict[str, Any] | None = None
    raw = b""
    if bench_path.is_file():
        data, raw = read_json(bench_path)
        validate_source(data, TOOL, bench_path)  # the shape of every member walked below
        bench = data
    runs = _benchmark_runs(bench, Where(bench_path)) if bench is not None else None
    document, doc_sha = str(bench_path), file_sha256(raw)
    if runs is None:
        # eval-<id>/<configuration>/[run-<k>/]grading.json: at least three levels below the iteration
        gradings = sorted(
            g for g in iteration.rglob("grading.json") if len(g.relative_to(iteration).parts) >= 3
        )[:_MAX_GRADING_FILES]
        if gradings:
            runs, entries = _grading_runs(iteration, gradings)
            document, doc_sha = str(iteration), manifest_sha256(entries)
    evals = _evals_file(iteration)
    name = skill_name or _skill_name(bench, evals)
    if name is None:
        raise Where(bench_path).fail(
            "expected skill_name (in benchmark.json metadata or evals.json); "
            "none found, so pass the skill's name explicitly"
        )
    if runs is None:
        if bench is not None and isinstance(bench.get("run_summary"), dict):
            return _aggregates_only(bench, bench_path, raw, name, skill_text)
        raise Where(bench_path).fail(
            "expected per-run results: runs[], evals[] or configurations[] in "
            "benchmark.json, or grading.json files under eval-*/<configuration>/"
        )
    return _receipt(
        runs, bench, evals, iteration, config_to_arm, name, skill_text, document, doc_sha
    )


# -- the three benchmark.json shapes ----------------------------------------------


def _benchmark_runs(bench: dict[str, Any], w: Where) -> list[dict[str, Any]] | None:
    if isinstance(bench.get("runs"), list) and bench["runs"]:
        runs = []
        for i, r in enumerate(bench["runs"]):
            rw = w / "runs" / i
            if not isinstance(r, dict):
                raise rw.fail("expected a run object")
            result = rw.get(r, "result", dict, required=False)
            ckey = next(
                (k for k in ("configuration", "condition", "config") if k in r), "configuration"
            )
            eval_id = r.get("eval_id", r.get("case_id"))
            runs.append(
                _run(
                    eval_id,
                    r.get("eval_name"),
                    rw.get(r, ckey, str),
                    rw.get(r, "run_number", int, required=False),
                    result if result is not None else r,
                    r,
                    rw,
                    rw / "result" if result is not None else rw,
                )
            )
        return runs
    ckey = next(
        (k for k in ("configurations", "configs") if isinstance(bench.get(k), list) and bench[k]),
        None,
    )
    if ckey is not None:
        runs = []
        for i, c in enumerate(bench[ckey]):
            cw = w / ckey / i
            config = cw.get(c, "name", str)
            lkey = next(
                (k for k in ("evals", "results", "runs") if isinstance(c, dict) and k in c), "evals"
            )
            for j, e in enumerate(cw.get(c, lkey, list)):
                ew = cw / lkey / j
                runs.append(
                    _run(
                        ew.get(e, "eval_id", (int, str)),
                        e.get("eval_name"),
                        config,
                        ew.get(e, "run_number", int, required=False),
                        e,
                        e,
                        ew,
                        ew,
                    )
                )
        return runs
    if isinstance(bench.get("evals"), list) and bench["evals"]:
        runs = []
        for i, e in enumerate(bench["evals"]):
            ew = w / "evals" / i
            eval_id = ew.get(e, "eval_id", (int, str))
            configs = [k for k, v in e.items() if isinstance(v, dict) and _looks_like_run(v)]
            if not configs:
                raise ew.fail(
                    "expected one object per configuration (e.g. with_skill, without_skill) "
                    "holding pass_rate or graded assertions"
                )
            for config in configs:
                runs.append(
                    _run(
                        eval_id,
                        e.get("eval_name"),
                        config,
                        None,
                        e[config],
                        e[config],
                        ew / config,
                        ew / config,
                    )
                )
        return runs
    return None


def _looks_like_run(v: dict[str, Any]) -> bool:
    return (
        "pass_rate" in v
        or "assertions_total" in v
        or any(isinstance(v.get(k), list) for k in _ASSERTION_LISTS)
    )


def _run(
    eval_id: Any,
    eval_name: Any,
    config: str,
    run_number: int | None,
    result: dict[str, Any],
    record: dict[str, Any],
    rw: Where,
    resw: Where,
) -> dict[str, Any]:
    if isinstance(eval_id, bool) or not isinstance(eval_id, (int, str)) or eval_id == "":
        raise (rw / "eval_id").fail("expected the case's eval_id (an integer or a string)")
    score, lost, note = _score(result, record, resw, rw)
    fired = record.get("skill_loaded", result.get("skill_loaded"))
    if fired is not None and not isinstance(fired, bool):
        raise (rw / "skill_loaded").fail("expected true, false or null")
    tokens = None
    ins, outs = record.get("input_tokens"), record.get("output_tokens")
    if all(_count(x) for x in (ins, outs)):
        tokens = {"input": ins, "output": outs, "counted_by": "source"}
    total = (
        result.get("tokens") if _count(result.get("tokens")) else None
    )  # benchmark.json runs[].result.tokens
    if total is not None:
        tokens = {
            **(tokens or {"input": None, "output": None, "counted_by": "source"}),
            "total": total,
        }
    model = (
        record.get("model")
        if isinstance(record.get("model"), str) and record["model"].strip()
        else None
    )
    return {
        "eval": str(eval_id),
        "name": eval_name if isinstance(eval_name, str) else None,
        "config": config,
        "run_number": run_number,
        "score": score,
        "lost": lost,
        "skill_fired": fired,
        "where": rw,
        "tokens": tokens,
        "model": model,
        "note": note,
    }


def _count(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _timing_total(grading: Path) -> tuple[int | None, tuple[str, str] | None]:
    """``total_tokens`` of the ``timing.json`` beside a ``grading.json`` (skill-creator writes it
    from the task notification, "the only opportunity"), and its manifest entry; ``(None, None)``
    when there is no such file, ``(None, entry)`` when it records no total (a null)."""
    timing = grading.parent / "timing.json"
    if not timing.is_file():
        return None, None
    data, raw = read_json(timing)
    w = Where(timing)
    total = w.get(data, "total_tokens", int, required=False, nullable=True)
    if total is not None and total < 0:
        raise (w / "total_tokens").fail(f"expected a token count of 0 or more, found {total}")
    return total, (timing.name, file_sha256(raw))


#: A declared pass rate and the counted assertions agree when they differ by at most this
#: (a pass rate printed to three decimals, e.g. 0.833 for 5 of 6).
_AGREE = 0.005


def _score(
    result: dict[str, Any], record: dict[str, Any], resw: Where, rw: Where
) -> tuple[float | None, str | None, str | None]:
    """(score, lost reason, note) of one run.

    The graded assertions are the evidence: ``expectations``, ``assertions`` and
    ``assertion_results`` (any of them, together when several are given) are counted. A declared
    ``pass_rate`` (the run's own or its ``summary``'s) that agrees with the count within 0.005
    is kept as recorded; one that disagrees does not silently win: the counted assertions are
    the score and the note says so (issue 14). With no assertion list, the declared pass rate,
    else ``assertions_passed`` ÷ ``assertions_total``.
    """
    summary = result.get("summary") if isinstance(result.get("summary"), dict) else None
    declared: tuple[float, str] | None = None
    for holder, hw, name in (
        (result, resw, "pass_rate"),
        (summary, resw / "summary", "summary.pass_rate"),
    ):
        if holder is not None and "pass_rate" in holder:
            if holder["pass_rate"] is None:
                if _counted(result, record, rw) is None:
                    return (
                        None,
                        _note(result, record) or "the source recorded no pass_rate for this run",
                        None,
                    )
                continue
            declared = (_pass_rate(holder, hw), name)
            break
    counted = _counted(result, record, rw)
    if counted is None:
        passed = result.get("assertions_passed", result.get("passed"))
        total = result.get("assertions_total", result.get("total"))
        if (
            isinstance(passed, int)
            and isinstance(total, int)
            and not isinstance(passed, bool)
            and total > 0
        ):
            counted = (
                unit_score(passed / total, resw),
                passed,
                total,
                "assertions_passed of assertions_total",
            )
    if declared is None and counted is None:
        raise resw.fail(
            "expected pass_rate, graded assertions (expectations, assertions or assertion_results) "
            "or assertions_passed with assertions_total"
        )
    if counted is None:
        return declared[0], None, None  # type: ignore[index]
    if declared is None:
        return counted[0], None, None
    if abs(declared[0] - counted[0]) <= _AGREE:
        return declared[0], None, None
    where = f"{rw.file}: {rw.pointer or '/'}"
    # a run's own total that the list does not reach: the list is abbreviated (benchmark.json
    # copies), so the declared pass rate stands, and the note says so; a summary never stands
    # against the list it summarises
    holder = summary if declared[1].startswith("summary") else result
    total = holder.get("total", holder.get("assertions_total")) if holder is not None else None
    if not declared[1].startswith("summary") and _count(total) and total != counted[2]:
        return (
            declared[0],
            None,
            (
                f"{where}: the {counted[3]} list holds {counted[2]} of the {total} assertions "
                f"the run counts; its {declared[1]} {declared[0]:g} is kept"
            ),
        )
    note = (
        f"{where}: {declared[1]} {declared[0]:g} disagrees with the {counted[1]} of "
        f"{counted[2]} {counted[3]} counted ({counted[0]:.3f}); the counted assertions are the score"
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
    """``pass_rate`` as recorded, on 0..1. Some harnesses record it in percent (``80`` for 4 of 5);
    it is read as a percent only when the run's own passed and total counts confirm it."""
    rate = holder["pass_rate"]
    passed = holder.get("passed", holder.get("assertions_passed"))
    total = holder.get("total", holder.get("assertions_total"))
    if (
        isinstance(rate, (int, float))
        and not isinstance(rate, bool)
        and 1 < rate <= 100
        and isinstance(passed, int)
        and isinstance(total, int)
        and not isinstance(passed, bool)
        and total > 0
        and abs(100 * passed / total - rate) <= 0.5
    ):
        return unit_score(rate / 100, w / "pass_rate")
    return unit_score(rate, w / "pass_rate")


def _note(*objs: dict[str, Any]) -> str | None:
    for o in objs:
        if isinstance(o, dict) and isinstance(o.get("note"), str) and o["note"].strip():
            return o["note"].strip()[:4000]
    return None


# -- grading.json files (canonical per-run layout) -----------------------------------


def _grading_runs(
    iteration: Path, files: list[Path]
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    runs, entries = [], []
    for f in files:
        data, raw = read_json(f)
        entries.append((f.relative_to(iteration).as_posix(), file_sha256(raw)))
        validate_source(data, TOOL, f, definition="grading")
        w = Where(f)
        parent = f.parent
        m = re.fullmatch(r"run-(\d+)", parent.name)
        run_number = int(m.group(1)) if m else None
        config_dir = parent.parent if m else parent
        eval_dir = config_dir.parent
        eval_id = _eval_id_of(eval_dir, data)
        run = _run(eval_id, data.get("eval_name"), config_dir.name, run_number, data, data, w, w)
        total, entry = _timing_total(f)
        if entry is not None:
            entries.append(((f.parent / entry[0]).relative_to(iteration).as_posix(), entry[1]))
        if total is not None:
            run["tokens"] = {
                **(run["tokens"] or {"input": None, "output": None, "counted_by": "source"}),
                "total": total,
            }
        runs.append(run)
    return runs, entries


def _eval_id_of(eval_dir: Path, grading: dict[str, Any]) -> Any:
    meta = eval_dir / "eval_metadata.json"
    if meta.is_file():
        data, _ = read_json(meta)
        if (
            isinstance(data, dict)
            and isinstance(data.get("eval_id"), (int, str))
            and not isinstance(data["eval_id"], bool)
        ):
            return data["eval_id"]
    if isinstance(grading.get("eval_id"), (int, str)) and not isinstance(grading["eval_id"], bool):
        return grading["eval_id"]
    m = re.match(r"eval-([A-Za-z0-9]+)", eval_dir.name)
    return m.group(1) if m else eval_dir.name


# -- cases, prompts, receipt ------------------------------------------------------


def _evals_file(iteration: Path) -> dict[str, Any] | None:
    for cand in (
        iteration / "evals.json",
        iteration.parent / "evals.json",
        iteration.parent / "evals" / "evals.json",
        iteration.parent.parent / "evals" / "evals.json",
    ):
        if cand.is_file():
            data, _ = read_json(cand)
            if isinstance(data, dict) and isinstance(data.get("evals"), list):
                return data
    return None


def _skill_name(bench: dict[str, Any] | None, evals: dict[str, Any] | None) -> str | None:
    for obj in ((bench or {}).get("metadata"), bench, evals):
        if (
            isinstance(obj, dict)
            and isinstance(obj.get("skill_name"), str)
            and obj["skill_name"].strip()
        ):
            return obj["skill_name"].strip()[:200]
    return None


def _prompts(evals: dict[str, Any] | None, iteration: Path) -> dict[str, str]:
    prompts: dict[str, str] = {}
    for e in (evals or {}).get("evals", []):
        if (
            isinstance(e, dict)
            and isinstance(e.get("prompt"), str)
            and isinstance(e.get("id"), (int, str))
        ):
            prompts[str(e["id"])] = e["prompt"]
    for meta in iteration.glob("*/eval_metadata.json"):
        data, _ = read_json(meta)
        if (
            isinstance(data, dict)
            and isinstance(data.get("prompt"), str)
            and isinstance(data.get("eval_id"), (int, str))
        ):
            prompts.setdefault(str(data["eval_id"]), data["prompt"])
    return prompts


def _receipt(
    runs: list[dict[str, Any]],
    bench: dict[str, Any] | None,
    evals: dict[str, Any] | None,
    iteration: Path,
    config_to_arm: dict[str, str],
    name: str,
    skill_text: str | None,
    document: str,
    doc_sha: str,
) -> dict[str, Any]:
    prompts = _prompts(evals, iteration)
    use_control = "control" in config_to_arm.values()
    cases: dict[str, dict[str, Any]] = {}
    for r in runs:
        arm = config_to_arm.get(r["config"])
        if arm is None:
            known = ", ".join(f"{a}={c}" for c, a in sorted(config_to_arm.items()))
            raise r["where"].fail(
                f"configuration {r['config']!r} is not mapped to an arm (mapped: {known}); "
                "map it explicitly, e.g. with_skill=new_skill baseline=old_skill"
            )
        case = cases.setdefault(
            r["eval"], {"arms": {a: [] for a in ("with_skill", "baseline", "control")}}
        )
        case["arms"][arm].append(r)
    meta = (bench or {}).get("metadata") if isinstance((bench or {}).get("metadata"), dict) else {}
    planned = meta.get("runs_per_configuration")
    counts = {
        len(rs)
        for c in cases.values()
        for a, rs in c["arms"].items()
        if a != "control" or use_control
    }
    unrecorded = [
        "judge.model (the grader's model is not recorded)",
        "judge_samples_per_generation",
        "run.provider",
        "run.surface",
        "run.harness",
        "each case's rubric_sha256",
        "draw answers (the source keeps outputs as files, not in the results)",
    ]
    gens = None
    if isinstance(planned, int) and not isinstance(planned, bool) and planned >= 1:
        if counts == {planned}:
            gens = planned
        else:
            unrecorded.append(
                f"generations_per_arm: runs_per_configuration says {planned}, the runs recorded differ"
            )
    else:
        unrecorded.append("generations_per_arm (not stated by the source)")
    model = meta.get("executor_model") if isinstance(meta.get("executor_model"), str) else None
    run_models = {r["model"] for r in runs}
    if model is None and len(run_models) == 1:
        model = next(iter(run_models))  # every run records the same model
    if model is not None and (model.startswith("<") or not model.strip()):
        model = None  # the aggregator's placeholder "<model-name>" is not a model id
    if model is None:
        unrecorded.append("run.model (executor_model absent or a placeholder)")
    if skill_text is None:
        unrecorded.append("skill.sha256 and skill.tokens (SKILL.md not given)")
    if not any(r["tokens"] for r in runs):
        unrecorded.append(
            "draw tokens (no timing.json total_tokens and no input and output counts)"
        )
    elif not any(r["tokens"] and r["tokens"].get("input") is not None for r in runs):
        unrecorded.append(
            "input and output tokens per draw (the source records a total only: tokens.total)"
        )
    started = (
        meta.get("timestamp")
        if isinstance(meta.get("timestamp"), str) and _RFC3339.match(meta["timestamp"])
        else None
    )
    case_docs = []
    for key, c in cases.items():
        prompt = prompts.get(key)
        arms_doc = {}
        for arm in ("with_skill", "baseline", "control"):
            if arm == "control" and not use_control:
                continue
            arms_doc[arm] = {"draws": _draws(c["arms"][arm]), "generation": None}
        case_docs.append(
            {
                "id": case_id_for(key),
                "prompt": prompt,
                "prompt_sha256": sha256_text(prompt) if prompt is not None else None,
                "rubric_sha256": None,
                "threshold": None,
                "arms": arms_doc,
            }
        )
    arm_specs = {
        a: {
            "label": next((c for c, x in config_to_arm.items() if x == a), None),
            "instruction": None,
            "system_prompt_sha256": None,
        }
        for a in ("with_skill", "baseline", "control")
        if a != "control" or use_control
    }
    # an arm no run measured was not recorded (a single configuration): no baseline is invented
    # (skill-creator's aggregator does; INTEROP-NOTES §2, pitfall 3)
    for a in ("with_skill", "baseline"):
        if not any(c["arms"][a] for c in cases.values()):
            arm_specs[a]["recorded"] = False
            unrecorded.append(
                f"the {a} arm (no run of its configuration: a single-arm import, no lift)"
            )
    # Several runs per configuration give generation bands; one run with one grading pass gives
    # no spread at all, so no band source is claimed (method, "Where a band comes from").
    several = any(len(a["draws"]) > 1 for c in case_docs for a in c["arms"].values())
    doc = receipt_doc(
        level="DECLARED",
        skill_name=name,
        skill_text=skill_text,
        cases=case_docs,
        model=model,
        started_at=started,
        generations_per_arm=gens,
        judge=unrecorded_judge(TOOL, "grader"),
        arms=arm_specs,
        band_source="generation" if several else None,
        provenance=provenance_doc(
            TOOL,
            None,
            document,
            doc_sha,
            ["provenance.tool_version (skill-creator records none)"] + unrecorded,
        ),
    )
    notes = [r["note"][:2000] for r in runs if r.get("note")]
    if notes:
        doc["provenance"]["notes"] = notes[:200]
    return doc


def _draws(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    draws, seen = [], set()
    for pos, r in enumerate(runs):
        index = (
            r["run_number"] - 1
            if isinstance(r["run_number"], int) and r["run_number"] >= 1
            else pos
        )
        if index in seen:
            raise r["where"].fail(
                f"expected one run per run_number; run {index + 1} of this case and "
                "configuration appears twice"
            )
        seen.add(index)
        draws.append(
            draw_doc(
                index,
                score=r["score"],
                lost_reason=r["lost"],
                skill_fired=r["skill_fired"],
                tokens=r["tokens"],
            )
        )
    return sorted(draws, key=lambda d: d["index"])


# -- aggregates only (run_summary with no per-run data) ---------------------------------


def _aggregates_only(
    bench: dict[str, Any], path: Path, raw: bytes, name: str, skill_text: str | None
) -> dict[str, Any]:
    w = Where(path) / "run_summary"
    summary = bench["run_summary"]
    delta = summary.get("delta")
    if delta is not None:
        if not isinstance(delta, dict):
            raise (w / "delta").fail("expected an object of deltas")
        for k, v in delta.items():
            _signed(v, w / "delta" / k)
    figures = {
        "source": TOOL,
        "file": path.name,
        "git_blob_sha1": git_blob_sha1(raw),
        "sha256": file_sha256(raw),
        "run_summary": summary,
    }
    unrecorded = [
        "cases (only run_summary aggregates were recorded)",
        "per-run scores",
        "judge",
        "generations_per_arm",
        "judge_samples_per_generation",
        "run.model",
        "run.harness",
    ]
    return receipt_doc(
        level="DECLARED",
        skill_name=name,
        skill_text=skill_text,
        cases=[],
        judge=None,
        source_figures=figures,
        uncertainty_unavailable="aggregates_only",
        provenance=provenance_doc(TOOL, None, str(path), file_sha256(raw), unrecorded),
    )


def _signed(value: Any, w: Where) -> float:
    """A delta printed as a number (``0.5``) or a signed string (``"+0.50"``); kept as printed."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([+\-−±]?)\s*(\d+(?:\.\d+)?)\s*", value)
        if m:
            sign = -1.0 if m.group(1) in ("-", "−") else 1.0
            return sign * float(m.group(2))
    raise w.fail('expected a delta as a number or a signed number string such as "+0.50"')


@register("skill-creator")
def skill_creator_importer(source: Path | list[Path], **options: Any) -> list[Imported]:
    """Registry entry: :func:`import_skill_creator` with receipt file names
    ``skill-creator-<skill>-<iteration directory>-<document sha256[:8]>.json``."""
    paths = [Path(p) for p in source] if isinstance(source, (list, tuple)) else [Path(source)]
    out = []
    for doc in import_skill_creator(paths, **options):
        where = Path(doc["provenance"]["document"])
        label = where.parent.name if where.suffix == ".json" else where.name
        out.append(
            Imported(
                safe_filename(
                    TOOL, doc["skill"]["name"], label, doc["provenance"]["document_sha256"][:8]
                ),
                doc,
            )
        )
    return out
