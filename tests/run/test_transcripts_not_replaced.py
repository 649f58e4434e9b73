"""``run --keep-transcripts`` never replaces an existing transcripts file without --force."""

from __future__ import annotations

from factories import run_main


def test_an_existing_transcripts_file_is_refused_as_an_existing_out_is(
    suite_file, skill_file, tmp_path, capsys
):
    # Found: run --keep-transcripts --out r.json replaced a r.json.transcripts.jsonl already
    # there (another run's replies, which its receipt's seal names) without a word
    out = tmp_path / "r.json"
    kept = tmp_path / "r.json.transcripts.jsonl"
    kept.write_text("another run's replies\n")
    argv = ["run", str(suite_file), "--skill", str(skill_file), "--model", "m", "--provider"]
    argv += ["simulated", "--out", str(out), "--keep-transcripts"]
    code, _, err = run_main(argv, capsys)
    said = f"error: --keep-transcripts {kept} already exists; it was not replaced. Choose "
    said += "another path, or give --force to replace it\n"
    assert (code, err, out.exists()) == (2, said, False)
    assert kept.read_text() == "another run's replies\n"
    assert run_main([*argv, "--force"], capsys)[0] == 0  # forced: replaced, as --out is
    assert kept.read_text() != "another run's replies\n" and out.is_file()


def test_a_resume_replaces_the_transcripts_its_stopped_sealing_wrote(
    suite_file, skill_file, tmp_path, capsys, monkeypatch
):
    # a kill after the transcripts file was written, before the receipt, leaves it beside the
    # journal: the same command resumes, writing both (the file is that run's own)
    from driftproof.run import engine

    def stopped(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    out = tmp_path / "r.json"
    argv = ["run", str(suite_file), "--skill", str(skill_file), "--model", "m", "--provider"]
    argv += ["simulated", "--out", str(out), "--keep-transcripts"]
    with monkeypatch.context() as m:
        m.setattr(engine, "write_receipt", stopped)
        assert run_main(argv, capsys)[0] == 130
    assert (tmp_path / "r.json.journal").exists() and not out.exists()
    (tmp_path / "r.json.transcripts.jsonl").write_text("the killed sealing's\n")
    assert run_main(argv, capsys)[0] == 0 and out.is_file()
