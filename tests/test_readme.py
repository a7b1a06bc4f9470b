"""The README and its reference pages in docs/ stay true: the checks table and the commands
match the code, the tests they name exist, and every link lands."""

from __future__ import annotations

import re
from pathlib import Path

from humangr.cli.main import build_parser
from humangr.engine.checks import checks_markdown

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PAGES = {path: path.read_text() for path in [ROOT / "README.md", *sorted(ROOT.glob("docs/*.md"))]}
ALL_TEXT = "\n".join(PAGES.values())


def test_readme_opens_with_the_two_make_commands() -> None:
    first_block = README.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split()[:2] for line in first_block] == [["make", "run"], ["make", "test"]]


def test_readme_lists_the_local_checks_exactly_as_the_registry_has_them() -> None:
    assert checks_markdown().strip() in (ROOT / "docs" / "checks.md").read_text()


def test_every_subcommand_is_documented() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert commands is not None
    missing = [name for name in commands if f"humangr {name}" not in ALL_TEXT]
    assert missing == []


def test_every_test_the_readme_names_exists() -> None:
    """The guarantees point at tests; a renamed or deleted test must not leave a dead claim."""
    root = Path(__file__).resolve().parents[1]
    named = set(re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?`", ALL_TEXT))
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
    for row in re.findall(r"^\|.*\|$", ALL_TEXT, flags=re.MULTILINE):
        path = None
        for match in re.finditer(r"`(?:(tests/[\w/]+\.py)|…)::(\w+)`", row):
            path = match.group(1) or path
            if path and f"def {match.group(2)}(" not in (root / path).read_text():
                missing.append(f"{path}::{match.group(2)}")
    assert missing == []


def _anchors(text: str) -> set[str]:
    """GitHub's anchors of the headings in ``text``."""
    heads = (line.lstrip("#").strip().lower() for line in text.splitlines() if line[:1] == "#")
    return {re.sub(r"[^\w\- ]", "", head).replace(" ", "-") for head in heads}


def test_every_link_between_the_pages_lands() -> None:
    broken = []
    for page, text in PAGES.items():
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest.read_text()):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []
