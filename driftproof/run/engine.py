"""``driftproof run``: draw every arm of every case, judge every draw, seal a receipt."""

from __future__ import annotations

import dataclasses
import glob
import re
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from driftproof.errors import ProviderError, RefusalError
from driftproof.receipt import Receipt, ReceiptBody, sha256_text, write_receipt
from driftproof.run.batch import BatchJournal, BatchLane, batch_journal_path
from driftproof.run.batch_engine import BatchRounds
from driftproof.run.batch_lanes import batch_lane
from driftproof.run.config import (
    RunConfig,
    RunInterrupted,
    RunResult,
    Spend,
    StoppedWritten,
    arm_systems,
    kept_on_disk_error,
    now,
)
from driftproof.run.drawer import Drawer
from driftproof.run.journal import Journal, journal_path
from driftproof.run.providers.base import Provider
from driftproof.run.scheduler import Counter, FatalRun, HeldStops, StopRun, run_cells
from driftproof.run.sealing import answers, judge_doc, receipt_body, write_transcripts
from driftproof.run.suite import Suite, SuiteCase, require_gradable
from driftproof.stats import Refusal, arms_measured_nothing, lost_causes, no_verdict
from driftproof.stats.unmeasured import lost_words
from driftproof.tokens import count_tokens
from driftproof.wording import AA_ARM_WORDS, NOT_MEASURED, count_of


def run_suite(
    suite: Suite,
    *,
    skill_text: str,
    skill_name: str,
    cfg: RunConfig,
    provider: Provider,
    judge: Provider,
    out: str | Path,
    sleep: Callable[[float], None] = time.sleep,
    progress: Callable[..., None] | None = None,
    replace: bool = True,
) -> RunResult:
    """Run ``suite`` and write a sealed receipt to ``out``, resuming its journal if one is there.

    ``sleep`` waits between attempts (seconds); with ``cfg.batch`` the draws go through batch
    APIs (:mod:`.batch_engine`, same receipt plus ``run.batch``). ``progress(done, total,
    spend_usd)`` follows each draw, then phase ``"sealing"`` and ``"done"``; at a Ctrl-C,
    ``progress.stopping(n, seconds=s)`` (when present) is told that ``n`` draws are finishing
    their current attempt, each within ``s`` seconds (the longer of the answer and judge
    timeouts); ``progress.note(line)`` (when present) is told of a journal replaced. Without
    ``replace`` a file that appeared at ``out`` meanwhile is refused, the journal kept.

    Returns:
        The result; an arm that measured nothing (D-17) is named in ``RunResult.unmeasured``.

    Raises:
        SuiteError: a case cannot be graded (before any call).
        RefusalError: the journal belongs to another run or another harness version.
        ProviderError: the lane cannot start, or a fatal attempt error stopped it (journal kept).
        RunInterrupted: Ctrl-C (or SIGTERM) after the journal is opened, before the receipt is
            written: the journal is kept; run again to resume.
        StoppedWritten: a stop once the receipt is written, once its journal is gone.
    """
    require_gradable(suite)
    if getattr(suite, "truncation", None) == "accepted":
        cfg = dataclasses.replace(cfg, truncation="accepted")
    out = Path(out)
    cases = list(suite.cases[:1] if cfg.quick else suite.cases)
    systems = arm_systems(skill_text, cfg.control, cfg.aa)
    provider.keep_raw = judge.keep_raw = cfg.keep_transcripts
    harness_version, _ = provider.start(), judge.start()
    tier = "batch" if cfg.batch is not None else None
    judged = judge_doc(judge, cfg.judge_model, cfg.judge_max_tokens, cfg.judge_price, tier)
    identity = _identity(suite, cases, skill_text, cfg, provider, judged)
    note = getattr(progress, "note", None)
    journal = _open_journal(out, identity, harness_version, provider.endings)
    receipt, quick, unmeasured = None, {}, None
    try:  # a stop before the draws or while sealing keeps the journal too
        _tidy(journal, out, note)
        drawer = _drawer(cases, systems, skill_text, cfg, provider, judge, journal, sleep)
        spend = drawer.spend  # what the draws cost so far, for the progress bar
        tell = progress or (lambda *_: None)
        cells = [(c.id, arm) for c in cases for arm in systems]
        stopping = getattr(progress, "stopping", None)  # (draws in flight, seconds at most)
        on_stop = stopping and partial(stopping, seconds=max(cfg.timeout, cfg.judge_timeout))
        batches, stopped, batch = _draw_all(
            cells, drawer, out, lambda d, t: tell(d, t, spend.usd()), on_stop
        )
        tell(len(journal.draws), len(journal.draws), spend.usd(), "sealing")
        attempts = drawer.counter.value + (batches.attempts() if batches is not None else 0)
        transcripts, kept = (
            write_transcripts(out, journal) if cfg.keep_transcripts else (None, None)
        )
        made = (skill_text, skill_name, judged, attempts, harness_version, stopped, batch, kept)
        body = partial(receipt_body, suite, drawer, *made)
        with HeldStops() as stops:  # a stop once it is written waits for its journals to go
            receipt = _write(stops, body, out, replace, journal, transcripts)
            tell(len(journal.draws), len(journal.draws), spend.usd(), "done")
            quick = answers(journal, cases[0].id) if cfg.quick else {}
            if batches is not None:
                batches.remove()
            unmeasured = _unmeasured(receipt, stopped, out, journal)
        return RunResult(out, transcripts, stopped, quick, receipt, unmeasured)  # stops here too
    except KeyboardInterrupt as exc:
        if receipt is not None:  # written, its journals removed (or closed and kept)
            result = RunResult(out, transcripts, stopped, quick, receipt, unmeasured)
            raise StoppedWritten(result) from exc
        journal.close()
        raise RunInterrupted(len(journal.draws), journal.path) from exc


