"""caveman's judged fidelity snapshot (a ``fidelity`` object, no ``prompts``): facts a model judged.

Shape read (D-13, D-15, D-16)::

    {"metadata": {"generated_at", "judge_model", "runs", "source_snapshot", "note"?},
     "fidelity": {"<arm>": {"<prompt>": {"risk": str, "fidelity": percent,
                                          "facts": [{"fact": str, "pass": bool}, ...],
                                          "verbatim_ok": bool?, "verbatim_missing": [str]?}}}}

``runs`` is judge.py's ``--runs N`` (N ≥ 1): each fact's ``pass`` is the verdict most of the
judge's N calls gave (``Counter.most_common``: a tie goes to the verdict first given; a call
whose answer could not be read is skipped, and a fact with none readable is a fail). Only that
verdict is kept, so a receipt holds one check per fact. A prompt with no facts (judge.py prints
fidelity 100 for it, a default rather than a judgment) is refused, as is an unknown member, so
nothing is read that was not judged and nothing is dropped silently.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from driftproof._json import json_kind, pointer
from driftproof.errors import ImportError_
from driftproof.importers import Imported
from driftproof.importers import _declared as declared
from driftproof.importers._caveman_snapshot import (
    _ARM_NAME,
    CONTROLS,
    SNAPSHOT_MAX_BYTES,
    CavemanOptions,
    arm_receipts,
    load_snapshot,
    only_members,
    prompt_ids,
    skill_text,
)
from driftproof.importers._common import ROUNDING, Where, is_name, parse_instant
from driftproof.importers._text import Repair
from driftproof.receipt import Draw, build_draw, cut_label
from driftproof.stats.fidelity import JUDGED_FACT
from driftproof.wording import CAVEMAN_TOOL as TOOL

#: Name and ``source_type`` of the check that is the snapshot's ``verbatim_ok``.
VERBATIM = "verbatim"
#: Characters: a receipt check's name (the fact's text) and a figure's label.
FACT_MAX_CHARS = 200
_META = frozenset({"generated_at", "judge_model", "runs", "source_snapshot", "note"})
_CELL = frozenset({"risk", "fidelity", "facts", "verbatim_ok", "verbatim_missing"})
#: Percentage points a cell's fidelity may sit from its facts' pass share: a whole-number print.
_PRINTED_PERCENT = 0.5 + ROUNDING
#: A grader as the snapshot names it: a model id, optionally followed by a note in brackets
#: (``claude-opus-4-8 (inline judgment; ...)``).
_GRADER = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._:@/-]{0,199})(?: \((.+)\))?$", re.DOTALL)


def is_judged(doc: Any) -> bool:
    """Whether ``doc`` has the judged snapshot's shape (``fidelity``, no ``prompts``/``arms``)."""
    return isinstance(doc, dict) and "fidelity" in doc and not {"prompts", "arms"} & set(doc)


def _text(value: Any, w: Where, what: str, limit: int) -> str:
    if not is_name(value) or len(value) > limit:
        found = f"{len(value)} characters" if isinstance(value, str) else json_kind(value)
        raise w.fail(f"expected {what} (a string of 1 to {limit} characters), found {found}")
    return value


