"""NVIDIA skill benchmark cards and catalogue → aggregates-only receipts (D-15).

The figures are kept exactly as printed (method, "Figures a source printed give no verdict"):
no cases, judge, band, lift or verdict. The mapping and card grammars are the interop page's.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from driftproof._json import decode_utf8
from driftproof.importers import Imported, register
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._common import Where
from driftproof.importers._nvidia_card import PROVENANCE, VERDICTS, no_results, parse_card
from driftproof.importers._nvidia_sections import CONTROL, MAX_AGENTS
from driftproof.importers._schema import validate_source
from driftproof.importers._text import Repair
from driftproof.receipt import ReceiptBody, SourceFigures


def _repo_path(path: Path, repo_root: Path | None) -> str:
    """``path`` in the repository: below ``repo_root``, else from its ``skills/`` folder or name.

    Below ``repo_root``: ``path`` as written (absolute, ``..`` taken away, links not followed) is
    below a folder with ``repo_root``'s real path (a file reached through a link inside it is where
    the link is) when that names the file the system opens (a ``..`` after a link goes up from
    the link's target), or its real path is below that; its path there is what follows.

    Raises:
        ImportError_: ``path`` is not below a given ``repo_root`` (its path there is unknown).
    """
    if repo_root is not None:
        named, root = Path(os.path.abspath(path)), os.path.realpath(repo_root)
        real = Path(os.path.realpath(path))
        written = named.parents if os.path.realpath(named) == str(real) else ()
        for folder in reversed(written):  # the outermost first: the most of the name kept
            if os.path.realpath(folder) == root:
                return named.relative_to(folder).as_posix()
        if real.is_relative_to(root):
            return real.relative_to(root).as_posix()
        raise Where(path).fail(
            f"expected a file inside --repo-root {repo_root}, whose path in the repository "
            "is recorded from it; it is outside"
        )
    parts = path.parts
    if "skills" in parts[:-1]:
        i = len(parts) - 1 - parts[::-1].index("skills")
        return "/".join(parts[i:])
    return path.name


@dataclass(frozen=True)
class NvidiaOptions:
    """Options of an NVIDIA import.

    Attributes:
        repository: the repository the files were read from; unknown when omitted.
        commit: the commit they were read at; unknown when omitted.
        repo_root: the checkout's root, to record each file's path in the repository.
        skills: import only these ``catalog_dir`` names from ``benchmarks.json``.
    """

    repository: str | None = None
    commit: str | None = None
    repo_root: Path | None = None
    skills: list[str] | None = None


@register("nvidia", NvidiaOptions)
def import_nvidia(paths: Path | list[Path], options: NvidiaOptions | None = None) -> list[Imported]:
    """Convert NVIDIA benchmark cards or the catalogue into aggregates-only receipts (D-15).

    ``paths`` are card files, ``benchmarks.json`` files, or directories (:func:`folder_files`);
    one receipt per skill, ``nvidia-[<commit[:7]>-]<skill>[-card].json``.

    Raises:
        ImportError_: malformed JSON, a catalogue member of the wrong type, an unknown card
            cell grammar, naming file and place, or a card with more figures than a receipt
            holds (``declared.MAX_FIGURES``).
    """
    o = options or NvidiaOptions()
    out: list[Imported] = []
    skipped: list[tuple[Path, str]] = []  # a folder's cards with no results: (card, why)
    for p in paths if isinstance(paths, (list, tuple)) else [paths]:
        p = Path(p)
        for f in folder_files(p) if p.is_dir() else [p]:
            if f.suffix.lower() == ".json":
                repairs: list[Repair] = []
                bodies = _from_catalogue(f, o, repairs)
                out.extend(_named(b, "", repairs) for b in bodies)
            elif (body := _from_card(f, o, skipped if p.is_dir() else None)) is not None:
                out.append(_named(body, "card", []))
    if skipped and not out:
        raise Where(skipped[0][0]).fail(skipped[0][1])
    said = "a skill without results, as NVIDIA's catalogue marks it (has_results false)"
    notices = tuple(f"skipped {f}, {said}: {why}" for f, why in skipped)
    return [replace(out[0], notices=notices), *out[1:]] if notices else out


def folder_files(p: Path) -> list[Path]:
    """The files a directory ``p`` given to the importer is read as, none skipped in silence.

    Its ``BENCHMARK.md``; else each ``skills/*/BENCHMARK.md`` (NVIDIA/skills' root); else each
    ``*/BENCHMARK.md`` (a folder of skill folders, as ``skills/`` or SkillEvaluator's output);
    and the ``benchmarks.json`` beside them.

    Raises:
        ImportError_: ``p`` holds none of them.
    """
    files = [p / "BENCHMARK.md"]
    for pattern in ("skills/*", "*"):  # the first kind of card found
        if not common.to_read(files[0]):
            files = [d / "BENCHMARK.md" for d in sorted(p.glob(pattern))] or files
            files = [f for f in files if common.to_read(f)] or [p / "BENCHMARK.md"]
    files = [f for f in [*files, p / "benchmarks.json"] if common.to_read(f)]
    if not files:
        raise Where(p).fail(
            "expected BENCHMARK.md, skills/*/BENCHMARK.md, */BENCHMARK.md or benchmarks.json in "
            "this directory"
        )
    return files


def _named(body: ReceiptBody, kind: str, repairs: list[Repair]) -> Imported:
    """``body`` filed as ``nvidia-[<commit[:7]>-]<skill>[-<kind>].json``."""
    commit = (body.source_figures and body.source_figures.commit or "")[:7]
    return Imported(
        common.safe_filename("nvidia", commit, body.skill.name, kind), body, tuple(repairs)
    )


_UNPRINTED = {
    "source_revision": "the evaluated source revision",
    "evaluator_digest": "the evaluator container digest",
    "evaluator_version": "provenance.tool_version",
    "evaluation_date": "the evaluation date",
    "dataset_digest": "the dataset digest",
    "environment": "the environment",
    "agents_inline": "the agents",
}
_UNRECORDED = (
    "cases (the source prints counts only, no case ids)",
    "per-run scores",
    "judge",
    "judge_samples_per_generation",
    "run.model",
    "run.harness (one receipt covers every agent; agents are in source_figures)",
    "skill.sha256 and skill.tokens",
)


def _receipt(
    f: Path, data: bytes, o: NvidiaOptions, head: dict[str, Any], path: str, **figures: Any
) -> ReceiptBody:
    """One skill's aggregates-only receipt; ``head`` holds the skill name, tool and unrecorded."""
    name, tool, lacking, report = head.pop("name"), head.pop("tool"), head.pop("lacking"), {}
    notes = head.pop("notes", None) or None
    if "report" in head:
        report = {"source_report": head.pop("report")}
    given = (("repository", o.repository), ("commit", o.commit))
    unrecorded = [*_UNRECORDED, *(f"source_figures.{k} (not given)" for k, v in given if v is None)]
    files = [{"path": path, "git_blob_sha1": common.git_blob_sha1(data)}]
    figures = {**head, "repository": o.repository, "commit": o.commit, "files": files, **figures}
    version, attempts = (
        figures["summary"].get(k) for k in ("evaluator_version", "attempts_per_task")
    )
    if version is not None and not common.is_name(version):
        version, lacking = None, [*lacking, "provenance.tool_version (the version given is blank)"]
    return declared.aggregates_receipt(
        str(name)[:200],
        SourceFigures.model_validate(figures),
        declared.provenance(
            tool, version, str(f), common.file_sha256(data), [*unrecorded, *lacking], notes=notes
        ),
        generations_per_arm=attempts if common.is_count(attempts) and attempts >= 1 else None,
        **report,
    )


def _from_card(
    f: Path, o: NvidiaOptions, skipped: list[tuple[Path, str]] | None = None
) -> ReceiptBody | None:
    """The receipt of one benchmark card.

    ``None`` for a card with no results, added to ``skipped`` with why when ``skipped`` is
    given; else such a card is refused.
    """
    data = common.read_bytes(f)
    text = decode_utf8(data, "Markdown", Where(f).fail, bom=True)
    card = parse_card(text, str(f))
    summary = card["summary"]
    name = summary.get("skill") or (f.name in ("BENCHMARK.md", "skill-card.md") and f.parent.name)
    if not name:
        raise Where(f).fail("expected a '- Skill: <name>' line naming the skill")
    if len(name) > 200:  # a folder's name (the card's own line is held to it as it is read)
        raise Where(f).fail(
            "expected a '- Skill: <name>' line naming the skill, or a folder name of at most 200 "
            f"characters to name it by, found {len(name):,}"
        )
    if (empty := no_results(card)) is not None:
        if skipped is None:
            raise Where(f).fail(empty)
        skipped.append((f, empty))
        return None
    tool = "SkillEvaluator" if "evaluator_version" in summary else "NVSkills-Eval"
    lacking = []
    if "evaluator_version" not in summary:
        lacking.append("provenance.tool_version (the card prints no evaluator version)")
    for key, what in _UNPRINTED.items():
        if key in summary and summary[key] is None:
            lacking.append(f"{what} (the card: {summary[f'{key}_printed']})")
    report = card_report(card)
    declared.bounded_figures(report["figures"], Where(f))
    head = {"name": name, "tool": tool, "lacking": lacking, "report": report}
    head["notes"] = [
        *(f"The card says: {said}" for said in card["said"]),
        *(
            f"The card's table on line {n}, headed {first!r}, was not imported"
            for n, first in card["unread"]
        ),
        *(
            f"The card's line {n}{f', under {h!r}' if h else ''}: {text}"
            for n, h, text in card["kept"]
        ),
    ]
    head |= {"source": "nvidia-benchmark-card", "card_format": card["format"]}
    path = _repo_path(f, o.repo_root)
    return _receipt(
        f, data, o, head, path, summary=summary, agents=card["agents"], rows=card["rows"]
    )


def card_report(card: dict[str, Any]) -> dict[str, Any]:
    """A card's figures, verdict, tiers and 0.3.0 provenance as ``source_report``.

    The uplift is the card's own, never the difference of rounded percentages
    (``36% → 67% (+32 points)`` keeps +32); a whole-number print is marked rounded.
    """
    figures = []
    for row in card["rows"]:
        label = f"{row['dimension']} ({row['agent']})"
        for arm, part in (("baseline", row["baseline"]), ("with_skill", row["score"])):
            if part is not None:
                unit = "percent" if part["unit"] == "%" else None
                printed = f"{part['value']:g}{part['unit'] or ''}"
                figures.append(_figure(label, arm, part["value"], unit, printed))
        up = row["uplift"]
        if up is not None:
            unit = {"points": "points", "pp": "points", "%": "percent"}.get(up["unit"])
            figures.append(_figure(label, "lift", up["value"], unit, up["printed"]))
    verdict = card["summary"].get("verdict")
    passed = VERDICTS.get(verdict)
    decision = {"printed": f"Overall verdict: {verdict}", "passed": passed} if verdict else None
    return {
        "figures": figures,
        "decision": decision,
        "stages": card["tiers"] or None,
        **{k: card["summary"].get(k) for k in PROVENANCE},
    }


def _figure(label: str, arm: str, value: float, unit: str | None, printed: str) -> dict[str, Any]:
    rounded = float(value).is_integer()
    return declared.figure(label, value, arm=arm, unit=unit, printed=printed, rounded=rounded)


def _catalogue_row(r: dict[str, Any], rw: Where) -> dict[str, Any]:
    """One ``results`` entry of ``benchmarks.json``: score and uplift in percent, as written."""
    num = rw.get(r, "num", int, nullable=True)
    score = common.source_number(r["score_pct"], rw / "score_pct", low=0, high=100)
    up = common.source_number(r["uplift_pct"], rw / "uplift_pct", low=-100, high=100)
    fig = None if score is None else {"value": score + 0.0, "unit": "%", "field": "score_pct"}
    row: dict[str, Any] = dict.fromkeys(("baseline", "uplift", "printed", "note"))
    row |= {"dimension": r["dimension"], "num": num, "agent": r["agent"], "score": fig}
    if up is not None:
        printed = json.dumps(r["uplift_pct"])
        row["uplift"] = {"printed": printed, "value": up + 0.0, "unit": "%", "field": "uplift_pct"}
    return row


def _from_catalogue(f: Path, o: NvidiaOptions, repairs: list[Repair]) -> list[ReceiptBody]:
    """The receipts of ``benchmarks.json``, one per skill (only ``o.skills`` when given)."""
    doc, data = common.read_json(f, repairs)
    if not isinstance(doc, dict):  # another file, such as a skill's benchmark/evals.json
        raise Where(f).fail(
            f"the document's root is {common.kind_of(doc)}; expected NVIDIA's catalogue "
            'benchmarks.json, an object {"schema_version": 2, "skills": [...], "results": '
            "[...]}, or a skill's BENCHMARK.md card (or a folder holding it)"
        )
    validate_source(doc, "nvidia", f)  # the shape of every member walked below
    w = Where(f)
    w.get(doc, "schema_version", int)  # an integer, never 1.0
    check_catalogue(doc, w)
    # check_catalogue read each skill's counts and found its catalog_dir once
    entries: dict[str, dict[str, Any]] = {s["catalog_dir"]: s for s in doc["skills"]}
    by_dir: dict[str, list[dict[str, Any]]] = {cdir: [] for cdir in entries}
    for i, r in enumerate(doc["results"]):
        cdir, rw = r["catalog_dir"], w / "results" / i
        if cdir not in by_dir:
            raise (rw / "catalog_dir").fail(
                f"expected a catalog_dir listed in /skills, found {cdir!r}"
            )
        row = _catalogue_row(r, rw)
        if any(
            (x["dimension"], x["agent"]) == (row["dimension"], row["agent"]) for x in by_dir[cdir]
        ):
            raise rw.fail(
                f"expected each dimension once per skill and agent; {row['dimension']!r} for "
                f"{row['agent']!r} of {cdir!r} is given twice"
            )
        by_dir[cdir].append(row)
    path = _repo_path(f, o.repo_root) if o.repo_root else f.name
    out = []
    for cdir, rows in by_dir.items():
        if o.skills and cdir not in o.skills:
            continue
        s = entries[cdir]
        null = s.get("evaluator_version") is None
        lacking = ["provenance.tool_version (evaluator_version is null)"] if null else []
        head = {"name": s["skill"], "tool": "NVSkills-Eval", "lacking": lacking}
        head |= {"source": "nvidia-benchmarks-json", "schema_version": doc["schema_version"]}
        summary = {k: v for k, v in s.items() if k != "catalog_dir"}
        # strings only (the schema): aggregate_benchmarks.py writes each agent as its name
        agents = [{"agent": a, "printed": a, "model": None} for a in s.get("agents") or []]
        out.append(_receipt(f, data, o, head, path, summary=summary, agents=agents, rows=rows))
    missing = sorted(set(o.skills or ()) - set(by_dir))
    if missing:
        raise w.fail(f"expected skills {', '.join(missing)} in /skills; not found")
    return out


#: How far a printed mean uplift may sit from its rows' mean: half its last printed digit.
_PRINTED = 0.05 + common.ROUNDING


def check_catalogue(doc: dict[str, Any], w: Where) -> None:
    """Refuse a schema-checked catalogue whose counts, lists, skills or rows contradict it.

    The catalogue is aggregated from the skills' cards (``.github/scripts/aggregate_benchmarks.py``;
    the interop SOURCE.md): ``skill_count`` counts ``skills``, ``result_row_count`` counts
    ``results``, each ``catalog_dir`` is one skill, ``has_results`` says whether the skill has rows
    and ``skills_without_results`` lists those that do not, ``average_uplift_pct`` is the mean of
    the skill's rows' ``uplift_pct`` (printed to 0.1), and a row's ``score_pct`` minus its
    ``uplift_pct`` is the baseline score, a percentage. A catalogue that breaks one is refused, so
    no receipt seals a figure its own file contradicts (fail closed).

    Raises:
        ImportError_: at the member that disagrees, naming what the rest make it.
    """
    for key, member in (("skill_count", "skills"), ("result_row_count", "results")):
        count = w.number(doc, key, low=0, count=True)
        if count is not None and count != len(doc[member]):
            raise (w / key).fail(
                f"expected {len(doc[member])}, the entries of /{member}, found {count:g}: the "
                "catalogue contradicts itself"
            )
    uplifts: dict[str, list[float]] = {}
    agents: dict[str, set[str]] = {}
    for i, r in enumerate(doc["results"]):
        rw = w / "results" / i
        _agent(r["agent"], rw / "agent", agents.setdefault(r["catalog_dir"], set()))
        common.named(r["dimension"], rw / "dimension", "the dimension's name", None)
        rw.number(r, "num", low=0, count=True)
        score = common.source_number(r["score_pct"], rw / "score_pct", low=0, high=100)
        up = common.source_number(r["uplift_pct"], rw / "uplift_pct", low=-100, high=100)
        if score is not None and up is not None and not 0 <= score - up <= 100:
            raise (rw / "uplift_pct").fail(
                f"expected an uplift leaving a baseline score from 0% to 100% (score_pct minus "
                f"uplift_pct), found {up:g} beside a score of {score:g}"
            )
        rows = uplifts.setdefault(r["catalog_dir"], [])
        if up is not None:
            rows.append(up)
    seen: dict[str, int] = {}
    for i, s in enumerate(doc["skills"]):
        sw = w / "skills" / i
        if s["catalog_dir"] in seen:
            raise (sw / "catalog_dir").fail(
                f"expected each catalog_dir once; {s['catalog_dir']!r} is also skill "
                f"{seen[s['catalog_dir']]}"
            )
        seen[s["catalog_dir"]] = i
        _check_skill(s, sw, s["catalog_dir"] in uplifts, uplifts.get(s["catalog_dir"], []))
    without = w.get(doc, "skills_without_results", list, required=False, nullable=True)
    lacking = sorted(d for d in seen if d not in uplifts)
    if without is not None and sorted(map(str, without)) != lacking:
        raise (w / "skills_without_results").fail(
            f"expected the skills with no row in /results ({', '.join(lacking) or 'none'})"[:900]
            + ": the catalogue contradicts itself"
        )


def _agent(name: str, w: Where, named: set[str]) -> None:
    """One agent's name at ``w``, added to its skill's ``named`` (at most ``MAX_AGENTS``)."""
    if CONTROL.search(name):
        raise w.fail(f"expected an agent's name with no control character, found {name!r}")
    if not common.is_name(name):
        raise w.fail(f"expected an agent's name, found the blank text {name!r}")
    named.add(name)
    if len(named) > MAX_AGENTS:
        raise w.fail(
            f"expected at most {MAX_AGENTS} agents for one skill (SkillEvaluator runs three); "
            f"{name!r} is agent {MAX_AGENTS + 1}"
        )


def _check_skill(s: dict[str, Any], sw: Where, has_rows: bool, uplifts: list[float]) -> None:
    """One ``skills`` entry: name, agents, verdict, counts, threshold, has_results, mean uplift."""
    common.named(s["skill"], sw / "skill", "the skill's name")
    named: set[str] = set()
    for j, name in enumerate(s.get("agents") or ()):
        _agent(name, sw / "agents" / j, named)
    verdict = sw.get(s, "verdict", str, required=False, nullable=True)
    if verdict is not None and verdict not in VERDICTS:
        raise (sw / "verdict").fail(
            f"expected PASS, FAIL, NEUTRAL or INCOMPLETE (or null), found {verdict!r}"
        )
    sw.number(s, "tasks", low=0, count=True)
    sw.number(s, "attempts_per_task", low=1, count=True)
    sw.number(s, "pass_threshold_pct", low=0, high=100)
    has = sw.get(s, "has_results", bool, required=False, nullable=True)
    if has is not None and has is not has_rows:
        raise (sw / "has_results").fail(
            f"expected {str(has_rows).lower()}, as /results holds "
            f"{'rows' if has_rows else 'no row'} for it, found {str(has).lower()}"
        )
    mean = sw.number(s, "average_uplift_pct", low=-100, high=100)
    if mean is None:
        return
    if not uplifts:
        raise (sw / "average_uplift_pct").fail(
            f"expected null, as /results holds no uplift for it, found {mean:g}"
        )
    expected = math.fsum(uplifts) / len(uplifts)
    if abs(mean - expected) > _PRINTED:
        raise (sw / "average_uplift_pct").fail(
            f"expected {expected:.4g} (to 0.1), the mean uplift_pct of its {len(uplifts)} rows in "
            f"/results, found {mean:g}: the catalogue contradicts itself"
        )
