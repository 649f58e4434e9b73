"""Inspect AI eval logs (``.json`` and ``.eval``) → DECLARED receipts (D-15).

Inspect has no arms: one log is one arm, and the user names which log is which
(``--with-skill A --baseline B [--control C]``). One log alone (``--with-skill A`` or
``--baseline B``) is a single-arm import: the other arm is ``recorded: false`` with no draws,
so no lift, interval or value per token is given (issue 14, item 2). The same document
given for two arms is refused by its sha256. Mapping (INTEROP-NOTES.md §4):

- case: ``sample.id``; the logs must be of the same task;
- draw: one sample epoch (index ``epoch − 1``); generations per arm = ``eval.config.epochs``
  when the log states it (never assumed to be 1);
- score: ``sample.scores[<scorer>].value``, C/I/P/N → 1/0/0.5/0 as Inspect's
  ``value_to_float`` reads them, booleans 1/0, numbers as recorded (they must lie in 0..1);
  a list value (``multi_scorer(..., reducer="collect")``) gives one judge sample per entry
  and the draw's score is their mean (D-1); an object value (a dict-valued scorer) is read
  at the key ``--scorer NAME:KEY`` names;
- unscored: a null, NaN or infinite value, a missing key, or a sample with no score from the
  scorer (an interrupted run) is a lost draw of kind ``unscored`` with its reason: never 0,
  and never a failure of the whole source;
- scorers: every scorer the header lists or any sample scored with;
- times: ``stats.started_at``/``completed_at`` parsed to instants; the earliest start and
  the latest finish stored in UTC with the offset they were written in;
- a sample with ``error`` is a lost draw, its message kept in ``source_error``;
- judge: ``eval.model_roles.grader``, else the scorer's ``model`` parameter, else (for
  ``model_graded_*`` scorers, which grade with the evaluated model by default) ``eval.model``;
  a scorer with no model (``match``, ``includes``…) is marked unrecorded;
- tokens: ``sample.output.usage`` input/output (generation only);
- the source's own figures (``source_report``, :mod:`driftproof.importers._inspect_report`):
  the declared epoch reducers, each sample's reduced value per reducer as the log wrote it,
  and the run's metrics (a ``ci()`` interval with its bounds), never recomputed (D-15).

``.eval`` files are zip archives (``header.json``, ``samples/<id>_epoch_<n>.json``) whose
members are deflate or Zstandard (method 93, what current Inspect writes); they are streamed
with capped inflation (:mod:`driftproof.importers._archive`). JSON may hold NaN/Infinity,
which is tolerated in the source and never written.
"""

from __future__ import annotations

import math
from datetime import datetime
from pathlib import Path
from typing import Any

from driftproof.errors import ImportError_
from driftproof.importers import Imported, register
from driftproof.importers._common import (
    Where,
    arm_spec,
    case_entry,
    case_id_for,
    file_sha256,
    manifest_sha256,
    member_object,
    parse_instant,
    provenance_doc,
    read_skill_md,
    run_times,
    unrecorded_judge,
)
from driftproof.importers._declared import declared_receipt
from driftproof.importers._inspect_log import (
    TOOL,
    answer_text,
    input_text,
    judge_model_of,
    read_log,
    scorer_name,
    system_message_sha256,
    value_to_float,
)
from driftproof.importers._inspect_report import (
    MAX_FIGURES,
    declared_reducers,
    run_figures,
    sample_figures,
)
from driftproof.receipt import draw_doc, judge_sample_doc

__all__ = ["import_inspect", "inspect_importer", "read_log", "value_to_float"]


