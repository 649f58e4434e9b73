"""Reading Inspect AI logs (``.json``, or an ``.eval`` zip): what a header or sample holds.

Each document is parsed strictly (NaN tolerated) and checked against its schema first. What a
log reports about its own run is kept as the source's figures: each epoch stays a draw (D-1);
the epoch reducers' results (``reductions[]`` per sample, ``results.scores[]`` per run, a
``ci()`` as one figure with its bounds) are read where Inspect wrote them, never recomputed
(D-15); a NaN is printed, with no value; an unnamed reducer stays unnamed (D-13).
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from driftproof._json import member_list, member_object
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._archive import Archive
from driftproof.importers._common import Where
from driftproof.importers._inspect_refusals import header_only, unread
from driftproof.importers._schema import validate_source
from driftproof.importers._text import Repair
from driftproof.receipt import sha256_text
from driftproof.wording import ARM_WORDS

TOOL = "inspect_ai"
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
#: A sample member's name as Inspect writes it, ``samples/{id}_epoch_{epoch}.json``: an id may
#: hold "/". Inspect reads every ``samples/*.json`` member as a sample, whatever its name.
_SAMPLE = re.compile(r"samples/(.+)_epoch_(\d+)\.json", re.DOTALL)
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def value_to_float(value: Any) -> float | None:
    """A score value as Inspect's ``value_to_float`` reads it; ``None`` when not a scalar score.

    A string is a score only as Inspect recognises it: exactly C/I/P/N, yes/true/no/false in
    any case, or a finite number; anything else (Inspect reads it as 0 with a warning, such
    as "correct" or " C") is no score. NaN and infinities that are not strings come back as
    they are (the caller loses the draw); an integer beyond 2**53 is no score.
    """
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int) and abs(value) > common.EXACT_INTEGER:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        if (known := _LETTERS.get(value, _WORDS.get(value.lower()))) is not None:
            return known
        try:
            f = float(value)
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    return None


class Log(NamedTuple):
    """An Inspect log: header, samples, bytes, reductions, header's place, repaired strings."""

    header: dict[str, Any]
    samples: list[tuple[dict[str, Any], Where]]
    raw: bytes
    reductions: tuple[list[Any], Where] | None
    where: Where
    repairs: list[Repair]


def _read_log(path: Path) -> Log:
    """One Inspect log, ``.json`` or ``.eval``, checked against its schema."""
    raw = common.read_bytes(path)
    repairs: list[Repair] = []
    # an .eval log (or anything starting as a zip does) is read as an archive: a truncated one,
    # with no central directory, is refused as such, never parsed as JSON
    if path.suffix == ".eval" or raw.startswith(b"PK\x03\x04") or zipfile.is_zipfile(path):
        return _read_eval_zip(path, raw, repairs)
    doc = common.parse_json_bytes(raw, path, repairs, allow_nan=True)
    validate_source(doc, "inspect_ai", path)  # the shape of every member walked below
    w = Where(path)
    samples = doc.get("samples")
    if (refused := unread(doc, w, samples)) is not None:
        raise refused
    reductions = doc.get("reductions")
    return Log(
        doc,
        [(s, w / "samples" / i) for i, s in enumerate(samples)],
        raw,
        None if reductions is None else (reductions, w / "reductions"),
        w,
        repairs,
    )


def _read_eval_zip(path: Path, raw: bytes, repairs: list[Repair]) -> Log:
    """One ``.eval`` archive: header (or the journal's start), samples and reductions."""
    z = Archive(path)
    names = set(z.infos)
    # header.json is written when the run finishes; a log still being written (or
    # interrupted) has only _journal/start.json, with the eval spec and plan
    member = "header.json" if "header.json" in names else "_journal/start.json"
    if member not in names:
        raise Where(path, member="header.json").fail(
            "expected header.json (or _journal/start.json) in the .eval archive"
        )
    header = _member(z, member, "header", repairs)
    members = sorted(
        (n for n in names if n.startswith("samples/") and n.endswith(".json")), key=_member_order
    )
    samples = [(_member(z, n, "sample", repairs), Where(path, member=n)) for n in members]
    if not samples:  # a header-only log counts its completed samples; else none was logged
        raise header_only(header, Where(path, member=member)) or Where(path).fail(
            "expected samples/<id>_epoch_<n>.json members; found none"
        )
    reductions = None
    if "reductions.json" in names:  # written with header.json when the run finishes
        doc = _member(z, "reductions.json", "reductions", repairs)
        if doc is not None:
            reductions = (doc, Where(path, member="reductions.json"))
    return Log(header, samples, raw, reductions, Where(path, member=member), repairs)


