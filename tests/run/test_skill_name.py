"""The skill's name a run records: ``--skill-name``, else the front matter's, else the folder's.

Worked out from ``driftproof run --help``: a name is at most 200 characters, and a name that is
no name (blank, or not text) is refused where it was written, not replaced.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from driftproof.run.skill_name import RunOptionError, skill_name_of

SKILL = "---\nname: commit-style\ndescription: d\n---\n# Commit style\n"
#: PyYAML's words for a character it does not read (its code point in hex).
BAD_CHAR = "unacceptable character #x%04x: special characters are not allowed"


def test_the_skill_name_is_the_front_matter_name_else_the_folder(tmp_path: Path) -> None:
    assert skill_name_of(tmp_path / "a" / "SKILL.md", SKILL) == "commit-style"
    assert skill_name_of(tmp_path / "my-skill" / "SKILL.md", "# no front matter\n") == "my-skill"
    # found: a byte-order mark before the front matter hid it, and the folder's name was taken
    assert skill_name_of(tmp_path / "d" / "SKILL.md", "\ufeff---\nname: bom\n---\nb\n") == "bom"
    with pytest.raises(RunOptionError) as exc:  # found: a blank --skill-name fell back in silence
        skill_name_of(tmp_path / "e" / "SKILL.md", SKILL, " ")
    assert (exc.value.option, exc.value.message) == (
        "--skill-name",
        "expected the skill's name, found a blank one",
    )


@pytest.mark.parametrize(
    ("front", "said"),
    [  # YAML's problem, and its line and column in the file (the front matter's first is 2)
        ("name: a\x1b[31mred", f"{BAD_CHAR % 0x1B}, line 2, column 8"),
        ("name: [unclosed", "expected ',' or ']', but got '<stream end>', line 2, column 16"),
        ("description: d\nname: ok\nnote: \x07", f"{BAD_CHAR % 0x07}, line 4, column 7"),
        # nested past Python's stack: a RecursionError traceback once ended run
        ("name: x\nq: " + "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_a_front_matter_yaml_cannot_read_is_refused_not_given_the_folders_name(
    tmp_path: Path, front: str, said: str
) -> None:
    # Found: such front matter gave the folder's name in silence, past the refusal of a name
    # with a control character in it
    path, skill = tmp_path / "folder" / "SKILL.md", f"---\n{front}\n---\nBe terse.\n"
    with pytest.raises(RunOptionError) as exc:
        skill_name_of(path, skill)
    assert (exc.value.option, exc.value.message) == (
        "--skill",
        f"{path}: its front matter could not be read as YAML ({said}); give the skill's name "
        "with --skill-name",
    )
    assert skill_name_of(path, skill, "given") == "given"


@pytest.mark.parametrize(
    ("front", "found"),
    [
        ('name: "  "', 'found the blank text "  "'),
        ('name: "\\u200b"', 'found the blank text "\\u200b"'),  # a zero-width space
        ("name:", "found null"),
        ("name: 42", "found 42"),
    ],
)
def test_a_front_matter_name_that_is_no_name_is_refused_not_replaced(
    tmp_path: Path, front: str, found: str
) -> None:
    # found: a front matter name of spaces fell back to the folder's name in silence
    path = tmp_path / "folder" / "SKILL.md"
    with pytest.raises(RunOptionError) as exc:
        skill_name_of(path, f"---\n{front}\ndescription: d\n---\nBe terse.\n")
    assert (exc.value.option, exc.value.message) == (
        "--skill",
        f"{path}: the front matter's name: expected the skill's name, {found}; give one there "
        "or with --skill-name",
    )
    assert skill_name_of(path, f"---\n{front}\n---\nBe terse.\n", "given") == "given"


def test_a_skill_name_past_200_characters_is_refused_before_any_call(tmp_path: Path) -> None:
    # Found: the front matter's or folder's name was cut to 200 in silence and published as the
    # skill's; a --skill-name past 200 ran every draw, then the receipt was refused at /skill/name
    path = tmp_path / "s" / "SKILL.md"
    front = "---\nname: " + "n" * 201 + "\n---\nBe terse.\n"
    assert skill_name_of(path, front.replace("n" * 201, "n" * 200)) == "n" * 200
    refusals = [
        ((path, front), "--skill", f"{path}: the front matter's name: expected at most 200"
         " characters, found 201; give a shorter one with --skill-name"),
        ((tmp_path / ("f" * 201) / "SKILL.md", "body"), "--skill",
         f"{tmp_path / ('f' * 201) / 'SKILL.md'}: its folder's name: expected at most 200"
         " characters, found 201; give a shorter one with --skill-name"),
        ((path, front, "g" * 250), "--skill-name",
         "expected at most 200 characters, found 250"),
    ]  # fmt: skip
    for args, option, message in refusals:
        with pytest.raises(RunOptionError) as exc:
            skill_name_of(*args)
        assert (exc.value.option, exc.value.message) == (option, message)
    assert skill_name_of(path, front, "short") == "short"  # a given name wins over the file's


@pytest.mark.parametrize(("folder", "shown"), [("   ", '"   "'), ("\u200b", '"\\u200b"')])
def test_a_folder_name_that_is_no_name_is_refused(tmp_path: Path, folder: str, shown: str) -> None:
    # found in review: with no front matter, a folder named by spaces or a zero-width space was
    # published as the skill's name, past the one blank rule every other name is held to
    path = tmp_path / folder / "SKILL.md"
    with pytest.raises(RunOptionError) as exc:
        skill_name_of(path, "Be terse.\n")
    assert (exc.value.option, exc.value.message) == (
        "--skill",
        f"{path}: its folder's name: expected the skill's name, found the blank text {shown}; "
        "give one with --skill-name",
    )
    assert skill_name_of(path, "Be terse.\n", "given") == "given"
    assert skill_name_of(tmp_path / " a " / "SKILL.md", "Be terse.\n") == " a "  # as before


@pytest.mark.parametrize(
    ("yaml", "name", "code", "at"),
    [
        ("a\\nb", "a\nb", "U+000A", 2),  # a line break, escaped in YAML
        ("ab\\x1b[31m", "ab\x1b[31m", "U+001B", 3),  # an escape, as a terminal colour starts
        ("abc\\a", "abc\a", "U+0007", 4),  # a bell
    ],
)
def test_a_front_matter_name_with_a_control_character_is_refused_as_the_option_is(
    tmp_path: Path, yaml: str, name: str, code: str, at: int
) -> None:
    # Found: `--skill-name` holding a control character was refused, while the same name in the
    # front matter was kept, and shown escaped wherever the receipt was read
    path, skill = tmp_path / "folder" / "SKILL.md", f'---\nname: "{yaml}"\n---\nBe terse.\n'
    why = f"expected the skill's name on one line, with no control character; found {code} at "
    with pytest.raises(RunOptionError) as exc:
        skill_name_of(path, skill)
    assert (exc.value.option, exc.value.message) == (
        "--skill",
        f"{path}: the front matter's name: {why}character {at}; give another with --skill-name",
    )
    with pytest.raises(RunOptionError) as exc:  # the same name given as the option
        skill_name_of(path, SKILL, name)
    assert (exc.value.option, exc.value.message) == ("--skill-name", f"{why}character {at}")
    assert skill_name_of(path, skill, "given") == "given"
    folder = tmp_path / f"x{name}" / "SKILL.md"  # the folder's name, with no front matter's
    with pytest.raises(RunOptionError) as exc:
        skill_name_of(folder, "Be terse.\n")
    assert exc.value.message == (
        f"{folder}: its folder's name: {why}character {at + 1}; give another with --skill-name"
    )
