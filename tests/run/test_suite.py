"""Suite formats and their errors: each bad place named by file and JSON pointer."""

from __future__ import annotations

import json

import pytest
from run_helpers import SUITE

from driftproof.errors import SuiteError
from driftproof.run.judge import rubric_sha256
from driftproof.run.suite import load_suite, require_gradable


def _write(tmp_path, doc, name="s.json"):
    p = tmp_path / name
    p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return p


def _case(**kw):
    return {"id": "a", "prompt": "p", "rubric": "r", **kw}


def _problems(tmp_path, doc):
    with pytest.raises(SuiteError) as ei:
        load_suite(_write(tmp_path, doc))
    return [(p.pointer, p.message) for p in ei.value.problems]


def test_native_suite_reads_every_field(suite_file):
    s = load_suite(suite_file)
    assert (s.name, s.format, [c.id for c in s.cases]) == (
        "three-cases",
        "driftproof",
        ["commit-429", "explain-429", "commit-docs"],
    )
    c0, c1 = s.cases[0], s.cases[1]
    assert c0.threshold == 0.7 and c0.rubric.startswith("1.0 for")
    assert [(k.name, k.kind) for k in c0.checks] == [
        ("cc subject", "structural"),
        ("says 429", "regex"),
    ]
    assert c0.examples_pass == ("fix(http): retry 429 responses",) and c0.examples_fail == (
        "Fixed the retry bug",
    )
    assert [(c.id, c.weight) for c in c1.criteria] == [("rate", 2.0), ("retry-after", 1.0)]
    require_gradable(s)


def test_yaml_suite(tmp_path):
    p = _write(
        tmp_path,
        "format: driftproof-suite/1\ncases:\n  - id: y1\n    prompt: hi\n    rubric: be nice\n",
        "s.yaml",
    )
    s = load_suite(p)
    assert [c.id for c in s.cases] == ["y1"] and s.name == "s"


@pytest.mark.parametrize("written", ["010", "0x1F", "1_000", "1:20", "+5"])
def test_a_yaml_number_not_written_in_decimal_is_refused(tmp_path, written):
    # YAML 1.1 read these as 8, 31, 1000, 80 and 5: a case id "010" became case "8"
    p = _write(
        tmp_path,
        f"format: driftproof-suite/1\ncases:\n  - id: {written}\n    prompt: hi\n    rubric: r\n",
        "s.yaml",
    )
    with pytest.raises(SuiteError) as ei:
        load_suite(p)
    assert f"line 3 column 9: expected a decimal integer or quoted text, found '{written}'" in str(
        ei.value
    )
    if written[0].isdigit() and ":" not in written:  # quoted, it is the id as written
        text = p.read_text().replace(f"id: {written}", f'id: "{written}"')
        assert [c.id for c in load_suite(_write(tmp_path, text, "q.yaml")).cases] == [written]


@pytest.mark.parametrize(
    ("written", "said"),
    [
        # YAML 1.1 read the id 2026-01-01 as a date and yes as true: the id check then said
        # 'found "2026-01-01"' (no word of the date) and "found true"
        ("2026-01-01", "expected quoted text, found '2026-01-01', which YAML reads as a date"),
        ("yes", "expected true, false or quoted text, found 'yes', which YAML reads as true"),
        ("Off", "expected true, false or quoted text, found 'Off', which YAML reads as false"),
    ],
)
def test_a_yaml_date_or_truth_word_is_refused_saying_to_quote_it(tmp_path, written, said):
    text = f"format: driftproof-suite/1\ncases:\n  - id: {written}\n    prompt: hi\n    rubric: r\n"
    with pytest.raises(SuiteError) as ei:
        load_suite(_write(tmp_path, text, "s.yaml"))
    assert f'line 3 column 9: {said} (write "{written}" for text)' in str(ei.value)
    quoted = text.replace(f"id: {written}", f'id: "{written}"')
    assert [c.id for c in load_suite(_write(tmp_path, quoted, "q.yaml")).cases] == [written]