def _member(z: Archive, name: str, definition: str, repairs: list[Repair]) -> Any:
    """Archive member ``name`` parsed and checked as its own document, named from the archive."""
    doc = common.parse_json_bytes(z.read(name), z.shown, repairs, allow_nan=True, member=name)
    validate_source(doc, "inspect_ai", z.shown, definition=definition, member=name)
    return doc


def _member_order(name: str) -> tuple[int, tuple[int, str], tuple[int, str]]:
    """Numeric ids first in their order, then other ids, each by epoch; then other names.

    Digits are ordered as numbers without ``int()`` (a member name may hold thousands).
    """

    def number(digits: str) -> tuple[int, str]:
        return len(digits.lstrip("0")), digits.lstrip("0")

    m = _SAMPLE.fullmatch(name)
    if m is None:
        return (2, (0, name), (0, ""))
    sid, epoch = m[1], number(m[2])
    return (0, number(sid), epoch) if sid.isdigit() else (1, (0, sid), epoch)


def scorer_name(
    header: dict[str, Any],
    samples: list[tuple[dict[str, Any], Where]],
    scorer: str | None,
    at: Where,
) -> str:
    """``scorer`` when the header (at ``at``) or a sample has it, else the only scorer there is."""
    results = member_object(header, "results")
    scores = results.get("scores") or []
    held = [n for sample, _ in samples for n in sample.get("scores") or {}]
    names = [s["name"] for s in scores if isinstance(s.get("name"), str)]
    names = list(dict.fromkeys(names + held))
    w = at / "results" / "scores"
    if not names and ("scorer" in results or any("score" in s for s, _ in samples)):
        raise w.fail(
            "expected scores under `scores`; this log keeps them as an older Inspect wrote them "
            "(a sample's `score`, the results' `scorer`): have Inspect write it again in today's "
            "fields (`inspect log convert LOG --to eval --output-dir DIR`) and import that"
        )
    has = ", ".join(json.dumps(n) for n in names) or "none"
    if scorer is not None:
        if names and scorer not in names:
            raise w.fail(f"expected a scorer named {scorer!r}; the log has {has}")
        if held and scorer not in held:  # a results entry named by a key of an object value
            owners = (s.get("scorer") for s in scores if s.get("name") == scorer)
            owner = next((o for o in owners if isinstance(o, str) and o != scorer), None)
            hint = f"; read it as --scorer {owner}:{scorer}" if owner else ""
            listed = ", ".join(json.dumps(n) for n in dict.fromkeys(held))
            raise w.fail(
                f"expected a scorer whose samples hold scores; no sample holds one from "
                f"{scorer!r}, the samples' scorers are {listed}{hint}"
            )
        return scorer
    if not names:
        raise w.fail(_no_scores(header))
    if len(names) != 1:
        raise w.fail(f"expected exactly one scorer or an explicit --scorer; the log has {has}")
    return names[0]


def run_error(header: dict[str, Any]) -> str:
    """The log's own error message, quoted (its first 300 characters); ``""`` when it has none."""
    error = header.get("error")
    said = error.get("message") if isinstance(error, dict) else None
    return repr(str(said)[:300]) if said else ""


def _no_scores(header: dict[str, Any]) -> str:
    """Why a log with no score is refused: its run ended early, or it ran with ``--no-score``."""
    said = (
        "expected scores; the log holds none (no sample has a score and its results name no scorer)"
    )
    status = header.get("status")
    if status in ("error", "cancelled"):  # a run that stopped before any sample was scored
        quoted = f" ({said})" if (said := run_error(header)) else ""
        return (
            f"{said}: its run ended with status {status!r}{quoted} before any sample was "
            "scored; a run that stopped early is finished by `inspect eval-retry LOG`; import that"
        )
    return f"{said}: a log run with --no-score is scored by `inspect score LOG`; import that"


def judge_model_of(header: dict[str, Any], scorer: str) -> tuple[str, tuple[Any, ...]]:
    """``scorer``'s grading model and the path of its member in ``header`` (``()``: none)."""
    ev = member_object(header, "eval")
    grader = member_object(ev, "model_roles").get("grader")
    if isinstance(grader, dict) and common.is_name(grader.get("model")):
        return grader["model"], ("eval", "model_roles", "grader", "model")
    if common.is_name(grader):
        return grader, ("eval", "model_roles", "grader")
    for i, s in enumerate(ev.get("scorers") or []):
        if isinstance(s, dict) and s.get("name") == scorer and isinstance(s.get("options"), dict):
            if common.is_name(s["options"].get("model")):
                return s["options"]["model"], ("eval", "scorers", i, "options", "model")
    if scorer.startswith("model_graded") and common.is_name(ev.get("model")):
        return ev["model"], ("eval", "model")
    return f"unrecorded:{TOOL}/{scorer}", ()