def _read(doc: Any, shown: str) -> tuple[str, list[str], dict[str, list[dict[str, Any]]]]:
    """``doc`` checked: (grader, the first arm's prompts, arm -> its cells in their order)."""
    w = Where(shown)
    only_members(doc, frozenset({"metadata", "fidelity"}), w)
    meta, mw = doc.get("metadata"), w / "metadata"
    if not isinstance(meta, dict):
        raise mw.fail("expected an object (the snapshot's metadata)")
    only_members(meta, _META, mw)
    grader_text = _text(meta.get("judge_model"), mw / "judge_model", "the grader's model", 4000)
    grader = _GRADER.fullmatch(grader_text)
    if grader is None:
        raise (mw / "judge_model").fail(
            "expected a model id, optionally followed by a note in brackets"
        )
    if type(meta.get("runs")) is not int or meta["runs"] < 1:
        raise (mw / "runs").fail(
            "expected a whole number of at least 1 (the judge's calls per answer), found "
            f"{json.dumps(meta.get('runs'))[:60]}"
        )
    parse_instant(meta.get("generated_at"), mw / "generated_at")
    _text(meta.get("source_snapshot"), mw / "source_snapshot", "a file name", 200)
    if "note" in meta:
        _text(meta["note"], mw / "note", "a note", 4000)
    fidelity, fw = doc["fidelity"], w / "fidelity"
    if not isinstance(fidelity, dict) or not fidelity:
        raise fw.fail("expected an object of arm -> prompt -> judged facts")
    if not any(a not in CONTROLS.values() for a in fidelity):
        raise fw.fail("expected at least one skill arm")
    prompts: list[str] = []
    arms: dict[str, list[dict[str, Any]]] = {}
    for arm, cells in fidelity.items():
        aw = fw / arm
        if arm not in CONTROLS.values() and not _ARM_NAME.fullmatch(arm):
            raise aw.fail("expected a skill arm name of lowercase letters, digits, - or _")
        if not isinstance(cells, dict) or not cells:
            raise aw.fail("expected an object of prompt -> judged facts")
        if not prompts:
            prompts = list(cells)
        elif list(cells) != prompts:
            first = next(iter(fidelity))
            raise aw.fail(
                f"expected the prompts of {pointer(('fidelity', first))}, in the same order"
            )
        arms[arm] = [_cell(cells[p], aw / p) for p in prompts]
    return grader.group(1), prompts, arms


def _cell(cell: Any, w: Where) -> dict[str, Any]:
    """The checked cell; ``fidelity`` in percent, as written."""
    if not isinstance(cell, dict):
        raise w.fail(f"expected an object, found {json_kind(cell)}")
    only_members(cell, _CELL, w)
    _text(cell.get("risk"), w / "risk", "the prompt's risk", 200)
    value: Any = cell.get("fidelity")
    if type(value) not in (int, float) or not 0 <= value <= 100 or not math.isfinite(value):
        raise (w / "fidelity").fail(f"expected a percentage, 0 to 100, found {json_kind(value)}")
    facts = cell.get("facts")
    if not isinstance(facts, list) or not facts:
        raise (w / "facts").fail(
            'expected a non-empty list of {"fact", "pass"}: a prompt with no facts was not '
            "judged (judge.py prints fidelity 100 for it by default), so there is nothing to read"
        )
    for k, f in enumerate(facts):
        fw = w / "facts" / k
        if not isinstance(f, dict) or set(f) != {"fact", "pass"} or type(f["pass"]) is not bool:
            raise fw.fail('expected {"fact": text, "pass": true or false} and nothing else')
        _text(f["fact"], fw / "fact", "a fact", FACT_MAX_CHARS)
    share = 100 * sum(f["pass"] for f in facts) / len(facts)
    if abs(value - share) > _PRINTED_PERCENT:
        raise (w / "fidelity").fail(
            f"expected {share:.4g}, the percentage of its {len(facts)} facts judged passed "
            f"({sum(f['pass'] for f in facts)}), found {json.dumps(value)}: the snapshot "
            "contradicts itself"
        )
    ok = cell.get("verbatim_ok")
    missing = cell.get("verbatim_missing", [])
    if "verbatim_ok" in cell and type(ok) is not bool:
        raise (w / "verbatim_ok").fail(f"expected true or false, found {json_kind(ok)}")
    if not isinstance(missing, list) or not all(isinstance(t, str) for t in missing):
        raise (w / "verbatim_missing").fail("expected a list of tokens")
    if ok is None and missing or ok is not None and ok != (not missing):
        raise (w / "verbatim_ok").fail(
            f"expected {json.dumps(not missing)}: verbatim_missing lists {len(missing)} token(s)"
        )
    return cell


