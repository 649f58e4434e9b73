"""skill-creator / agentskills.io workspace iterations → DECLARED receipts (D-15).

A ``run_summary`` alone gives an aggregates-only receipt; an arm no run measured is not
recorded. The mapping is the interop page's ("skill-creator and agentskills.io workspaces").
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof._json import member_object
from driftproof.errors import ImportError_
from driftproof.importers import Imported, register
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._common import OPTIONS, Where
from driftproof.importers._schema import validate_source
from driftproof.importers._skill_creator_read import (
    TOOL,
    benchmark_runs,
    evals_file,
    grading_files,
    grading_runs,
    iteration_of,
    present,
    prompts_of,
    skill_name_of,
)
from driftproof.importers._skill_creator_summary import check_run_summary
from driftproof.importers._text import Repair
from driftproof.receipt import Draw, ReceiptBody, SourceFigures, build_draw

#: configuration name -> receipt arm, used when no explicit mapping is given.
DEFAULT_ARMS: dict[str, str] = {
    "with_skill": "with_skill",
    "without_skill": "baseline",
    "baseline": "baseline",
}
#: The top-level members of benchmark.json that hold results: runs[] and run_summary
#: (skill-creator's schemas.md, the agentskills.io page), evals[] (a real workspace's drift)
#: and configurations[]/configs[] (the drift shape skill-creator's own issues report).
BENCHMARK_MEMBERS = ("runs", "run_summary", "evals", "configurations", "configs")
_UNRECORDED = (
    "judge.model (the grader's model is not recorded)",
    "judge_samples_per_generation",
    "run.provider",
    "run.surface",
    "run.harness",
    "each case's rubric_sha256",
    "draw answers (the source keeps outputs as files, not in the results)",
)


@dataclass(frozen=True)
class SkillCreatorOptions:
    """Options of a skill-creator import.

    Attributes:
        skill_md: the SKILL.md measured, hashed and counted (D-14); unknown when omitted.
        arms: receipt arm -> configuration name, replacing :data:`DEFAULT_ARMS`.
        skill_name: the skill's name when neither ``benchmark.json`` nor ``evals.json`` names it.
    """

    skill_md: Path | None = None
    arms: dict[str, str] | None = None
    skill_name: str | None = None


@register(TOOL, SkillCreatorOptions)
def import_skill_creator(
    paths: Path | list[Path], options: SkillCreatorOptions | None = None
) -> list[Imported]:
    """Convert skill-creator iterations into DECLARED receipts, one per iteration.

    ``paths`` are iteration directories, workspaces holding them, or ``benchmark.json`` files.
    A file is read alone (never replaced by the grading.json files of its folder); a folder's
    grading.json files are read only when they all belong to one iteration; that iteration's
    folder, when below the one given and holding a benchmark.json, is read as if given. A
    folder is read only when every benchmark.json and grading.json below it is its iterations'.

    Raises:
        ImportError_: a file is unreadable or malformed, or a configuration is not mapped,
            naming the file, the JSON pointer and what was expected; a folder holding results
            files its iterations leave unread, naming them, or a link to a folder holding one
            (links inside a linked folder are not followed; a benchmark.json stands for its
            grading.json files).
    """
    o = options or SkillCreatorOptions()
    config_to_arm = _config_map(o.arms)
    skill_text = common.read_skill_md(o.skill_md)
    out = []
    for path in paths if isinstance(paths, (list, tuple)) else [paths]:
        for iteration in _iterations(Path(path)):
            repairs: list[Repair] = []
            body = _import_iteration(iteration, config_to_arm, skill_text, o.skill_name, repairs)
            assert body.provenance is not None
            where = Path(body.provenance.document)
            label = where.parent.name if where.suffix == ".json" else where.name
            out.append(Imported.named(TOOL, body, label, repairs=repairs))
    return out


def _config_map(arms: dict[str, str] | None) -> dict[str, str]:
    if not arms:
        return dict(DEFAULT_ARMS)
    out: dict[str, str] = {}
    for arm, config in arms.items():
        if arm not in ("with_skill", "baseline", "control"):
            raise OPTIONS.fail(
                f"expected an arm name with_skill, baseline or control, found {arm!r}"
            )
        out[config] = arm
    if "with_skill" not in out.values() and "baseline" not in out.values():
        raise OPTIONS.fail(
            "an arm mapping must name with_skill, baseline or both "
            "(one alone is a single-arm import)"
        )
    return out


def _iterations(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise Where(path).fail(
            "expected a skill-creator iteration directory or a benchmark.json file"
        )
    if present(path / "benchmark.json"):
        its = [path]
    elif found := sorted(
        p
        for p in [*path.glob("iteration-*"), *path.glob("*/iteration-*")]
        if p.is_dir() or not p.exists()
    ):
        if gone := [p for p in found if not p.exists()]:  # never left out without a word
            raise Where(gone[0]).fail("expected a folder, found a link that leads to no folder")
        its = found
    elif files := grading_files(path):  # one iteration's files, never its benchmark.json unread
        root = iteration_of(files[0])  # its own benchmark.json only: one above is another's
        its = [root if path in root.parents and present(root / "benchmark.json") else path]
    else:
        raise Where(path).fail(
            "expected benchmark.json, eval-*/<configuration>/grading.json files, "
            "or iteration-*/ directories holding them"
        )
    # every results file below the folder is its iteration's (a benchmark.json stands for the
    # grading.json files beside it), else refused: none is left unread without a word
    # by where it leads: a link to a folder read (a ``latest`` iteration, say) leaves none unread
    read = {
        os.path.realpath(f)
        for i in its
        for f in (i / "benchmark.json", i / "grading.json", *grading_files(i))
    }
    names = ("benchmark.json", "grading.json")
    below = [Path(top) / n for top, ds, fs in os.walk(path) for n in (*ds, *fs)]  # links too
    # a link to a folder is walked too (links in it are not); a benchmark.json stands for its
    # own iteration's grading.json files (an eval folder that is a link, say)
    stood = {i for i in its if (i / "benchmark.json").is_file()}
    linked = [f for f in below if f.is_symlink() and f.is_dir()]
    below += [Path(top) / n for f in linked for top, ds, fs in os.walk(f) for n in (*ds, *fs)]
    held = {f for f in below if f.name == "grading.json" and iteration_of(f) in stood}
    if unread := sorted(
        f for f in below if f.name in names and os.path.realpath(f) not in read and f not in held
    ):
        more = f" and {len(unread) - 5} more" if len(unread) > 5 else ""
        raise Where(path).fail(
            "expected every benchmark.json and grading.json below this folder to be read; "
            f"these would be left unread: {', '.join(map(str, unread[:5]))}{more}: give each "
            "one's iteration folder (the folder holding its benchmark.json or eval-*/) on its own"
        )
    return its


def _import_iteration(
    path: Path,
    config_to_arm: dict[str, str],
    skill_text: str | None,
    skill_name: str | None,
    repairs: list[Repair],
) -> ReceiptBody:
    """One iteration's receipt: per-run results, or the run summary alone."""
    given = path.is_file()  # a file given is read alone, never replaced by its folder's files
    bench_path = path if given else path / "benchmark.json"
    iteration = bench_path.parent
    bench: dict[str, Any] | None = None
    raw = b""
    if present(bench_path):
        bench, raw = common.read_json(bench_path, repairs)
        validate_source(bench, TOOL, bench_path)  # the shape of every member walked below
        if given:
            _benchmark_members(bench, bench_path)
    runs = benchmark_runs(bench, Where(bench_path)) if bench is not None else None
    source = (str(bench_path), common.file_sha256(raw))
    if runs is None and not given and (gradings := grading_files(iteration)):
        runs, entries = grading_runs(iteration, gradings, repairs)
        source = (str(iteration), common.manifest_sha256(entries))
    evals, evals_path = evals_file(iteration, repairs)
    name = skill_name or skill_name_of(bench, bench_path, evals, evals_path)
    if name is None:  # named at what was read: a folder without benchmark.json names the folder
        at, looked = Where(bench_path), "in benchmark.json metadata or evals.json"
        if bench is None:
            at, looked = Where(iteration), "in an evals.json beside or above this folder"
        raise at.fail(
            f"expected skill_name ({looked}); none found: give the skill's name with --skill-name"
        )
    if runs is None:
        if bench is not None and bench.get("runs") == [] and "run_summary" in bench:
            raise (Where(bench_path) / "runs").fail(
                "expected at least one run; runs[] is empty, so run_summary measured nothing "
                "(skill-creator's aggregate_benchmark.py writes zeros when it finds no "
                "grading.json): aggregate again where the grading.json files are, or give "
                "the folder holding eval-*/<configuration>/grading.json"
            )
        if bench is not None and isinstance(bench.get("run_summary"), dict):
            if config_to_arm != DEFAULT_ARMS:  # nothing to map: said, not dropped in silence
                raise OPTIONS.fail(
                    f"--arm maps the configurations of per-run results; {bench_path} holds only "
                    "run_summary, whose figures are kept as printed: leave --arm out"
                )
            return _aggregates_only(bench, bench_path, raw, name)
        if given:
            raise Where(bench_path).fail(
                "expected per-run results (runs[], evals[] or configurations[] holding a run) "
                "or run_summary; a file given is read alone: to read the grading.json files "
                "under eval-*/<configuration>/, give their iteration's folder"
            )
        raise Where(bench_path).fail(
            "expected per-run results: runs[], evals[] or configurations[] in "
            "benchmark.json, or grading.json files under eval-*/<configuration>/"
        )
    prompts = prompts_of(evals, iteration, repairs)
    meta = member_object(bench, "metadata")
    (Where(bench_path) / "metadata").number(meta, "runs_per_configuration", low=1, count=True)
    common.stated(meta.get("executor_model"), Where(bench_path) / "metadata" / "executor_model")
    return _receipt(runs, meta, prompts, config_to_arm, name, skill_text, source)


