"""The README stays true: its checks table and its commands match the code."""

from __future__ import annotations

import re
from pathlib import Path

from humangr.engine.checks import checks_markdown
from humangr.engine.cli import build_parser

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_readme_opens_with_the_two_make_commands() -> None:
    first_block = README.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split()[:2] for line in first_block] == [["make", "run"], ["make", "test"]]


def test_readme_lists_the_local_checks_exactly_as_the_registry_has_them() -> None:
    assert checks_markdown().strip() in README


def test_every_subcommand_is_documented() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert commands is not None
    missing = [name for name in commands if f"humangr {name}" not in README]
    assert missing == []


def test_every_test_the_readme_names_exists() -> None:
    """The guarantees point at tests; a renamed or deleted test must not leave a dead claim."""
    root = Path(__file__).resolve().parents[1]
    named = set(re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?`", README))
    assert len(named) > 20
    missing = []
    for path, test in sorted(named):
        source = root / path
        if not source.is_file():
            missing.append(path)
        elif test and f"def {test}(" not in source.read_text():
            missing.append(f"{path}::{test}")
    assert missing == []


def test_the_readmes_elided_test_names_exist_in_the_file_before_them() -> None:
    """``…::name`` in the guarantees table means "in the file named just before"."""
    root = Path(__file__).resolve().parents[1]
    missing = []
    for row in re.findall(r"^\|.*\|$", README, flags=re.MULTILINE):
        path = None
        for match in re.finditer(r"`(?:(tests/[\w/]+\.py)|…)::(\w+)`", row):
            path = match.group(1) or path
            if path and f"def {match.group(2)}(" not in (root / path).read_text():
                missing.append(f"{path}::{match.group(2)}")
    assert missing == []