def _open_journal(
    out: Path, identity: dict[str, Any], harness_version: str | None, endings: str | None
) -> Journal:
    """The run's journal, resumed or new; ``endings``: the answering lane's. Raises as Journal."""
    return Journal(
        journal_path(out),
        identity,
        started_at=now(),
        harness_version=harness_version,
        companion=batch_journal_path(out),
        endings=endings,
    )


def _tidy(journal: Journal, out: Path, note: Callable[[str], None] | None) -> None:
    """Remove a resumed run's stale receipt files; tell ``note`` of :attr:`Journal.replaced`."""
    if journal.resumed:
        _remove_stale_receipt_files(out)
    if journal.replaced is not None and note is not None:
        note(journal.replaced)


def _write(
    stops: HeldStops,
    body: Callable[[], ReceiptBody],
    out: Path,
    replace: bool,
    journal: Journal,
    transcripts: Path | None,
) -> Receipt:
    """Build, seal and write the receipt; on any failure keep the journal, remove transcripts.

    A stop while ``body()`` builds it is raised there; one while it is written is held by
    ``stops`` (handed over once its journals are gone): once in place, the receipt and the
    transcripts it names are kept.

    Raises:
        RefusalError: ``out`` appeared while the run went on. OSError: the receipt cannot be
            written, saying the finished draws are kept (:func:`.config.kept_on_disk_error`).
            Whatever else building or writing the receipt raises; all after the journal is
            closed (kept) and the transcripts removed.
    """
    try:
        return write_receipt(stops.wait(body), out, replace=replace)
    except BaseException as exc:
        journal.close()  # kept on disk: no finished draw is lost
        if transcripts is not None:  # no receipt seals it: nothing is left behind
            transcripts.unlink(missing_ok=True)
        if isinstance(exc, FileExistsError):
            raise RefusalError(
                f"--out {out} appeared while the run went on; it was not replaced. The finished "
                f"draws are kept in {journal.path}: run the same command with --force to write "
                "the receipt over it, or move that file away"
            ) from None
        if isinstance(exc, OSError):
            raise kept_on_disk_error(exc, len(journal.draws), journal.path) from exc
        raise


def _unmeasured(receipt: Receipt, stopped: str | None, out: Path, journal: Journal) -> str | None:
    """The D-17 line when an arm measured nothing (the journal kept), else ``None`` (removed)."""
    arms = arms_measured_nothing(receipt) if stopped is None else ()
    unmeasured = nothing_measured_line(receipt, arms, out, journal.path) if arms else None
    if unmeasured is not None:
        journal.close()
    else:
        journal.remove()
    return unmeasured


def _drawer(
    cases: list[SuiteCase],
    systems: dict[str, str | None],
    skill_text: str,
    cfg: RunConfig,
    provider: Provider,
    judge: Provider,
    journal: Journal,
    sleep: Callable[[float], None],
) -> Drawer:
    """The run's draw maker, its attempt counter and spend carried on from the journal."""
    spend = Spend(cfg.judge_price)
    for rec in journal.draws.values():
        spend.add(rec)
    counter = Counter(journal.attempts, journal.attempt)
    cased = {c.id: c for c in cases}
    # the offline lanes' replies report no real input: no skill-reached check
    size = count_tokens(skill_text) if provider.surface is not None else None
    return Drawer(cased, systems, cfg, provider, judge, journal, counter, sleep, spend, size)


def _remove_stale_receipt_files(out: Path) -> None:
    """Remove the temporary receipt files (``.<name>.XXXXXXXX.tmp``) a killed session left."""
    for p in out.parent.glob(f".{glob.escape(out.name)}.*.tmp"):
        if re.fullmatch(r"[a-z0-9_]{8}\.tmp", p.name[len(out.name) + 2 :]) and p.is_file():
            p.unlink(missing_ok=True)