def _benchmark_members(bench: dict[str, Any], path: Path) -> None:
    """Refuse a file given as ``benchmark.json`` holding none of :data:`BENCHMARK_MEMBERS`."""
    if any(k in bench for k in BENCHMARK_MEMBERS):
        return
    found = ", ".join(repr(k) for k in list(bench)[:6]) or "no member at all"
    more = ", …" if len(bench) > 6 else ""
    grading = "; a grading.json is read from its iteration's folder: give that folder"
    raise Where(path).fail(
        "expected skill-creator's benchmark.json: an object holding runs[], evals[], "
        "configurations[] (or configs[]) or run_summary; found none of them at the top "
        f"(found {found}{more})" + (grading if path.name == "grading.json" else "")
    )


def _receipt(
    runs: list[dict[str, Any]],
    meta: dict[str, Any],
    prompts: dict[str, str],
    config_to_arm: dict[str, str],
    name: str,
    skill_text: str | None,
    source: tuple[str, str],
) -> ReceiptBody:
    """The receipt of the runs, each mapped to its arm; ``source``: (document, its sha256)."""
    held = ("with_skill", "baseline", "control")[: 3 if "control" in config_to_arm.values() else 2]
    cases = _grouped(runs, config_to_arm)
    counts = {len(arms[a]) for arms in cases.values() for a in held}
    gens, model, unrecorded = _run(meta, runs, counts)
    if skill_text is None:
        unrecorded.append("skill.sha256 and skill.tokens (SKILL.md not given)")
    if not any(r["tokens"] for r in runs):
        unrecorded.append(
            "draw tokens (runs[].result.tokens is skill-creator's pick, unsaid which: timing.json "
            "total_tokens, else the output's characters, else 0 for none)"
            if any(r.get("tokens_unsaid") for r in runs)
            else "draw tokens (no timing.json total_tokens and no input and output counts)"
        )
    elif not any(r["tokens"] and r["tokens"].get("input") is not None for r in runs):
        unrecorded.append(
            "input and output tokens per draw (the source records a total only: tokens.total)"
        )
    stamp = meta.get("timestamp")
    started = stamp if isinstance(stamp, str) else None
    try:
        common.utc_instant(started, Where(""))  # only to know it is an RFC 3339 date-time
    except ImportError_:
        started = None
    if started is None:  # named, in the source's words, never dropped (D-13)
        bad = f"metadata.timestamp {stamp!r:.80} is not an RFC 3339 date-time"
        unrecorded.append(f"run.started_at ({'no metadata.timestamp' if stamp is None else bad})")
    # an arm no run measured was not recorded (a single configuration): no baseline is invented
    # (skill-creator's aggregator does; INTEROP-NOTES §2, pitfall 3)
    measured = {a for a in ("with_skill", "baseline") if any(arms[a] for arms in cases.values())}
    # each arm's label: the first configuration the runs hold for it, in the source's words;
    # else the first configuration mapped to it
    labels = {a: c for c, a in reversed(config_to_arm.items())}
    for r in reversed(runs):  # every run's configuration is mapped (_grouped refused others)
        labels[config_to_arm[r["config"]]] = r["config"]
    arm_specs = {
        a: declared.arm_spec(labels.get(a), recorded=a in measured or a == "control") for a in held
    }
    for a in ("with_skill", "baseline"):
        if a not in measured:
            unrecorded.append(
                f"the {a} arm (no run of its configuration: a single-arm import, no lift)"
            )
    # Several runs per configuration give generation bands; one run with one grading pass gives
    # no spread at all, so no band source is claimed (method, "Where a band comes from").
    several = any(len(arms[a]) > 1 for arms in cases.values() for a in held)
    notes = [r["note"][:2000] for r in runs if r.get("note")]
    return declared.declared_receipt(
        name,
        skill_text,
        [
            declared.case_entry(
                common.case_id_for(key), prompts.get(key), {a: arms[a] for a in held}
            )
            for key, arms in cases.items()
        ],
        declared.provenance(
            TOOL,
            None,
            *source,
            ["provenance.tool_version (skill-creator records none)"] + unrecorded,
            notes=notes,
        ),
        model=model,
        started_at=started,
        generations_per_arm=gens,
        judge=declared.unrecorded_judge(TOOL, "grader"),
        arms=arm_specs,
        band_source="generation" if several else None,
    )