def held(value: Any, w: Where, *path: Any) -> None:
    """Refuse a value the receipt records that it cannot hold, at ``w`` / ``path``.

    Only a recorded value is checked (one left unrecorded is not): a text holds 200 characters,
    a list 20 such texts.

    Raises:
        ImportError_: a longer text or list, at its member (an item's for a long item).
    """
    for key in path:
        w = w / key
    if isinstance(value, list) and len(value) > 20:
        raise w.fail(f"expected at most 20 items, found {len(value):,}")
    for i, text in enumerate(value) if isinstance(value, list) else [(None, value)]:
        if isinstance(text, str):
            common.within(text, w if i is None else w / i)


def system_message_sha256(header: dict[str, Any]) -> str | None:
    for step in member_object(header, "plan").get("steps") or []:
        if isinstance(step, dict) and step.get("solver") == "system_message":
            template = member_object(step, "params").get("template")
            if isinstance(template, str):
                return sha256_text(template)
    return None


def joined_text(value: Any) -> str | None:
    """A sample's input as one text, or ``None`` when it holds none.

    ``value`` when text, else its messages' texts (:func:`message_text`) joined by blank lines.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        held = [message_text(m.get("content")) for m in value if isinstance(m, dict)]
        parts = [x for x in held if x is not None]
        return "\n\n".join(parts) if parts else None
    return None


def message_text(content: Any) -> str | None:
    """A message's content read as Inspect's ``ChatMessage.text``.

    Text as it is; a list of parts, its ``type: text`` parts joined by a newline. ``None`` when
    it holds no text part (an image alone) or is neither.
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [
        p["text"]
        for p in content
        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
    ]
    return "\n".join(texts) if texts else None


def answer_text(sample: dict[str, Any]) -> str | None:
    """The first choice's message text (:func:`message_text`), as Inspect's ``completion``."""
    choices = member_list(member_object(sample, "output"), "choices")  # objects (the schema's)
    return message_text(member_object(choices[0], "message").get("content")) if choices else None


def read_logs(logs: dict[str, Path]) -> dict[str, Log]:
    """Each arm's log, read.

    Raises:
        ImportError_: the same document for two arms, or logs of different tasks.
    """
    read = {arm: _read_log(Path(p)) for arm, p in logs.items()}
    digests: dict[str, str] = {}
    for arm, log in read.items():
        digest = common.file_sha256(log.raw)
        if digest in digests:
            raise Where(logs[arm]).fail(
                f"the same document (sha256 {digest}) is given for the "
                f"{ARM_WORDS[digests[digest]]} arm and the {ARM_WORDS[arm]} arm; one log measures "
                "one arm. Give it once for a single-arm import"
            )
        digests[digest] = arm
    tasks = {arm: member_object(log.header, "eval").get("task") for arm, log in read.items()}
    if len(set(tasks.values())) != 1:
        found = " and ".join(
            f"{json.dumps(t)} in the {ARM_WORDS[a]} arm's log" for a, t in tasks.items()
        )
        first, *others = logs  # the problem names the first; the message the others
        raise (read[first].where / "eval" / "task").fail(
            f"expected the same task in every arm's log, found {found} "
            f"({', '.join(str(logs[a]) for a in others)})"
        )
    return read


def log_times(read: dict[str, Log], unrecorded: list[str]) -> dict[str, str | None]:
    """The earliest ``stats.started_at`` and latest ``stats.completed_at``, as instants."""
    found: dict[str, list[tuple[datetime, str | None]]] = {"started_at": [], "completed_at": []}
    for log in read.values():
        stats, sw = member_object(log.header, "stats"), log.where / "stats"
        for member, into in found.items():
            if stats.get(member) not in (None, ""):
                into.append(common.parse_instant(stats[member], sw / member))
    for member, field in (("started_at", "started_at"), ("completed_at", "finished_at")):
        if len(found[member]) != len(read):
            unrecorded.append(f"run.{field} (a log records no stats.{member})")
            found[member] = []
    return common.run_times(found["started_at"], found["completed_at"])


def _scalar(value: Any, w: Where) -> tuple[float | None, str | None]:
    """(value, print) of one reduced scalar: a NaN or infinity has no value, only its print."""
    f = value_to_float(value)
    if f is None:
        raise w.fail("expected a reduced score (C/I/P/N, a boolean or a number), or NaN")
    if not math.isfinite(f):
        return None, json.dumps(value)  # NaN, Infinity: as the log writes them
    return f, (value if isinstance(value, str) else None)


