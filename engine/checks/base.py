"""What a check sees (``CheckInput``), what it returns (``Hit``) and how it is described."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from humangr.contracts import ActionContext, LayerID, Severity

from .diff import DiffLine, DiffParse, FileDiff, read_input
from .fragments import PyFile, python_view
from .options import DEFAULT_OPTIONS, CheckOptions
from .taint import Analysis, analyze
from .testfiles import is_test_path
from .tools.files import ToolFiles, tool_files
from .tools.view import ToolView, tool_view

if TYPE_CHECKING:
    from .bandit_scan import BanditHit

__all__ = [
    "Check",
    "CheckInput",
    "CheckOptions",
    "Hit",
    "Source",
    "is_python",
    "is_test_path",
    "read_action",
    "snippet",
]

Source = Literal["bandit", "detect-secrets", "humangr"]

_PY_EXT = (".py", ".pyi", ".pyw")


@dataclass(frozen=True, slots=True)
class Hit:
    """One problem a check found; the registry turns it into a ``contracts.Finding``."""

    severity: Severity
    title: str
    description: str
    suggestion: str | None = None
    file: str | None = None
    line: int | None = None
    argument: str | None = None
    """For a tool call: the argument the hit concerns (its path, ``headers.Cookie``)."""


@dataclass(frozen=True, slots=True)
class Check:
    """One deterministic check: where its findings go, what it is, and where it comes from."""

    layer: LayerID
    id: str
    name: str
    sources: tuple[Source, ...]
    severity: str
    """How severities are assigned, for the documentation table."""
    run: Callable[[CheckInput], Iterable[Hit]] = field(repr=False, compare=False)
    claim: str = ""
    """The vulnerability class the check claims to find (empty: no claim is made)."""
    limits: str = ""
    """What a claimed check does not cover."""
    fallback: bool = False
    """Runs only when no LLM reviews the action (``local_only``) and no check before it found
    anything that blocks: it can ask for a person where nothing else would, never add to a
    veto already there (two layers' medium vetoes reject)."""

    @property
    def source(self) -> str:
        return " + ".join(self.sources)


def is_python(file: FileDiff) -> bool:
    """A ``.py`` file, a Python shebang, or unnamed content that parses as Python."""
    path = file.path or ""
    if path.lower().endswith(_PY_EXT):
        return True
    first = next((ln.text for h in file.hunks for ln in h.lines if ln.new == 1), "")
    if first.startswith("#!") and "python" in first:
        return True
    if path or not file.new_file:
        return False
    return _parses("\n".join(ln.text for ln in file.added))


@functools.lru_cache(maxsize=64)
def _parses(source: str) -> bool:
    """Whether ``source`` parses as Python. Cached by the text alone, a few at a time: a cache
    keyed by the parsed file kept every file of every action reviewed (hundreds of MB after a
    flood of large diffs)."""
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def snippet(text: str, limit: int = 160) -> str:
    """A line shortened for a finding's description."""
    s = text.strip()
    return s if len(s) <= limit else s[: limit - 1] + "…"


def read_action(action: ActionContext) -> DiffParse:
    """The files of an action: its diff parsed when it is one from its first line, else its
    content read as one new file (``read_input``)."""
    default = action.affected_files[0] if action.affected_files else None
    return read_input(action.code_diff, "auto", default)


class CheckInput:
    """The action under review, its parsed files and lazily built Python views (cached)."""

    def __init__(self, action: ActionContext, options: CheckOptions = DEFAULT_OPTIONS) -> None:
        self.action = action
        self.options = options
        self.parse = read_action(action)
        self.tool: ToolView | None = None
        self.tool_files = ToolFiles()
        if action.tool_call is not None:
            self.tool = tool_view(action.tool_call)
            self.tool_files = tool_files(self.tool, self.parse.files)
        self.files = self.parse.files + tuple(self.tool_files.files)
        self._py: dict[int, PyFile | None] = {}
        self._bandit: dict[int, list[BanditHit]] = {}
        self._taint: Analysis | None = None
        self._python_files: tuple[PyFile, ...] | None = None

    def added(self) -> Iterator[tuple[FileDiff, DiffLine]]:
        """Every added line of every file."""
        for f in self.files:
            for ln in f.added:
                yield f, ln

    def python(self, f: FileDiff) -> PyFile | None:
        """The fragments of a Python file (None for other files)."""
        key = id(f)
        if key not in self._py:
            self._py[key] = python_view(f) if is_python(f) and f.hunks else None
        return self._py[key]

    def python_files(self) -> Iterator[PyFile]:
        """The Python views of the action's Python files (built once)."""
        if self._python_files is None:
            self._python_files = tuple(py for f in self.files if (py := self.python(f)) is not None)
        return iter(self._python_files)

    def taint(self) -> Analysis:
        """The taint engine's sinks over every Python file of the action (run once)."""
        if self._taint is None:
            self._taint = analyze(list(self.python_files()))
        return self._taint

    def bandit(self, f: FileDiff) -> list[BanditHit]:
        """Bandit's issues on the added lines of a Python file (run once per file).

        bandit is imported on the first call, not with this package (start-up time).
        """
        key = id(f)
        if key not in self._bandit:
            from .bandit_scan import run_bandit

            py = self.python(f)
            hits: list[BanditHit] = []
            for frag in py.fragments if py is not None else []:
                hits.extend(run_bandit(frag))
            self._bandit[key] = hits
        return self._bandit[key]