#: The settings a resumed journal must match, in the order of its identity.
_CFG_IDENTITY = (
    "min_draws max_draws settle judge_samples control quick keep_transcripts max_tokens truncation"
).split()


def _identity(
    suite: Suite,
    cases: list[SuiteCase],
    skill_text: str,
    cfg: RunConfig,
    provider: Provider,
    judge_doc: dict[str, Any],
) -> dict[str, Any]:
    """What a journal must match to be resumed; members only some runs have are else absent."""
    seeded = getattr(provider, "seed", 0)  # a seeded lane (simulated): its draws follow the seed
    given = {
        "skill_arm": "control_then_skill" if cfg.control is not None else None,
        "aa": cfg.aa or None,  # an A/A journal and an ordinary one never resume each other
        "language": cfg.language,
        "prompts_sha256": None
        if cfg.language is None
        else sha256_text("\x1e".join(c.prompt for c in cases)),
        "batch": True if cfg.batch is not None else None,  # nor a batched and an interactive one
        "margin": cfg.margin,  # declared before the run: a resume may not add or change it
        "seed": seeded or None,
        "api": getattr(provider, "api", None),  # the OpenAI API shape: answers of one shape
    }
    return {
        "suite_sha256": suite.sha256,
        "cases": [c.id for c in cases],
        "skill_sha256": sha256_text(skill_text),
        "model": cfg.model,
        "provider": provider.name,
        **{k: getattr(provider, k) for k in ("surface", "capture", "service")},
        "judge": judge_doc,
        **{k: getattr(cfg, k) for k in _CFG_IDENTITY},
        **{k: v for k, v in given.items() if v is not None},
    }


def _draw_all(
    cells: list[tuple[str, str]],
    drawer: Drawer,
    out: Path,
    on_done: Callable[[int, int], None] | None,
    on_stop: Callable[[int], None] | None = None,
) -> tuple[BatchJournal | None, str | None, dict[str, Any] | None]:
    """Every draw the stopping rule asks for: (batch journal, why stopped, ``run.batch``).

    ``on_stop(n)``: at a Ctrl-C, ``n`` draws are finishing their attempt (the draws without batch).
    A run stops when another model gives an answer (no draw starts after it; the draws in flight
    finish). A resumed run whose journal holds such a draw reads as stopped too, its remaining
    draws made so that its receipt, UNVERIFIED, misses none.
    """
    cfg, journal = drawer.cfg, drawer.journal
    provider, judge = drawer.provider, drawer.judge  # the batch rounds replace the drawer's
    lanes = (
        None if cfg.batch is None else {"answer": batch_lane(provider), "judge": batch_lane(judge)}
    )
    # a resumed run stays stopped by a draw another model answered: its receipt reads so
    lost = (v["draw"]["lost"] or {} for v in journal.draws.values())
    stopped = next((x["reason"] for x in lost if x.get("kind") == "handoff"), None)
    done = {k: v["draw"]["score"] for k, v in journal.draws.items()}
    batches = None
    try:
        if lanes is not None:
            batches = BatchJournal(
                batch_journal_path(out), resumed_run=journal.resumed, mark=journal.mark
            )
            BatchRounds(cells, done, drawer, lanes=lanes, journal=batches, on_done=on_done).run()
        else:
            run_cells(
                cells,
                done,
                drawer,
                concurrency=cfg.concurrency,
                on_done=on_done,
                halt=drawer.halt,
                on_stop=on_stop,
                min_draws=cfg.min_draws,
                max_draws=cfg.max_draws,
                settle=cfg.settle,
            )
    except StopRun as exc:
        stopped = str(exc)
    except BaseException as exc:
        if batches is not None:
            batches.close()
        journal.close()
        if isinstance(exc, FatalRun):
            called = {"answer": provider, "judge": judge}
            raise ProviderError(
                fatal_words(exc, len(journal.draws), journal.path, batch_journal_path(out), called)
            ) from exc
        if isinstance(exc, OSError):  # the journal (a full disk), or a lane's own files
            raise kept_on_disk_error(exc, len(journal.draws), journal.path) from exc
        raise
    finally:
        provider.close()
        judge.close()
    return batches, stopped, _batch_doc(lanes, batches)


#: The options a request's fields come from, by lane: what a 400 or 422 says to check.
_REQUEST_OPTIONS = {
    "answer": ("--model", "--max-output-tokens"),
    "judge": ("--judge-model", "--judge-max-output-tokens"),
}


