"""Unit and meaning of every receipt field, for the receipt specification page.

Keyed by the field's path as the page writes it (``.`` between members, ``[]`` for an
array's items, ``<arm>`` for ``with_skill``, ``baseline`` and ``control``). A test checks
that every field of every frozen schema has an entry here, so the page names them all.
"""

from __future__ import annotations

from typing import Final

__all__ = ["FIELD_DOCS"]

_D = "cases[].arms.<arm>.draws[]"
_J = f"{_D}.judge_samples[]"
_C = f"{_D}.captured_files[]"

#: path → (unit, meaning). Units: "text" is free text; "id" a name from a fixed list or
#: a source's identifier; "sha256" 64 lowercase hex digits of a SHA-256 digest.
FIELD_DOCS: Final[dict[str, tuple[str, str]]] = {
    "$schema": (
        "URL",
        "Optional pointer to the schema this receipt validates against, for editors.",
    ),
    "schema_version": (
        "version",
        "The frozen schema this receipt validates against (D-11); it picks the file.",
    ),
    "verification_level": (
        "level",
        "UNVERIFIED, DECLARED or TESTED; FORMAL is reserved and refused. Only TESTED earns a verdict.",
    ),
    "run": ("object", "What produced the answers."),
    "run.model": ("id", "The model that answered; null when the source did not record it."),
    "run.provider": (
        "id",
        "anthropic, openai, or stub (the test double, which records UNVERIFIED).",
    ),
    "run.surface": (
        "id",
        "api or cli (a subscription command-line tool, disclosed whenever used).",
    ),
    "run.harness": ("object", "The agent harness on the command-line surfaces; null on the API."),
    "run.harness.name": ("id", "The harness, e.g. claude-code or codex."),
    "run.harness.version": (
        "version",
        "The version the harness binary printed when the run began, never a typed value; a regrade keeps the original's.",
    ),
    "run.capture": (
        "id",
        "Which answer the grader saw: text (the reply) or files (the reply and the files the agent left).",
    ),
    "run.preset": (
        "id",
        "quick for a smoke run; such a receipt reads below TESTED whatever its level.",
    ),
    "run.started_at": ("RFC 3339 date-time", "When the run began."),
    "run.finished_at": ("RFC 3339 date-time", "When the run ended."),
    "run.runner": ("object", "The program that wrote the receipt."),
    "run.runner.name": ("id", "driftproof for runs, imports and regrades."),
    "run.runner.version": ("version", "The runner's version."),
    "run.samples": (
        "count",
        "One count per arm that did not say whether it counted generations or judge samples; readers state both counts as unknown.",
    ),
    "run.generations_per_arm": (
        "draws per arm",
        "Planned generations (draws) per arm; null when the data does not establish it, never read as one.",
    ),
    "run.judge_samples_per_generation": (
        "judge samples per draw",
        "Planned judge samples per draw; null when not established, never read as one.",
    ),
    "run.endpoint_attempts": (
        "requests",
        "API requests or CLI invocations the runner made, retries and timeouts included; requests inside a CLI are not counted.",
    ),
    "run.transcripts": (
        "object",
        "With --keep-transcripts: the kept-transcripts file beside the receipt (every answer with the judge's replies), sealed here by its sha256; absent otherwise.",
    ),
    "run.transcripts.file": ("path", "The file's name, beside the receipt."),
    "run.transcripts.sha256": ("sha256", "sha256 of the file's bytes."),
    "run.transcripts.draws": ("draws", "Lines in the file: one per draw."),
    "skill": ("object", "The skill measured, by content."),
    "skill.name": ("text", "The skill's name."),
    "skill.sha256": ("sha256", "Digest of the SKILL.md bytes."),
    "skill.tokens": (
        "tokens (estimate)",
        "ceil(characters of SKILL.md ÷ 4), a yardstick for value per 1,000 tokens, not a billing figure (D-14).",
    ),
    "suite": ("object", "The test tasks, by content."),
    "suite.name": ("text", "The suite's name."),
    "suite.sha256": ("sha256", "Digest of the suite file."),
    "judge": (
        "object",
        "The fixed grader and its recorded setting; null when nothing was graded (an import of figures).",
    ),
    "judge.model": ("id", "The grader's model, dated when the provider dates it."),
    "judge.provider": ("id", "The grader's provider."),
    "judge.surface": ("id", "api or cli."),
    "judge.service": ("URL", "The address the grader's calls use."),
    "judge.sampling": (
        "object",
        "The sampling settings handed to the grader (temperature, maximum tokens, …).",
    ),
    "judge.template_sha256": ("sha256", "Digest of the grader's prompt template."),
    "judge.scale": ("object", "The grader's score scale."),
    "judge.scale.worst": (
        "score",
        "The worst score the grader can give; a lost draw is bounded by it (R-6).",
    ),
    "judge.scale.best": ("score", "The best score the grader can give (R-6)."),
    "judge.scale.step": (
        "score",
        "The grid step of the grader's scores, when it has one (about 0.05).",
    ),
    "judge.price": ("object", "The grader's price, frozen at run time."),
    "judge.price.input_usd_per_mtok": (
        "USD per million tokens",
        "Price of the grader's input tokens.",
    ),
    "judge.price.output_usd_per_mtok": (
        "USD per million tokens",
        "Price of the grader's output tokens.",
    ),
    "arms": ("object", "How each arm was set up."),
    "arms.<arm>": ("object", "One arm: with_skill, baseline, or an optional control."),
    "arms.<arm>.label": ("text", "The source's own name for the arm (e.g. caveman's __terse__)."),
    "arms.<arm>.instruction": ("text", "The fixed instruction of a control arm."),
    "arms.<arm>.system_prompt_sha256": ("sha256", "Digest of the arm's system prompt."),
    "band_source": (
        "id",
        "legacy (one generation per arm, judged several times: the band measures the judge) or generation (several draws: the band is across draws); null when not established.",
    ),
    "cases": ("array", "The eval cases."),
    "cases[]": ("object", "One case."),
    "cases[].id": ("id", "The case's id, unique in the receipt."),
    "cases[].prompt": ("text", "The task as put to the model; untrusted text."),
    "cases[].prompt_sha256": ("sha256", "Digest of the task text."),
    "cases[].rubric_sha256": (
        "sha256",
        "Digest of the rubric, or of the criteria with their template; an edit to any moves it.",
    ),
    "cases[].threshold": ("score", "The pass threshold the case's mean is held against."),
    "cases[].arms": (
        "object",
        "The case's arms: with_skill, baseline, and a control when /arms has one.",
    ),
    "cases[].arms.<arm>": ("object", "One arm of one case."),
    "cases[].arms.<arm>.draws": ("array", "The arm's draws (generations)."),
    _D: ("object", "One draw: one answer and its judge samples."),
    f"{_D}.index": ("ordinal", "The draw's number within its arm, unique."),
    f"{_D}.answer": (
        "text",
        "The graded answer (kept with --keep-transcripts); untrusted, escaped wherever shown.",
    ),
    f"{_D}.answer_sha256": ("sha256", "Digest of the answer text."),
    f"{_D}.score": (
        "score",
        "Mean of the draw's valid judge samples (D-1); null when lost or unscored.",
    ),
    f"{_D}.judge_samples": ("array", "The grader's samples of this draw, in reply order."),
    f"{_J}": ("object", "One judge sample."),
    f"{_J}.score": ("score", "The score the reply gave; null when it held no valid score."),
    f"{_J}.reply_sha256": ("sha256", "Digest of the reply's score text."),
    f"{_J}.reported_model": ("id", "The model id the reply reported, dates kept."),
    f"{_J}.serving_model": ("id", "The model the reply named as serving it."),
    f"{_J}.invalid_reason": ("text", "Why the reply held no valid score."),
    f"{_D}.lost": (
        "object",
        "Set when the runner could not measure the draw; it is left out of means and spreads (R-6).",
    ),
    f"{_D}.lost.reason": ("text", "Why the draw was lost."),
    f"{_D}.tokens": ("object", "Token counts of the draw's generation call."),
    f"{_D}.tokens.input": ("tokens", "Input tokens."),
    f"{_D}.tokens.output": ("tokens", "Output tokens."),
    f"{_D}.tokens.counted_by": (
        "id",
        "provider (its reported usage), o200k_base (counted offline), or source (an import's figures).",
    ),
    f"{_D}.checks": (
        "array",
        "Deterministic post-checks on the answer; beside the verdict, never part of it.",
    ),
    f"{_D}.checks[]": ("object", "One check result {name, kind, pass}."),
    f"{_D}.checks[].name": ("text", "The check's name."),
    f"{_D}.checks[].kind": ("id", "regex, structural, must_include or must_not_include."),
    f"{_D}.checks[].pass": ("true/false", "Whether the answer passed the check."),
    f"{_D}.captured_files": (
        "array",
        "In capture mode files, each file or unreadable directory the agent left; null otherwise.",
    ),
    f"{_C}": ("object", "One file the agent left."),
    f"{_C}.path": ("path", "The file's path in the run's working directory."),
    f"{_C}.bytes": ("bytes", "The file's size."),
    f"{_C}.status": (
        "id",
        "read, or why not: past_file_cap (50 files), truncated (65536 bytes), unreadable, binary, not_utf8, changed, past_total_cap (262144 bytes), unreadable_directory.",
    ),
    f"{_C}.reason": ("text", "The reason in words."),
    f"{_D}.skill_fired": (
        "true/false",
        "Whether the source saw the skill fire on this run; beside the score, never inside it.",
    ),
    f"{_D}.source_error": (
        "text",
        "An error the source recorded for this run; such runs are kept out of the figures and listed.",
    ),
    f"{_D}.other_model_calls": (
        "calls",
        "Calls the harness made on other models while answering, with their tokens; absent when none were reported. A run stops when another model gave the answer.",
    ),
    f"{_D}.other_model_calls[]": ("object", "One call on another model."),
    f"{_D}.other_model_calls[].model": ("id", "The other model, as the harness named it."),
    f"{_D}.other_model_calls[].input_tokens": (
        "tokens",
        "Input tokens the harness reported for that call; null when not reported.",
    ),
    f"{_D}.other_model_calls[].output_tokens": (
        "tokens",
        "Output tokens the harness reported for that call; null when not reported.",
    ),
    "cases[].arms.<arm>.generation": (
        "object",
        "The recorded spread across draws; a claim the reader recomputes.",
    ),
    "cases[].arms.<arm>.generation.sd": (
        "score",
        "Sample standard deviation of the per-draw scores; null or absent means no recorded spread (R-5).",
    ),
    "economics": ("object", "Costs, apart from every figure about the skill."),
    "economics.judge_overhead": (
        "object",
        "The grader's cost: the usage its answered samples reported, at the frozen price; a floor on what grading was billed.",
    ),
    "economics.judge_overhead.input_tokens": ("tokens", "Grader input tokens counted."),
    "economics.judge_overhead.output_tokens": ("tokens", "Grader output tokens counted."),
    "economics.judge_overhead.usd": ("USD", "Those tokens at judge.price."),
    "economics.judge_overhead.judged_draws_counted": (
        "draws",
        "Draws whose grading usage is counted, each once; a draw a regrade copied is not.",
    ),
    "economics.judge_overhead.judged_draws_missing_usage": (
        "draws",
        "Draws the grader returned no usage for; null when not recorded (before 0.14).",
    ),
    "provenance": ("object", "What an imported receipt was converted from; null for a run."),
    "provenance.tool": ("id", "The source tool."),
    "provenance.tool_version": ("version", "The source tool's version, when it recorded one."),
    "provenance.document": ("path", "The converted document, as given."),
    "provenance.document_sha256": ("sha256", "Digest of the converted document."),
    "provenance.unrecorded": (
        "array",
        "Each thing the source did not record; it stays unknown (D-13).",
    ),
    "provenance.unrecorded[]": ("text", "One thing the source did not record."),
    "source_figures": (
        "object",
        "Figures an aggregates-only source printed, as printed, with the repository, commit and each file's git blob sha1.",
    ),
    "uncertainty_unavailable": (
        "id",
        "aggregates_only: no per-run score, so no band, no lift and no verdict.",
    ),
    "seal": ("object", "The receipt's seal (see Sealing)."),
    "seal.algorithm": ("id", "sha256-rfc8785."),
    "seal.sha256": ("sha256", "SHA-256 of the receipt's RFC 8785 canonical JSON without seal."),
    "regrade": (
        "object",
        "Only on a regrade's own receipt: what it read, graded, carried and called, sealed with it.",
    ),
    "regrade.kind": ("id", "rubric (revised rubric or criteria) or judge (a plain judge regrade)."),
    "regrade.original_seal": ("sha256", "The original receipt's seal."),
    "regrade.original_runner": ("object", "The runner that wrote the original."),
    "regrade.original_runner.name": ("id", "Its name."),
    "regrade.original_runner.version": ("version", "Its version."),
    "regrade.runner_version": ("version", "The runner version that made the regrade."),
    "regrade.revised_suite_sha256": ("sha256", "Digest of the revised tasks."),
    "regrade.original_grader": ("object", "The original grader's recorded setting."),
    "regrade.answers_read": ("answers", "Answers read from the original."),
    "regrade.answers_graded": ("answers", "Answers that reached the grader."),
    "regrade.answers_carried": (
        "answers",
        "Answers copied from the original because they could not be graded.",
    ),
    "regrade.logical_judge_calls": (
        "judge calls",
        "Logical judge calls: one per sample per graded answer.",
    ),
    "regrade.runner_attempts": (
        "requests",
        "API requests or CLI invocations made, retries and timeouts included.",
    ),
    "regrade.judge_ids": (
        "array",
        "Every reported and serving judge id across the regrade's replies, unique and in lexical order.",
    ),
    "regrade.judge_ids[]": ("id", "One judge id, dates kept."),
}