def import_inspect(
    logs: dict[str, Path],
    *,
    skill_name: str,
    scorer: str | None = None,
    skill_md: Path | None = None,
) -> dict[str, Any]:
    """Convert one Inspect log per arm into an unsealed DECLARED receipt document.

    Args:
        logs: receipt arm -> log path: ``with_skill`` and ``baseline``, or one of them alone (a
            single-arm import: the other arm is ``recorded: false``), ``control`` optional.
        skill_name: the skill's name (Inspect does not record one).
        scorer: ``NAME`` or ``NAME:KEY``: the scorer whose values are the scores (required when
            a log has several), and for an object-valued scorer the key holding the score.
        skill_md: the SKILL.md measured, hashed and counted (D-14); unknown when omitted.

    Raises:
        ImportError_: no log, the same document for two arms (by sha256), an unreadable or
            malformed log (a member of the wrong type per ``schemas/inspect_ai.schema.json``),
            logs of different tasks, an unknown or ambiguous scorer, an object value with no
            KEY, a score outside 0..1 or a timestamp with no UTC offset; naming the file and
            JSON pointer (in a ``.eval`` archive the file is the archive and the pointer starts
            with the member's name, RFC 6901 escaped:
            ``/samples~11_epoch_1.json/scores/match/value``).
    """
    if (
        not logs
        or set(logs) - {"with_skill", "baseline", "control"}
        or not {"with_skill", "baseline"} & set(logs)
    ):
        raise ImportError_.at(
            "<options>",
            "",
            "expected one log per arm: --with-skill LOG and/or --baseline LOG "
            "[--control LOG]; one of the first two alone is a single-arm import",
        )
    name, key = (scorer.split(":", 1) + [None])[:2] if scorer is not None else (None, None)
    if scorer is not None and (not name or key == ""):
        raise ImportError_.at("<options>", "", f"--scorer {scorer!r}: expected NAME or NAME:KEY")
    read = {arm: read_log(Path(p)) for arm, p in logs.items()}
    digests: dict[str, str] = {}
    for arm, log in read.items():
        digest = file_sha256(log.raw)
        if digest in digests:
            raise ImportError_.at(
                logs[arm],
                "",
                f"the same document (sha256 {digest}) is given for the "
                f"{digests[digest]} arm and the {arm} arm; one log measures one arm. Give it once "
                "for a single-arm import",
            )
        digests[digest] = arm
    tasks = {arm: (log.header.get("eval") or {}).get("task") for arm, log in read.items()}
    if len(set(tasks.values())) != 1:
        first = next(iter(logs.values()))
        raise ImportError_.at(
            first, "/eval/task", f"expected the same task in every arm's log, found {tasks}"
        )
    missing = [a for a in ("with_skill", "baseline") if a not in logs]
    cases: dict[str, dict[str, Any]] = {}
    epochs: set[Any] = set()
    unrecorded = [
        "judge_samples_per_generation",
        "run.provider",
        "run.surface",
        "run.harness",
        "each case's rubric_sha256",
    ]
    unrecorded += [
        f"the {a} arm (a single-arm log: no lift, no interval, no value per token)" for a in missing
    ]
    judges = set()
    run_figs: list[dict[str, Any]] = []
    sample_figs: list[dict[str, Any]] = []
    reducers: dict[str, list[str] | None] = {}
    for arm, log in read.items():
        header, samples = log.header, log.samples
        ev = member_object(header, "eval")
        epochs.add(
            (ev.get("config") or {}).get("epochs") if isinstance(ev.get("config"), dict) else None
        )
        chosen = scorer_name(header, samples, name, Path(logs[arm]))
        judges.add(judge_model_of(header, chosen))
        reducers[arm] = declared_reducers(log)
        run_figs += run_figures(log, chosen, arm)
        sample_figs += sample_figures(log, chosen, arm)
        for sample, sw in samples:
            if not isinstance(sample, dict):
                raise sw.fail("expected a sample object")
            sid = sample.get("id")
            if isinstance(sid, bool) or not isinstance(sid, (int, str)):
                raise (sw / "id").fail("expected the sample id (an integer or a string)")
            epoch = sample.get("epoch")
            if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
                raise (sw / "epoch").fail("expected the epoch (an integer from 1)")
            case = cases.setdefault(
                str(sid),
                {"prompt": input_text(sample.get("input")), "arms": {a: [] for a in logs}},
            )
            case["arms"][arm].append(_draw(sample, sw, chosen, key, epoch))
    case_docs = []
    for sid, c in cases.items():
        arms_doc: dict[str, Any] = {}
        for arm in ("with_skill", "baseline", "control"):
            if arm in logs:
                draws = sorted(c["arms"][arm], key=lambda d: d["index"])
                if len({d["index"] for d in draws}) != len(draws):
                    raise ImportError_.at(
                        logs[arm],
                        "/samples",
                        f"expected one sample per id and epoch; sample {sid} repeats an epoch",
                    )
                arms_doc[arm] = {"draws": draws, "generation": None}
            elif arm in missing:
                arms_doc[arm] = {"draws": [], "generation": None}
        case_docs.append(case_entry(case_id_for(sid), c["prompt"], arms_doc))
    (epoch_count,) = epochs if len(epochs) == 1 else (None,)
    gens = (
        epoch_count
        if isinstance(epoch_count, int) and not isinstance(epoch_count, bool) and epoch_count >= 1
        else None
    )
    if gens is None:
        unrecorded.append(
            "generations_per_arm (eval.config.epochs absent or different between arms)"
        )
    headers = {arm: log.header for arm, log in read.items()}
    models = {(h.get("eval") or {}).get("model") for h in headers.values()}
    model = next(iter(models)) if len(models) == 1 and isinstance(next(iter(models)), str) else None
    if model is None:
        unrecorded.append("run.model (the logs name different models)")
    judge_model = next(iter(judges)) if len(judges) == 1 else None
    judge = unrecorded_judge(TOOL, name or "scorer")
    if judge_model is not None and not judge_model.startswith("unrecorded:"):
        judge["model"] = judge_model[:200]
    else:
        judge["model"] = (judge_model or judge["model"])[:200]
        unrecorded.insert(0, "judge.model (the scorer records no grading model)")
    judge["channel"] = "source"
    versions = {
        str(v)
        for h in headers.values()
        if (v := member_object(member_object(h, "eval"), "packages").get("inspect_ai"))
    }
    version = next(iter(versions)) if len(versions) == 1 else None
    if version is None:
        unrecorded.append("provenance.tool_version (eval.packages.inspect_ai absent or different)")
    if skill_md is None:
        unrecorded.append("skill.sha256 and skill.tokens (SKILL.md not given)")
    times = _times(read, logs, unrecorded)
    documents = [(f"{arm}={logs[arm]}", file_sha256(log.raw)) for arm, log in read.items()]
    arm_specs: dict[str, Any] = {
        arm: arm_spec(
            Path(logs[arm]).name[:200], system_prompt_sha256=system_message_sha256(headers[arm])
        )
        for arm in logs
    }
    for arm in missing:
        arm_specs[arm] = arm_spec(None, recorded=False)
    doc = declared_receipt(
        skill_name,
        read_skill_md(skill_md),
        case_docs,
        provenance_doc(
            TOOL,
            version,
            "; ".join(d for d, _ in documents),
            manifest_sha256(documents),
            unrecorded,
        ),
        model=model,
        started_at=times["started_at"],
        finished_at=times["finished_at"],
        generations_per_arm=gens,
        judge=judge,
        arms=arm_specs,
        band_source="generation",
        source_report=_report(run_figs, sample_figs, reducers, unrecorded),
    )
    for k in ("started_at_offset", "finished_at_offset"):
        if times[k] is not None:
            doc["run"][k] = times[k]
    if key is not None:
        doc["provenance"]["notes"] = [
            f"scores read at key {key!r} of scorer {name!r}'s object values (--scorer {scorer})"
        ]
    return doc