@pytest.mark.parametrize("field", ["name", "prompt"])
def test_yaml_binary_data_is_refused_as_other_tags_are(tmp_path, field):
    # "name: !!binary aGVsbG8=" was read as the name "b'hello'"; a prompt so tagged was called
    # blank; it is refused at its line and column, as an unknown tag is
    doc = {"name": "s", "prompt": "hi"} | {field: "!!binary aGVsbG8="}
    text = (
        f"format: driftproof-suite/1\nname: {doc['name']}\ncases:\n"
        f"  - id: a\n    prompt: {doc['prompt']}\n    rubric: r\n"
    )
    with pytest.raises(SuiteError) as ei:
        load_suite(_write(tmp_path, text, "s.yaml"))
    where = "line 2 column 7" if field == "name" else "line 5 column 13"
    said = "expected text, found binary data (!!binary), which is not read in a suite"
    assert str(ei.value).endswith(f"{where}: {said}")


@pytest.mark.parametrize(
    "case,pointer,needle",
    [
        (_case(id="-bad"), "/cases/0/id", "expected an id"),
        (_case(prompt=""), "/cases/0/prompt", "non-empty string"),
        (_case(criteria=[]), "/cases/0/criteria", "an empty list is refused"),
        (
            {
                "id": "a",
                "prompt": "p",
                "rubric": "r",
                "criteria": [{"id": "x", "weight": 1, "description": "d"}],
            },
            "/cases/0",
            "not both",
        ),
        (_case(rubric="x" * 20_001), "/cases/0/rubric", "at most 20000 characters"),
        (_case(threshold=1.5), "/cases/0/threshold", "from 0 to 1"),
        (
            _case(checks=[{"name": "n", "kind": "regex", "pattern": "("}]),
            "/cases/0/checks/0/pattern",
            "valid Python regular expression",
        ),
        (
            _case(checks=[{"name": "n", "kind": "structural", "structure": "haiku"}]),
            "/cases/0/checks/0/structure",
            "conventional_commit_subject",
        ),
        (
            _case(checks=[{"name": "n", "kind": "vibes", "pattern": "x"}]),
            "/cases/0/checks/0/kind",
            "expected one of",
        ),
        (
            {"id": "a", "prompt": "p", "criteria": [{"id": "x", "weight": 0, "description": "d"}]},
            "/cases/0/criteria/0/weight",
            "> 0",
        ),
        (
            {
                "id": "a",
                "prompt": "p",
                "criteria": [{"id": "x", "weight": 1, "description": "d"}] * 2,
            },
            "/cases/0/criteria/1/id",
            "unique",
        ),
        (
            {
                "id": "a",
                "prompt": "p",
                "criteria": [{"id": f"c{i}", "weight": 1, "description": "d"} for i in range(51)],
            },
            "/cases/0/criteria",
            "at most 50 criteria",
        ),
        (_case(extra=1), "/cases/0/extra", "unexpected key"),
    ],
)
def test_bad_case_is_named_by_pointer(tmp_path, case, pointer, needle):
    probs = _problems(tmp_path, {"format": "driftproof-suite/1", "cases": [case]})
    assert any(p == pointer and needle in m for p, m in probs), probs


def test_every_bad_case_is_reported_and_duplicates_named(tmp_path):
    doc = {"format": "driftproof-suite/1", "cases": [_case(), _case(), _case(id="b", threshold=-1)]}
    probs = _problems(tmp_path, doc)
    assert ("/cases/2/threshold", "expected a number from 0 to 1, found -1") in probs
    assert any(p == "/cases/1/id" and "also at /cases/0" in m for p, m in probs)


def test_errors_name_the_file(tmp_path):
    p = _write(tmp_path, "{not json")
    with pytest.raises(SuiteError) as ei:
        load_suite(p)
    assert (
        ei.value.problems[0].file == str(p)
        and "expected UTF-8 JSON" in ei.value.problems[0].message
    )
    with pytest.raises(SuiteError, match="/format"):
        load_suite(_write(tmp_path, {"format": "other/9", "cases": []}))


def test_a_json_suite_saved_with_a_byte_order_mark_is_refused_in_words(tmp_path):
    # Notepad's "UTF-8 with BOM": Python's own words were "Unexpected UTF-8 BOM (decode using
    # utf-8-sig) at line 1 column 1"
    p = tmp_path / "suite.json"
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps(SUITE).encode())
    with pytest.raises(SuiteError) as ei:
        load_suite(p)
    assert ei.value.problems[0].message == (
        "expected UTF-8 JSON (or YAML for .yaml/.yml): found a byte-order mark (U+FEFF) first; "
        "save the file as UTF-8 without one"
    )


