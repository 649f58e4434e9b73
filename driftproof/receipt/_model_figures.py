"""The figures an aggregates-only source printed, as printed (v0.13, D-15).

The frozen schema allows any object in ``source_figures``; the model reads the shape the
importers write. NVIDIA's cards (``nvidia-benchmark-card``) and catalogue
(``nvidia-benchmarks-json``) give the repository, commit, files, summary, agents and rows;
skill-creator gives its file and ``run_summary``. A member a source does not give is absent,
and stays absent when written (the seal covers the bytes); a null is unknown (D-13).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import SerializerFunctionWrapHandler, StringConstraints, model_serializer

from driftproof.receipt._model_base import Sha256, _Model

#: 40 lowercase hex digits of a git blob id (``git hash-object``).
GitBlob = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")]


class _AsGiven(_Model):
    """Writes the members it was given, nulls kept, and leaves out the ones it was not."""

    @model_serializer(mode="wrap")
    def _given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        members: dict[str, Any] = handler(self)
        return {k: v for k, v in members.items() if k in self.model_fields_set}


class PrintedFigure(_AsGiven):
    """A score, baseline or uplift as the source printed it."""

    value: float
    """The number, in the source's own unit (percent or percentage points, never 0..1)."""
    unit: str | None
    """The unit as printed (``%``, ``points``, ``pp``); null when printed without one."""
    printed: str | None = None
    """An uplift's text as printed (``+12%``); absent for a score or baseline."""
    field: str | None = None
    """The catalogue member it was read from (``score_pct``); absent for a card."""


class PrintedRow(_AsGiven):
    """One dimension and agent of the source's results, as printed."""

    dimension: str
    """The dimension (or measure) as printed."""
    agent: str
    """The agent, as the source names it in the column or member."""
    num: int | None
    """The source's count column (its "evaluation tasks" behind the figure); null when not
    printed."""
    printed: str | None
    """The whole results cell as printed; null for a catalogue entry."""
    score: PrintedFigure | None
    """The score with the skill; null when not printed."""
    baseline: PrintedFigure | None
    """The score without it; null when not printed (a v1 card prints none)."""
    uplift: PrintedFigure | None
    """The uplift as printed; null when not printed."""
    note: str | None
    """A note printed in the cell instead of, or after, a figure."""
    column: str | None = None
    """The card's column header the cell sat under; absent for a catalogue entry."""


class PrintedAgent(_AsGiven):
    """One agent the source names."""

    agent: str
    """Its name as the rows give it."""
    printed: str
    """Its name as printed."""
    model: str | None
    """The model it ran, when printed."""


class SourceFile(_AsGiven):
    """One file the figures were read from."""

    path: str
    """Its path in the repository (or its name, without one)."""
    git_blob_sha1: GitBlob
    """Its git blob id."""


class SourceFigures(_AsGiven):
    """What an aggregates-only source printed, and where it was read (module docstring)."""

    source: str
    """Which source and format: nvidia-benchmark-card, nvidia-benchmarks-json, skill-creator."""
    repository: str | None = None
    """The repository the files were read from; null when not given."""
    commit: str | None = None
    """The commit they were read at; null when not given."""
    files: list[SourceFile] | None = None
    """The files read."""
    card_format: Literal["v1", "v2"] | None = None
    """A card's format: v1 (score and uplift) or v2 (baseline, score and uplift)."""
    schema_version: int | None = None
    """The catalogue's own schema version."""
    summary: dict[str, Any] | None = None
    """The card's summary lines or the catalogue's entry for the skill, as given."""
    agents: list[PrintedAgent] | None = None
    """The agents the source names."""
    rows: list[PrintedRow] | None = None
    """The results, one per dimension and agent; empty when the source printed none."""
    file: str | None = None
    """skill-creator: the file's name."""
    git_blob_sha1: GitBlob | None = None
    """skill-creator: the file's git blob id."""
    sha256: Sha256 | None = None
    """skill-creator: the file's sha256."""
    run_summary: dict[str, Any] | None = None
    """skill-creator: its run_summary object, as given."""
