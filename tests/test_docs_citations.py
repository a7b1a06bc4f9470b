"""The design is in the repository and everything cites it there.

Code, tests and pages cite ``docs/design.md#<anchor>`` (or "docs/design.md, <section>"); a
citation of a design file outside the repository, of the original specifications, or of a
numbered section that no longer exists is refused, and every cited anchor must be a heading of
docs/design.md. The subjects table there must also name every subject the code builds.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from humangr.contracts.subjects import Subjects

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "design.md"
SUFFIXES = (".py", ".md", ".toml")
SKIPPED_DIRS = {"build", "dist", "node_modules", "__pycache__"}
"""Folders the scan skips without git (with it, what git ignores), besides hidden ones."""
SECTIONS = (
    "The house",
    "Subjects",
    "Review semantics",
    "State",
    "The delivery pipeline",
    "Where we depart from the original specification",
)
"""The sections other code may rely on being there."""

OUTSIDE = [
    (re.compile(r"DESIGN\.md"), "cites DESIGN.md, a file outside the repository"),
    (re.compile(r"\.\./shared\b"), "cites ../shared, outside the repository"),
    (
        re.compile(r"(?<![\w/.-])seeds/"),
        "cites seeds/, the original specifications, which are not in the repository",
    ),
    (
        re.compile(r"design\.md,?\s*(?:§|sections?\s+\d)", re.IGNORECASE),
        "cites a numbered section; docs/design.md has anchors, not numbers",
    ),
]
ANCHOR_CITATION = re.compile(r"design\.md#([A-Za-z0-9_-]+)")
NAMED_CITATION = re.compile(r"docs/design\.md, ([A-Z][^\n]*)")


def _listed() -> list[str]:
    """The files git tracks or would track (untracked but not ignored), or ``[]`` without git."""
    try:
        done = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return done.stdout.splitlines()


def _skipped(folder: str) -> bool:
    return folder.startswith(".") or folder in SKIPPED_DIRS or folder.endswith(".egg-info")


@cache
def sources() -> dict[str, str]:
    """Every ``.py``, ``.md`` and ``.toml`` file of the repository (relative path → text), this
    test excepted: it spells the patterns it looks for."""
    names = _listed() or [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*")
        if path.is_file() and not any(_skipped(part) for part in path.relative_to(ROOT).parts[:-1])
    ]
    me = str(Path(__file__).resolve().relative_to(ROOT))
    found = {}
    for name in names:
        path = ROOT / name
        if name == me or not name.endswith(SUFFIXES) or not path.is_file():
            continue
        found[name] = path.read_text(encoding="utf-8", errors="replace")
    return found


def _headings(text: str) -> list[str]:
    """The headings of a markdown text, outside fenced code blocks."""
    heads, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            heads.append(line.lstrip("#").strip())
    return heads


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def design_anchors() -> set[str]:
    return {anchor(head) for head in _headings(DESIGN.read_text(encoding="utf-8"))}


def test_the_scan_sees_the_repository() -> None:
    """A scan that finds nothing proves nothing: it must see the code, the tests and the docs."""
    seen = sources()
    for name in ("contracts/subjects.py", "engine/review/gate.py", "README.md", "docs/design.md"):
        assert name in seen, f"{name} was not scanned; the file list is wrong"
    assert len(seen) > 300


def test_no_file_cites_a_design_outside_the_repository() -> None:
    problems = [
        f"{name}:{text.count(chr(10), 0, match.start()) + 1}: {why} ({match.group(0)!r})"
        for name, text in sorted(sources().items())
        for pattern, why in OUTSIDE
        for match in pattern.finditer(text)
    ]
    assert problems == [], (
        "cite the section of docs/design.md instead (docs/design.md#<anchor>):\n"
        + "\n".join(problems)
    )


def test_design_has_the_sections_code_relies_on() -> None:
    heads = _headings(DESIGN.read_text(encoding="utf-8"))
    missing = [section for section in SECTIONS if section not in heads]
    assert missing == [], f"docs/design.md lacks the section(s) {missing}"
    duplicated = sorted({a for a in map(anchor, heads) if list(map(anchor, heads)).count(a) > 1})
    assert duplicated == [], f"headings with the same anchor in docs/design.md: {duplicated}"


def test_every_cited_anchor_is_a_heading_of_the_design() -> None:
    anchors = design_anchors()
    cited = {
        (name, match.group(1))
        for name, text in sources().items()
        for match in ANCHOR_CITATION.finditer(text)
    }
    assert len(cited) >= 10, "the code cites the design; the citation scan found too few"
    broken = sorted(f"{name}: design.md#{found}" for name, found in cited if found not in anchors)
    assert broken == [], "citations of anchors docs/design.md does not have:\n" + "\n".join(broken)


def test_every_cited_section_name_is_a_heading_of_the_design() -> None:
    heads = [head.casefold() for head in _headings(DESIGN.read_text(encoding="utf-8"))]
    broken = [
        f"{name}: docs/design.md, {match.group(1)}"
        for name, text in sorted(sources().items())
        for match in NAMED_CITATION.finditer(text)
        if not any(match.group(1).casefold().startswith(head) for head in heads)
    ]
    assert broken == [], "citations of sections docs/design.md does not have:\n" + "\n".join(broken)


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("see DESIGN.md §4", True),
        ('"""The gates of DESIGN.md section 7."""', True),
        ("The design is in `../shared/DESIGN.md`.", True),
        ("read seeds/S05_layer_base.md for intent", True),
        ("docs/design.md §4", True),
        ("docs/design.md section 4", True),
        ("docs/design.md#the-veto-gate", False),
        ("engine/bus/seeds.py and tests/seeds/case.json", False),
        ("docs/design.md, Review semantics", False),
    ],
)
def test_the_patterns_catch_outside_citations_only(text: str, bad: bool) -> None:
    assert any(pattern.search(text) for pattern, _ in OUTSIDE) is bad


def _table_subjects() -> list[re.Pattern[str]]:
    """The subjects of the design's subjects table, as patterns (``<name>`` is one token)."""
    text = DESIGN.read_text(encoding="utf-8")
    section = text.split("\n## Subjects\n", 1)[1].split("\n## ", 1)[0]
    subjects = re.findall(r"^\| `([^`]+)`", section, flags=re.MULTILINE)
    assert len(subjects) > 15, "the subjects table of docs/design.md was not found"
    return [
        re.compile(
            "".join(r"[^.]+" if part.startswith("<") else re.escape(part) for part in pieces)
        )
        for pieces in (re.split(r"(<[^>]+>)", subject) for subject in subjects)
    ]


def _code_subjects() -> dict[str, str]:
    """Every subject ``Subjects`` builds (name → subject), with ``x1`` for each token."""
    subjects = Subjects()
    built = {}
    for name in dir(Subjects):
        if name.startswith("_"):
            continue
        member = getattr(subjects, name)
        try:
            value = member("x1") if callable(member) else member
        except (TypeError, ValueError, IndexError):
            continue
        if isinstance(value, str) and value.startswith(f"{subjects.prefix}."):
            built[name] = value
    return built


def test_the_subjects_table_names_every_subject_the_code_builds() -> None:
    built = _code_subjects()
    assert {"action_cancel", "decision", "dlq", "layer_report"} <= set(built)
    patterns = _table_subjects()
    missing = sorted(
        f"Subjects.{name} = {subject}"
        for name, subject in built.items()
        if not any(pattern.fullmatch(subject) for pattern in patterns)
    )
    assert missing == [], (
        "docs/design.md#subjects has no row for (add one: payload, publisher, consumer, "
        "transport):\n" + "\n".join(missing)
    )