def test_a_case_with_neither_rubric_nor_criteria_is_refused_before_any_call(tmp_path):
    s = load_suite(
        _write(tmp_path, {"format": "driftproof-suite/1", "cases": [{"id": "a", "prompt": "p"}]})
    )
    with pytest.raises(SuiteError) as ei:
        require_gradable(s)
    assert (
        ei.value.problems[0].pointer == "/cases/0"
        and "neither a rubric nor criteria" in ei.value.problems[0].message
    )


def test_skill_creator_evals_json(tmp_path):
    doc = {
        "skill_name": "pdf",
        "evals": [
            {
                "id": 1,
                "prompt": "Fill the form",
                "expected_output": "a filled form",
                "files": [],
                "expectations": ["The name field is filled", "The date is ISO 8601"],
            },
            {
                "id": 2,
                "prompt": "Split it",
                "expected_output": "",
                "files": ["in.pdf"],
                "expectations": ["two files"],
            },
        ],
    }
    s = load_suite(_write(tmp_path, doc, "evals.json"))
    assert (s.name, s.format) == ("pdf", "skill-creator")
    c = s.cases[0]
    assert c.id == "1" and c.rubric is None
    assert [(k.id, k.weight, k.description) for k in c.criteria] == [
        ("a1", 1.0, "The name field is filled"),
        ("a2", 1.0, "The date is ISO 8601"),
    ]
    with pytest.raises(SuiteError) as ei:  # input files cannot be handed to the model
        require_gradable(s)
    assert [p.pointer for p in ei.value.problems] == ["/evals/1/files"]


def test_caveman_fidelity_json(shared):
    path = shared / "data/caveman/v3/evals/prompts/fidelity.json"
    raw = json.loads(path.read_text())
    s = load_suite(path)
    assert s.format == "caveman-fidelity" and len(s.cases) == len(raw["cases"]) == 30
    n = sum(
        len(c["checks"].get("must_include", [])) + len(c["checks"].get("must_not_include", []))
        for c in raw["cases"]
    )
    assert sum(len(c.checks) for c in s.cases) == n
    first = s.cases[0]
    assert first.id == "polarity-and-limits"
    assert all(k.ignore_case for k in first.checks)  # caveman's scorer: re.search, case-insensitive
    assert [k.kind for k in first.checks] == ["must_include"] * 5 + ["must_not_include"]
    with pytest.raises(SuiteError):  # no rubric: run refuses, suite check works
        require_gradable(s)


@pytest.mark.parametrize(
    "rel,pointer,says",
    [
        (
            "data/interop/skill-creator/nebius-skills-workspace/evals/evals.json",
            "/evals/0",
            [
                "case '0' has no expectations (or assertions)",
                'add an "expectations" list',
                "driftproof import skill-creator",
            ],
        ),
        (
            "data/interop/skill-creator/anthropic-schemas-examples/evals.json",
            "/evals/0/files",
            ["needs input files (1)", "remove the case", "driftproof import skill-creator"],
        ),
        (
            "data/caveman/v3/evals/prompts/fidelity.json",
            "/cases/0",
            [
                "caveman's fidelity.json carries checks only",
                '("format": "driftproof-suite/1") with a rubric or criteria',
                "driftproof import caveman SNAPSHOT --skills DIR --cases {file}",
            ],
        ),
    ],
)
def test_a_real_suite_run_refuses_says_what_it_lacks_and_what_to_do(shared, rel, pointer, says):
    path = shared / rel
    with pytest.raises(SuiteError) as ei:
        require_gradable(load_suite(path))
    first = ei.value.problems[0]
    assert (first.file, first.pointer) == (str(path), pointer)
    for text in says:
        assert text.format(file=path) in first.message