#: Members 0.15 added; every one may be absent, read as unknown (D-13).
FIELD_DOCS.update(
    {
        "run.started_at_offset": (
            "UTC offset",
            "The offset (+HH:MM) the source wrote started_at in; started_at itself is stored in UTC.",
        ),
        "run.finished_at_offset": ("UTC offset", "The offset the source wrote finished_at in."),
        "run.max_output_tokens": ("tokens", "Output-token budget of each answer call."),
        "run.truncation": (
            "id",
            "lost (a cut-off answer is a lost draw, the default) or accepted (the suite declares truncation acceptable).",
        ),
        "run.retry": ("object", "How failed calls were retried."),
        "run.retry.max_attempts": ("attempts", "Attempts per call, the first included."),
        "run.retry.max_wait_s": (
            "seconds",
            "The longest wait honoured; a server's retry-after is capped here.",
        ),
        "run.retry.backoff": ("text", "The back-off rule in words."),
        "run.batch": ("object", "Present when the run went through the provider's batch API."),
        "run.batch.provider": ("id", "The provider whose batch API ran it."),
        "run.batch.batch_ids": ("array", "Every batch the run created, in order."),
        "run.batch.batch_ids[]": ("id", "One batch id, as the provider gave it."),
        "run.batch.file_ids": ("array", "Every input file the run uploaded (OpenAI)."),
        "run.batch.file_ids[]": ("id", "One file id."),
        "run.language": (
            "language tag",
            "Language of the prompts and the control (seed 004); no English fallback.",
        ),
        "judge.channel": (
            "id",
            "How the grader's decision came back: tool_call, json_schema, responses_format, cli_json_schema, final_verdict (free text, the judge's own last verdict only) or source (imported).",
        ),
        "judge.template_version": (
            "version",
            "Version of the judge prompt template whose text hash is template_sha256.",
        ),
        "judge.max_output_tokens": ("tokens", "Output-token budget of each judge call."),
        "judge.price.cache_read_usd_per_mtok": (
            "USD per million tokens",
            "Price of cache-read input tokens; null when the price table has none.",
        ),
        "judge.price.cache_write_usd_per_mtok": (
            "USD per million tokens",
            "Price of cache-creation input tokens; null when the price table has none.",
        ),
        "judge.price.tier": ("id", "interactive or batch: which price list the figures come from."),
        "arms.<arm>.recorded": (
            "boolean",
            "False when the source did not record this arm: no lift, no interval and no value per token.",
        ),
        "arms.<arm>.service": ("URL", "The service that answered this arm, credentials stripped."),
        "arms.<arm>.construction": (
            "id",
            "bare, skill, control, or control_then_skill (the control followed by SKILL.md, seed 004).",
        ),
        "arms.<arm>.skill_fired": (
            "object",
            "How often the skill fired in this arm, beside the score, never inside it.",
        ),
        "arms.<arm>.skill_fired.fired": ("draws", "Draws on which the source saw the skill fire."),
        "arms.<arm>.skill_fired.observed": ("draws", "Draws on which firing was observed at all."),
        f"{_J}.reason": ("text", "The grader's stated reason; untrusted, escaped wherever shown."),
        f"{_D}.lost.kind": (
            "id",
            "Class of loss: truncated, refusal, error, no_answer, unscored, source_error, …",
        ),
        f"{_D}.lost.error_class": ("id", "transient or fatal: the class of the last error."),
        f"{_D}.lost.status": ("HTTP status", "Status of the last error, when there was one."),
        f"{_D}.tokens.cache_read_input": ("tokens", "Of input: tokens read from the prompt cache."),
        f"{_D}.tokens.cache_creation_input": (
            "tokens",
            "Of input: tokens written to the prompt cache.",
        ),
        f"{_D}.tokens.reasoning_output": ("tokens", "Of output: reasoning tokens."),
        f"{_D}.tokens.total": (
            "tokens",
            "Total tokens as the source reported them, when it did not split input and output.",
        ),
        f"{_D}.stop_reason": (
            "id",
            "The provider's stop reason as it said it (end_turn, max_tokens, refusal, stop, length, incomplete:max_output_tokens, …).",
        ),
        f"{_D}.refusal": ("object", "Set when the model refused."),
        f"{_D}.refusal.text": ("text", "The refusal text the provider gave; untrusted."),
        f"{_D}.refusal.category": (
            "id",
            "The refusal category the provider gave, when it gave one.",
        ),
        f"{_D}.over_budget": (
            "boolean",
            "True when the reply had more output tokens than the budget asked for.",
        ),
        f"{_D}.attempts": ("array", "Each failed attempt of this draw before its outcome."),
        f"{_D}.attempts[]": ("object", "One failed attempt."),
        f"{_D}.attempts[].error": ("text", "The error, as the provider or harness gave it."),
        f"{_D}.attempts[].error_class": ("id", "transient (retried) or fatal (the run stops)."),
        f"{_D}.attempts[].status": ("HTTP status", "Its status, when there was one."),
        f"{_D}.attempts[].wait_s": ("seconds", "The wait before the next attempt."),
        f"{_D}.harness_events": (
            "array",
            "Events the harness printed beside its result (claude -p --verbose).",
        ),
        f"{_D}.harness_events[]": ("object", "One event."),
        f"{_D}.harness_events[].type": ("id", "Its type."),
        f"{_D}.harness_events[].subtype": ("id", "Its subtype, when it has one."),
        "economics.judge_overhead.cache_read_input_tokens": (
            "tokens",
            "Of input_tokens: cache reads.",
        ),
        "economics.judge_overhead.cache_creation_input_tokens": (
            "tokens",
            "Of input_tokens: cache writes.",
        ),
        "economics.judge_overhead.reasoning_output_tokens": (
            "tokens",
            "Of output_tokens: reasoning.",
        ),
        "provenance.partial": ("boolean", "True when the source document says it is incomplete."),
        "provenance.notes": ("array", "What the source did that a reader must know."),
        "provenance.notes[]": ("text", "One note."),
        "provenance.details": (
            "object",
            "The source's own version fields: plugin name and version, and so on.",
        ),
        "text_repairs": ("array", "Strings made valid Unicode before sealing."),
        "text_repairs[]": ("object", "One repaired string."),
        "text_repairs[].pointer": ("JSON pointer", "Where the string is in the receipt."),
        "text_repairs[].replaced": (
            "code points",
            "How many code points (lone surrogates, bad bytes) became U+FFFD.",
        ),
        "bounded_text": ("array", "Text too big to copy: hash and length kept, the text not."),
        "bounded_text[]": ("object", "One such text."),
        "bounded_text[].pointer": ("JSON pointer", "Where the text would be (null there)."),
        "bounded_text[].sha256": ("sha256", "Digest of its UTF-8 bytes."),
        "bounded_text[].chars": ("characters", "Its length."),
    }
)