def _to_check(exc: FatalRun, lanes: dict[str, Provider]) -> str | None:
    """What to check when ``exc`` was caused by the request's configuration, else ``None``.

    A 404 (no such model, or no such endpoint), a 401 or 403 (the key) and a 400 or 422 (an
    invalid request: the options its lane sends) of a named lane are; anything else (no
    credit, a refused connection, a batch's failure) is not.
    """
    if exc.lane not in lanes or exc.status not in (400, 401, 403, 404, 422):
        return None
    judge = exc.lane == "judge"
    lane = lanes[exc.lane]
    lane_words = "the judge's" if judge else "the answering lane's"
    if exc.status == 404:  # a CLI lane (the judge never is one) has no base URL
        opts = (
            "--judge-model and --judge-base-url"
            if judge
            else "--model" + (" and --base-url" if lane.surface == "api" else "")
        )
        return f"{lane_words} model or endpoint was not found: check {opts}"
    if exc.status in (401, 403):
        keys = getattr(getattr(lane, "real", lane), "keys", ())
        where = " or ".join(keys) if keys else "its command-line tool's sign-in"
        return f"{lane_words} key was refused: check {where}"
    model, budget = _REQUEST_OPTIONS[exc.lane]
    # a CLI lane sends neither the output budget nor an OpenAI API shape (refused for it)
    opts = ", ".join(
        (model,)
        + ((budget,) if lane.sends_budget else ())
        + (("--openai-api",) if (lane.name, lane.surface) == ("openai", "api") else ())
    )
    return f"the server refused {lane_words} request as invalid: check {opts}"


def fatal_words(
    exc: FatalRun, kept: int, journal: Path, companion: Path, lanes: dict[str, Provider]
) -> str:
    """What ``run`` says when ``exc`` stopped it with ``kept`` finished draws in ``journal``.

    A cause in the request's configuration (:func:`_to_check`) says what to check, and how the
    kept journal meets a corrected command (with no finished draw and no batch journal
    ``companion``, another run replaces it); any other cause says to run the same command again.
    """
    check = _to_check(exc, lanes)
    held = f"{count_of(kept, 'finished draw')} {'is' if kept == 1 else 'are'} kept in {journal}"
    if check is None:
        return f"the run stopped: {exc}; {held}; run the same command again to resume"
    batches = companion.exists()
    if kept == 0 and not batches:
        return f"the run stopped: {exc}; {check}. No finished draw is kept: run again once fixed"
    held += f" and its batches in {companion}" if batches else ""
    resume = (
        "run the same command again to resume once it is fixed"
        if exc.status in (401, 403)  # the key is no part of the run: the same command resumes
        else "a command with another option is another run, refused until "
        + ("they are" if batches else "it is")
        + " removed"
    )
    return f"the run stopped: {exc}; {check}. {held}: {resume}"


def _batch_doc(
    lanes: dict[str, BatchLane] | None, batches: BatchJournal | None
) -> dict[str, Any] | None:
    """The receipt's ``run.batch``: the providers, batch ids and uploaded file ids."""
    if batches is None or lanes is None:
        return None
    names = sorted({lane.provider for lane in lanes.values()})
    files = (batches.batches[i].get("file_id") for i in batches.order)
    return {
        "provider": ",".join(names),
        "batch_ids": list(batches.order),
        "file_ids": [f for f in files if f],
    }


def nothing_measured_line(
    r: Receipt, arms: Sequence[str], out: Path, journal: Path | None = None
) -> str:
    """The one line ``run`` (and ``regrade``) prints when ``arms`` of ``r`` measured nothing (D-17).

    The draws lost, the commonest cause (with the base URL where no connection got an answer),
    what the receipt at ``out`` reads and, given one, where the journal is.
    """
    words = " and ".join(a.replace("_", "-") for a in arms) + " arm" + "s" * (len(arms) > 1)
    if r.run.aa:  # an A/A calibration's arms are its two runs
        words = " and ".join(AA_ARM_WORDS[a] for a in arms)
    draws = [
        d for c in r.cases for a in arms if getattr(c.arms, a) for d in getattr(c.arms, a).draws
    ]
    causes = lost_causes(r, arms)
    why = lost_words(causes, len(draws)) if causes else f"none of {len(draws)} draws has a score"
    refused = no_verdict(r)
    reads = (  # only the control arm empty: the receipt may still carry a verdict
        f'reads "{NOT_MEASURED}"'
        if refused is not None and refused.refusal is Refusal.NOT_MEASURED
        else "is written"
    )
    kept = (
        f" and the draws are kept in {journal} (once the cause is fixed, remove both before "
        "running again: a resumed run keeps its lost draws)"
    )
    return (
        f"nothing was measured in the {words}: {why}; "
        f"{out} {reads}{kept if journal is not None else ''}"
    )