def _match_rubrics(
    path: str | Path,
    repairs: list[Repair],
    prompts: list[str],
    arms: dict[str, list[dict[str, Any]]],
    shown: str,
) -> str:
    """The sha256 of ``rubrics.json``, whose prompts, risks, facts and verbatim tokens match."""
    file = str(path)
    doc, sha = load_snapshot(Path(path), file, repairs)
    w = Where(file)
    if (
        not isinstance(doc, dict)
        or doc.get("version") != 1
        or not isinstance(doc.get("rubrics"), list)
    ):
        raise w.fail('expected caveman\'s rubrics file {"version": 1, "rubrics": [...]}')
    by_prompt: dict[str, tuple[str, dict[str, Any]]] = {}  # prompt -> (pointer, checked rubric)
    for j, r in enumerate(doc["rubrics"]):
        rw = w / "rubrics" / j
        if not isinstance(r, dict):
            raise rw.fail(f"expected an object, found {json_kind(r)}")
        prompt = _text(r.get("prompt"), rw / "prompt", "a prompt", SNAPSHOT_MAX_BYTES)
        if prompt in by_prompt:
            raise (rw / "prompt").fail(
                f"expected a prompt no other rubric has; {by_prompt[prompt][0]} has it too"
            )
        _text(r.get("risk"), rw / "risk", "the prompt's risk", 200)
        for key in ("facts", "verbatim"):
            v = r.get(key)
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise (rw / key).fail("expected a list of strings")
        by_prompt[prompt] = (rw.pointer, r)
    for arm, cells in arms.items():
        for prompt, cell in zip(prompts, cells, strict=True):
            w = Where(shown) / "fidelity" / arm / prompt
            if prompt not in by_prompt:
                raise w.fail(f"expected the prompt of a rubric in {file}; none has it")
            at, rubric = by_prompt[prompt]
            facts = rubric["facts"]
            if cell["risk"] != rubric["risk"]:
                raise (w / "risk").fail(f"expected {rubric['risk']!r}, the risk at {file} {at}")
            if len(cell["facts"]) != len(facts):
                raise (w / "facts").fail(
                    f"expected {len(facts)} facts, the rubric's at {file} {at}/facts"
                )
            for k, (fact, want) in enumerate(zip(cell["facts"], facts, strict=True)):
                if fact["fact"] != want:
                    raise (w / "facts" / k / "fact").fail(
                        f"expected the rubric's fact at {file} {at}/facts/{k}"
                    )
            for i, token in enumerate(cell.get("verbatim_missing", [])):
                if token not in rubric["verbatim"]:
                    raise (w / "verbatim_missing" / i).fail(
                        f"expected a token of the rubric's verbatim list at {file} {at}/verbatim"
                    )
    for prompt, (at, _) in by_prompt.items():
        if prompt not in prompts:
            raise ImportError_.at(
                file,
                f"{at}/prompt",
                f"expected this rubric's prompt in the snapshot {shown}; it is not there",
            )
    return sha


#: What a judged fidelity snapshot does not record (D-13), each left unknown.
JUDGED_UNRECORDED = (
    "answers: the snapshot holds the grader's judgment of each fact, not the answers judged",
    "model, provider and harness that wrote the judged answers",
    "started_at: when the judged answers were written (the snapshot records when it was judged)",
    "output tokens and usage of the judged answers",
    "the grader's provider, prompt and sampling settings",
    "capture mode and the tools the agent could use",
)


def _judged_draw(cell: dict[str, Any]) -> Draw:
    """One draw, answer unknown, each judged fact a check, then ``verbatim_ok`` when recorded."""
    rows = [(f["fact"], "assertion", f["pass"], JUDGED_FACT) for f in cell["facts"]]
    if "verbatim_ok" in cell:
        rows.append((VERBATIM, "must_include", cell["verbatim_ok"], VERBATIM))
    keys = ("name", "kind", "pass", "source_type")
    return build_draw(0, answer=None, checks=[dict(zip(keys, row, strict=True)) for row in rows])