def _grouped(
    runs: list[dict[str, Any]], config_to_arm: dict[str, str]
) -> dict[str, dict[str, list[Draw]]]:
    """Each eval's draws per arm (once every run's configuration is known to map to an arm)."""
    cases: dict[str, dict[str, list[dict[str, Any]]]] = {}
    held: dict[str, dict[str, Any]] = {}  # arm -> its first run
    for r in runs:
        arm = config_to_arm.get(r["config"])
        if arm is None:
            known = ", ".join(f"{a}={c}" for c, a in sorted(config_to_arm.items()))
            raise r["where"].fail(
                f"configuration {r['config']!r} is not mapped to an arm (mapped: {known}); "
                "map it explicitly, e.g. with_skill=new_skill baseline=old_skill"
            )
        first = held.setdefault(arm, r)
        if first["config"] != r["config"]:  # two configurations in one arm would be one mean
            raise r["where"].fail(
                f"configuration {r['config']!r} maps to the {arm} arm, which already holds the "
                f"runs of {first['config']!r} (at {first['where'].pointer or '/'}); map each "
                "configuration to an arm of its own, e.g. control=" + r["config"]
            )
        cases.setdefault(r["eval"], {a: [] for a in ("with_skill", "baseline", "control")})
        cases[r["eval"]][arm].append(r)
    return {key: {a: _draws(rs) for a, rs in arms.items()} for key, arms in cases.items()}