def _report(
    run_figs: list[dict[str, Any]],
    sample_figs: list[dict[str, Any]],
    reducers: dict[str, list[str] | None],
    unrecorded: list[str],
) -> dict[str, Any] | None:
    """The source's report: its run figures, then each sample's reduced values (dropped, and
    listed as unrecorded, when there are more than the receipt holds), and the epoch reducers
    when every log declares the same; ``None`` when the logs report nothing."""
    if len(run_figs) + len(sample_figs) > MAX_FIGURES:
        unrecorded.append(
            f"the source's per-sample reduced values ({len(sample_figs)}, more than a receipt "
            "holds)"
        )
        sample_figs = []
    declared = list({tuple(r) if r is not None else None for r in reducers.values()})
    if len(declared) > 1:
        unrecorded.append("the epoch reducers (the arms' logs declare different ones)")
    same = list(declared[0]) if len(declared) == 1 and declared[0] is not None else None
    if not run_figs and not sample_figs and same is None:
        return None
    report: dict[str, Any] = {"figures": run_figs + sample_figs}
    if same is not None:
        report["reducers"] = same
    return report


def _times(
    read: dict[str, Any], logs: dict[str, Path], unrecorded: list[str]
) -> dict[str, str | None]:
    """The earliest ``stats.started_at`` and latest ``stats.completed_at`` over the logs, as
    instants."""
    started: list[tuple[datetime, str | None]] = []
    finished: list[tuple[datetime, str | None]] = []
    for arm, log in read.items():
        stats = member_object(log.header, "stats")
        w = Where(logs[arm]) / "stats"
        for member, into in (("started_at", started), ("completed_at", finished)):
            value = stats.get(member)
            if value is None or value == "":
                continue
            into.append(parse_instant(value, w / member))
    if len(started) != len(read):
        unrecorded.append("run.started_at (a log records no stats.started_at)")
        started = []
    if len(finished) != len(read):
        unrecorded.append("run.finished_at (a log records no stats.completed_at)")
        finished = []
    return run_times(started, finished)