def _judged_figures(arm: str, ids: list[str], cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One arm's per-prompt fidelity (percent), risk (printed) and missing verbatim token count."""
    out: list[dict[str, Any]] = []
    for case, cell in zip(ids, cells, strict=True):
        at = {"case": case, "arm": arm}
        value, missing = cell["fidelity"], cell.get("verbatim_missing", [])
        out.append(
            declared.figure(
                "fidelity", float(value), **at, unit="percent", printed=json.dumps(value)
            )
        )
        out.append(declared.figure("risk", None, **at, printed=cell["risk"]))
        if missing:
            missing, count = ", ".join(missing), len(missing)
            out.append(
                declared.figure("verbatim missing", count, **at, unit="count", printed=missing)
            )
    return out


def judged_receipts(
    doc: Any, shown: str, document_sha256: str, o: CavemanOptions, repairs: list[Repair]
) -> list[Imported]:
    """One DECLARED receipt per skill arm of the judged fidelity snapshot ``doc`` (D-15).

    Each prompt a case (``p01``…); an arm the snapshot lacks is unrecorded (D-13); the grader is
    the source's (``judge.channel: source``); no score, band or verdict.

    Raises:
        ImportError_: the snapshot or the rubrics file is malformed, they differ, or a case
            file was given.
    """
    if o.cases is not None:
        raise ImportError_.at(
            shown,
            "/fidelity",
            "a judged fidelity snapshot (each fact judged by a model): expected its "
            "rubrics.json (--rubrics), not a regex case file",
        )
    commit, rubrics_path = o.source_commit, o.rubrics
    grader, prompts, arms = _read(doc, shown)
    rubrics_sha256 = None
    if rubrics_path is not None:
        rubrics_sha256 = _match_rubrics(rubrics_path, repairs, prompts, arms, shown)
    unrecorded = list(JUDGED_UNRECORDED)
    for name, label in CONTROLS.items():
        if label not in arms:
            unrecorded.append(f"{name} arm ({label}): not in the snapshot")
    if rubrics_path is None:
        unrecorded.append("suite: the rubrics the facts were judged against (not given)")
    if commit is None:
        unrecorded.append("caveman-evals version (the snapshot names no commit or release)")
    meta = doc["metadata"]
    notes = [f"the source names its grader as: {meta['judge_model']}"]
    if "note" in meta:
        notes.append(f"the source's note: {meta['note']}")
    if meta["runs"] > 1:
        notes.append(
            f"each fact's pass is the majority verdict of the judge's {meta['runs']} calls "
            "(judge.py --runs; a tie goes to the verdict first given); only that verdict is kept"
        )
        unrecorded.append(f"the judge's {meta['runs']} verdicts per fact behind each majority")
    source = declared.provenance(
        TOOL,
        f"git {commit}" if commit else None,
        shown,
        document_sha256,
        unrecorded,
        notes=notes,
        details={k: meta[k] for k in ("generated_at", "judge_model", "runs", "source_snapshot")},
    )
    ids = prompt_ids(len(prompts))
    judge = declared.unrecorded_judge(TOOL, "judge", model=grader, channel="source", step=1.0)
    skills = {
        a: skill_text(Path(o.skills_dir), a, shown) for a in arms if a not in CONTROLS.values()
    }
    return arm_receipts(
        {a: [_judged_draw(cell) for cell in cells] for a, cells in arms.items()},
        prompts,
        ids,
        skills,
        "judged-fidelity-{}.json",
        source,
        o,
        repairs,
        figures=lambda held: [f for n, a in held.items() for f in _judged_figures(n, ids, arms[a])],
        generations_per_arm=1,
        judge=judge,
        suite_name=cut_label(Path(rubrics_path).name) if rubrics_path is not None else None,
        suite_sha256=rubrics_sha256,
    )