def _run(
    meta: dict[str, Any], runs: list[dict[str, Any]], counts: set[int]
) -> tuple[int | None, str | None, list[str]]:
    """Generations per arm (when planned runs were all recorded), the model, what is unrecorded."""
    unrecorded = list(_UNRECORDED)
    planned = meta.get("runs_per_configuration")
    gens = None
    if common.is_count(planned) and planned >= 1:
        if counts == {planned}:
            gens = planned
        else:
            unrecorded.append(
                f"generations_per_arm: runs_per_configuration says {planned}, "
                "the runs recorded differ"
            )
    else:
        unrecorded.append("generations_per_arm (not stated by the source)")
    model = m if common.is_name(m := meta.get("executor_model")) else None
    if model is None:
        model = common.sole(r["model"] for r in runs)  # every run records the same model
    if model is not None and model.startswith("<"):
        model = None  # the aggregator's placeholder "<model-name>" is not a model id
    if model is None:
        unrecorded.append("run.model (executor_model absent or a placeholder)")
    return gens, model, unrecorded


def _draws(runs: list[dict[str, Any]]) -> list[Draw]:
    """One arm's runs as draws, indexed by ``run_number`` (else their order)."""
    draws, seen = [], set()
    for pos, r in enumerate(runs):
        number = r["run_number"]
        index = number - 1 if isinstance(number, int) and number >= 1 else pos
        if index in seen:
            raise r["where"].fail(
                f"expected one run per run_number; run {index + 1} of this case and "
                "configuration appears twice"
            )
        seen.add(index)
        fired, tokens = r["skill_fired"], r["tokens"]
        draws.append(
            build_draw(
                index, score=r["score"], lost_reason=r["lost"], skill_fired=fired, tokens=tokens
            )
        )
    return sorted(draws, key=lambda d: d.index)


def _aggregates_only(bench: dict[str, Any], path: Path, raw: bytes, name: str) -> ReceiptBody:
    """The aggregates-only receipt of a ``run_summary`` with no per-run data."""
    w = Where(path) / "run_summary"
    summary = bench["run_summary"]
    common.sealable(summary, w)
    check_run_summary(summary, w)
    figures = SourceFigures(
        source=TOOL,
        file=path.name,
        git_blob_sha1=common.git_blob_sha1(raw),
        sha256=common.file_sha256(raw),
        run_summary=summary,
    )
    unrecorded = [
        "cases (only run_summary aggregates were recorded)",
        "per-run scores",
        "judge",
        "generations_per_arm",
        "judge_samples_per_generation",
        "run.model",
        "run.harness",
    ]
    return declared.aggregates_receipt(
        name,
        figures,
        declared.provenance(TOOL, None, str(path), common.file_sha256(raw), unrecorded),
    )