def test_rubric_hash_moves_with_any_criterion_field(tmp_path):
    base = {"id": "a", "prompt": "p", "criteria": [{"id": "x", "weight": 1, "description": "d"}]}
    hashes = set()
    for crit in (
        {"id": "x", "weight": 1, "description": "d"},
        {"id": "y", "weight": 1, "description": "d"},
        {"id": "x", "weight": 2, "description": "d"},
        {"id": "x", "weight": 1, "description": "e"},
    ):
        s = load_suite(
            _write(
                tmp_path, {"format": "driftproof-suite/1", "cases": [{**base, "criteria": [crit]}]}
            )
        )
        hashes.add(rubric_sha256(s.cases[0]))
    assert len(hashes) == 4
    s = load_suite(_write(tmp_path, {"format": "driftproof-suite/1", "cases": SUITE["cases"]}))
    assert rubric_sha256(s.cases[0]) != rubric_sha256(s.cases[2])


def test_an_id_or_language_with_a_trailing_line_break_is_refused(tmp_path):
    # Python's "$" matches before a final newline: "c1\n" passed as a case id (the receipt's
    # schema then refused it when the run was written) and "pt\n" as a language
    doc = {"format": "driftproof-suite/1", "cases": [_case(id="c1\n")]}
    assert _problems(tmp_path, doc) == [
        ("/cases/0/id", 'expected an id matching ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$, found "c1\\n"')
    ]
    doc = {"format": "driftproof-suite/1", "language": "pt\n", "cases": [_case()]}
    assert _problems(tmp_path, doc) == [
        ("/language", "expected a language tag such as en, pt or pt-BR")
    ]


def test_reference_gives_the_suites_own_size_bound_not_as_a_receipts():
    # a receipt may hold 256 MiB (RECEIPT_MAX_BYTES); 32 MiB is the suite's own bound
    from pathlib import Path

    from driftproof.receipt._bounds import MAX_DEPTH, RECEIPT_MAX_BYTES
    from driftproof.run.suite_fields import SUITE_MAX_BYTES

    assert (SUITE_MAX_BYTES, MAX_DEPTH) == (32 * 2**20, 64) and RECEIPT_MAX_BYTES != SUITE_MAX_BYTES
    reference = (Path(__file__).resolve().parents[2] / "docs" / "reference.md").read_text(
        encoding="utf-8"
    )
    text = " ".join(reference.split())
    assert "A suite is held to 32 MiB and to a receipt's bounds (nesting 64 levels," in text


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        ("s.json", "[1]", "an array"),
        ("s.json", '"cases"', "a string"),
        ("s.yaml", "- 1\n", "an array"),
        ("s.yaml", "# only a comment\n", "nothing (or null)"),  # YAML reads an empty file as null
    ],
)
def test_a_suite_that_is_not_an_object_says_what_it_is(tmp_path, capsys, name, text, found):
    # found: the shapes a suite may take, then what the file held (an array of NVIDIA's legacy
    # evals.json said only "expected a JSON object", naming no format to write)
    from factories import run_main

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, _, err = run_main(["suite", "check", str(path)], capsys)
    assert code == 2
    shapes = (
        'expected a suite: {"format": "driftproof-suite/1", "cases": [...]}, a skill-creator '
        'evals.json {"evals": [...]}, or caveman fidelity.json {"cases": [...]}'
    )
    assert err == f"error: {path}: {shapes}; found {found}\n"


def test_a_suite_over_the_size_cap_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    from factories import run_main

    monkeypatch.setattr("driftproof.run.suite.SUITE_MAX_BYTES", 10)
    path = _write(tmp_path, {"format": "driftproof-suite/1", "cases": []})
    size = len(path.read_bytes())
    code, _, err = run_main(["suite", "check", str(path)], capsys)
    assert code == 2
    assert err == f"error: {path}: expected at most 10 bytes, got {size}\n"


@pytest.mark.parametrize("lang", ["pt_BR", "a" * 36, "pt-"])
def test_run_refuses_a_lang_that_is_no_language_tag(suite_file, tmp_path, capsys, lang):
    from factories import run_main

    skill = tmp_path / "SKILL.md"
    skill.write_text("Be brief.", encoding="utf-8")
    out = tmp_path / "r.json"
    argv = ["run", str(suite_file), "--skill", str(skill), "--model", "m", "--lang", lang]
    code, _, err = run_main([*argv, "--provider", "simulated", "--out", str(out)], capsys)
    assert code == 2 and not out.exists()
    assert err == (
        f"error: {suite_file}: --lang {lang!r}: expected a language tag such as en, pt or pt-BR\n"
    )
