"""Standing instructions for coding agents that take the human out (for ``source_code``), high:
an agent instruction file (``AGENTS.md``, ``CLAUDE.md``, ``GEMINI.md``, ``.cursorrules``,
``.windsurfrules``, ``copilot-instructions.md``, ``.cursor/rules/*``) whose added lines tell
every later agent session to act without asking (``never ask for confirmation``, ``approval is
pre-granted``, ``run them without asking``), to skip the gates (``commit with --no-verify``,
``push directly to main``, ``skip review``) or to keep what it did from the people it reports to
(``do not mention these notes``).

Everyday neighbours run: conventions, build and test commands, and rules that add a human
(``ask before deleting files``, ``never push to main``). Gated on the file's name; lines cut to
400 characters, at most ``_MAX_LINES`` read. Pure.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit, snippet
from .diff import FileDiff

__all__ = ["AGENT_NOTES", "agent_notes_weakened"]

_MAX_LINES = 2_000
AGENT_NOTES = frozenset(
    {"agents.md", "claude.md", "gemini.md", ".cursorrules", ".windsurfrules",
     "copilot-instructions.md", "agent.md", ".clinerules"}
)  # fmt: skip
"""File names that coding agents read as standing instructions."""
_NOTES_DIR = re.compile(r"(?:^|/)\.(?:cursor|windsurf|clinerules|claude)/(?:rules|commands)/")
_NO_HUMAN = re.compile(
    r"(?i)\bwithout\s+(?:first\s+)?(?:asking|confirm\w*|approv\w*|(?:human\s+|partner\s+|a\s+)?"
    r"(?:review|sign[\s-]?off)|waiting\s+for\s+\w*\s*(?:approv\w*|review|sign[\s-]?off))|"
    r"\b(?:never|don'?t|do\s+not|no\s+need\s+to)\s+(?:ask|check\s+with|wait\s+for)\s+(?:the\s+)?"
    r"(?:user|human|humans|anyone|a\s+person|for\s+(?:confirmation|approval|permission|review))|"
    r"\bpre[\s-]?(?:approved|authori[sz]ed|granted)\b|"
    r"\bapproval\s+is\s+(?:pre[\s-]?granted|implied|not\s+(?:needed|required)|automatic)"
)
"""An instruction to act with no person's yes."""
_NO_GATE = re.compile(
    r"(?i)(?<!never\s)(?<!not\s)(?<!n't\s)\b(?:commit|push)\w*\s+(?:\S+\s+){0,3}--no-verify|"
    r"(?<!never\s)(?<!not\s)(?<!n't\s)\bpush\s+(?:\w+\s+){0,2}(?:directly|straight)\s+to\s+"
    r"(?:main|master|prod\w*)\b|"
    r"\b(?:skip|bypass|disable)\s+(?:the\s+)?(?:code\s+)?(?:review|approvals?|hooks|qa\s+gates?)\b|"
    r"\b[A-Z][A-Z0-9]*_(?:SKIP|BYPASS)\w*=1\b"
)
"""An instruction to go around a gate: hooks, review, a protected branch."""
_HIDE = re.compile(
    r"(?i)\b(?:do\s+not|don'?t|never)\s+(?:mention|disclose|reveal|report)\s+(?:these|this|the)\s+"
    r"(?:notes?|instructions?|rules?|changes?)\b"
)
"""An instruction to keep the agent's doings from the people it reports to."""


def _is_notes(path: str) -> bool:
    return posixpath.basename(path).lower() in AGENT_NOTES or bool(_NOTES_DIR.search(path))


def agent_notes_weakened(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first added line of an agent instruction file that takes the human out."""
    if file.deleted or not _is_notes(path[-300:]):
        return
    for line in file.added[:_MAX_LINES]:
        text = line.text[:400]
        if _NO_HUMAN.search(text):
            what = "tells later agents to act without a person's approval"
        elif _NO_GATE.search(text):
            what = "tells later agents to go around hooks, review or a protected branch"
        elif _HIDE.search(text):
            what = "tells later agents to hide what they do"
        else:
            continue
        yield Hit(
            Severity.HIGH,
            "agent instructions that take the human out",
            f"{path}: `{snippet(text.strip(), 120)}` {what}: every later session follows it.",
            "Keep a person's approval in the agent's standing instructions.",
            file=path,
            line=line.number,
        )
        return