def _sample_figures(log: Log, scorer: str, arm: str) -> list[dict[str, Any]]:
    """Each sample's reduced value from ``scorer``, per reducer, in the log's order."""
    if log.reductions is None:
        return []
    reductions, rw = log.reductions
    out = []
    for i, red in enumerate(reductions):
        if red.get("scorer") != scorer:
            continue
        reducer = red.get("reducer")
        held(reducer, rw, i, "reducer")
        for k, s in enumerate(red["samples"]):
            sw = rw / i / "samples" / k
            if "value" not in s:
                raise (sw / "value").fail("expected the sample's reduced value, found none")
            value, vw = s["value"], sw / "value"
            if isinstance(value, dict):
                parts = [(f"{scorer} {key}, reduced", v, vw / key) for key, v in value.items()]
            elif isinstance(value, list):
                parts = [(f"{scorer} [{n + 1}], reduced", v, vw / n) for n, v in enumerate(value)]
            else:
                parts = [(f"{scorer}, reduced", value, vw)]
            sid = s.get("sample_id")
            case = None if sid is None else common.case_id_for(str(sid))
            for label, v, w in parts:
                number, printed = _scalar(v, w)
                out.append(
                    declared.figure(
                        label, number, case=case, arm=arm, reducer=reducer, printed=printed
                    )
                )
    return out


#: Inspect's metrics that are a spread, never below 0 (its stderr(), std(), var(),
#: bootstrap_stderr()).
_SPREADS = frozenset({"stderr", "std", "var", "bootstrap_stderr"})


def _run_figures(log: Log, scorer: str, arm: str) -> list[dict[str, Any]]:
    """The run's figures from ``scorer`` in ``results.scores[]``: its counts and metrics."""
    out = []
    for i, score in enumerate(member_object(log.header, "results").get("scores") or []):
        if (score.get("scorer") or score.get("name")) != scorer:
            continue
        sw = log.where / "results" / "scores" / i
        name = str(score.get("name") or scorer)
        more = {"arm": arm, "reducer": score.get("reducer")}
        held(more["reducer"], sw, "reducer")
        for member in ("scored_samples", "unscored_samples"):
            if (count := sw.number(score, member, low=0, count=True)) is not None:
                label = f"{name} {member.replace('_', ' ')}"
                out.append(declared.figure(label, count, unit="count", **more))
        interval: dict[str, Any] = {}
        for key, m in (score.get("metrics") or {}).items():
            group, leaf = m.get("group"), str(m.get("name") or key)
            value = m.get("value")
            if isinstance(value, int):  # an integer no float holds exactly is refused
                common.source_number(value, sw / "metrics" / key / "value")
            if leaf in _SPREADS and isinstance(value, (int, float)) and value < 0:
                raise (sw / "metrics" / key / "value").fail(
                    f"expected a {leaf} of 0 or more, found {value!r}"
                )
            number = value if isinstance(value, (int, float)) and math.isfinite(value) else None
            if group == "ci" and leaf in ("lower", "upper"):
                interval[leaf] = number
                level = (m.get("params") or {}).get("level")
                if isinstance(level, float) and 0 < level < 1:
                    interval["level"] = level
                continue
            label = f"{name} {group} {leaf}" if group else f"{name} {leaf}"
            printed = None if number is not None or value is None else json.dumps(value)
            out.append(declared.figure(label, number, printed=printed, **more))
        if interval:
            out.append(declared.figure(f"{name} ci", None, **interval, **more))
    return out


def source_report(
    read: dict[str, Log], scorers: dict[str, str], unrecorded: list[str]
) -> dict[str, Any] | None:
    """Every arm's run figures, then sample figures (unrecorded past the limit); None for none."""
    run_figs = [f for arm, log in read.items() for f in _run_figures(log, scorers[arm], arm)]
    sample_figs = [f for arm, log in read.items() for f in _sample_figures(log, scorers[arm], arm)]
    if len(run_figs) + len(sample_figs) > declared.MAX_FIGURES:
        unrecorded.append(
            f"the source's per-sample reduced values ({len(sample_figs)}, more than a receipt "
            "holds)"
        )
        sample_figs = []
    configs = (member_object(member_object(log.header, "eval"), "config") for log in read.values())
    reducers = (c.get("epochs_reducer") for c in configs)  # as each log declares them
    reducer_sets = list({tuple(x) if isinstance(x, list) else None for x in reducers})
    if len(reducer_sets) > 1:
        unrecorded.append("the epoch reducers (the arms' logs declare different ones)")
    same = list(reducer_sets[0]) if len(reducer_sets) == 1 and reducer_sets[0] is not None else None
    held(same, next(iter(read.values())).where, "eval", "config", "epochs_reducer")
    if not run_figs and not sample_figs and same is None:
        return None
    return {"figures": run_figs + sample_figs, **({"reducers": same} if same is not None else {})}
