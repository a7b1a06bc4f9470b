"""The README stays true: its checks table and its commands match the code."""

from __future__ import annotations

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