def _unscored(
    index: int,
    answer: str | None,
    tokens: dict[str, Any] | None,
    reason: str,
    samples: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """An unscored sample: a lost draw of kind ``unscored`` with its reason, never a 0 (issue
    14)."""
    return draw_doc(
        index,
        answer=answer,
        tokens=tokens,
        judge_samples=samples,
        lost_reason=reason,
        lost_kind="unscored",
    )


def _draw(
    sample: dict[str, Any], w: Where, scorer: str, key: str | None, epoch: int
) -> dict[str, Any]:
    index = epoch - 1
    answer = answer_text(sample)
    usage = member_object(sample, "output").get("usage")
    tokens = None
    if isinstance(usage, dict) and all(
        isinstance(usage.get(k), int) and not isinstance(usage.get(k), bool) and usage[k] >= 0
        for k in ("input_tokens", "output_tokens")
    ):
        tokens = {
            "input": usage["input_tokens"],
            "output": usage["output_tokens"],
            "counted_by": "source",
        }
    error = sample.get("error")
    if error is not None:
        msg = error.get("message") if isinstance(error, dict) else str(error)
        msg = str(msg or "Inspect recorded an error for this sample")[:3900]
        return draw_doc(
            index,
            answer=answer,
            lost_reason=f"source error: {msg}",
            tokens=tokens,
            source_error=msg,
            lost_kind="source_error",
        )
    scores = sample.get("scores")
    sw = w / "scores" / scorer
    if scores is None or (isinstance(scores, dict) and scorer not in scores):
        # an unscored sample (a cancelled or interrupted run): unmeasured, kept as a lost draw
        return _unscored(
            index, answer, tokens, f"unscored: the source recorded no score from {scorer!r}"
        )
    if not isinstance(scores, dict) or not isinstance(scores.get(scorer), dict):
        raise sw.fail(f"expected a score object from scorer {scorer!r}")
    if "value" not in scores[scorer]:
        return _unscored(index, answer, tokens, f"unscored: scorer {scorer!r} recorded no value")
    value = scores[scorer]["value"]
    vw = sw / "value"
    if isinstance(value, dict):
        if key is None:
            raise vw.fail(
                f"expected --scorer {scorer}:KEY naming the key that holds the score; "
                f"the value is an object with keys {sorted(value)[:20]}"
            )
        if key not in value:
            return _unscored(
                index, answer, tokens, f"unscored: scorer {scorer!r} recorded no key {key!r}"
            )
        value, vw = value[key], vw / key
    elif key is not None:
        raise vw.fail(
            f"expected an object value with key {key!r} (--scorer {scorer}:{key}); "
            "the value is not an object"
        )
    if value is None:
        return _unscored(index, answer, tokens, f"unscored: scorer {scorer!r} recorded null")
    if isinstance(value, list):
        samples = []
        for k, v in enumerate(value):
            if v is None:
                samples.append(judge_sample_doc(None, invalid_reason="the source recorded null"))
                continue
            f = value_to_float(v)
            if f is None:
                raise (vw / k).fail("expected a scalar score (C/I/P/N, a boolean or a number)")
            if not math.isfinite(f):
                samples.append(judge_sample_doc(None, invalid_reason=f"the source recorded {v!r}"))
                continue
            samples.append(judge_sample_doc(_in_unit(f, vw / k)))
        if not any(s["score"] is not None for s in samples):
            return _unscored(
                index, answer, tokens, "unscored: the source recorded no finite score", samples
            )
        return draw_doc(index, answer=answer, judge_samples=samples, tokens=tokens)
    f = value_to_float(value)
    if f is None:
        raise vw.fail(
            "expected a scalar score (C/I/P/N, a boolean or a number), a list of them, or null"
        )
    if not math.isfinite(f):
        return _unscored(
            index, answer, tokens, f"unscored: the source recorded a non-finite score ({value!r})"
        )
    return draw_doc(index, answer=answer, score=_in_unit(f, vw), tokens=tokens)


def _in_unit(f: float, w: Where) -> float:
    if f < 0.0 or f > 1.0:
        raise w.fail(f"expected a score between 0 and 1 (Driftproof's scale), found {f!r}")
    return f


@register("inspect")
def inspect_importer(source: Path | None, **options: Any) -> list[Imported]:
    """Registry entry: ``source`` is the with-skill log (``None`` for a baseline-only import);
    options ``baseline=`` and ``control=`` name the other arms' logs. File
    ``inspect-<skill>-<manifest sha256[:8]>.json``."""
    logs = {"with_skill": Path(source)} if source is not None else {}
    for arm in ("baseline", "control"):
        if options.get(arm) is not None:
            logs[arm] = Path(options.pop(arm))
        else:
            options.pop(arm, None)
    doc = import_inspect(logs, **options)
    return [Imported.named("inspect", doc)]
