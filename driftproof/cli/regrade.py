"""``driftproof regrade RECEIPT --rubric SUITE``: grade kept answers under revised rubrics."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("receipt", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--rubric", "rubric_suite", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The suite with revised rubrics or criteria (same cases and prompts).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Where the regrade's own sealed receipt goes.")
@click.option("--judge-base-url", help="The judge API's base URL (must be the address the original used).")
@click.option("--openai-api", type=click.Choice(["responses", "chat"]), default="responses", show_default=True)
@click.option("--judge-samples", type=click.IntRange(1, 100), help="Default: the original's samples per draw.")
@click.option("--retry-delays", default="5,20", hidden=True)
def regrade(receipt: Path, rubric_suite: Path, out: Path, judge_base_url: str | None, openai_api: str,
            judge_samples: int | None, retry_delays: str) -> None:
    """Grade RECEIPT's kept answers (a run with --keep-transcripts) under the revised rubrics in
    SUITE with the original's grader, drawing no new answer. Lost draws stay lost; checks are
    never run again. Refuses, writing nothing, when the grader's recorded setting differs from
    the original's, the original records no judge identity or holds anonymous judge replies, or
    an input cannot be held to the original."""
    from driftproof.errors import RefusalError
    from driftproof.receipt import read_receipt
    from driftproof.regrade.rubric import rubric_regrade
    from driftproof.run.providers import make_provider
    from driftproof.run.suite import load_suite

    original = read_receipt(receipt)
    if original.judge is None:
        raise RefusalError("rubric regrade refused:\n- the original records no judge identity")
    jp = original.judge.provider or "stub"
    opts = {} if jp == "stub" else {"base_url": judge_base_url or original.judge.service,
                                    "api": openai_api if jp == "openai" else None}
    judge = make_provider(jp, "api", **opts)
    result = rubric_regrade(receipt, load_suite(rubric_suite), judge, judge_model=original.judge.model, out=out,
                            judge_samples=judge_samples,
                            retry_delays=tuple(float(x) for x in retry_delays.split(",") if x.strip()))
    click.echo(f"{result.receipt_path}: answers read {result.answers_read}, graded {result.answers_graded}, "
               f"carried {result.answers_carried}; judge calls {result.logical_judge_calls} logical, "
               f"{result.runner_attempts} runner attempts")
