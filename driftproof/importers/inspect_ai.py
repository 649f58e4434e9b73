"""Inspect AI eval logs (``.json`` and ``.eval``), one per arm → a DECLARED receipt (D-15).

One log alone is a single-arm import (the other arm ``recorded: false``). Epochs are draws,
unscored samples lost draws, and so are a sample marked invalid (its ``invalidation``) and each
sample × epoch the log lists (``eval.dataset.sample_ids``) but holds no record of. The mapping
is the interop page's ("Inspect AI").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from driftproof._json import member_list, member_object
from driftproof.importers import Imported, register
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._common import OPTIONS, Where
from driftproof.importers._inspect_log import (
    TOOL,
    Log,
    answer_text,
    held,
    joined_text,
    judge_model_of,
    log_times,
    read_logs,
    run_error,
    scorer_name,
    source_report,
    system_message_sha256,
    value_to_float,
)
from driftproof.receipt import Case, Draw, JudgeSample, build_draw, build_judge_sample
from driftproof.wording import ARM_WORDS, ARMS

_UNRECORDED = (
    "judge_samples_per_generation",
    "run.provider",
    "run.surface",
    "run.harness",
    "each case's rubric_sha256",
)


@dataclass(frozen=True)
class InspectOptions:
    """Options of an Inspect import.

    Attributes:
        scorer: ``NAME`` or ``NAME:KEY``: the scorer read (required when a log has several),
            and for an object-valued scorer the key holding the score.
        skill_md: the SKILL.md measured, hashed and counted (D-14); unknown when omitted.
    """

    skill_name: str
    scorer: str | None = None
    skill_md: Path | None = None


@register("inspect", InspectOptions)
def import_inspect(logs: Mapping[str, Path] | Path, options: InspectOptions) -> list[Imported]:
    """Convert one Inspect log per arm (a path alone: with_skill) into a DECLARED receipt.

    Raises:
        ImportError_: no log, the same document for two arms (by sha256), a malformed log, logs
            of different tasks, an unknown, ambiguous or blank scorer, an object value with no
            KEY, a score outside 0..1 or a timestamp with no UTC offset; naming the file and
            pointer (in a ``.eval`` archive the pointer starts with the member's name).
    """
    logs = {"with_skill": logs} if isinstance(logs, (str, Path)) else dict(logs)
    if not logs or set(logs) - set(ARMS) or not {"with_skill", "baseline"} & set(logs):
        raise OPTIONS.fail(
            "expected one log per arm: --with-skill LOG and/or --baseline LOG "
            "[--control LOG]; one of the first two alone is a single-arm import"
        )
    scorer = options.scorer
    name, key = (scorer.split(":", 1) + [None])[:2] if scorer is not None else (None, None)
    if scorer is not None and not (common.is_name(name) and key != ""):
        raise OPTIONS.fail(f"--scorer {scorer!r}: expected NAME or NAME:KEY")
    read = read_logs(logs)
    for log in read.values():
        _unblank_scorers(log)
    missing = [a for a in ("with_skill", "baseline") if a not in logs]
    single = "a single-arm log: no lift, no interval, no value per token"
    unrecorded = [*_UNRECORDED, *(f"the {a} arm ({single})" for a in missing)]
    scorers = {
        arm: scorer_name(log.header, log.samples, name, log.where) for arm, log in read.items()
    }
    hits: list[tuple[str, str, int, str]] = []  # (arm, sample id, epoch, the limit in words)
    cases = _cases(read, scorers, key, logs, missing, hits)
    gens, model, judge_model, version = _recorded(read, scorers, unrecorded)
    if options.skill_md is None:
        unrecorded.append("skill.sha256 and skill.tokens (SKILL.md not given)")
    times = log_times(read, unrecorded)
    report = source_report(read, scorers, unrecorded)
    documents = [(f"{arm}={logs[arm]}", common.file_sha256(log.raw)) for arm, log in read.items()]
    sha = {arm: system_message_sha256(log.header) for arm, log in read.items()}
    specs = {
        arm: declared.arm_spec(Path(logs[arm]).name, system_prompt_sha256=sha[arm]) for arm in read
    }
    note = f"scores read at key {key!r} of scorer {name!r}'s object values (--scorer {scorer})"
    notes = [note] * (key is not None) + _ended_notes(read) + _limit_notes(hits)
    body = declared.declared_receipt(
        options.skill_name,
        common.read_skill_md(options.skill_md),
        cases,
        declared.provenance(
            TOOL,
            version,
            "; ".join(d for d, _ in documents),
            common.manifest_sha256(documents),
            unrecorded,
            notes=notes or None,
            partial=any(_status(log) in _STOPPED for log in read.values()) or None,
        ),
        model=model,
        started_at=times["started_at"],
        finished_at=times["finished_at"],
        run_members={k: times[k] for k in ("started_at_offset", "finished_at_offset")},
        generations_per_arm=gens,
        judge=declared.unrecorded_judge(
            TOOL, name or "scorer", model=judge_model, channel="source"
        ),
        arms={**specs, **{arm: declared.arm_spec(None, recorded=False) for arm in missing}},
        band_source="generation",
        source_report=report,
    )
    repairs = [r for log in read.values() for r in log.repairs]
    return [Imported.named("inspect", body, repairs=repairs)]


#: The statuses of a run that stopped or has not finished: its receipt is partial.
_STOPPED = ("started", "cancelled", "error")
#: Inspect's limit types (``EvalSampleLimit.type``) → the unit of their ``limit``.
_LIMIT_UNITS = {"time": " seconds", "working": " seconds", "cost": " US dollars"}


def _limit(sample: dict[str, Any], w: Where) -> str | None:
    """The limit a sample hit, in words (``"token limit (4,000)"``), or ``None`` when none.

    Inspect writes ``limit: {type, limit}`` (``EvalSampleLimit``) on a sample a limit halted.
    """
    hit = sample.get("limit")
    if hit is None:
        return None
    lw = w / "limit"
    kind = lw.get(hit, "type", str)
    value = lw.number(hit, "limit", low=0)
    bound = "" if value is None else f" ({value:,.6g}{_LIMIT_UNITS.get(kind, '')})"
    return f"{kind[:40]} limit{bound}"


def _limit_notes(hits: list[tuple[str, str, int, str]]) -> list[str]:
    """One note per arm and limit naming the scored samples that hit it (the first 20)."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for arm, sid, epoch, limit in hits:
        grouped.setdefault((arm, limit), []).append(f"{sid[:40]} (epoch {epoch})")
    out = []
    for (arm, limit), samples in grouped.items():
        more = f" and {len(samples) - 20:,} more" if len(samples) > 20 else ""
        shown = ", ".join(samples[:20]) + more
        one = len(samples) == 1
        out.append(
            f"in the {ARM_WORDS[arm]} arm, sample{'' if one else 's'} {shown} hit Inspect's "
            f"{limit}; scored as Inspect scored {'it' if one else 'them'}"
        )
    return out


def _status(log: Log) -> object:
    """The log's ``status``; ``"started"`` for an unfinished ``.eval`` (no ``header.json``)."""
    return "started" if log.where.member == "_journal/start.json" else log.header.get("status")


def _ended_notes(read: dict[str, Log]) -> list[str]:
    """A note for each arm whose log's ``status`` is not success, quoting its error message."""
    out = []
    for arm, log in read.items():
        status = _status(log)
        if status == "success":
            continue
        told = f": {said}" if (said := run_error(log.header)) else ""
        out.append(
            f"the {ARM_WORDS[arm]} arm's log has status {str(status)[:40]!r}, not 'success'{told}; "
            "its samples are imported as recorded"
        )
    return out


def _recorded(
    read: dict[str, Log], scorers: dict[str, str], unrecorded: list[str]
) -> tuple[int | None, str | None, str | None, str | None]:
    """The epochs, model, grading model and Inspect version all logs share; else unrecorded."""
    evals = [member_object(log.header, "eval") for log in read.values()]
    epochs = (member_object(e, "config").get("epochs") for e in evals)
    gens = common.sole(n if common.is_count(n) and n >= 1 else None for n in epochs)
    judged = [judge_model_of(log.header, scorers[arm]) for arm, log in read.items()]
    judge_model = common.sole(m for m, _ in judged)
    if judge_model is None or judge_model.startswith("unrecorded:"):
        unrecorded.insert(0, "judge.model (the scorer records no grading model)")
    version = common.sole(
        str(v) for e in evals if (v := member_object(e, "packages").get("inspect_ai"))
    )
    first = next(iter(read.values())).where / "eval"  # a value all logs give: at the first's
    model = common.stated(common.sole(e.get("model") for e in evals), first / "model")
    version = common.stated(version, first / "packages" / "inspect_ai")
    if judged[0][1]:  # a grading model the logs name (not the marker of none)
        held(judge_model, first, *judged[0][1][1:])
    for value, why in (
        (gens, "generations_per_arm (eval.config.epochs absent or different between arms)"),
        (model, "run.model (the logs name no model, or different ones)"),
        (version, "provenance.tool_version (eval.packages.inspect_ai absent or different)"),
    ):
        if value is None:
            unrecorded.append(why)
    return gens, model, judge_model, version


def _unblank_scorers(log: Log) -> None:
    """Refuse a scorer named by a blank text, in the results or a sample: it names no scorer.

    Raises:
        ImportError_: the first such name, at its pointer.
    """
    w = log.where / "results" / "scores"
    for i, s in enumerate(member_object(log.header, "results").get("scores") or []):
        common.unblank(s.get("name"), w / i / "name", "the scorer's name")
    for sample, sw in log.samples:
        for n in sample.get("scores") or {}:
            common.unblank(n, sw / "scores" / n, "the scorer's name")


def _cases(
    read: dict[str, Log],
    scorers: dict[str, str],
    key: str | None,
    logs: dict[str, Path],
    missing: list[str],
    hits: list[tuple[str, str, int, str]],
) -> list[Case]:
    """The samples as cases by id, each epoch a draw; no id or epoch, a blank id, or a repeat fails.

    ``hits`` gathers each scored sample that hit a limit: (arm, sample id, epoch, the limit).
    """
    prompts: dict[str, str | None] = {}
    cases: dict[str, dict[str, list[Draw]]] = {}
    places: dict[tuple[str, str, int], Where] = {}  # (sample id, arm, epoch) -> the sample
    for arm, log in read.items():
        for sample, sw in log.samples:
            sid = sample.get("id")
            if isinstance(sid, bool) or not isinstance(sid, (int, str)):
                found = f"found {common.kind_of(sid)}"
                raise (sw / "id").fail(f"expected the sample id (an integer or a string), {found}")
            common.unblank(sid, sw / "id", "the sample id")  # Inspect's unique id of a sample
            epoch = sample.get("epoch")
            if not common.is_count(epoch) or epoch < 1:
                raise (sw / "epoch").fail("expected the epoch (an integer from 1)")
            prompts.setdefault(str(sid), joined_text(sample.get("input")))
            draws = cases.setdefault(str(sid), {a: [] for a in (*logs, *missing)})
            drawn = _draw(sample, sw, scorers[arm], key, epoch)
            draws[arm].append(drawn)
            limit = _limit(sample, sw)
            if limit is not None and drawn.lost is None:
                hits.append((arm, str(sid), epoch, limit))
            if (first := places.setdefault((str(sid), arm, epoch), sw)) is not sw:
                held_at = f"member {first.member}" if first.member else first.pointer
                raise (sw / "epoch").fail(
                    f"expected one sample per id and epoch; sample {sid}, epoch {epoch} is also "
                    f"at {held_at}"
                )
    for arm, log in read.items():  # a sample the log lists but does not hold: a lost draw
        for sid, epoch, why in _listed(log):
            if (sid, arm, epoch) not in places:
                draws = cases.setdefault(sid, {a: [] for a in (*logs, *missing)})
                prompts.setdefault(sid, None)
                draws[arm].append(build_draw(epoch - 1, lost_reason=why, lost_kind="missing"))
    for sid, arms in cases.items():
        for arm in (a for a in ARMS if a in logs):
            arms[arm].sort(key=lambda d: d.index)
            if len({d.index for d in arms[arm]}) != len(arms[arm]):  # held ones are told apart
                raise (read[arm].where / "eval" / "dataset" / "sample_ids").fail(
                    f"expected each sample id listed once; sample {sid} is listed more than once"
                )
            for expected, draw in enumerate(arms[arm]):  # an epoch neither held nor listed
                if draw.index != expected:
                    raise (places[(sid, arm, draw.index + 1)] / "epoch").fail(
                        "expected epochs counted from 1 with none skipped (eval.config.epochs, "
                        f"1 when absent, is the number run); sample {sid} has epoch "
                        f"{draw.index + 1} but the log neither holds nor lists its epoch "
                        f"{expected + 1}"
                    )
    return [
        declared.case_entry(common.case_id_for(sid), prompts[sid], arms)
        for sid, arms in cases.items()
    ]


#: The most epochs a log may list: a case's draws in one arm hold at most 100,000 items.
MAX_EPOCHS = 100_000
#: The most sample × epoch runs a log may list (each one absent is a lost draw to hold).
MAX_LISTED_RUNS = 1_000_000


def _listed(log: Log) -> list[tuple[str, int, str]]:
    """(sample id, epoch, why lost if absent) for each sample × epoch the log says it ran.

    The run's samples are ``eval.dataset.sample_ids`` (after ``--limit``), each run for
    ``eval.config.epochs`` epochs (1 when absent); when the log lists no ids, the ids of the
    samples it holds.

    Raises:
        ImportError_: a listed id that is not an integer or a string, or is blank, or more
            epochs than a case's draws hold (:data:`MAX_EPOCHS`) or runs than
            :data:`MAX_LISTED_RUNS`, naming file and pointer.
    """
    ev = member_object(log.header, "eval")
    ids = member_object(ev, "dataset").get("sample_ids")
    if not isinstance(ids, list):  # no list: each sample held runs every epoch
        ids = list(dict.fromkeys(s.get("id") for s, _ in log.samples))
    epochs = member_object(ev, "config").get("epochs")
    epochs = epochs if common.is_count(epochs) and epochs >= 1 else 1
    if epochs > MAX_EPOCHS or len(ids) * epochs > MAX_LISTED_RUNS:
        where = log.where / "eval" / ("config" if epochs > 1 else "dataset")
        raise (where / ("epochs" if epochs > 1 else "sample_ids")).fail(
            f"expected at most {MAX_EPOCHS:,} epochs and {MAX_LISTED_RUNS:,} sample × epoch runs "
            f"in all, found {len(ids):,} samples × {epochs:,} epoch{'s' * (epochs != 1)}"
        )
    status = _status(log)
    early = member_object(member_object(log.header, "results"), "early_stopping")
    stops = {  # (id, epoch) -> the reason Inspect's early stopping gave for skipping it
        (str(x.get("id")), x.get("epoch")): x.get("reason")
        for x in member_list(early, "early_stops")
        if isinstance(x, dict)
    }
    ended = {"cancelled": "; the run was cancelled", "error": "; the run ended in an error"}
    ended["started"] = "; the log was still being written"
    out = []
    for k, sid in enumerate(ids):
        if isinstance(sid, bool) or not isinstance(sid, (int, str)):
            where = log.where / "eval" / "dataset" / "sample_ids" / k
            raise where.fail("expected a sample id (an integer or a string)")
        common.unblank(sid, log.where / "eval" / "dataset" / "sample_ids" / k, "a sample id")
        for e in range(1, epochs + 1):
            why = f"the log lists sample {sid}, epoch {e}, but holds no record of it"
            why += ended.get(str(status), "")
            if (str(sid), e) in stops:
                said = stops[(str(sid), e)]
                why = f"Inspect's early stopping skipped sample {sid}, epoch {e}"
                why += f": {str(said)[:3000]}" if said else ""
            out.append((str(sid), e, why))
    return out


def _draw(sample: dict[str, Any], w: Where, scorer: str, key: str | None, epoch: int) -> Draw:
    """One epoch as a draw: lost if marked invalid or on an error, unscored with no finite score."""
    usage = member_object(sample, "output").get("usage")
    tokens = common.source_tokens(usage, "input_tokens", "output_tokens", w / "output" / "usage")
    draw = partial(build_draw, epoch - 1, answer=answer_text(sample), tokens=tokens)
    if sample.get("invalidation") is not None:  # marked invalid after the run, score kept
        said = member_object(sample, "invalidation")
        by = f" by {str(said['author'])[:200]}" if said.get("author") else ""
        why = f": {str(said['reason'])[:3000]}" if said.get("reason") else ""
        return draw(lost_reason=f"invalidated in the source{by}{why}", lost_kind="invalidated")
    error = sample.get("error")
    if error is not None:
        msg = error.get("message") if isinstance(error, dict) else str(error)
        text = str(msg)[:3900] if msg else None  # no message: no words of the source's
        why = f"source error: {text or 'Inspect recorded an error for this sample'}"
        return draw(lost_reason=why, source_error=text, lost_kind="source_error")
    scores = sample.get("scores")
    sw = w / "scores" / scorer
    if scores is None or scorer not in scores:
        # an unscored sample (a cancelled or interrupted run): unmeasured, kept as a lost draw
        return _unscored(draw, f"unscored: the source recorded no score from {scorer!r}")
    if "value" not in scores[scorer]:
        return _unscored(draw, f"unscored: scorer {scorer!r} recorded no value")
    return _scored(draw, scores[scorer]["value"], sw / "value", scorer, key)


def _unscored(draw: Callable[..., Draw], reason: str, samples: Sequence[JudgeSample] = ()) -> Draw:
    """An unscored sample: a lost draw of kind ``unscored`` with its reason, never a 0."""
    return draw(judge_samples=samples, lost_reason=reason, lost_kind="unscored")


def _scored(draw: Callable[..., Draw], value: Any, vw: Where, scorer: str, key: str | None) -> Draw:
    """A scored sample's draw: its value (at ``key``) the score, a list the judge samples."""
    if isinstance(value, dict):
        if key is None:
            raise vw.fail(
                f"expected --scorer {scorer}:KEY naming the key that holds the score; "
                f"the value is an object with keys {sorted(value)[:20]}"
            )
        if key not in value:
            return _unscored(draw, f"unscored: scorer {scorer!r} recorded no key {key!r}")
        value, vw = value[key], vw / key
    elif key is not None:
        raise vw.fail(
            f"expected an object value with key {key!r} (--scorer {scorer}:{key}); "
            "the value is not an object"
        )
    if value is None:
        return _unscored(draw, f"unscored: scorer {scorer!r} recorded null")
    if isinstance(value, list):
        samples = [_sample(v, vw / k) for k, v in enumerate(value)]
        if not any(s.score is not None for s in samples):
            return _unscored(draw, "unscored: the source recorded no finite score", samples)
        return draw(judge_samples=samples)
    f = _score(value, vw, ", a list of them, or null")
    if not math.isfinite(f):
        return _unscored(draw, f"unscored: the source recorded a non-finite score ({value!r})")
    return draw(score=f)


def _sample(v: Any, w: Where) -> JudgeSample:
    """One judge sample of a list value: null or a non-finite score is invalid, kept."""
    if v is None:
        return build_judge_sample(None, invalid_reason="the source recorded null")
    f = _score(v, w)
    if not math.isfinite(f):
        return build_judge_sample(None, invalid_reason=f"the source recorded {v!r}")
    return build_judge_sample(f)


def _score(v: Any, w: Where, more: str = "") -> float:
    """``v`` read as a score: a finite one in 0..1, or NaN or infinite as recorded."""
    f = value_to_float(v)
    if f is None:
        raise w.fail(f"expected a scalar score (C/I/P/N, a boolean or a number){more}")
    if math.isfinite(f) and (f < 0.0 or f > 1.0):
        raise w.fail(f"expected a score between 0 and 1 (Driftproof's scale), found {f!r}")
    return f
